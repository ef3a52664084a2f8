"""Whole ``actuator-models fit`` commands of two installs, timed one after the other (issue 30).

    python benchmarks/fit_speed.py --other /work/baseline/.venv/bin/actuator-models
    python benchmarks/fit_speed.py --other OTHER --pairs 10 -- --model m6 --trials 1500 --seed 0

Runs this install's ``actuator-models fit`` (the one beside this interpreter) and ``--other``'s
alternately, ``--pairs`` times each after one warm-up of each (files in the page cache), every
command a new process on the shared XL330 logs with the same arguments (default: ``--model m6 --trials 1500 --seed 0``; anything after ``--`` replaces them), and prints
per command the wall time and the CPU time (user + system of the process and its children) [s],
then their medians and the ratios this / other, median and range over the pairs (each pair's
two commands ran back to back, so a change of load between pairs cancels). Issue 30's target:
the wall ratio at most 1. Run it on a quiet machine for the figure to report; on a busy one the
ratio says how the two share a loaded machine.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Sequence, Tuple

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
DEFAULT_ARGS = ["--model", "m6", "--trials", "1500", "--seed", "0"]


def timed(command: Sequence[str]) -> Tuple[float, float]:
    """(wall, CPU of the children) [s] of ``command``, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def fit_command(program: str, out: Path, args: Sequence[str]) -> List[str]:
    return [program, "fit", "--logs", str(LOGS), "--actuator", "xl330", *args, "--out", str(out), "--quiet"]


def summary(name: str, values: Sequence[float]) -> str:
    return f"{name} {statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--other", required=True, help="the other install's actuator-models executable")
    parser.add_argument("--pairs", type=int, default=10, help="timed pairs (after one warm-up pair)")
    parser.add_argument("fit_args", nargs="*", help="fit arguments after -- (default: %(default)s)",
                        default=DEFAULT_ARGS)
    args = parser.parse_args()
    ours = str(Path(sys.executable).with_name("actuator-models"))
    runs = {"this": [], "other": []}
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.pairs + 1):
            for name, program in (("this", ours), ("other", args.other)):
                wall, cpu = timed(fit_command(program, Path(folder) / f"{name}{index}", args.fit_args))
                if index:  # the first pair warms up
                    runs[name].append((wall, cpu))
                    print(f"pair {index:2d} {name:5s} wall {wall:.3f} s  cpu {cpu:.3f} s", flush=True)
    for name, rows in runs.items():
        print(f"{name}: {summary('wall', [w for w, _ in rows])} s, {summary('cpu', [c for _, c in rows])} s")
    for column, label in ((0, "wall"), (1, "cpu")):
        ratios = [a[column] / b[column] for a, b in zip(runs["this"], runs["other"])]
        print(summary(f"ratio this/other, {label}:", ratios))


if __name__ == "__main__":
    main()
