"""The firmware of one emulated Dynamixel: control-table memory, READ/WRITE rules and its shaft.

:class:`EmulatedServo` holds the servo's control table as bytes (real addresses, sizes and
power-up values from :mod:`actuator_drivers.dynamixel.tables`), applies the servo's write rules (read-only items,
ranges, position limits, EEPROM lock) and moves its shaft with the core simulator
(:class:`actuator_models.simulation.PendulumSimulator`): every ``physics_dt`` of bench time the
firmware's control law tracks Goal Position with the P gain register as the core ``kp``, and the
Present registers are refreshed from the simulated state, quantised to the register's LSB
(4096 counts/rev for positions).

Not emulated: profiles, moving speed, torque limit values other than 0, D/I gains, velocity,
current and PWM operating modes (the shaft is only driven in the position modes 3, 4, 5),
indirect addresses, factory reset.

Errors are protocol-neutral *fault names* here (``access``, ``data_range``, ``data_length``,
``data_limit``, ``instruction``, ``crc``, ``result_fail``); :meth:`EmulatedServo.status_error`
turns them into the protocol's status error byte.
"""

from __future__ import annotations

import math
from typing import Dict, Optional, Tuple

from actuator_models.model import Model
from actuator_models.simulation import Pendulum, PendulumSimulator

from actuator_drivers.dynamixel.errors import HARDWARE_ERROR_BITS, P1_ERROR_BITS, P2_ALERT, P2_ERROR_NUMBERS, bits_of
from actuator_drivers.dynamixel.tables import ControlTable, Register

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


class EmulatedServo:
    """One servo: control table, instruction semantics and the simulated shaft.

    Args:
        table: the model's control table (fixes protocol, model number, registers).
        model: core servo model driving the shaft (e.g. ``load_model("mx64/m6")``).
        bench: pendulum load.
        servo_id: ID register value.
        vin: supply voltage [V] (model default if None); reported in the voltage register.
        temperature: reported temperature [degC].
        q: initial shaft angle [rad].
        physics_dt: simulation step [s] of bench time (the published parameters were identified
            at 5 ms).
    """

    def __init__(
        self,
        table: ControlTable,
        model: Model,
        bench: Pendulum,
        servo_id: int = 1,
        vin: Optional[float] = None,
        temperature: float = 30.0,
        q: float = 0.0,
        physics_dt: float = 0.005,
    ) -> None:
        if model.actuator.name != table.actuator:
            raise ValueError(f"model {model.actuator.name!r} does not drive a {table.title} (actuator {table.actuator!r})")
        if not physics_dt > 0:
            raise ValueError(f"physics_dt {physics_dt!r}: must be positive")
        self.table = table
        self.model = model
        self.physics_dt = physics_dt
        self.temperature = temperature
        self.sim = PendulumSimulator(model, bench, vin=vin, q=q)
        self.steps = 0  # simulation steps done; the shaft is at bench time steps * physics_dt
        self.hardware_error = 0  # Hardware Error Status bits (Protocol 2.0 layout)
        self.memory = bytearray(table.size)
        self._registered: Optional[Tuple[int, bytes]] = None
        self._power_up(keep_eeprom=False)
        self.poke("id", servo_id)

    # ------------------------------------------------------------------ memory
    def peek(self, name: str) -> int:
        """Raw value of a register."""
        reg = self.table[name]
        return int.from_bytes(self.memory[reg.address : reg.end], "little")

    def poke(self, name: str, raw: int) -> None:
        """Set a register's raw value directly (no write rules)."""
        reg = self.table[name]
        self.memory[reg.address : reg.end] = (raw & ((1 << (8 * reg.size)) - 1)).to_bytes(reg.size, "little")

    def value(self, name: str) -> float:
        """A register in SI units."""
        return self.table[name].to_si(self.peek(name))

    @property
    def servo_id(self) -> int:
        return self.peek("id")

    @property
    def time(self) -> float:
        """Bench time of the simulation [s]."""
        return self.steps * self.physics_dt

    @property
    def protocol(self) -> int:
        return self.table.protocol

    @property
    def return_delay(self) -> float:
        """Return Delay Time [s] of bench time."""
        return self.value("return_delay_time")

    @property
    def status_return_level(self) -> int:
        return self.peek("status_return_level")

    @property
    def torque_enabled(self) -> bool:
        return self.peek("torque_enable") == 1

    def _power_up(self, keep_eeprom: bool) -> None:
        for reg in self.table.registers.values():
            if not (keep_eeprom and reg.eeprom):
                self.poke(reg.name, reg.initial)
        self.poke("goal_position", self._position_raw(self.table["goal_position"]))
        self._refresh()

    # ------------------------------------------------------------------ instructions
    def read(self, address: int, length: int) -> Tuple[bytes, Optional[str]]:
        """READ: ``(data, fault)``. Gaps between items read as stored bytes (zero)."""
        if length < 1 or address + length > self.table.size:
            return b"", "access"
        return bytes(self.memory[address : address + length]), None

    def write(self, address: int, data: bytes) -> Optional[str]:
        """WRITE: apply every item of ``data`` or none; returns the fault name or None."""
        items, fault = self._check_write(address, data)
        if fault:
            return fault
        for reg, raw in items:
            self.poke(reg.name, raw)
        return None

    def reg_write(self, address: int, data: bytes) -> Optional[str]:
        """REG WRITE: check now, apply on ACTION."""
        _, fault = self._check_write(address, data)
        if fault:
            return fault
        self._registered = (address, bytes(data))
        self.poke("registered" if self.protocol == 1 else "registered_instruction", 1)
        return None

    def action(self) -> Optional[str]:
        """ACTION: apply the registered write."""
        if self._registered is None:
            return "instruction"
        address, data = self._registered
        self._registered = None
        self.poke("registered" if self.protocol == 1 else "registered_instruction", 0)
        return self.write(address, data)

    def reboot(self) -> None:
        """REBOOT (Protocol 2.0): RAM back to power-up values, hardware error cleared, torque off."""
        self.hardware_error = 0
        self._registered = None
        self._power_up(keep_eeprom=True)

    def _check_write(self, address: int, data: bytes) -> Tuple[list, Optional[str]]:
        items = []
        index = 0
        while index < len(data):
            reg = self.table.covering(address + index)
            if reg is None or not reg.writable:
                return [], "access"
            if reg.address != address + index or index + reg.size > len(data):
                return [], "data_length"
            raw = int.from_bytes(data[index : index + reg.size], "little")
            fault = self._check_value(reg, raw)
            if fault:
                return [], fault
            items.append((reg, raw))
            index += reg.size
        return items, None

    def _check_value(self, reg: Register, raw: int) -> Optional[str]:
        if reg.eeprom and (self.torque_enabled if self.protocol == 2 else self.peek("lock") == 1):
            return "access"
        if not reg.in_range(raw):
            return "data_range"
        if reg.name == "goal_position" and self._limits_apply():
            low, high = self.peek(self.table.min_limit), self.peek(self.table.max_limit)
            if not low <= reg.decode(raw) <= high:
                return "data_limit"
        if reg.name == "torque_enable" and raw == 1 and self.protocol == 2 and self.hardware_error:
            return "result_fail"
        return None

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

    # ------------------------------------------------------------------ physics
    def set_bench(self, bench: Pendulum) -> None:
        """Change the pendulum load, keeping the shaft state."""
        q, v = self.sim.q, self.sim.v
        self.sim = PendulumSimulator(self.model, bench, vin=self.sim.vin, q=q, v=v, integrator=self.sim.integrator)

    def advance(self, t: float) -> None:
        """Run the shaft up to bench time ``t`` [s] in ``physics_dt`` steps (the state depends only on
        the last ``t``, not on how many calls led there: step counts are integers)."""
        steps = math.floor(t / self.physics_dt + 1e-9) - self.steps
        if steps <= 0:
            return
        goal = self.value("goal_position")
        enable = self._drive_enabled()
        kp = self.peek(self.table.gain_register) * self.table.kp_per_lsb
        for _ in range(steps):
            self.sim.step(goal, enable, kp, self.physics_dt)
        self.steps += steps
        self._refresh()

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

