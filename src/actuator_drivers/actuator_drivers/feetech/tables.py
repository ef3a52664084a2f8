"""The Feetech STS3215 control table as data (addresses, sizes, power-up values, units).

Sources: the vendor SDK's ``sms_sts.py`` (ftservo-python-sdk 2.0.1: SMS_STS_* addresses), the
STS3215 memory table, and issue 22; ``docs/FEETECH.md`` cites each. STS/SMS servos store words
little-endian ("protocol end" 0 in the SDK; SCS servos are big-endian, end 1, not covered) and
signed values as *sign-magnitude*: bit 15 is the sign of positions and speeds, bit 11 of the
homing offset, bit 10 of the load (not two's complement).

Raw <-> SI as for every serial-bus table (:class:`~actuator_drivers.serial_bus.tables.Register`):
``si = (decode(raw) - offset) * scale``; positions are 4096 counts per turn with 2048 <-> 0 rad;
speeds are counts/s (so the same scale as positions, per second).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Dict, Optional, Tuple, TypedDict

from ..serial_bus.tables import CENTER, POSITION_LSB, ControlTable, Register

#: Model number of the STS3215 (address 3, 2 bytes).
STS3215_MODEL = 777
#: Baud rates the vendor SDK's PortHandler accepts.
SDK_BAUDRATES = (4800, 9600, 14400, 19200, 38400, 57600, 115200, 128000, 250000, 500000, 1000000)
#: STS "protocol end": 0 little-endian (STS/SMS), 1 big-endian (SCS).
STS_END = 0


@dataclass(frozen=True)
class StsRegister(Register):
    """A register whose negative values are sign-magnitude with the sign at ``sign_bit``
    (0: plain unsigned)."""

    sign_bit: int = 0

    def decode(self, raw: int) -> int:
        if not self.sign_bit:
            return super().decode(raw)
        magnitude = raw & ((1 << self.sign_bit) - 1)
        return -magnitude if raw & (1 << self.sign_bit) else magnitude

    def encode(self, value: int) -> int:
        if not self.sign_bit:
            return super().encode(value)
        magnitude = min(abs(value), (1 << self.sign_bit) - 1)
        return magnitude | ((1 << self.sign_bit) if value < 0 else 0)


_r = StsRegister  # read-only item
_rw = partial(StsRegister, writable=True)  # RAM item
_eeprom = partial(StsRegister, writable=True, eeprom=True)  # EEPROM item


class _Scaling(TypedDict, total=False):
    """The raw <-> SI fields of a :class:`StsRegister` that several registers share."""

    scale: float
    offset: int
    unit: str
    encoding: str
    sign_bit: int


_POS: _Scaling = {"scale": POSITION_LSB, "offset": CENTER, "unit": "rad"}
_SIGNED_POS: _Scaling = {**_POS, "encoding": "sign_magnitude", "sign_bit": 15}
_SPEED: _Scaling = {"scale": POSITION_LSB, "encoding": "sign_magnitude", "sign_bit": 15, "unit": "rad/s"}


def sts3215() -> ControlTable:
    """The STS3215 table (firmware 3.x as shipped on SO-100/SO-101 arms)."""
    registers = [
        _r("firmware_major", 0, 1, initial=3),
        _r("firmware_minor", 1, 1, initial=9),
        _r("model_number", 3, 2, initial=STS3215_MODEL),
        _eeprom("id", 5, 1, initial=1, low=0, high=253),
        _eeprom("baud_rate", 6, 1, initial=0, low=0, high=7),
        _eeprom("return_delay_time", 7, 1, initial=0, low=0, high=254, scale=2e-6, unit="s"),
        _eeprom("status_return_level", 8, 1, initial=1, low=0, high=1),
        _eeprom("min_position_limit", 9, 2, initial=0, low=0, high=4095, **_POS),
        _eeprom("max_position_limit", 11, 2, initial=4095, low=0, high=4095, **_POS),
        _eeprom("max_temperature_limit", 13, 1, initial=70, low=0, high=100, unit="degC"),
        _eeprom("max_voltage_limit", 14, 1, initial=80, low=0, high=254, scale=0.1, unit="V"),
        _eeprom("min_voltage_limit", 15, 1, initial=40, low=0, high=254, scale=0.1, unit="V"),
        _eeprom("max_torque_limit", 16, 2, initial=1000, low=0, high=1000, scale=0.001),
        _eeprom("phase", 18, 1, initial=12),
        _eeprom("unloading_condition", 19, 1, initial=44),
        _eeprom("led_alarm_condition", 20, 1, initial=47),
        _eeprom("p_coefficient", 21, 1, initial=32, low=0, high=254),
        _eeprom("d_coefficient", 22, 1, initial=32, low=0, high=254),
        _eeprom("i_coefficient", 23, 1, initial=0, low=0, high=254),
        _eeprom("minimum_startup_force", 24, 2, initial=16, low=0, high=1000),
        _eeprom("cw_dead_zone", 26, 1, initial=1, low=0, high=32),
        _eeprom("ccw_dead_zone", 27, 1, initial=1, low=0, high=32),
        _eeprom("protection_current", 28, 2, initial=500, low=0, high=511),
        _eeprom("angular_resolution", 30, 1, initial=1, low=1, high=3),
        _eeprom("homing_offset", 31, 2, initial=0, low=-2047, high=2047, scale=POSITION_LSB,
                encoding="sign_magnitude", sign_bit=11, unit="rad"),
        _eeprom("operating_mode", 33, 1, initial=0, low=0, high=3),
        _eeprom("protective_torque", 34, 1, initial=20, low=0, high=100),
        _eeprom("protection_time", 35, 1, initial=200, low=0, high=254),
        _eeprom("overload_torque", 36, 1, initial=80, low=0, high=100),
        _eeprom("velocity_p_coefficient", 37, 1, initial=10, low=0, high=100),
        _eeprom("over_current_protection_time", 38, 1, initial=200, low=0, high=254),
        _eeprom("velocity_i_coefficient", 39, 1, initial=200, low=0, high=254),
        _rw("torque_enable", 40, 1, initial=0, low=0, high=1),
        _rw("acceleration", 41, 1, initial=0, low=0, high=254),
        _rw("goal_position", 42, 2, initial=CENTER, low=-32767, high=32767, **_SIGNED_POS),
        _rw("goal_time", 44, 2, initial=0, low=0, high=32767, scale=0.001, unit="s"),
        _rw("goal_velocity", 46, 2, initial=0, low=-3400, high=3400, **_SPEED),
        _rw("torque_limit", 48, 2, initial=1000, low=0, high=1000, scale=0.001),
        _rw("lock", 55, 1, initial=1, low=0, high=1),
        _r("present_position", 56, 2, **_SIGNED_POS),
        _r("present_velocity", 58, 2, **_SPEED),
        _r("present_load", 60, 2, scale=0.001, encoding="sign_magnitude", sign_bit=10),
        _r("present_voltage", 62, 1, scale=0.1, unit="V"),
        _r("present_temperature", 63, 1, unit="degC"),
        _r("registered", 64, 1),  # asynchronous write flag: a REG WRITE waits for ACTION
        _r("status", 65, 1),
        _r("moving", 66, 1),
        _r("present_current", 69, 2, scale=0.0065, encoding="sign_magnitude", sign_bit=15, unit="A"),
    ]
    return ControlTable(
        actuator="sts3215", title="Feetech STS3215", protocol=STS_END, model_number=STS3215_MODEL, firmware=3,
        registers={r.name: r for r in registers}, gain_register="p_coefficient", kp_per_lsb=1.0,
        effort_register="present_load",
        state_registers=("present_position", "present_velocity", "present_load", "present_voltage",
                         "present_temperature", "status", "moving", "present_current"),
        min_limit="min_position_limit", max_limit="max_position_limit", pwm_register=None,
        current_register="present_current",
    )


_TABLES: Dict[str, ControlTable] = {"sts3215": sts3215()}


def control_table(actuator: str) -> ControlTable:
    """The control table of a Feetech actuator (``sts3215``)."""
    try:
        return _TABLES[actuator]
    except KeyError:
        raise ValueError(f"no Feetech control table for actuator {actuator!r}; expected one of "
                         f"{', '.join(_TABLES)}") from None


def table_for_model_number(model_number: int) -> Optional[ControlTable]:
    """The table whose model number matches, if any."""
    return next((t for t in _TABLES.values() if t.model_number == model_number), None)


def feetech_actuators() -> Tuple[str, ...]:
    """Actuators with a Feetech control table."""
    return tuple(_TABLES)
