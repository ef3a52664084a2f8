"""A Dynamixel bus on a pseudo-terminal: emulated servos that answer like real ones.

:class:`DynamixelEmulator` is the serial-bus emulator core
(:class:`~actuator_drivers.serial_bus_emulator.emulator.SerialBusEmulator`: the pty, its thread,
the bench clock and lockstep turn, fault injection) with the Dynamixel protocols: Protocol 1.0
checksum or Protocol 2.0 CRC-16 with byte stuffing (:mod:`.packets`), on
:class:`~.firmware.EmulatedServo` firmware.

Instructions: PING (P2 broadcast ping too), READ, WRITE, REG WRITE, ACTION, REBOOT (P2),
SYNC WRITE, SYNC READ (P2), BULK READ (P1 and P2), BULK WRITE (P2). Status Return Level and
broadcast rules are those of the e-manual. FAST SYNC/BULK READ, CLEAR and FACTORY RESET are
answered with an instruction error (unicast) or ignored (broadcast).
"""

from __future__ import annotations

from typing import Tuple

from actuator_models.model import Model, load_model
from actuator_models.simulation import Pendulum

from actuator_drivers.dynamixel.tables import control_table
from actuator_drivers.dynamixel_emulator import packets as pk
from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo
from actuator_drivers.serial_bus_emulator.emulator import Replies, SerialBusEmulator
from actuator_drivers.serial_bus_emulator.faults import BusCounters, Faults  # noqa: F401 (re-exported)
from actuator_drivers.serial_bus_emulator.firmware import ServoSetup


class DynamixelEmulator(SerialBusEmulator[EmulatedServo]):
    """Emulated Dynamixel servos on one pseudo-terminal bus (all speaking one protocol)::

        with DynamixelEmulator.single("mx64", "mx64/m6", mass=1.0, length=0.15, protocol=1) as emu:
            driver = DynamixelDriver(emu.port, ...)

    Arguments: :class:`~actuator_drivers.serial_bus_emulator.emulator.SerialBusEmulator`.
    """

    @classmethod
    def single(
        cls,
        actuator: str,
        model: "str | Model",
        mass: float,
        length: float,
        arm_mass: float = 0.0,
        protocol: int = 2,
        setup: ServoSetup = ServoSetup(),
        **kwargs,
    ) -> "DynamixelEmulator":
        """One servo of ``actuator`` driven by ``model`` (a library name such as ``mx64/m6`` or a
        :class:`Model`) on a pendulum of ``mass`` [kg] at ``length`` [m], set up as ``setup`` says."""
        model = load_model(model) if isinstance(model, str) else model
        servo = EmulatedServo(
            control_table(actuator, protocol), model, Pendulum(mass, length, arm_mass),
            servo_id=setup.servo_id, vin=setup.vin, physics_dt=setup.physics_dt,
        )
        return cls([servo], **kwargs)

    @classmethod
    def one_servo(cls, actuator: str, model: "str | Model", mass: float, length: float, arm_mass: float = 0.0,
                  protocol: int = 2, **options) -> "DynamixelEmulator":
        return cls.single(actuator, model, mass, length, arm_mass, protocol=protocol, **options)

    @property
    def address_width(self) -> int:
        return 1 if self.protocol == 1 else 2

    def parser(self):
        return pk.instruction_parser(self.protocol)

    def encode_status(self, servo_id: int, error: int, data: bytes) -> bytes:
        return pk.encode_status(self.protocol, servo_id, error, data)

    # ------------------------------------------------------------------ instruction semantics
    def _execute(self, packet: pk.Packet) -> Replies[EmulatedServo]:
        """Run one instruction packet; return the status packets to send, in order."""
        self.counters.received += 1
        if self.faults.dead:
            return []
        broadcast = packet.servo_id == pk.BROADCAST_ID
        target = None if broadcast else self._find(packet.servo_id)
        if not packet.crc_ok:
            self.counters.bad_crc += 1
            return [self._status(target, "crc")] if target else []
        code, params = packet.instruction, packet.params
        if code == pk.SYNC_WRITE:
            self._sync_write(params)
            return []
        if code == pk.BULK_WRITE and self.protocol == 2:
            self._bulk_write(params)
            return []
        if code == pk.SYNC_READ and self.protocol == 2:
            return self._sync_read(params)
        if code == pk.BULK_READ:
            return self._bulk_read(params)
        if code == pk.PING and broadcast and self.protocol == 2:
            return [self._ping(s) for s in self.servos]
        if target is None:  # broadcast (no status) or nobody with that ID
            if broadcast:
                for servo in self.servos:
                    self._unicast(servo, code, params)
            return []
        return self._unicast(target, code, params)

    def _other(self, servo: EmulatedServo, code: int, params: bytes) -> Replies[EmulatedServo]:
        if code == pk.REBOOT and self.protocol == 2:
            reply = self._status(servo, None)
            servo.reboot()
            return [reply]
        return super()._other(servo, code, params)

    def _ping(self, servo: EmulatedServo) -> Tuple[EmulatedServo, bytes]:
        if self.protocol == 1:
            return super()._ping(servo)
        model = servo.peek("model_number")
        return self._status(servo, None, bytes([model & 0xFF, model >> 8, servo.peek("firmware_version")]))

    def _bulk_write(self, params: bytes) -> None:
        index = 0
        while index + 5 <= len(params):
            servo_id, address, length = params[index], _u16(params, index + 1), _u16(params, index + 3)
            data = params[index + 5 : index + 5 + length]
            servo = self._find(servo_id)
            if servo is not None:
                servo.write(address, data)
            index += 5 + length

    def _sync_read(self, params: bytes) -> Replies[EmulatedServo]:
        if len(params) < 5:
            return []
        address, length = _u16(params, 0), _u16(params, 2)
        return self._reads([(servo_id, address, length) for servo_id in params[4:]])

    def _bulk_read(self, params: bytes) -> Replies[EmulatedServo]:
        if self.protocol == 1:  # 0x00, then [length, id, address] per servo
            requests = [(r[1], r[2], r[0]) for r in (params[i : i + 3] for i in range(1, len(params) - 2, 3))]
        else:  # [id, address L/H, length L/H] per servo
            requests = [(params[i], _u16(params, i + 1), _u16(params, i + 3)) for i in range(0, len(params) - 4, 5)]
        return self._reads(requests)


def _u16(data: bytes, index: int) -> int:
    return data[index] | (data[index + 1] << 8)
