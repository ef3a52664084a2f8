"""A new serial-bus family for tests/test_backends.py, written as a user would write one: one
module over the serial-bus core, installed by the test as this module plus one entry point of
group ``actuator_bench.families`` (nothing else of the project changes).

The servo is a Protocol 1.0 "clone" (its own control table, model number 4242, one status error
bit) spoken through the stock ``dynamixel_sdk`` Protocol 1.0 packet handler, as the firmware of
several low-cost servos is; its actuator is a user-described voltage-law servo (an actuator
description embedded in the params file the family ships beside this module, ``p1clone_m1.json``,
its model of record; its description alone, ``p1clone.json``, names it to ``actuator()``), so the
actuator and params libraries are not touched either. Its backends are the serial core's
(:func:`~actuator_drivers.serial_bus_emulator.bench.open_one_servo` for the emulated bus).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from dynamixel_sdk import COMM_RX_CORRUPT, COMM_RX_TIMEOUT, COMM_SUCCESS, GroupSyncWrite, PacketHandler, PortHandler

from actuator_drivers.common import DriverError, LimitError
from actuator_drivers.serial_bus.bench import SerialBusBench
from actuator_drivers.serial_bus.bus import SerialBus
from actuator_drivers.serial_bus.driver import SerialBusDriver
from actuator_drivers.serial_bus.errors import BusFailure
from actuator_drivers.serial_bus.family import SerialFamily
from actuator_drivers.serial_bus.settings import EmulatedSerialSettings, SerialBusSettings
from actuator_drivers.serial_bus_emulator.bench import open_one_servo
from actuator_drivers.serial_bus.servo import ServoState
from actuator_drivers.serial_bus.tables import CENTER, POSITION_LSB, ControlTable, Register
from actuator_drivers.serial_bus_emulator import framing as pk
from actuator_drivers.serial_bus_emulator.emulator import SerialBusEmulator
from actuator_drivers.serial_bus_emulator.firmware import SerialServo, ServoSetup
from actuator_drivers.serial_port import LockstepSerialPort
from actuator_models.bench import Backend
from actuator_models.model import load_model
from actuator_models.simulation import Pendulum

MODEL_NUMBER = 4242
_POS = dict(scale=POSITION_LSB, offset=CENTER, unit="rad", low=0, high=4095)
_REGISTERS = (
    Register("model_number", 0, 2, initial=MODEL_NUMBER),
    Register("firmware", 2, 1, initial=1),
    Register("id", 3, 1, writable=True, eeprom=True, initial=1, low=0, high=253),
    Register("return_delay_time", 5, 1, writable=True, eeprom=True, initial=0, scale=2e-6, unit="s"),
    Register("min_position_limit", 6, 2, writable=True, eeprom=True, initial=0, **_POS),
    Register("max_position_limit", 8, 2, writable=True, eeprom=True, initial=4095, **_POS),
    Register("status_return_level", 16, 1, writable=True, eeprom=True, initial=2, low=0, high=2),
    Register("torque_enable", 24, 1, writable=True, low=0, high=1),
    Register("p_gain", 28, 1, writable=True, initial=32, low=0, high=254),
    Register("goal_position", 30, 2, writable=True, initial=CENTER, **_POS),
    Register("present_position", 36, 2, **_POS),
    Register("present_velocity", 38, 2, encoding="signed", scale=POSITION_LSB, unit="rad/s"),
    Register("present_load", 40, 2, encoding="signed", scale=0.001),
    Register("present_voltage", 42, 1, scale=0.1, unit="V"),
    Register("present_temperature", 43, 1, unit="degC"),
    Register("registered", 44, 1),
    Register("moving", 46, 1),
)
TABLE = ControlTable(
    actuator="p1clone", title="P1 clone servo", protocol=1, model_number=MODEL_NUMBER, firmware=1,
    registers={r.name: r for r in _REGISTERS}, gain_register="p_gain", kp_per_lsb=1.0, effort_register="present_load",
    state_registers=("present_position", "present_velocity", "present_load", "present_voltage", "present_temperature"),
    min_limit="min_position_limit", max_limit="max_position_limit", pwm_register=None, current_register="present_load",
)
ERROR_BIT = 0x20  # the clone's one status error bit: overload (hardware) or a refused instruction


# ---------------------------------------------------------------- driver
class CloneError(DriverError):
    """Any error of the clone family."""


class CloneLinkError(CloneError, BusFailure):
    def __init__(self, servo_id: int, operation: str, result: str, attempts: int) -> None:
        self.servo_id, self.operation, self.result, self.attempts = servo_id, operation, result, attempts
        super().__init__(f"servo {servo_id}: {operation}: {result} after {attempts} attempt(s)")


class CloneLimitError(CloneError, LimitError):
    """A goal outside the joint limits; nothing was sent."""


class ClonePort(LockstepSerialPort, PortHandler):
    """dynamixel-sdk's port with the core's lockstep rules."""


class CloneBus(SerialBus):
    SDK, BAUDRATES, PORT, GROUP_SYNC_WRITE = "dynamixel-sdk", (57600, 1000000), ClonePort, GroupSyncWrite
    SUCCESS, TIMEOUT, CORRUPT = COMM_SUCCESS, COMM_RX_TIMEOUT, COMM_RX_CORRUPT
    failure, port_failure = CloneLinkError, CloneError

    def packet_handler(self):
        return PacketHandler(1.0)

    def check_status(self, servo_id: int, operation: str, error: int, hardware_ok: bool = False) -> None:
        if error and not hardware_ok:
            raise CloneError(f"servo {servo_id}: {operation}: status error {error:#04x}")

    def _block_sender(self, ids, address, length):
        return lambda: self.handler.readTx(self.port, ids[0], address, length)  # one servo per bus here


class CloneDriver(SerialBusDriver):
    faults, limit_error, release_error, mismatch_error = CloneError, CloneLimitError, CloneError, CloneError

    def _table(self, actuator: str, protocol: int) -> ControlTable:
        return TABLE

    def _bus(self, port: str, protocol: int, baudrate: int, retries: int, latency_ms: float) -> CloneBus:
        return CloneBus(port, baudrate, retries, latency_ms, self.clock)

    def _table_for_model_number(self, model_number: int) -> Optional[ControlTable]:
        return TABLE if model_number == MODEL_NUMBER else None

    def _decode(self, servo_id: int, data: bytes, now: float) -> ServoState:
        def si(name: str) -> float:
            return self._field(servo_id, data, name)

        return ServoState(si("present_position"), si("present_velocity"), si("present_load"), None,
                          si("present_voltage"), si("present_temperature"), self.torque[servo_id], now)


class CloneBench(SerialBusBench):
    DRIVER = CloneDriver


# ---------------------------------------------------------------- emulator
class CloneServo(SerialServo):
    def status_error(self, fault: Optional[str] = None) -> int:
        return ERROR_BIT if fault or self.hardware_error else 0

    def inject_hardware_error(self, *names: str) -> None:
        self.hardware_error = ERROR_BIT
        self.poke("torque_enable", 0)

    def _drive_enabled(self) -> bool:
        return self.torque_enabled

    def _refresh(self) -> None:
        sim, on = self.sim, self.torque_enabled
        for name, value in (("present_position", sim.q), ("present_velocity", sim.v),
                            ("present_load", sim.control / sim.vin if on and sim.vin else 0.0),
                            ("present_voltage", sim.vin), ("present_temperature", self.temperature)):
            self.poke(name, self.table[name].from_si(value))
        self.poke("moving", int(abs(sim.v) > 0.02))


class CloneEmulator(SerialBusEmulator):
    @classmethod
    def one_servo(cls, actuator, model, mass, length, arm_mass=0.0, protocol=1, setup=ServoSetup(),
                  **options) -> "CloneEmulator":
        model = load_model(model) if isinstance(model, str) else model
        servo = CloneServo(TABLE, model, Pendulum(mass, length, arm_mass), servo_id=setup.servo_id, vin=setup.vin,
                           physics_dt=setup.physics_dt)
        return cls([servo], **options)

    def _execute(self, packet: pk.Packet):
        self.counters.received += 1
        if self.faults.dead or not packet.crc_ok:
            return []
        if packet.instruction == pk.SYNC_WRITE:
            self._sync_write(packet.params)
            return []
        target = self._find(packet.servo_id)
        return self._unicast(target, packet.instruction, packet.params) if target is not None else []


BACKEND = Backend("clone", "P1 clone servos on a serial bus", CloneBench.open, settings=SerialBusSettings)
EMULATED = Backend("clone_emulator", "the P1 clone driver on its emulated bus", open_one_servo,
                   settings=EmulatedSerialSettings)

#: the family's one entry point: ``clone = clone_family:FAMILY`` in group ``actuator_bench.families``
FAMILY = SerialFamily("clone", "P1 clone", ("p1clone",),
                      backends={"clone": "clone_family:BACKEND", "clone_emulator": "clone_family:EMULATED"},
                      real="clone", emulated="clone_emulator",
                      descriptions={"p1clone": str(Path(__file__).with_name("p1clone.json"))},
                      grids={"p1clone": ((0.3,), (0.1,), (32,))},
                      models={"p1clone": str(Path(__file__).with_name("p1clone_m1.json"))},
                      baudrates=CloneBus.BAUDRATES, default_baudrate=57600,
                      bench="clone_family:CloneBench", emulator="clone_family:CloneEmulator")
