"""The firmware core of one emulated serial-bus servo: control-table memory, READ / WRITE /
REG WRITE / ACTION, and its shaft.

:class:`SerialServo` holds a family's control table as bytes (real addresses, sizes and
power-up values) and moves its shaft with the core simulator
(:class:`actuator_models.simulation.PendulumSimulator`, the actuator's own control law): every
``physics_dt`` of bench time the firmware tracks Goal Position with the gain register as the
core ``kp``. A family subclass (``dynamixel_emulator.firmware``, ...) supplies the write rules,
the status error byte, hardware faults, when the shaft is driven and the Present registers.

Errors are protocol-neutral *fault names* (``access``, ``data_range``, ``data_length``,
``data_limit``, ``instruction``, ``crc``, ``result_fail``); :meth:`SerialServo.status_error`
turns them into the family's status error byte.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

from actuator_models.addition_thermal import register_temperature
from actuator_models.divergence import probe_servo
from actuator_models.model import Model
from actuator_models.simulation import BENCH_DT, Pendulum, PendulumSimulator

from actuator_drivers.serial_bus.tables import ControlTable, Register


@dataclass(frozen=True)
class ServoSetup:
    """How one emulated servo is set up besides its table, model and load: ``servo_id`` (the ID
    register), ``vin`` supply voltage [V] (the model's default if None), ``physics_dt`` simulation
    step [s] of bench time."""

    servo_id: int = 1
    vin: Optional[float] = None
    physics_dt: float = BENCH_DT


class SerialServo:
    """One servo: control table, instruction semantics and the simulated shaft.

    Args:
        table: the model's control table (fixes protocol, model number, registers).
        model: core servo model driving the shaft (e.g. ``load_model("mx64/m6")``).
        bench: pendulum load.
        servo_id: ID register value.
        vin: supply voltage [V] (model default if None); reported in the voltage register.
        temperature: the servo's temperature at power-up [degC]: what the register reports, the
            start of a ``thermal`` model's nodes (the register then reads its case node), the
            constant a ``heating`` model assumes.
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
        physics_dt: float = BENCH_DT,
    ) -> None:
        if model.actuator.name != table.actuator:
            raise ValueError(f"model {model.actuator.name!r} does not drive a {table.title} (actuator {table.actuator!r})")
        if not physics_dt > 0:
            raise ValueError(f"physics_dt {physics_dt!r}: must be positive")
        self.table = table
        self.model = model
        self.physics_dt = physics_dt
        self.sim = PendulumSimulator(model, bench, vin=vin, q=q, temperature=temperature)
        self.steps = 0  # simulation steps done; the shaft is at bench time steps * physics_dt
        self.hardware_error = 0  # the family's hardware fault bits
        self.memory = bytearray(table.size)
        self._registered: Optional[Tuple[int, bytes]] = None
        self._power_up(keep_eeprom=False)
        self.poke("id", servo_id)
        # values the step cannot integrate are refused, not emulated (DivergentStep, a ValueError)
        probe_servo(model, bench, self.peek(table.gain_register) * table.kp_per_lsb, physics_dt, vin, temperature)

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
    def temperature(self) -> float:
        """What the temperature register reports [degC]: the simulated case node of a ``thermal``
        model, else the power-up temperature (:func:`~actuator_models.addition_thermal.register_temperature`)."""
        return register_temperature(self.sim.temperatures, self.sim.temperature)

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

    @property
    def registered_flag(self) -> str:
        """The register that flags a pending REG WRITE."""
        return "registered"

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
        self.poke(self.registered_flag, 1)
        return None

    def action(self) -> Optional[str]:
        """ACTION: apply the registered write."""
        if self._registered is None:
            return "instruction"
        address, data = self._registered
        self._registered = None
        self.poke(self.registered_flag, 0)
        return self.write(address, data)

    def _check_write(self, address: int, data: bytes) -> Tuple[list, Optional[str]]:
        """The items ``[(register, raw)]`` a write of ``data`` at ``address`` sets, or ``([], fault)``:
        every byte in a writable item, each item written whole, each value accepted by
        :meth:`_check_value`."""
        items = []
        index = 0
        while index < len(data):
            reg = self.table.covering(address + index)
            if reg is None or not reg.writable:
                return [], "access"
            if reg.address != address + index or index + reg.size > len(data):
                return [], "data_length"
            raw, fault = self._check_value(reg, int.from_bytes(data[index : index + reg.size], "little"))
            if fault:
                return [], fault
            items.append((reg, raw))
            index += reg.size
        return items, None

    def _check_value(self, reg: Register, raw: int) -> Tuple[int, Optional[str]]:
        """``(raw value to store, fault)`` of one written item: its documented range (a family's
        rules add to it, and may change the value, e.g. clamp a goal)."""
        return raw, None if reg.in_range(raw) else "data_range"

    def status_error(self, fault: Optional[str] = None) -> int:
        """The status packet's error byte for ``fault`` plus the hardware state (family rule)."""
        raise NotImplementedError

    def inject_hardware_error(self, *names: str) -> None:
        """Raise the family's hardware error bits by name."""
        raise NotImplementedError

    # ------------------------------------------------------------------ physics
    def set_bench(self, bench: Pendulum) -> None:
        """Change the pendulum load, keeping the servo's state (shaft, temperatures, latency)."""
        self.sim.bench = bench

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
        """Whether the firmware drives the shaft (torque on, position mode: family rule)."""
        raise NotImplementedError

    def _position_raw(self, reg: Register) -> int:
        return reg.from_si(self.sim.q)

    def _refresh(self) -> None:
        """Present registers from the simulated state (raw units, quantised; family rule)."""
        raise NotImplementedError
