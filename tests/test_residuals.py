"""Residual analysis (issue 21): phases, latency by cross-correlation and hysteresis at
reversals, each checked against a signal built with a known answer; and the command."""

import json
import subprocess
import sys

import numpy as np
import pytest

from actuator_models.logs import Log
from actuator_models.residuals import PHASES, hysteresis, latency, phase_labels, reversals

DT = 0.005


def sine_log(enable_off=(), amplitude=1.0, period=2.0, seconds=4.0):
    t = np.arange(0, seconds, DT)
    q = amplitude * np.sin(2 * np.pi * t / period)
    enable = np.ones_like(t)
    for start, stop in enable_off:
        enable[(t >= start) & (t < stop)] = 0.0
    return Log(mass=0.5, length=0.1, kp=100.0, timestamp=t, position=q, speed=np.gradient(q, DT), goal_position=q,
               torque_enable=enable, dt=DT, trajectory="sine")


def test_latency_recovers_a_known_delay():
    t = np.arange(0, 6, DT)
    motion = np.sin(2 * np.pi * 0.7 * t) + 0.3 * np.sin(2 * np.pi * 2.3 * t)
    for delay_steps in (0, 3, 8):  # 0, 15 and 40 ms: the measurement lags the simulation
        measured = np.concatenate([np.full(delay_steps, motion[0]), motion[: len(motion) - delay_steps]])
        assert latency(motion, measured, DT) == pytest.approx(delay_steps * DT)
        assert latency(measured, motion, DT) == pytest.approx(-delay_steps * DT)


def test_reversals_and_phases_of_a_sine_with_a_release():
    log = sine_log(enable_off=[(3.0, 3.5)])
    found = reversals(log.speed, 0.2)
    # a sine of period 2 s reverses at 0.5, 1.5, 2.5, 3.5 s; the speed sign flips there
    assert [round(k * DT, 2) for k, _ in found] == pytest.approx([0.55, 1.55, 2.55, 3.55], abs=0.06)
    assert [d for _, d in found] == [-1, 1, -1, 1]
    labels = phase_labels(log)
    t = np.arange(len(log)) * DT
    assert np.all(labels[(t >= 3.0) & (t < 3.5)] == PHASES.index("torque release"))
    assert labels[int(round(1.5 / DT))] == PHASES.index("reversal")
    peak_speed = 2 * np.pi / 2.0  # 3.14 rad/s > 2 rad/s where the sine crosses zero
    assert np.max(np.abs(log.speed)) == pytest.approx(peak_speed, rel=1e-3)
    assert labels[int(round(1.0 / DT))] == PHASES.index("high speed")


def test_hysteresis_of_a_direction_dependent_offset():
    """An error of +b after reversals toward positive speed and -b after those toward negative
    speed (what a backlash of 2b leaves) measures 2b; an offset that does not depend on the
    direction measures 0."""
    log = sine_log()
    direction = np.sign(log.speed)
    b = 0.02
    assert hysteresis(b * direction, log.speed, DT) == pytest.approx(2 * b)
    assert hysteresis(np.full(len(log), 0.05), log.speed, DT) == pytest.approx(0.0)


def test_residuals_command_writes_json_and_figures(tmp_path, xl330_processed):
    out = tmp_path / "res"
    done = subprocess.run([sys.executable, "-m", "actuator_models.cli", "residuals", "--params", "xl330/m6", "--logs",
                           str(xl330_processed), "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    content = json.loads((out / "residuals.json").read_text())
    assert len(content["logs"]) == 12 and set(content["by_gain"]) == {"kp 100", "kp 200", "kp 800"}
    release = [r for r in content["logs"] if r["trajectory"] == "lift_and_drop"]
    assert all(r["share"]["torque release"] > 0.2 for r in release)  # the drop: 2 s of torque off in 6 s
    # the per-phase errors add up to the log's MAE, weighted by their shares
    for r in content["logs"]:
        assert sum(r["by_phase"][p] * r["share"][p] for p in r["by_phase"]) == pytest.approx(r["mae"], rel=1e-9)
    # the servo's temperature per log (the heating addition's input): the XL330 warms at kp 800
    hot = {r["kp"]: r["temperature"] for r in content["logs"] if r["trajectory"] == "sin_time_square"}
    assert 28.5 < hot[100.0] < 29.5 and 38.5 < hot[800.0] < 39.5
    for png in ("phases.png", "bins.png", "worst_log.png"):
        assert (out / png).stat().st_size > 10_000
    again = subprocess.run([sys.executable, "-m", "actuator_models.cli", "residuals", "--params", "xl330/m6", "--logs",
                            str(xl330_processed), "--out", str(out)], capture_output=True, text=True)
    assert again.returncode == 2 and "error:" in again.stderr and "already exist" in again.stderr
