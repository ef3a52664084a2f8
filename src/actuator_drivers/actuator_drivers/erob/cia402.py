"""The CiA 402 drive state machine (IEC 61800-7-201), shared by the driver and the emulated drive.

Controlword (0x6040) commands and statusword (0x6041) decoding follow
``shared/docs/HARDWARE_ROS_REFERENCE.md`` section 3.3 (the same truth table as ros_canopen).
ZeroErr's enable sequence: 0x0080 (fault reset) -> 0x0006 (shutdown) -> 0x0007 (switch on) ->
0x000F (enable operation).
"""

from __future__ import annotations

from enum import Enum

# controlword commands
FAULT_RESET = 0x0080
SHUTDOWN = 0x0006
SWITCH_ON = 0x0007
ENABLE_OPERATION = 0x000F
DISABLE_VOLTAGE = 0x0000
QUICK_STOP = 0x0002

# statusword bits
SW_FAULT = 0x0008
SW_WARNING = 0x0080
SW_REMOTE = 0x0200
SW_TARGET_REACHED = 0x0400
SW_FOLLOWS_COMMAND = 0x1000

MODE_CST = 10  # cyclic synchronous torque


class State(Enum):
    """Drive states."""

    NOT_READY = "not ready to switch on"
    SWITCH_ON_DISABLED = "switch on disabled"
    READY_TO_SWITCH_ON = "ready to switch on"
    SWITCHED_ON = "switched on"
    OPERATION_ENABLED = "operation enabled"
    QUICK_STOP_ACTIVE = "quick stop active"
    FAULT_REACTION_ACTIVE = "fault reaction active"
    FAULT = "fault"


#: statusword bits (mask 0x6F) of each state, as a drive reports it
_STATUS = {
    State.NOT_READY: 0x00,
    State.SWITCH_ON_DISABLED: 0x40,
    State.READY_TO_SWITCH_ON: 0x21,
    State.SWITCHED_ON: 0x23,
    State.OPERATION_ENABLED: 0x27,
    State.QUICK_STOP_ACTIVE: 0x07,
    State.FAULT_REACTION_ACTIVE: 0x0F,
    State.FAULT: 0x08,
}


def decode(statusword: int) -> State:
    """The drive state a statusword reports."""
    sw = statusword
    if sw & 0x4F == 0x08:
        return State.FAULT
    if sw & 0x4F == 0x0F:
        return State.FAULT_REACTION_ACTIVE
    if sw & 0x4F == 0x40:
        return State.SWITCH_ON_DISABLED
    if sw & 0x4F == 0x00:
        return State.NOT_READY
    masked = sw & 0x6F
    for state in (State.READY_TO_SWITCH_ON, State.SWITCHED_ON, State.OPERATION_ENABLED, State.QUICK_STOP_ACTIVE):
        if masked == _STATUS[state]:
            return state
    return State.NOT_READY


def statusword(state: State, extra: int = 0) -> int:
    """The statusword a drive in ``state`` reports (voltage-enabled bit 4 when powered, plus ``extra``)."""
    sw = _STATUS[state]
    if state in (State.READY_TO_SWITCH_ON, State.SWITCHED_ON, State.OPERATION_ENABLED, State.QUICK_STOP_ACTIVE):
        sw |= 0x10
    return sw | extra


def transition(state: State, controlword: int, previous: int) -> State:
    """The drive's next state for ``controlword`` (``previous``: last cycle's, for the fault-reset edge)."""
    cw = controlword
    if state == State.FAULT_REACTION_ACTIVE:
        return State.FAULT
    if state == State.FAULT:
        rising = bool(cw & FAULT_RESET) and not previous & FAULT_RESET
        return State.SWITCH_ON_DISABLED if rising else State.FAULT
    if state == State.NOT_READY:
        return State.SWITCH_ON_DISABLED
    if cw & FAULT_RESET:
        return state
    disable_voltage = not cw & 0x02
    quick_stop = cw & 0x06 == 0x02
    shutdown = cw & 0x07 == 0x06
    switch_on = cw & 0x0F == 0x07
    enable = cw & 0x0F == 0x0F
    if disable_voltage:
        return State.SWITCH_ON_DISABLED
    if state == State.SWITCH_ON_DISABLED:
        return State.READY_TO_SWITCH_ON if shutdown else state
    if quick_stop:
        return State.QUICK_STOP_ACTIVE if state == State.OPERATION_ENABLED else State.SWITCH_ON_DISABLED
    if state == State.READY_TO_SWITCH_ON:
        return State.SWITCHED_ON if (switch_on or enable) else state
    if state == State.SWITCHED_ON:
        if shutdown:
            return State.READY_TO_SWITCH_ON
        return State.OPERATION_ENABLED if enable else state
    if state == State.OPERATION_ENABLED:
        if shutdown:
            return State.READY_TO_SWITCH_ON
        return State.SWITCHED_ON if switch_on else state
    if state == State.QUICK_STOP_ACTIVE:
        return State.OPERATION_ENABLED if enable else state
    return state


def next_command(state: State, target: State = State.OPERATION_ENABLED) -> int:
    """The controlword that moves a drive one step from ``state`` toward ``target``
    (operation enabled, or switched on to release the torque with power kept)."""
    if state in (State.FAULT, State.FAULT_REACTION_ACTIVE):
        return FAULT_RESET
    if state in (State.NOT_READY, State.SWITCH_ON_DISABLED):
        return SHUTDOWN
    if state == State.READY_TO_SWITCH_ON:
        return SWITCH_ON
    if state == State.SWITCHED_ON:
        return ENABLE_OPERATION if target == State.OPERATION_ENABLED else SWITCH_ON
    if state == State.QUICK_STOP_ACTIVE:
        return DISABLE_VOLTAGE
    return ENABLE_OPERATION if target == State.OPERATION_ENABLED else SWITCH_ON


def controlword(state: State, enable: bool, previous: int) -> int:
    """This cycle's controlword for a drive in ``state``: one step toward operation enabled
    (``enable``) or switched on; a fault is reset only while enabling (releasing leaves it
    latched for the user to read), and only on a rising edge of bit 7 (``previous``: last cycle's
    controlword)."""
    cw = next_command(state, State.OPERATION_ENABLED if enable else State.SWITCHED_ON)
    if cw == FAULT_RESET and (not enable or previous & FAULT_RESET):
        return DISABLE_VOLTAGE
    return cw


def torque_on(state: State) -> bool:
    """Whether a drive in ``state`` drives its motor."""
    return state in (State.OPERATION_ENABLED, State.QUICK_STOP_ACTIVE)
