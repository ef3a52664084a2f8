"""The firmware of one emulated Feetech STS servo: control-table memory, READ/WRITE rules, status
error bits and its shaft.

:class:`StsServo` holds the STS3215 control table as bytes (real addresses and power-up values
from :mod:`actuator_drivers.feetech.tables`) and moves its shaft with the core simulator
(:class:`actuator_models.simulation.PendulumSimulator`) driven by the STS law
(:class:`actuator_models.actuators.SpeedLimitedVoltage`): every ``physics_dt`` of bench time the
firmware's smoothed target moves towards Goal Position at most ``target_speed_limit`` times dt,
then ``duty = min(0.97, 0.166 kp error)`` with P Coefficient as ``kp``; the Present registers are
refreshed from the simulated state, quantised (4096 counts per turn, speeds in counts/s,
load = PWM duty in 0.1 %, voltage in 0.1 V, current in 6.5 mA), negative values sign-magnitude.

Write rules: a write covering a read-only item or a gap, or with a value out of the item's range,
is not applied (the STS status byte has no instruction-error bit: the reply carries the fault
bits only); Goal Position is clamped to the position limits, as the firmware does.
Fault bits (:meth:`StsServo.inject_hardware_error`) in the Unloading Condition mask (19) turn
the torque off and refuse torque on until cleared.

Not emulated: acceleration and goal-speed profiles, goal time, wheel/PWM/step modes (the shaft
is driven only in position mode 0), the homing offset, flash persistence (Lock).
"""

from __future__ import annotations

from typing import Optional, Tuple

from ..feetech.errors import status_byte
from ..serial_bus.tables import Register
from ..serial_bus_emulator.firmware import SerialServo


class StsServo(SerialServo):
    """One STS servo: control table, instruction semantics and the simulated shaft (memory,
    READ/WRITE/REG WRITE/ACTION, the shaft and the load change are the serial-bus servo core's; the
    STS write rules, status byte, faults and registers are here).

    Args:
        table: the control table (``feetech.tables.sts3215()``).
        model: core servo model of an STS actuator driving the shaft (e.g. ``sts3215/m1``).
        bench: pendulum load. servo_id: ID register value. vin: supply voltage [V] (model default
        7.4 V if None). temperature [degC]. q: initial shaft angle [rad]. physics_dt: step [s].
    """

    @property
    def status_return_level(self) -> int:
        """On the bus's scale (1: answer PING and READ only, 2: answer everything) from the STS
        register (0: PING and READ only, 1: everything)."""
        return 2 if self.peek("status_return_level") else 1

    # ------------------------------------------------------------------ STS rules
    def _check_value(self, reg: Register, raw: int) -> Tuple[int, Optional[str]]:
        """Range; Goal Position clamped to the position limits; torque on refused in alarm."""
        if not reg.in_range(raw):
            return raw, "data_range"
        if reg.name == "goal_position":
            low, high = self.peek("min_position_limit"), self.peek("max_position_limit")
            raw = reg.encode(min(max(reg.decode(raw), low), high))
        if reg.name == "torque_enable" and raw and self.hardware_error & self.peek("unloading_condition"):
            return raw, "result_fail"
        return raw, None

    def status_error(self, fault: Optional[str] = None) -> int:
        """The status packet's error byte: the fault bits (the STS byte has no instruction errors)."""
        return self.hardware_error

    def inject_hardware_error(self, *names: str) -> None:
        """Raise fault bits (``input_voltage``, ``angle_sensor``, ``overheating``, ``overcurrent``,
        ``overload``); bits in the Unloading Condition mask turn the torque off."""
        bits = status_byte(names)
        self.hardware_error |= bits
        self.poke("status", self.hardware_error)
        if bits & self.peek("unloading_condition"):
            self.poke("torque_enable", 0)

    # ------------------------------------------------------------------ shaft and Present registers
    def _drive_enabled(self) -> bool:
        return self.torque_enabled and self.peek("operating_mode") == 0

    def _refresh(self) -> None:
        sim, table = self.sim, self.table
        enabled = self.torque_enabled
        duty = sim.control / sim.vin if enabled and sim.vin else 0.0
        current = sim.motor_torque / self.model.values["kt"] if enabled else 0.0
        for name, value in (("present_position", sim.q), ("present_velocity", sim.v), ("present_load", duty),
                            ("present_voltage", sim.vin), ("present_temperature", self.temperature),
                            ("present_current", current)):
            self.poke(name, table[name].from_si(value))
        self.poke("moving", int(abs(sim.v) > 0.02))
