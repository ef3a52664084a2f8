"""Pacing of the control loops (actuator_bench.pacing), ROS-free.

:func:`paced` runs on a :class:`~actuator_drivers.common.LockstepClock` (the project's bench time
that advances only through sleeps): a cycle "takes" time by sleeping on it, so every deadline is
exact and no assertion depends on the host's speed. :class:`LoopThread` is checked for what does
not depend on timing: cycles run until stop, none after it, none while another thread holds the
lock, and an error out of a cycle reaches its owner.
"""

import threading
import time

import pytest

from actuator_bench.pacing import LoopThread, paced
from actuator_drivers.common import LockstepClock

PERIOD = 0.01


def cycle_times(durations):
    """The clock time at which each cycle began, a cycle lasting ``durations[k]`` [s]."""
    clock, began = LockstepClock(), []

    def cycle():
        began.append(clock.now())
        clock.sleep(durations[len(began) - 1])
        return len(began) < len(durations)

    assert paced(clock, PERIOD, cycle) == len(durations)
    return began


def test_deadlines_are_absolute_so_cycle_lengths_do_not_drift():
    began = cycle_times([0.004, 0.009, 0.0, 0.006, 0.001])
    assert began == pytest.approx([0.0, 0.01, 0.02, 0.03, 0.04], abs=1e-12)


def test_a_cycle_late_by_less_than_a_period_is_caught_up_on_the_same_grid():
    began = cycle_times([0.0, 0.015, 0.0, 0.0, 0.0])  # the second ends 0.005 s after the third's deadline
    assert began == pytest.approx([0.0, 0.01, 0.025, 0.03, 0.04], abs=1e-12)


def test_a_stall_longer_than_a_period_resynchronises_without_a_burst():
    began = cycle_times([0.0, 0.035, 0.0, 0.0])  # ends at 0.045: 0.025 s after the third's deadline
    assert began == pytest.approx([0.0, 0.01, 0.045, 0.055], abs=1e-12)


@pytest.mark.parametrize("period", [0.0, -0.01, float("nan")])
def test_a_period_that_is_not_positive_is_refused(period):
    with pytest.raises(ValueError, match="period"):
        paced(LockstepClock(), period, lambda: False)
    with pytest.raises(ValueError, match="period"):
        LoopThread(period, lambda: None, lambda error: None)


def wait(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert condition(), f"not done in {timeout} s"


def test_loop_thread_cycles_until_stopped_and_never_after():
    count, failures = [0], []

    def cycle():
        count[0] += 1

    loop = LoopThread(0.001, cycle, failures.append)
    loop.start()
    wait(lambda: count[0] >= 5)
    assert loop.stop(timeout=30.0) and not loop.running
    stopped = count[0]
    time.sleep(0.02)  # twenty periods: a cycle after stop() would show here
    assert count[0] == stopped and failures == []


def test_no_cycle_runs_while_another_thread_holds_the_lock():
    inside, overlaps, count = threading.Event(), [], [0]

    def cycle():
        count[0] += 1
        if inside.is_set():
            overlaps.append(count[0])

    loop = LoopThread(0.001, cycle, lambda error: None)
    loop.start()
    try:
        wait(lambda: count[0] >= 2)
        for _ in range(5):
            with loop.lock:  # as a service callback starting or stopping a run
                inside.set()
                time.sleep(0.01)  # ten periods in which a cycle would have run
                inside.clear()
            before = count[0]
            wait(lambda: count[0] > before)  # and cycles go on once it is released
    finally:
        loop.stop(timeout=30.0)
    assert overlaps == []


def test_an_error_out_of_a_cycle_ends_the_loop_and_reaches_its_owner():
    failures, count = [], [0]

    def cycle():
        count[0] += 1
        if count[0] == 3:
            raise ZeroDivisionError("a bug in the cycle")

    loop = LoopThread(0.001, cycle, failures.append)
    loop.start()
    wait(lambda: failures != [])
    assert loop.stop(timeout=30.0)
    assert count[0] == 3 and len(failures) == 1 and isinstance(failures[0], ZeroDivisionError)


def test_stop_before_start_and_twice_is_harmless():
    loop = LoopThread(0.001, lambda: None, lambda error: None)
    assert loop.stop(timeout=1.0) and loop.stop(timeout=1.0) and not loop.running
