"""The serial port of a servo SDK, made to sleep while it waits and to follow a lockstep emulator.

:class:`LockstepSerialPort` is mixed into the ``PortHandler`` of a vendor SDK whose packet
handler polls ``readPort``/``isPacketTimeout`` (the vendors' Protocol-1.0-style SDKs):
``class BusPort(LockstepSerialPort, PortHandler)``.
"""

from __future__ import annotations

import select
import time
from typing import TYPE_CHECKING, Any, Union

from actuator_models.bench import WallClock

from .common import LOCKSTEP_WALL_TIMEOUT, LockstepClock


class LockstepSerialPort:
    """Mixin for an SDK ``PortHandler`` (the vendors' Protocol-1.0-style SDKs: the same method names)
    that sleeps until bytes arrive instead of spinning, with a configurable
    latency timer, and that follows a lockstep emulator's bus turn.

    * The SDK polls the port with a zero read timeout until the status packet is complete or the
      packet timeout passes: a busy loop that keeps a core, and the GIL, busy. Here each read
      first waits (``select``) until bytes are available or the packet deadline passes, so
      waiting costs nothing and another thread of the process (an in-process emulator) runs freely.
    * The SDK's receive timeout is ``tx_time + 2 * LATENCY_TIMER + 2`` ms with LATENCY_TIMER
      fixed at 16 ms (the FTDI default); ``latency_ms`` replaces it (1 ms for adapters set to
      low latency).
    * With a :class:`~.common.LockstepClock` the packet deadline is in bench time: each read
      waits (wall clock, without a deadline) until the emulator has executed every byte written
      and every status byte it wrote has arrived; a packet still incomplete then will never
      complete, so the receive times out at once and bench time moves on to the deadline, as
      on a real bus. A status packet answered after the deadline (an injected delay) is a
      timeout too; its late bytes are discarded by the next transmission.
    """

    # The SDK ``PortHandler``'s members this mixin uses (the SDKs are untyped; set by its __init__).
    ser: Any  # the pyserial ``Serial`` of the port
    is_open: bool
    is_using: bool
    packet_start_time: float
    packet_timeout: float
    tx_time_per_byte: float
    if TYPE_CHECKING:
        def getTimeSinceStart(self) -> float: ...  # noqa: E704, N802 (SDK name)

        def setBaudRate(self, baudrate: int) -> bool: ...  # noqa: E704, N802 (SDK name)

        def closePort(self) -> None: ...  # noqa: E704, N802 (SDK name)

    def __init__(self, port_name: str, latency_ms: float = 16.0,
                 clock: Union[WallClock, LockstepClock, None] = None) -> None:
        super().__init__(port_name)  # type: ignore[call-arg]  # the SDK PortHandler
        self.latency_ms = latency_ms
        #: the bench clock when it is lockstep (a wall clock needs nothing of the port)
        self.clock = clock if isinstance(clock, LockstepClock) else None
        self._tx_ms = 0.0  # bench time of the last transmission [ms] (lockstep)

    def readPort(self, length):  # noqa: N802 (SDK name)
        if self.clock is not None:
            self._settle(self.clock)
            if self._late():
                return b""
            data = self.ser.read(length)
            self.clock.consumed(len(data))
            return data
        remaining = (self.packet_timeout - self.getTimeSinceStart()) / 1000.0
        if remaining > 0 and self.ser.in_waiting < length:
            try:
                select.select([self.ser.fileno()], [], [], remaining)
            except (AttributeError, OSError, ValueError):  # no pollable descriptor (not POSIX)
                time.sleep(min(remaining, 0.001))
        return self.ser.read(length)

    def writePort(self, packet):  # noqa: N802 (SDK name)
        if self.clock is not None:
            self._tx_ms = self.clock.now() * 1000.0  # before the emulator can answer and move the clock
            self.clock.sent(len(packet))
        return super().writePort(packet)

    def clearPort(self):  # noqa: N802 (SDK name)
        if self.clock is not None:
            self._settle(self.clock)
            self.clock.consumed(self.ser.in_waiting)
        super().clearPort()

    def setPacketTimeout(self, packet_length):  # noqa: N802 (SDK name)
        self.setPacketTimeoutMillis(self.tx_time_per_byte * packet_length + 2.0 * self.latency_ms + 2.0)

    def setPacketTimeoutMillis(self, msec):  # noqa: N802 (SDK name)
        self.packet_start_time = self._tx_ms if self.clock is not None else self.getCurrentTime()
        self.packet_timeout = msec

    def getCurrentTime(self):  # noqa: N802 (SDK name)
        if self.clock is not None:
            return self.clock.now() * 1000.0
        return super().getCurrentTime()

    def isPacketTimeout(self):  # noqa: N802 (SDK name)
        if self.clock is None:
            return super().isPacketTimeout()
        # the SDK asks only while a packet is incomplete, and readPort waited for every byte
        self._settle(self.clock)
        if self.ser.in_waiting and not self._late():
            return False
        self.clock.sleep_until((self.packet_start_time + self.packet_timeout) / 1000.0)
        return True

    def recover(self) -> None:
        """Make the port usable after a transaction that did not finish: the SDK marks the port
        busy (its public ``is_using`` flag) from ``txPacket`` to the end of ``rxPacket``, and
        refuses every transaction while it is set; late status bytes are discarded."""
        self.is_using = False
        if self.is_open:
            self.clearPort()

    def _late(self) -> bool:
        return self.getCurrentTime() - self.packet_start_time > self.packet_timeout

    def _settle(self, clock: LockstepClock) -> None:
        """Lockstep: wait until the emulator executed all our bytes and its replies arrived."""
        if not clock.wait_handled():
            return  # no emulator turn: the port behaves as if nothing is coming
        deadline = time.monotonic() + LOCKSTEP_WALL_TIMEOUT
        while self.ser.in_waiting < clock.unread and time.monotonic() < deadline:
            select.select([self.ser.fileno()], [], [], 0.05)
