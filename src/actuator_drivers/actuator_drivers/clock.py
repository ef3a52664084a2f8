"""Clocks for control loops: wall time (optionally sped up), or lockstep time for an in-process emulator.

A :class:`Clock` measures seconds of *bench time*. With ``scale = 4`` bench time runs four times
faster than the wall clock, so a 6 s trajectory takes 1.5 s when the emulated servo's physics
run at the same scale. Its results depend on how promptly the host schedules the threads.

A :class:`LockstepClock` is bench time that only moves when the control loop sleeps (or when
the emulated servo takes time to answer): the emulator's shaft is clocked by the driver's
cycle, so a recording is the same bytes on any machine, loaded or not, and runs as fast as the
host allows. The bytes still go through dynamixel-sdk and the pseudo-terminal; the clock also
carries the bus *turn* (bytes written by the host, handled and answered by the emulator), so the
driver's port knows, without waiting on the wall clock, when no status packet is coming.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

#: Wall-clock seconds a lockstep bus waits for the emulator before declaring it gone.
LOCKSTEP_WALL_TIMEOUT = 30.0


@dataclass
class Clock:
    """Monotonic bench time [s] since construction, ``scale`` times faster than the wall clock."""

    scale: float = 1.0
    _origin: float = field(default_factory=time.monotonic, repr=False)

    lockstep = False

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"clock scale {self.scale!r}: must be a positive number")

    def now(self) -> float:
        """Bench time [s]."""
        return (time.monotonic() - self._origin) * self.scale

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` of bench time (no-op if not positive)."""
        if seconds > 0:
            time.sleep(seconds / self.scale)

    def sleep_until(self, t: float) -> None:
        """Sleep until bench time ``t`` [s]."""
        self.sleep(t - self.now())

    def wall(self, seconds: float) -> float:
        """Wall-clock seconds that ``seconds`` of bench time take."""
        return seconds / self.scale

    def watchdog_time(self) -> float:
        """Seconds the command watchdog counts: wall-clock seconds, so that an emulator running
        faster than real time has the same tolerance to a stalled host as hardware."""
        return time.monotonic()


class LockstepClock:
    """Bench time [s] that advances only through :meth:`sleep` / :meth:`sleep_until` (thread-safe).

    The control loop's sleeps advance it instantly; the emulator advances it by each status
    packet's return delay and injected delays; a receive timeout advances it by the timeout.
    The command watchdog counts this time too (a stalled loop is a loop that lets bench time
    pass without commanding).

    Bus turn (used by :class:`~.dynamixel_bus.BusPort` and the emulator): the host counts the
    bytes it writes (:meth:`sent`) and the status bytes it reads or discards (:meth:`consumed`);
    the emulator counts the bytes it answered (:meth:`replied`) and then the bytes it has
    executed (:meth:`handled`). :meth:`wait_handled` blocks until the emulator has executed
    everything the host wrote; :attr:`unread` status bytes are then on their way to the host.
    """

    lockstep = True

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._turn = threading.Condition()
        self._sent = self._handled = self._replied = self._consumed = 0

    def now(self) -> float:
        """Bench time [s]."""
        return self._now

    def sleep(self, seconds: float) -> None:
        """Advance bench time by ``seconds`` (no-op if not positive); returns at once."""
        if seconds > 0:
            with self._turn:
                self._now += seconds

    def sleep_until(self, t: float) -> None:
        """Advance bench time to ``t`` [s] if it is later, once the emulator has executed every
        byte the host wrote: a command written at bench time ``t0`` acts from ``t0``, as on a bus
        where its transfer takes no bench time, even when nothing is read after it (the control
        loop's read -> update -> write ends on a write). The host's waits use this; the
        emulator's own delays use :meth:`sleep`."""
        self.wait_handled()
        with self._turn:
            self._now = max(self._now, t)

    def wall(self, seconds: float) -> float:
        """Wall-clock seconds that ``seconds`` of bench time take: none."""
        return 0.0

    def watchdog_time(self) -> float:
        """Seconds the command watchdog counts: bench time."""
        return self._now

    # ------------------------------------------------------------------ bus turn
    def sent(self, count: int) -> None:
        """The host wrote ``count`` bytes on the bus."""
        with self._turn:
            self._sent += count

    def replied(self, count: int) -> None:
        """The emulator wrote ``count`` bytes of status packets."""
        with self._turn:
            self._replied += count

    def handled(self, count: int) -> None:
        """The emulator executed ``count`` more bytes (their status packets already written)."""
        with self._turn:
            self._handled += count
            self._turn.notify_all()

    def consumed(self, count: int) -> None:
        """The host read or discarded ``count`` status bytes."""
        with self._turn:
            self._consumed += count

    @property
    def unread(self) -> int:
        """Status bytes the emulator wrote that the host has not read or discarded yet."""
        return self._replied - self._consumed

    def wait_handled(self, timeout: float = LOCKSTEP_WALL_TIMEOUT) -> bool:
        """Block until the emulator executed every byte the host wrote; False after ``timeout``
        wall-clock seconds (the emulator is not running)."""
        with self._turn:
            return self._turn.wait_for(lambda: self._handled >= self._sent, timeout)


def make_clock(time_scale: "float | None") -> "Clock | LockstepClock":
    """A :class:`Clock` ``time_scale`` times faster than real time, or a :class:`LockstepClock` for None."""
    return LockstepClock() if time_scale is None else Clock(time_scale)
