"""eRob drives behind the bench contract (actuator_models.bench): the emulated bench through
real pysoem on its own veth pair, and the ``erob_emulator`` backend of the bench node."""

import os
import subprocess
import time

import numpy as np
import pytest

from actuator_bench.backends import installed_backends
from actuator_drivers.erob.pacing import Realtime
from actuator_drivers.erob.settings import EmulatedErobSettings
from actuator_drivers.ethercat_emulator import veth
from actuator_drivers.ethercat_emulator.bench import open_emulated
from actuator_drivers.ethercat_emulator.emulated import EMULATOR_RECEIVE_TIMEOUT, LOSSY_EMULATOR_RECEIVE_TIMEOUT
from actuator_models.bench import Bench, BenchParams, Command
from actuator_models.model import load_model

from test_erob_driver import REASON

pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def test_emulated_erob_bench_follows_the_contract():
    params = BenchParams(joints=("shoulder", "elbow"), actuators=("erob80_100", "erob80_50"), ids=(1, 2),
                         min_position=(-1.0, -1.0), max_position=(1.0, 1.0), mass=1.0, length=0.3, time_scale=None)
    bench = open_emulated(params)  # the emulator factory: veth pair + emulator, then the real bench (stepped)
    iface = bench.driver.iface
    try:
        assert isinstance(bench, Bench) and bench.joints == ("shoulder", "elbow")
        with pytest.raises(ValueError, match="unknown joint"):
            bench.apply(Command(("wrist",), (0.0,)))
        with pytest.raises(ValueError, match="outside the joint limits"):
            bench.apply(Command(("elbow",), (1.5,)))
        for _ in range(100):
            bench.apply(Command(("shoulder", "elbow"), (0.4, -0.2), (True, True), (50.0, 50.0)))
            bench.clock.sleep_until(bench.clock.now() + 0.01)
        s = bench.sample()
        assert s.name == ("shoulder", "elbow") and s.time == pytest.approx(bench.clock.now(), abs=0.002)
        assert s.position[0] == pytest.approx(0.4, abs=0.05) and s.position[1] == pytest.approx(-0.2, abs=0.05)
        assert all(s.torque_enable) and s.comm_errors == (0, 0)
        for i, actuator in enumerate(("erob80_100", "erob80_50")):  # torque estimate = kt I at rest
            assert s.motor_torque[i] == pytest.approx(load_model(f"{actuator}/m6").values["kt"] * s.control[i], rel=1e-6)
        bench.release()
        assert not any(bench.sample().torque_enable)
    finally:
        bench.close()
    assert not veth.exists(iface)  # the bench removed its veth pair


def test_erob_emulator_backend_opens_a_wall_clock_bench():
    bench = installed_backends().open("erob_emulator", BenchParams(joints=("joint1",), actuators=("erob80_100",), mass=3.1,
                                                       length=0.5, kp=(25.0,)))
    try:
        assert isinstance(bench.driver.pacing, Realtime)
        first = bench.sample()
        time.sleep(0.2)
        bench.apply(Command(("joint1",), (0.0,), (True,), (25.0,)))
        time.sleep(0.2)
        later = bench.sample()
        assert later.time > first.time  # the cycle thread runs on its own
        assert np.isfinite(later.position[0])
    finally:
        bench.close()


def test_a_wall_clock_emulated_bench_rides_out_a_stalled_emulator():
    """Paced in real time against an emulator sharing the host, a late reply is no lost cycle
    either: the emulator stopped (SIGSTOP) for 0.3 s, some 300 cycles at 1 ms, keeps its torque on
    and its run going. At the hardware's 2 ms receive timeout this was 21 lost cycles and the
    torque released (a CI run's control node on a busy host)."""
    bench = installed_backends().open("erob_emulator", BenchParams(joints=("joint1",), actuators=("erob80_100",), mass=3.1,
                                                       length=0.5, kp=(25.0,)))
    try:
        found = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "emulate --ethercat"],
                               capture_output=True, text=True, check=True).stdout.split()
        (emulator,) = [int(pid) for pid in found]
        hold = Command(("joint1",), (0.1,), (True,), (25.0,))
        bench.apply(hold)
        time.sleep(0.2)
        before = bench.counters.timeouts
        # a shell stops and continues it: pysoem keeps the GIL while it waits for a frame, so a
        # thread here would continue the emulator only once that wait was over
        subprocess.run(["sh", "-c", f"kill -STOP {emulator}; sleep 0.3; kill -CONT {emulator}"], check=True, timeout=30)
        for _ in range(20):
            bench.apply(hold)
            time.sleep(0.01)
        s = bench.sample()
        assert s.torque_enable == (True,) and bench.counters.timeouts == before, bench.counters
        assert bench.driver.pacing.late_cycles >= 1  # the stall was seen: one cycle waited it out
        assert s.position[0] == pytest.approx(0.1, abs=0.05)
    finally:
        bench.close()


@pytest.mark.parametrize("drop", [0.0, 0.01])
def test_a_stepped_emulated_bench_waits_long_for_late_frames_and_briefly_on_a_lossy_link(drop):
    """Lockstep: a late reply from a starved emulator must not be a lost cycle, so a receive waits
    long; with injected drops the losses are wanted and each would cost that whole wait. (The drop
    rate and seed of test_erob_driver's link-fault test: the bring-up's frames are dropped too, and
    at 5 % a CI run here failed the bring-up.)"""
    params = BenchParams(joints=("joint1",), actuators=("erob80_100",), mass=3.1, length=0.5, time_scale=None,
                         seed=3, settings=EmulatedErobSettings(drop=drop, stepped=True, max_lost=1000))
    bench = open_emulated(params)
    try:
        before = bench.counters.timeouts
        for _ in range(300):
            bench.apply(Command(("joint1",), (0.1,), (True,), (25.0,)))
            bench.clock.sleep_until(bench.clock.now() + 0.01)  # 10 cycles of 1 ms
        lost = bench.counters.timeouts - before
        assert bench.driver.line.receive_timeout == (LOSSY_EMULATOR_RECEIVE_TIMEOUT if drop else EMULATOR_RECEIVE_TIMEOUT)
        assert (lost >= 10) if drop else (lost == 0), lost  # about 30 of the 3000 cycles dropped
    finally:
        bench.close()
