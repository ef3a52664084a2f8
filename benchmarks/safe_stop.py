"""Acceptance loop of the safe stop (run by hand): Ctrl-C at spread moments of the README's
``actuator-bench record`` against the stand-alone emulator, and of ``actuator-bench demo --quick``.

Each run must exit 130, print no "release failed", keep its partial log (when the run was under
way) and leave the emulated servo with Torque Enable 0: read through a new bus from the
stand-alone emulator (record), or reported by the demo from its in-process emulator after the
driver closed. Prints one line per run and a summary; exit status 1 if any run failed.

Usage: ``python benchmarks/safe_stop.py [--runs 10] [--skip-demo]`` (about 1 min for record at
time scale 4, about 3 min for the demo on 2 loaded cores).
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from bench_commands import ctrl_c_raises, dynamixel_emulator, interrupted, torque_enable  # noqa: E402


def record_runs(runs: int) -> int:
    failures = 0
    for k in range(runs):
        # the first three from the command's start (imports, bus setup, the slow move to the start),
        # the others from the run's first progress line on (the run takes 1.5 s wall, the return 0.5 s)
        cue, after = (b"", 0.8 + 0.4 * k) if k < 3 else (b"sin_sin", 0.25 * (k - 3))
        with tempfile.TemporaryDirectory() as out, dynamixel_emulator(
                "--actuator", "mx64", "--params", "mx64/m6", "--mass", "1.0", "--length", "0.15",
                "--time-scale", "4") as port:
            code, err = interrupted(["record", "--port", port, "--actuator", "mx64", "--trajectory", "sin_sin",
                                     "--mass", "1.0", "--length", "0.15", "--kp", "32", "--time-scale", "4",
                                     "--out", out], cue, signal.SIGINT, after=after)
            torque = torque_enable(port)
            partial = len(list((Path(out) / "partial").glob("*.json")))
            complete = len(list(Path(out).glob("*.json")))
        ok = code == 130 and torque == 0 and "release failed" not in err
        failures += not ok
        when = f"{after:.2f} s after {'the run started' if cue else 'the command started'}"
        print(f"record run {k + 1}: SIGINT {when}: exit {code}, Torque Enable {torque}, partial logs {partial}, "
              f"complete logs {complete}, release failed {'release failed' in err} -> {'ok' if ok else 'FAILED'}"
              + ("" if ok else f"\n    stderr: {err.strip().splitlines()[-1:]}"), flush=True)
    return failures


def demo_runs(runs: int) -> int:
    failures = 0
    for k in range(runs):
        after = 1.5 * k  # from the first recording on ("recorded 1/"): spread over the recording grid
        with tempfile.TemporaryDirectory() as out:
            started = time.monotonic()
            code, err = interrupted(["demo", "--quick", "--out", out, "--force"], b"recorded 1/", signal.SIGINT,
                                    after=after, timeout=900)
            readback = [line for line in err.splitlines() if "Torque Enable" in line]
            partial = len(list(Path(out).glob("logs/raw/partial/*.json")))
        torque_off = bool(readback) and readback[-1].rstrip().endswith("Torque Enable 0")
        ok = code == 130 and torque_off and "release failed" not in err
        failures += not ok
        print(f"demo run {k + 1}: SIGINT {after:.1f} s after the first recording ({time.monotonic() - started:.0f} s): "
              f"exit {code}, {readback[-1].split('] ')[-1] if readback else 'no readback'}, partial logs {partial}, "
              f"release failed {'release failed' in err} -> {'ok' if ok else 'FAILED'}", flush=True)
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    with ctrl_c_raises():  # the commands must see Ctrl-C even when this script runs in the background
        failures = record_runs(args.runs)
        if not args.skip_demo:
            failures += demo_runs(args.runs)
    print(f"{failures} failed run(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
