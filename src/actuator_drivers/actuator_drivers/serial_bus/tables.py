"""Control tables as data, for every serial-bus family: one
:class:`Register` per item (address, size, access, power-up value, range, raw <-> SI) and the
:class:`ControlTable` of one servo model. The families list their own tables
(e.g. ``dynamixel.tables``).

Raw <-> SI (:meth:`Register.to_si`, :meth:`Register.from_si`)::

    si  = (decode(raw) - offset) * scale
    raw = encode(round(si / scale) + offset)

where ``decode`` reads the register's encoding: ``unsigned``, ``signed`` (two's complement on
its size) or ``sign_magnitude`` (bits 0-9 magnitude, bit 10 set for the negative direction, the
Dynamixel Protocol 1.0 speed/load; a family with another sign bit subclasses). Positions are
4096 counts per turn with 2048 <-> 0 rad, counter-clockwise positive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

POSITION_LSB = 2 * math.pi / 4096  # rad per encoder count
CENTER = 2048  # encoder count of 0 rad


@dataclass(frozen=True)
class Register:
    """One control-table item.

    Attributes:
        name: snake_case item name (``goal_position``). address, size: location [bytes].
        writable: RW (True) or R. eeprom: in the EEPROM area (Protocol 2.0: writable only with
        torque off). initial: value at power-up (raw). low, high: documented range of the decoded
        value (None: unbounded). encoding: ``unsigned`` | ``signed`` | ``sign_magnitude``.
        scale: SI units per LSB. offset: raw value of SI zero. unit: SI unit, for messages.
    """

    name: str
    address: int
    size: int
    writable: bool = False
    eeprom: bool = False
    initial: int = 0
    low: Optional[int] = None
    high: Optional[int] = None
    encoding: str = "unsigned"
    scale: float = 1.0
    offset: int = 0
    unit: str = ""

    @property
    def end(self) -> int:
        """First address after the register."""
        return self.address + self.size

    def decode(self, raw: int) -> int:
        """Raw unsigned register value -> signed integer per the encoding."""
        if self.encoding == "signed":
            bits = 8 * self.size
            return raw - (1 << bits) if raw & (1 << (bits - 1)) else raw
        if self.encoding == "sign_magnitude":
            return -(raw & 0x3FF) if raw & 0x400 else raw & 0x3FF
        return raw

    def encode(self, value: int) -> int:
        """Signed integer -> raw unsigned register value (saturated to what the register holds)."""
        if self.encoding == "sign_magnitude":
            magnitude = min(abs(value), 0x3FF)
            return magnitude | (0x400 if value < 0 else 0)
        bits = 8 * self.size
        if self.encoding == "signed":
            value = max(-(1 << (bits - 1)), min((1 << (bits - 1)) - 1, value))
            return value & ((1 << bits) - 1)
        return max(0, min((1 << bits) - 1, value))

    def to_si(self, raw: int) -> float:
        """Raw register value -> SI value."""
        return (self.decode(raw) - self.offset) * self.scale

    def from_si(self, value: float) -> int:
        """SI value -> raw register value (rounded to the nearest LSB, saturated)."""
        return self.encode(int(round(value / self.scale)) + self.offset)

    def in_range(self, raw: int) -> bool:
        """Whether a raw value is within the register's documented range (``low``/``high``
        compare with the decoded value)."""
        value = self.decode(raw)
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)



@dataclass(frozen=True)
class ControlTable:
    """The control table of one servo model and firmware protocol, and its unit facts.

    Attributes:
        actuator: core actuator name (``mx64``, ``mx106``, ``xl330``). title: model name.
        protocol: 1 or 2. model_number: value of Model Number(0). firmware: reported version.
        registers: every item, by name. gain_register: the position P gain item.
        kp_per_lsb: the core library's ``kp`` per LSB of the gain register (1 for MX Protocol
        1.0 "P Gain" and XL330 "Position P Gain"; 1/16 for MX(2.0), whose Position P Gain is
        P/128 where Protocol 1.0 uses P/8). effort_register: load (P1) or PWM (P2) item,
        scaled to a signed fraction of full drive. state_registers: the items read every cycle
        (one contiguous block). min_limit/max_limit: the position-limit items.
        pwm_register: Present PWM item (None in Protocol 1.0). current_register: present
        current item.
    """

    actuator: str
    title: str
    protocol: int
    model_number: int
    firmware: int
    registers: Dict[str, Register]
    gain_register: str
    kp_per_lsb: float
    effort_register: str
    state_registers: Tuple[str, ...]
    min_limit: str
    max_limit: str
    pwm_register: Optional[str]
    current_register: str

    def __getitem__(self, name: str) -> Register:
        try:
            return self.registers[name]
        except KeyError:
            raise KeyError(f"{self.title} (protocol {self.protocol}) has no register {name!r}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.registers

    @property
    def size(self) -> int:
        """Bytes of control-table memory (one past the last register)."""
        return max(r.end for r in self.registers.values())

    @property
    def state_block(self) -> Tuple[int, int]:
        """``(start address, length)`` of the block read every cycle."""
        regs = [self[name] for name in self.state_registers]
        start = min(r.address for r in regs)
        return start, max(r.end for r in regs) - start

    def covering(self, address: int) -> Optional[Register]:
        """The register that contains byte ``address`` (None for a gap)."""
        for register in self.registers.values():
            if register.address <= address < register.end:
                return register
        return None

    def kp_to_raw(self, kp: float) -> int:
        """Core-library gain -> gain register value; raises ValueError outside the register range."""
        reg = self[self.gain_register]
        raw = int(round(kp / self.kp_per_lsb))
        if not reg.in_range(raw) or abs(raw * self.kp_per_lsb - kp) > 1e-9 * max(1.0, abs(kp)):
            raise ValueError(
                f"kp {kp}: not a value the {self.title} {reg.name} register can hold "
                f"(raw {reg.low}..{reg.high}, kp step {self.kp_per_lsb:g})"
            )
        return raw
