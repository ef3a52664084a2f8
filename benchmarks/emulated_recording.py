"""Real-time vs lockstep emulated recordings: what the host's scheduling does to a recording.

Records the same trajectories through the real driver and dynamixel-sdk against the emulated
MX-64 (``mx64/m6`` on 1 kg at 0.15 m, kp 32, Protocol 1.0), with the emulator in lockstep with
the driver and in real time at several speed-ups, and prints per mode: wall time, achieved
rate, gaps over 2 dt (count, longest), retries and comm errors, and the MAE between the
recorded position and a direct simulation of the recorded goals (the emulation's fidelity: in
lockstep only encoder quantisation and the bus's one-cycle delay remain). Run it on a quiet and
on a loaded machine (e.g. with ``stress --cpu 2``) side by side: the lockstep rows do not change.

Usage: ``python benchmarks/emulated_recording.py [--scales 1,2,4,6] [--trajectories sin_sin,lift_and_drop]``.
"""

from __future__ import annotations

import argparse
import time
from typing import List, Optional

import numpy as np
from actuator_models import load_model, resample, simulate_logs

from actuator_drivers.dynamixel_emulator.emulated import Emulation, emulated_dynamixel
from actuator_bench.messages import BenchInfo
from actuator_drivers.dynamixel.bench import DynamixelBench
from actuator_bench.recording import RecordSettings, record


def run(time_scale: Optional[float], trajectories: List[str]) -> dict:
    """Record ``trajectories`` with one emulator; totals and the worst values over them."""
    model = load_model("mx64/m6")
    start = time.perf_counter()
    rows = []
    with emulated_dynamixel("mx64", model, 1.0, 0.15, emulation=Emulation(protocol=1, time_scale=time_scale)) as (_, driver):
        for name in trajectories:
            recording = record(DynamixelBench.of(driver, "mx64"), name, BenchInfo("mx64", mass=1.0, length=0.15), 32,
                               settings=RecordSettings(prepare_time=0.5, return_time=0.5))
            processed = resample(recording.log, 0.005)
            mae = float(np.abs(simulate_logs(model, [processed])[0] - processed.position).mean())
            rows.append((recording.quality, mae))
    return {
        "wall": time.perf_counter() - start,
        "rate": min(q.achieved_rate for q, _ in rows),
        "gaps": sum(q.gaps for q, _ in rows),
        "longest": max(q.longest_gap for q, _ in rows),
        "retries": sum(q.retries for q, _ in rows),
        "errors": sum(q.comm_errors for q, _ in rows),
        "mae": float(np.mean([m for _, m in rows])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scales", default="1,2,4,6", help="real-time speed-ups to compare with lockstep")
    parser.add_argument("--trajectories", default="sin_sin,lift_and_drop")
    args = parser.parse_args()
    trajectories = [t for t in args.trajectories.split(",") if t]
    modes = [("lockstep", None)] + [(f"real time x{s}", float(s)) for s in args.scales.split(",") if s]
    print(f"{'mode':<14}{'wall s':>8}{'min Hz':>8}{'gaps':>6}{'longest ms':>12}{'retries':>9}{'errors':>8}{'MAE rad':>10}")
    for label, scale in modes:
        r = run(scale, trajectories)
        print(f"{label:<14}{r['wall']:>8.1f}{r['rate']:>8.0f}{r['gaps']:>6}{1000 * r['longest']:>12.1f}"
              f"{r['retries']:>9}{r['errors']:>8}{r['mae']:>10.5f}")


if __name__ == "__main__":
    main()
