"""Cycles at a fixed rate on absolute deadlines: the pacing of every bench control loop (ROS-free).

:func:`paced` calls a cycle every period of a :class:`~actuator_models.bench.Clock`, each deadline
one period after the previous one (no drift: a cycle that ran long shortens the next wait), and a
cycle more than one period behind resynchronises instead of bursting to make up the missed ones.
:class:`~actuator_bench.loop.BenchLoop` paces its runs with it on the bench's clock.

:class:`LoopThread` runs the same pacing on the wall clock in a thread of its own: the bench
node's control loop. An rclpy timer costs the loop the executor's work around every callback
(its wait set rebuilt in Python, a timeout timer made, a task: about 0.6 ms per cycle on this
project's 2-core host, a third of the 2 ms period at 500 Hz; ``benchmarks/loop_jitter.py --ros
--timer`` shows the process's CPU per cycle with either); in its own thread the loop waits on its
deadline alone, and the executor thread sleeps in its wait set (0.02 ms of CPU per cycle
measured) until a service call comes.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from actuator_models.bench import Clock


def paced(clock: Clock, period: float, cycle: Callable[[], bool]) -> int:
    """Call ``cycle()`` now and then every ``period`` [s of ``clock``] until it returns False;
    returns the number of calls. A cycle that ends more than one period after its deadline
    resynchronises: the next runs at once and the deadlines restart from there (no burst)."""
    if not period > 0:
        raise ValueError(f"period {period!r}: must be positive seconds")
    calls, wake = 0, clock.now()
    while True:
        calls += 1
        if not cycle():
            return calls
        wake += period
        now = clock.now()
        if now - wake > period:  # more than a period behind (a stall): resynchronise
            wake = now
        clock.sleep_until(wake)


class _StoppableWallClock:
    """Monotonic wall time [s] whose sleeps end early once ``stopping`` is set."""

    def __init__(self, stopping: threading.Event) -> None:
        self._stopping = stopping

    def now(self) -> float:
        return time.monotonic()

    def sleep_until(self, t: float) -> None:
        delay = t - time.monotonic()
        if delay > 0:
            self._stopping.wait(delay)


class LoopThread:
    """``cycle()`` every ``period`` [s] of wall time (:func:`paced`) in a daemon thread, from
    :meth:`start` until :meth:`stop`.

    Every cycle runs holding :attr:`lock`; another thread takes it to act on what the cycles use
    (start or stop a run, close the bench) between two cycles, never during one. An exception out
    of a cycle ends the thread and is handed to ``failed`` (called in the loop thread).

    Args:
        period: seconds between cycle starts. cycle: one cycle. failed: receives the exception
            that ended the loop. name: the thread's name.
    """

    def __init__(self, period: float, cycle: Callable[[], None], failed: Callable[[BaseException], None],
                 name: str = "control-loop") -> None:
        if not period > 0:
            raise ValueError(f"period {period!r}: must be positive seconds")
        self.period = period
        self.lock = threading.RLock()
        self._cycle, self._failed = cycle, failed
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        """Start cycling (the first cycle at once)."""
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: Optional[float] = None) -> bool:
        """Stop cycling: no cycle begins after this returns (the one under way, if any, ends
        first; at most ``timeout`` [s] waited for it, None: no limit). Whether the thread ended."""
        self._stopping.set()
        if self._thread.ident is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            paced(_StoppableWallClock(self._stopping), self.period, self._locked_cycle)
        except BaseException as error:  # the owner decides: log, release, end the process
            self._failed(error)

    def _locked_cycle(self) -> bool:
        with self.lock:
            if self._stopping.is_set():
                return False
            self._cycle()
        return not self._stopping.is_set()
