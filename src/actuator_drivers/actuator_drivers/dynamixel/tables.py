"""Dynamixel control tables as data: MX-64 / MX-106 (Protocol 1.0 and 2.0 firmware), XL330-M288.

Each :class:`ControlTable` lists the real registers (address, size, access, initial value,
range) and how the driver turns raw values into SI units. Sources: ROBOTIS e-manual pages for
MX-64, MX-106, MX-64(2.0), MX-106(2.0) and XL330-M288 (see
``shared/docs/HARDWARE_ROS_REFERENCE.md`` section 1). Indirect address/data registers are not
listed.

Registers and tables are the serial-bus core's (:mod:`actuator_drivers.serial_bus.tables`: raw
<-> SI, encodings); Protocol 1.0 speed/load are ``sign_magnitude`` (bit 10 set for the clockwise
= negative direction). Positions use the ROBOTIS convention 2048 <-> 0 rad, counter-clockwise
positive.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Dict, Optional, Tuple

from actuator_drivers.serial_bus.tables import CENTER, POSITION_LSB, ControlTable, Register

RPM = 2 * math.pi / 60  # rad/s per rpm


def _r(name: str, address: int, size: int, **kw) -> Register:
    return Register(name, address, size, **kw)


def _rw(name: str, address: int, size: int, **kw) -> Register:
    return Register(name, address, size, writable=True, **kw)


def _eeprom(name: str, address: int, size: int, **kw) -> Register:
    return Register(name, address, size, writable=True, eeprom=True, **kw)


def _table(**kw) -> ControlTable:
    registers = kw.pop("registers")
    return ControlTable(registers={r.name: r for r in registers}, **kw)


_POS = dict(encoding="unsigned", scale=POSITION_LSB, offset=CENTER, unit="rad")
_POS2 = dict(encoding="signed", scale=POSITION_LSB, offset=CENTER, unit="rad")


def _mx_protocol1(actuator: str, title: str, model_number: int, max_voltage: int, drive_mode: bool) -> ControlTable:
    """MX-64 / MX-106 with Protocol 1.0 firmware (e-manual MX-64, MX-106)."""
    registers = [
        _r("model_number", 0, 2, initial=model_number),
        _r("firmware_version", 2, 1, initial=41),
        _eeprom("id", 3, 1, initial=1, low=0, high=253),
        _eeprom("baud_rate", 4, 1, initial=34, low=0, high=254),
        _eeprom("return_delay_time", 5, 1, initial=250, low=0, high=254, scale=2e-6, unit="s"),
        _eeprom("cw_angle_limit", 6, 2, initial=0, low=0, high=4095, **_POS),
        _eeprom("ccw_angle_limit", 8, 2, initial=4095, low=0, high=4095, **_POS),
        *([_eeprom("drive_mode", 10, 1, initial=0, low=0, high=3)] if drive_mode else []),
        _eeprom("temperature_limit", 11, 1, initial=80, low=0, high=99, unit="degC"),
        _eeprom("min_voltage_limit", 12, 1, initial=60, low=50, high=250, scale=0.1, unit="V"),
        _eeprom("max_voltage_limit", 13, 1, initial=max_voltage, low=50, high=250, scale=0.1, unit="V"),
        _eeprom("max_torque", 14, 2, initial=1023, low=0, high=1023),
        _eeprom("status_return_level", 16, 1, initial=2, low=0, high=2),
        _eeprom("alarm_led", 17, 1, initial=36, low=0, high=127),
        _eeprom("shutdown", 18, 1, initial=36, low=0, high=127),
        _eeprom("multi_turn_offset", 20, 2, initial=0, low=-24576, high=24576, encoding="signed"),
        _eeprom("resolution_divider", 22, 1, initial=1, low=1, high=4),
        _rw("torque_enable", 24, 1, initial=0, low=0, high=1),
        _rw("led", 25, 1, initial=0, low=0, high=1),
        _rw("d_gain", 26, 1, initial=0, low=0, high=254),
        _rw("i_gain", 27, 1, initial=0, low=0, high=254),
        _rw("p_gain", 28, 1, initial=32, low=0, high=254),
        _rw("goal_position", 30, 2, initial=CENTER, low=0, high=4095, **_POS),
        _rw("moving_speed", 32, 2, initial=0, low=-1023, high=1023, encoding="sign_magnitude", scale=0.114 * RPM, unit="rad/s"),
        _rw("torque_limit", 34, 2, initial=1023, low=0, high=1023, scale=1 / 1023),
        _r("present_position", 36, 2, **_POS),
        _r("present_speed", 38, 2, encoding="sign_magnitude", scale=0.114 * RPM, unit="rad/s"),
        _r("present_load", 40, 2, encoding="sign_magnitude", scale=1 / 1023, unit="1"),
        _r("present_voltage", 42, 1, scale=0.1, unit="V"),
        _r("present_temperature", 43, 1, unit="degC"),
        _r("registered", 44, 1),
        _r("moving", 46, 1),
        _rw("lock", 47, 1, initial=0, low=0, high=1),
        _rw("punch", 48, 2, initial=0, low=0, high=1023),
        _r("realtime_tick", 50, 2, scale=1e-3, unit="s"),
        _rw("current", 68, 2, initial=CENTER, low=0, high=4095, scale=4.5e-3, offset=CENTER, unit="A"),
        _rw("torque_ctrl_mode_enable", 70, 1, initial=0, low=0, high=1),
        _rw("goal_torque", 71, 2, initial=0, low=-1023, high=1023, encoding="sign_magnitude", scale=4.5e-3, unit="A"),
        _rw("goal_acceleration", 73, 1, initial=0, low=0, high=254),
    ]
    return _table(
        actuator=actuator,
        title=title,
        protocol=1,
        model_number=model_number,
        firmware=41,
        registers=registers,
        gain_register="p_gain",
        kp_per_lsb=1.0,
        effort_register="present_load",
        state_registers=("present_position", "present_speed", "present_load", "present_voltage", "present_temperature"),
        min_limit="cw_angle_limit",
        max_limit="ccw_angle_limit",
        pwm_register=None,
        current_register="current",
    )


def _protocol2(
    actuator: str,
    title: str,
    model_number: int,
    firmware: int,
    *,
    temperature_limit: int,
    voltage_limits: Tuple[int, int],
    current_limit: int,
    current_lsb: float,
    velocity_limit: int,
    shutdown: int,
    velocity_gains: Tuple[int, int],
    position_p_gain: int,
    kp_per_lsb: float,
    xl330: bool,
) -> ControlTable:
    """MX(2.0) and X-series Protocol 2.0 control table (e-manual MX-64(2.0), MX-106(2.0), XL330)."""
    max_v, min_v = voltage_limits
    current = dict(encoding="signed", scale=current_lsb, unit="A")
    velocity = dict(encoding="signed", scale=0.229 * RPM, unit="rad/s")
    registers = [
        _r("model_number", 0, 2, initial=model_number),
        _r("model_information", 2, 4),
        _r("firmware_version", 6, 1, initial=firmware),
        _eeprom("id", 7, 1, initial=1, low=0, high=252),
        _eeprom("baud_rate", 8, 1, initial=1, low=0, high=6 if xl330 else 7),
        _eeprom("return_delay_time", 9, 1, initial=250, low=0, high=254, scale=2e-6, unit="s"),
        _eeprom("drive_mode", 10, 1, initial=0, low=0, high=13 if xl330 else 5),
        _eeprom("operating_mode", 11, 1, initial=3, low=0, high=16),
        _eeprom("secondary_id", 12, 1, initial=255, low=0, high=255),
        _eeprom("protocol_type", 13, 1, initial=2, low=1, high=22),
        _eeprom("homing_offset", 20, 4, initial=0, low=-1044479, high=1044479, encoding="signed"),
        _eeprom("moving_threshold", 24, 4, initial=10, low=0, high=1023),
        _eeprom("temperature_limit", 31, 1, initial=temperature_limit, low=0, high=100, unit="degC"),
        _eeprom("max_voltage_limit", 32, 2, initial=max_v, low=min_v if xl330 else 95, high=max_v, scale=0.1, unit="V"),
        _eeprom("min_voltage_limit", 34, 2, initial=min_v, low=min_v if xl330 else 95, high=max_v, scale=0.1, unit="V"),
        _eeprom("pwm_limit", 36, 2, initial=885, low=0, high=885, scale=1 / 885),
        _eeprom("current_limit", 38, 2, initial=current_limit, low=0, high=current_limit, **current),
        *([] if xl330 else [_eeprom("acceleration_limit", 40, 4, initial=32767, low=0, high=32767)]),
        _eeprom("velocity_limit", 44, 4, initial=velocity_limit, low=0, high=2047 if xl330 else 1023, **velocity),
        _eeprom("max_position_limit", 48, 4, initial=4095, low=0, high=4095, **_POS2),
        _eeprom("min_position_limit", 52, 4, initial=0, low=0, high=4095, **_POS2),
        *(
            [_eeprom("startup_configuration", 60, 1, initial=0, low=0, high=3), _eeprom("pwm_slope", 62, 1, initial=140, low=1, high=255)]
            if xl330
            else []
        ),
        _eeprom("shutdown", 63, 1, initial=shutdown, low=0, high=255),
        _rw("torque_enable", 64, 1, initial=0, low=0, high=1),
        _rw("led", 65, 1, initial=0, low=0, high=1),
        _rw("status_return_level", 68, 1, initial=2, low=0, high=2),
        _r("registered_instruction", 69, 1),
        _r("hardware_error_status", 70, 1),
        _rw("velocity_i_gain", 76, 2, initial=velocity_gains[0], low=0, high=16383),
        _rw("velocity_p_gain", 78, 2, initial=velocity_gains[1], low=0, high=16383),
        _rw("position_d_gain", 80, 2, initial=0, low=0, high=16383),
        _rw("position_i_gain", 82, 2, initial=0, low=0, high=16383),
        _rw("position_p_gain", 84, 2, initial=position_p_gain, low=0, high=16383),
        _rw("feedforward_2nd_gain", 88, 2, initial=0, low=0, high=16383),
        _rw("feedforward_1st_gain", 90, 2, initial=0, low=0, high=16383),
        _rw("bus_watchdog", 98, 1, initial=0, low=0, high=127, encoding="signed"),
        _rw("goal_pwm", 100, 2, initial=885, low=-885, high=885, encoding="signed", scale=1 / 885),
        _rw("goal_current", 102, 2, initial=current_limit, low=-current_limit, high=current_limit, **current),
        _rw("goal_velocity", 104, 4, initial=0, low=-velocity_limit, high=velocity_limit, **velocity),
        _rw("profile_acceleration", 108, 4, initial=0, low=0, high=32767),
        _rw("profile_velocity", 112, 4, initial=0, low=0, high=32767),
        _rw("goal_position", 116, 4, initial=CENTER, low=-1048575, high=1048575, **_POS2),
        _r("realtime_tick", 120, 2, scale=1e-3, unit="s"),
        _r("moving", 122, 1),
        _r("moving_status", 123, 1),
        _r("present_pwm", 124, 2, encoding="signed", scale=1 / 885, unit="1"),
        _r("present_current", 126, 2, **current),
        _r("present_velocity", 128, 4, **velocity),
        _r("present_position", 132, 4, **_POS2),
        _r("velocity_trajectory", 136, 4, **velocity),
        _r("position_trajectory", 140, 4, **_POS2),
        _r("present_input_voltage", 144, 2, scale=0.1, unit="V"),
        _r("present_temperature", 146, 1, unit="degC"),
        *([_r("backup_ready", 147, 1)] if xl330 else []),
    ]
    return _table(
        actuator=actuator,
        title=title,
        protocol=2,
        model_number=model_number,
        firmware=firmware,
        registers=registers,
        gain_register="position_p_gain",
        kp_per_lsb=kp_per_lsb,
        effort_register="present_pwm",
        state_registers=(
            "present_pwm",
            "present_current",
            "present_velocity",
            "present_position",
            "present_input_voltage",
            "present_temperature",
        ),
        min_limit="min_position_limit",
        max_limit="max_position_limit",
        pwm_register="present_pwm",
        current_register="present_current",
    )


#: the MX(2.0) Protocol 2.0 tables (MX-64 and MX-106 differ in their current and velocity limits)
_mx2 = partial(_protocol2, temperature_limit=80, voltage_limits=(160, 95), current_lsb=3.36e-3, shutdown=52,
               velocity_gains=(1920, 100), position_p_gain=850, kp_per_lsb=1 / 16, xl330=False, firmware=45)

TABLES: Dict[Tuple[str, int], ControlTable] = {
    (t.actuator, t.protocol): t
    for t in (
        _mx_protocol1("mx64", "MX-64", 310, max_voltage=240, drive_mode=False),
        _mx_protocol1("mx106", "MX-106", 320, max_voltage=160, drive_mode=True),
        _mx2("mx64", "MX-64(2.0)", 311, current_limit=1941, velocity_limit=435),
        _mx2("mx106", "MX-106(2.0)", 321, current_limit=2047, velocity_limit=360),
        _protocol2(
            "xl330", "XL330-M288", 1200, 46,
            temperature_limit=70, voltage_limits=(70, 35), current_limit=1750, current_lsb=1e-3,
            velocity_limit=445, shutdown=53, velocity_gains=(1600, 180), position_p_gain=400,
            kp_per_lsb=1.0, xl330=True,
        ),
    )
}


def control_table(actuator: str, protocol: int) -> ControlTable:
    """The control table of ``actuator`` (``mx64``, ``mx106``, ``xl330``) under ``protocol`` (1 or 2)."""
    try:
        return TABLES[(actuator.lower(), int(protocol))]
    except (KeyError, ValueError):
        choices = ", ".join(f"{a} (protocol {p})" for a, p in TABLES)
        raise ValueError(f"no Dynamixel control table for actuator {actuator!r} protocol {protocol!r}; "
                         f"expected one of {choices}") from None


def table_for_model_number(model_number: int, protocol: int) -> Optional[ControlTable]:
    """The table whose Model Number is ``model_number`` under ``protocol`` (None if unknown)."""
    for table in TABLES.values():
        if table.model_number == model_number and table.protocol == protocol:
            return table
    return None



def table_actuators() -> Tuple[str, ...]:
    """Actuators with a Dynamixel control table (the registry CLIs and node parameters read)."""
    return tuple(sorted({actuator for actuator, _ in TABLES}))
