"""What every actuator family of the drivers shares: clocks, communication counters, driver
errors, EtherCAT AL codes and the one-driver bench base (no family-specific code here).

Clocks for control loops: wall time (optionally sped up), or lockstep time for an in-process
emulator.

A :class:`~actuator_models.bench.WallClock` measures seconds of *bench time*. With ``scale = 4`` bench time runs four times
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
from contextlib import ExitStack
from typing import Any, Callable, Optional, Sequence, Tuple

from actuator_models.bench import Clock, Command, JointSample, WallClock  # noqa: F401 (re-exported)
from actuator_models.bench_bus import CommandRouter, ErrorCounters  # noqa: F401 (re-exported)
from actuator_models.model import Model

#: Wall-clock seconds a lockstep bus waits for the emulator before declaring it gone.
LOCKSTEP_WALL_TIMEOUT = 30.0


class LockstepClock:
    """Bench time [s] that advances only through :meth:`sleep` / :meth:`sleep_until` (thread-safe).

    The control loop's sleeps advance it instantly; the emulator advances it by each status
    packet's return delay and injected delays; a receive timeout advances it by the timeout.
    The command watchdog counts this time too (a stalled loop is a loop that lets bench time
    pass without commanding).

    Bus turn (used by :class:`~actuator_drivers.dynamixel.bus.BusPort` and the emulator): the host counts the
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


def make_clock(time_scale: "float | None") -> "WallClock | LockstepClock":
    """A :class:`WallClock` ``time_scale`` times faster than real time, or a :class:`LockstepClock` for None."""
    return LockstepClock() if time_scale is None else WallClock(time_scale)



# ---------------------------------------------------------------------- driver errors
class DriverError(RuntimeError):
    """Base class of every driver error: the bench stopped; torque has been released where possible."""


class LimitError(DriverError, ValueError):
    """A goal outside the joint limits; nothing was sent."""


class CommandTimeout(DriverError):
    """Torque was released because no command arrived within the command timeout."""


class UsageError(ValueError):
    """Command-line options that do not go together (exit status 2, like argparse's own errors)."""


# ---------------------------------------------------------------------- EtherCAT AL states and codes
# AL states and status codes (ETG.1000.6)
INIT, PREOP, BOOT, SAFEOP, OP = 1, 2, 3, 4, 8
AL_ERROR_FLAG, AL_ACK = 0x10, 0x10
AL_INVALID_TRANSITION = 0x0011
AL_UNKNOWN_STATE = 0x0012
AL_SYNC_ERROR = 0x001A
AL_INVALID_OUTPUT_SM = 0x001D
AL_INVALID_INPUT_SM = 0x001E
AL_INVALID_DC_SYNC = 0x0030
AL_CODES = {
    0x0000: "no error",
    0x0011: "invalid requested state change",
    0x0012: "unknown requested state",
    0x001A: "synchronization error",
    0x001B: "sync manager watchdog",
    0x001D: "invalid output configuration",
    0x001E: "invalid input configuration",
    0x0030: "invalid DC SYNC configuration",
}
STATE_NAMES = {INIT: "INIT", PREOP: "PRE-OP", BOOT: "BOOT", SAFEOP: "SAFE-OP", OP: "OP"}


def state_name(state: int) -> str:
    """``"SAFE-OP + ERROR"`` for an AL status value."""
    name = STATE_NAMES.get(state & 0x0F, f"0x{state & 0x0F:X}")
    return name + (" + ERROR" if state & AL_ERROR_FLAG else "")


# ---------------------------------------------------------------------- the one-driver bench
class OneDriverBench:
    """Joints of one open driver, addressed by name.

    Args:
        driver: an open driver (``ids``, ``clock``, ``counters``, ``watchdog_trips``, ``read``,
            ``command``, ``set_kp``, ``release``). models: servo model per joint, in the driver's
            id order (the torque estimate). joints: joint names, in the same order.
    """

    def __init__(self, driver: Any, models: Sequence[Model], joints: Sequence[str]) -> None:
        self.driver = driver
        self.models = tuple(models)
        self.joints: Tuple[str, ...] = tuple(joints)
        #: the driver's time base (an emulator's clock when emulating, else wall time)
        self.clock: Clock = driver.clock
        self._router = CommandRouter(dict(zip(self.joints, driver.ids)))
        #: what :meth:`close` ends after the driver (an emulator the bench was opened on)
        self.resources = ExitStack()
        #: set by an emulated backend: change the emulated pendulum [kg, m, kg] (:meth:`set_load`)
        self.emulator_load: Optional[Callable[[float, float, float], None]] = None
        #: set by an emulated backend: the emulator's own reading of the torque (:meth:`emulated_state`)
        self.emulator_state: Optional[Callable[[], str]] = None

    @staticmethod
    def applied(state: Any) -> float:
        """What the drive applies in a state read by the driver [V or A]."""
        raise NotImplementedError

    def set_load(self, mass: float, length: float, arm_mass: float = 0.0) -> None:
        """Change the pendulum of an emulated bench [kg, m, kg]; ValueError on hardware."""
        if self.emulator_load is None:
            raise ValueError("a real bench's load is changed by hand, not by software")
        self.emulator_load(mass, length, arm_mass)

    def emulated_state(self) -> Optional[str]:
        """What the emulator read of its servos' torque (after :meth:`close`: the fail-safe
        check), None on hardware."""
        return self.emulator_state() if self.emulator_state is not None else None

    @property
    def counters(self) -> ErrorCounters:
        """Cumulative communication counters of the bus or line (the driver's)."""
        return self.driver.counters

    @property
    def watchdog_trips(self) -> int:
        """How many times the command watchdog released the torque."""
        return self.driver.watchdog_trips

    def apply(self, command: Command) -> None:
        """Send a command (gains first when they changed); unknown joints raise ValueError."""
        self._router.send(self.driver, command)

    def sample(self) -> JointSample:
        """Read every joint once; the motor torque [N m] is the servo model's estimate from what
        the drive applies."""
        states = self.driver.read()
        ordered = [states[i] for i in self.driver.ids]
        applied = [self.applied(s) for s in ordered]
        torques = [float(m.actuator.torque(u, s.torque_enabled, s.velocity, m.values, s.input_voltage))
                   for m, s, u in zip(self.models, ordered, applied)]
        return JointSample.from_states(self.joints, ordered, torques, applied, self.driver.counters.errors)

    def release(self) -> None:
        """Torque off on every joint (read back by the driver)."""
        self.driver.release()

    def close(self) -> None:
        """Release the torque, close the driver, then end :attr:`resources` (stop an emulator)."""
        try:
            self.driver.close()
        finally:
            self.resources.close()
