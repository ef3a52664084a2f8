"""The benchmark scripts still run against today's packages (no test times them: their figures
are measured by hand: docs/FIDELITY.md, README). Each one parses its arguments and
imports what it uses (``--help``), and the fit template that ``held_out_quality.py`` sends to the
install under test runs one fold with this install: changing the carry rule's signature broke it
once, unnoticed until a measurement ran it."""

import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from actuator_models.provenance import numpy_blas, provenance

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if p.name != "seeds.py")  # seeds.py: a module they import
#: The scripts that drive ROS 2 (rclpy): CI runs them with ROS sourced.
ROS = {"control_fit.py", "control_rate.py", "ros_ctrl_c.py"}


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_every_benchmark_parses_its_arguments(script):
    if script.name in ROS and importlib.util.find_spec("rclpy") is None:
        pytest.skip("needs ROS 2 (rclpy): source a ROS setup, as CI does")
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:"), done.stdout[:200]


def test_the_nested_protocols_fit_template_runs_one_fold_with_this_install(xl330_processed):
    """One outer fold of ``--protocol nested-trajectory`` (sin_sin held out, the other three
    trajectories trained on), the carry rule's default (``auto``) and 48 trials of M1: the
    template's subprocess exits 0 and reports the training and held-out MAE [rad] (48 trials leave
    them near 0.1-0.2, either one the larger; the unfitted defaults' are near 0.3)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import held_out_quality
    finally:
        sys.path.remove(str(BENCHMARKS))
    train, validation, seconds = held_out_quality.one_fit(sys.executable, xl330_processed, "m1", 0, "trajectories",
                                                          "sin_sin|", {"trials": 48, "force": 1}, "auto")
    assert all(math.isfinite(x) and 0 < x < 1.0 for x in (train, validation))
    assert seconds > 0
    # each table names what its installs ran on (a fit's bits depend on it): this one's own kernels
    (blas,) = numpy_blas(provenance()["blas"])  # this process may hold scipy's too
    assert held_out_quality.ran_on(sys.executable) == (f"numpy {numpy.__version__}, {blas['library']} {blas['version']} "
                                                       f"{blas['architecture']} kernels, {provenance()['processor']}")
