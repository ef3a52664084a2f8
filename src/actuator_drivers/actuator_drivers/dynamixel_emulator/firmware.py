"""The firmware of one emulated Dynamixel: the serial-bus servo core
(:class:`~actuator_drivers.serial_bus_emulator.firmware.SerialServo`: control-table memory,
READ/WRITE/REG WRITE/ACTION, the shaft) with the Dynamixel rules.

:class:`EmulatedServo` holds the servo's control table as bytes (real addresses, sizes and
power-up values from :mod:`actuator_drivers.dynamixel.tables`), applies the servo's write rules
(read-only items, ranges, position limits, EEPROM lock) and refreshes the Present registers
from the simulated state, quantised to the register's LSB (4096 counts/rev for positions).

Not emulated: profiles, moving speed, torque limit values other than 0, D/I gains, velocity,
current and PWM operating modes (the shaft is only driven in the position modes 3, 4, 5),
indirect addresses, factory reset.

Errors are protocol-neutral *fault names* here (``access``, ``data_range``, ``data_length``,
``data_limit``, ``instruction``, ``crc``, ``result_fail``); :meth:`EmulatedServo.status_error`
turns them into the protocol's status error byte.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from actuator_drivers.dynamixel.errors import HARDWARE_ERROR_BITS, P1_ERROR_BITS, P2_ALERT, P2_ERROR_NUMBERS, bits_of
from actuator_drivers.dynamixel.tables import Register
from actuator_drivers.serial_bus_emulator.firmware import SerialServo

#: Protocol 1.0 error bit for each fault name.
_P1_FAULT_BITS = {
    "access": "range",
    "data_range": "range",
    "data_length": "range",
    "data_limit": "angle_limit",
    "instruction": "instruction",
    "crc": "checksum",
    "result_fail": "range",
}
_P2_FAULT_NUMBERS = {name: number for number, name in P2_ERROR_NUMBERS.items()}
_POSITION_MODES = (3, 4, 5)


class EmulatedServo(SerialServo):
    """One Dynamixel servo (arguments: :class:`~actuator_drivers.serial_bus_emulator.firmware.SerialServo`;
    the table fixes protocol, model number and registers)."""

    @property
    def registered_flag(self) -> str:
        return "registered" if self.protocol == 1 else "registered_instruction"

    def reboot(self) -> None:
        """REBOOT (Protocol 2.0): RAM back to power-up values, hardware error cleared, torque off."""
        self.hardware_error = 0
        self._registered = None
        self._power_up(keep_eeprom=True)

    def _check_value(self, reg: Register, raw: int) -> Tuple[int, Optional[str]]:
        """EEPROM lock (P1 Lock, P2 torque on), range, position limits (refused), torque on in alarm (P2)."""
        if reg.eeprom and (self.torque_enabled if self.protocol == 2 else self.peek("lock") == 1):
            return raw, "access"
        if not reg.in_range(raw):
            return raw, "data_range"
        if reg.name == "goal_position" and self._limits_apply():
            low, high = self.peek(self.table.min_limit), self.peek(self.table.max_limit)
            if not low <= reg.decode(raw) <= high:
                return raw, "data_limit"
        if reg.name == "torque_enable" and raw == 1 and self.protocol == 2 and self.hardware_error:
            return raw, "result_fail"
        return raw, None

    def _limits_apply(self) -> bool:
        if self.protocol == 1:
            cw, ccw = self.peek("cw_angle_limit"), self.peek("ccw_angle_limit")
            return not (cw == ccw == 0 or cw == ccw == 4095)  # wheel / multi-turn modes
        return self.peek("operating_mode") == 3

    def status_error(self, fault: Optional[str] = None) -> int:
        """The status packet's error byte for ``fault`` plus the hardware state."""
        if self.protocol == 1:
            names = [n for n in HARDWARE_ERROR_BITS.values() if self._hardware_bit(n)]
            byte = bits_of(names, P1_ERROR_BITS)
            if fault:
                byte |= bits_of([_P1_FAULT_BITS[fault]], P1_ERROR_BITS)
            return byte
        return (P2_ALERT if self.hardware_error else 0) | (_P2_FAULT_NUMBERS[fault] if fault else 0)

    # ------------------------------------------------------------------ hardware faults
    def inject_hardware_error(self, *names: str) -> None:
        """Raise hardware error bits (``overload``, ``overheating``, ``input_voltage``, and on
        Protocol 2.0 ``motor_encoder``, ``electrical_shock``). Bits in the Shutdown mask turn the
        torque off (Protocol 1.0: Torque Limit set to 0, as the firmware does)."""
        bits = bits_of(names, HARDWARE_ERROR_BITS)
        if self.protocol == 1:
            p1 = bits_of(names, P1_ERROR_BITS)
            shut = p1 & self.peek("shutdown")
        else:
            shut = bits & self.peek("shutdown")
        self.hardware_error |= bits
        if self.protocol == 2:
            self.poke("hardware_error_status", self.hardware_error)
        if shut:
            self.poke("torque_enable", 0)
            if self.protocol == 1:
                self.poke("torque_limit", 0)

    def _hardware_bit(self, name: str) -> bool:
        return bool(self.hardware_error & bits_of([name], HARDWARE_ERROR_BITS))

    # ------------------------------------------------------------------ shaft and Present registers
    def _drive_enabled(self) -> bool:
        if not self.torque_enabled:
            return False
        if self.protocol == 1:
            return self.peek("torque_limit") > 0 and self.peek("torque_ctrl_mode_enable") == 0
        return self.peek("operating_mode") in _POSITION_MODES

    def _position_raw(self, reg: Register) -> int:
        raw = reg.from_si(self.sim.q)
        return raw % 4096 if self.protocol == 1 else raw

    def _refresh(self) -> None:
        """Present registers from the simulated state (raw units, quantised)."""
        sim, table = self.sim, self.table
        enabled = self._drive_enabled()
        duty = sim.control / sim.vin if enabled and sim.vin else 0.0
        current = sim.motor_torque / self.model.values["kt"] if enabled else 0.0
        fields: Dict[str, float] = {
            "present_voltage" if self.protocol == 1 else "present_input_voltage": sim.vin,
            "present_temperature": self.temperature,
            "present_speed" if self.protocol == 1 else "present_velocity": sim.v,
            table.effort_register: duty,
            table.current_register: current,
            "realtime_tick": (self.time % 32.768),
        }
        for name, value in fields.items():
            self.poke(name, table[name].from_si(value))
        self.poke("present_position", self._position_raw(table["present_position"]))
        moving = abs(sim.v) > 0.02
        self.poke("moving", int(moving))
        if self.protocol == 2:
            self.poke("position_trajectory", self.peek("goal_position"))
            self.poke("moving_status", int(moving) << 1)

