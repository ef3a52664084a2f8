"""How the eRob driver's process-data cycles are paced: :class:`Stepped` (the exchange is the
clock: sleeping runs the cycles back to back; emulators, reproducible recordings) or
:class:`Realtime` (a thread runs them at the cycle time on the wall clock: hardware).

A pacing gives the driver its clock, starts and stops whatever runs the cycles, and settles a
torque release (runs cycles until the drives report it, or waits for the thread to)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, List, Optional, Protocol

from actuator_models.bench import WallClock

if TYPE_CHECKING:  # the driver imports this module
    from actuator_drivers.erob.drive import ErobDriver


class CycleClock(WallClock):
    """Bench time = process-data cycles x cycle time; sleeping runs the cycles."""

    def __init__(self, driver: "ErobDriver") -> None:
        super().__init__(1.0)
        self._driver = driver

    def now(self) -> float:
        return self._driver.cycles * self._driver.cycle_time

    def sleep(self, seconds: float) -> None:
        target = self.now() + seconds
        while self.now() < target - 1e-9:
            self._driver.cycle()

    def sleep_until(self, t: float) -> None:
        self.sleep(t - self.now())

    def wall(self, seconds: float) -> float:
        return seconds


class Pacing(Protocol):
    """What runs the cycles of an :class:`~actuator_drivers.erob.drive.ErobDriver`."""

    def clock(self, driver: "ErobDriver") -> WallClock: ...  # noqa: E704
    def start(self, driver: "ErobDriver") -> None: ...  # noqa: E704
    def stop(self) -> None: ...  # noqa: E704
    def settle_release(self, driver: "ErobDriver") -> None: ...  # noqa: E704
    def raise_pending(self) -> None: ...  # noqa: E704


class Stepped:
    """The process-data exchange is the clock (:class:`CycleClock`); nothing runs in between."""

    def clock(self, driver: "ErobDriver") -> WallClock:
        return CycleClock(driver)

    def start(self, driver: "ErobDriver") -> None:
        pass

    def stop(self) -> None:
        pass

    def settle_release(self, driver: "ErobDriver") -> None:
        """Run cycles until the drives report torque off (at most ``enable_timeout``)."""
        driver.run_until_released()

    def raise_pending(self) -> None:
        pass


class Realtime:
    """A thread runs :meth:`ErobDriver.cycle` every cycle time on the wall clock (a late cycle
    is counted in :attr:`late_cycles`; after a stall it resynchronises instead of bursting). An
    error in the thread is raised by the driver's next command or read. Set :attr:`cycle_starts`
    to ``[]`` to record each cycle's wall start (and :attr:`cycle_ends` its end): benchmarks."""

    def __init__(self) -> None:
        self.late_cycles = 0
        self.cycle_starts: Optional[List[float]] = None
        self.cycle_ends: List[float] = []
        self._thread: Optional[threading.Thread] = None
        self._stop = threading.Event()
        self._error: Optional[BaseException] = None

    def clock(self, driver: "ErobDriver") -> WallClock:
        return WallClock()

    def start(self, driver: "ErobDriver") -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(driver,), name="erob-cycle", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._thread = None

    def settle_release(self, driver: "ErobDriver") -> None:
        """Wait (wall clock) until the thread's cycles show the drives released."""
        deadline = time.monotonic() + driver.enable_timeout * driver.cycle_time + driver.receive_timeout
        while driver.still_enabled() and self._thread is not None and time.monotonic() < deadline:
            time.sleep(driver.cycle_time)

    def raise_pending(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self, driver: "ErobDriver") -> None:
        period = driver.cycle_time
        start = time.perf_counter()
        tick = 0
        try:
            while not self._stop.is_set():
                began = time.perf_counter()
                if self.cycle_starts is not None:
                    self.cycle_starts.append(began)
                driver.cycle()
                if self.cycle_starts is not None:
                    self.cycle_ends.append(time.perf_counter())
                tick += 1
                target = start + tick * period
                now = time.perf_counter()
                if now > target:
                    self.late_cycles += 1
                    if now - target > period:  # a stall: resynchronise instead of bursting
                        tick += int((now - target) / period)
                        target = start + tick * period
                while True:
                    remaining = target - time.perf_counter()
                    if remaining <= 0:
                        break
                    time.sleep(remaining if remaining > 0.0005 else 0)
        except BaseException as error:  # handed to the next command/read
            self._error = error
