"""A Feetech STS bus on a pseudo-terminal: emulated STS servos that answer byte for byte.

Framing (the serial-bus core's Protocol-1.0-style framing, checked against feetech-servo-sdk's
``protocol_packet_handler.py``)::

    instruction  FF FF | ID | LEN = N + 2 | INSTR | P1 .. PN | CHK = ~(ID + LEN + INSTR + sum(P)) & 0xFF
    status       FF FF | ID | LEN = N + 2 | ERROR | P1 .. PN | CHK

:class:`FeetechEmulator` is the pty bus of the serial-bus emulator core
:class:`~actuator_drivers.serial_bus_emulator.emulator.SerialBusEmulator` (its thread, bench clock,
lockstep turn and fault injection: dropped, corrupted, delayed and stalled status packets, a
dead bus) with the STS instruction set on :class:`~.firmware.StsServo` firmware: PING (0x01),
READ (0x02), WRITE (0x03), REG WRITE (0x04), ACTION (0x05, broadcast too), SYNC READ (0x82:
``addr, len, id...``, one status packet per servo in request order) and SYNC WRITE (0x83).
An instruction with a bad checksum is dropped without an answer; other instructions (BULK READ,
reset) are not answered.
"""

from __future__ import annotations

from typing import Union

from actuator_models.model import Model, load_model
from actuator_models.simulation import Pendulum

from ..feetech.tables import control_table
from ..serial_bus_emulator import framing as pk
from ..serial_bus_emulator.emulator import Replies, SerialBusEmulator
from ..serial_bus_emulator.firmware import ServoSetup
from .firmware import StsServo

#: Instructions answered by the addressed servo.
UNICAST = (pk.PING, pk.READ, pk.WRITE, pk.REG_WRITE, pk.ACTION)


class FeetechEmulator(SerialBusEmulator[StsServo]):
    """Emulated STS servos on one pseudo-terminal bus; see the module docstring.

        with FeetechEmulator.single("sts3215/m1", mass=0.3, length=0.1) as emulator:
            driver = FeetechDriver(emulator.port, ...)
    """

    @classmethod
    def single(
        cls,
        model: Union[str, Model],
        mass: float,
        length: float,
        arm_mass: float = 0.0,
        setup: ServoSetup = ServoSetup(),
        actuator: str = "sts3215",
        **kwargs,
    ) -> "FeetechEmulator":
        """One servo driven by ``model`` (a library name such as ``sts3215/m1``, a params file or
        a :class:`Model`) on a pendulum of ``mass`` [kg] at ``length`` [m], set up as ``setup`` says."""
        model = load_model(model) if isinstance(model, str) else model
        servo = StsServo(control_table(actuator), model, Pendulum(mass, length, arm_mass), servo_id=setup.servo_id,
                         vin=setup.vin, physics_dt=setup.physics_dt)
        return cls([servo], **kwargs)

    @classmethod
    def one_servo(cls, actuator: str, model: Union[str, Model], mass: float, length: float, arm_mass: float = 0.0,
                  protocol: int = 2, **options) -> "FeetechEmulator":
        """:meth:`single` in the family-neutral signature (STS servos have one protocol)."""
        return cls.single(model, mass, length, arm_mass, actuator=actuator, **options)

    def _execute(self, packet: pk.Packet) -> Replies[StsServo]:
        """Run one instruction packet; return the status packets to send, in order."""
        self.counters.received += 1
        if self.faults.dead:
            return []
        if not packet.crc_ok:
            self.counters.bad_crc += 1
            return []
        code, params = packet.instruction, packet.params
        if code == pk.SYNC_WRITE:
            self._sync_write(params)
            return []
        if code == pk.SYNC_READ:
            return self._reads([(servo_id, params[0], params[1]) for servo_id in params[2:]]) if len(params) > 2 else []
        if code not in UNICAST:
            return []
        if packet.servo_id == pk.BROADCAST_ID:
            for servo in self.servos:
                self._unicast(servo, code, params)
            return []
        target = self._find(packet.servo_id)
        return self._unicast(target, code, params) if target is not None else []
