"""The emulated eRob against its own model: how far the joint is from the servo model driven by
the same goals (issue 36), per pacing of the master and of the emulated drive.

Records each trajectory through the ROS-free path (``actuator_bench.recording.record`` on the
real :class:`~actuator_drivers.erob.bench.ErobBench`, pysoem on a veth pair, the EtherCAT emulator
process stepping ``erob80_100/m6`` on 3.1 kg at 0.5 m, kp 25 A/rad, the record rate of
``config/erob_bench.yaml``) in three modes:

* ``stepped``: the master's cycles back to back, bench time = cycles x 1 ms; the drive steps one
  cycle per frame (what tests and identification data use);
* ``realtime/frames``: the master paced on the wall clock (what the bench and control nodes run),
  the drive still one cycle per frame (main before issue 36's fix: the cycles a late master
  skips are time the shaft never lives);
* ``realtime/clock``: both on the wall clock (``emulate --realtime``, the fix).

For each it prints the master's late cycles and lost frames, and the error |measured - model|
(max and median while the torque is on) against two references: ``replay``, the model stepped
at the law's 1 kHz holding each logged goal from its bench time on (what
``tests/test_control_launch.py`` does with the control node's commands), and, for ``stepped`` at
1000 Hz, ``simulate``, ``actuator_models.simulate_logs`` on the log resampled at 1 ms (the
project's own simulation of the log's goal column). The realtime rows depend on the host's load:
run it on a quiet and on a busy host (e.g. ``stress --cpu 2``) side by side.

Usage: ``sudo .venv/bin/python benchmarks/erob_tracking.py [--trajectories lift_and_drop,sin_sin] [--rate 100]``.
"""

from __future__ import annotations

import argparse
import os
from typing import List

import numpy as np
from actuator_models import load_model, resample, simulate_logs
from actuator_models.logs import Log
from actuator_models.simulation import Pendulum, PendulumSimulator

from actuator_bench.messages import BenchInfo
from actuator_bench.recording import RecordSettings, record
from actuator_drivers.erob.bench import REALTIME_RECEIVE_TIMEOUT, ErobBench
from actuator_drivers.erob.drive import ErobDriver, ErobJoint
from actuator_drivers.erob.master import LineTiming
from actuator_drivers.erob.pacing import Realtime, Stepped
from actuator_drivers.ethercat_emulator.emulated import EMULATOR_RECEIVE_TIMEOUT, EmulatedJoint, EmulatorProcess
from actuator_drivers.ethercat_emulator.veth import veth_pair

MODEL, MASS, LENGTH, KP, VIN = "erob80_100/m6", 3.1, 0.5, 25.0, 48.0
LAW_PERIOD = 0.001  # the master's PD law period [s] (1 kHz)


def replay(log: Log) -> np.ndarray:
    """The model at the law's period, each logged goal held from its bench time on; positions at the log's stamps."""
    sim = PendulumSimulator(load_model(MODEL), Pendulum(MASS, LENGTH), vin=VIN, q=log.position[0], v=log.speed[0])
    t, out = log.timestamp[0], []
    for k, stamp in enumerate(log.timestamp):
        while t < stamp - 1e-9:
            j = int(np.searchsorted(log.timestamp, t + 1e-9, side="right")) - 1
            sim.step(float(log.goal_position[j]), bool(log.torque_enable[j]), KP, LAW_PERIOD)
            t += LAW_PERIOD
        out.append(sim.q)
    return np.array(out)


def errors(measured: np.ndarray, model: np.ndarray, held: np.ndarray) -> str:
    e = np.abs(measured - model)[held]
    return f"{e.max():9.4f} {np.median(e):9.4f}"


def run(mode: str, trajectory: str, rate: float) -> str:
    stepped = mode == "stepped"
    options = ["--realtime"] if mode == "realtime/clock" else []
    timeout = EMULATOR_RECEIVE_TIMEOUT if stepped else REALTIME_RECEIVE_TIMEOUT
    with veth_pair() as (master_end, slave_end), EmulatorProcess(slave_end, [EmulatedJoint(MODEL, MASS, LENGTH)], options):
        driver = ErobDriver(master_end, [ErobJoint("pendulum")], timing=LineTiming(LAW_PERIOD, receive_timeout=timeout),
                            pacing=Stepped() if stepped else Realtime(), max_lost=1000)
        with driver:
            log = record(ErobBench.of(driver, "erob80_100"), trajectory, BenchInfo("erob80_100", mass=MASS, length=LENGTH,
                         vin=VIN), KP, settings=RecordSettings(rate=rate)).log
            late = getattr(driver.pacing, "late_cycles", 0)
            lost = driver.counters.failures
    held = log.torque_enable.astype(bool)
    row = f"{mode:<16}{trajectory:<15}{rate:6.0f}{late:7d}{lost:6d} {errors(log.position, replay(log), held)}"
    if stepped and rate == 1.0 / LAW_PERIOD:
        processed = resample(log, LAW_PERIOD)
        simulated = simulate_logs(load_model(MODEL), [processed])[0]
        row += f" {errors(processed.position, simulated, processed.torque_enable.astype(bool))}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", default="lift_and_drop,sin_sin")
    parser.add_argument("--rate", type=float, default=100.0, help="record rate [Hz] (config/erob_bench.yaml: 100)")
    parser.add_argument("--modes", default="stepped,realtime/frames,realtime/clock")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("benchmarks/erob_tracking.py needs root (veth pair, raw sockets)")
    trajectories: List[str] = [t for t in args.trajectories.split(",") if t]
    print(f"{'mode':<16}{'trajectory':<15}{'Hz':>6}{'late':>7}{'lost':>6} {'replay max':>9} {'median':>9}"
          f" {'simulate max':>9} {'median':>9}   [rad]")
    for trajectory in trajectories:
        if "stepped" in args.modes:
            print(run("stepped", trajectory, 1.0 / LAW_PERIOD), flush=True)
        for mode in args.modes.split(","):
            print(run(mode, trajectory, args.rate), flush=True)


if __name__ == "__main__":
    main()
