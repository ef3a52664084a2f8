"""Every hybrid command refuses out-of-domain parameters and states with one error line, and has a step
budget (issue 35, finding 4). Each case below was a traceback, an exit 0 or a run of minutes before."""

from __future__ import annotations

import numpy as np
import pytest

from hybrid_sim import Boundary, HybridModel, RunSettings, Side, Transition, simulate
from hybrid_sim.cli import main

LOG = "data/xl330/processed/2026-01-15_10h28m17.json"


def refused(capsys, argv, *words, code=2):
    assert main(argv) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error:" in err
    for word in words:
        assert word in err, err
    return err


@pytest.mark.parametrize("y", ["-1", "-0.5", "0"])
def test_slip_refuses_a_body_below_the_ground(capsys, y):
    # until issue 35: TypeError (y < 0) and ZeroDivisionError (y = 0) tracebacks
    refused(capsys, ["slip", "--final-time", "0.1", "--initial", f"y={y}"], f"y = {float(y)!r} m", "y > 0")


def test_physical_signs_and_scales_are_checked(capsys, tmp_path):
    rc = tmp_path / "bad.rc"
    rc.write_text("g_flight = -10;\n")  # until issue 35: exit 0
    refused(capsys, ["slip", "--config", str(rc)], "g_flight = -10.0 must be > 0")
    rc.write_text("friction_coeff = -1;\n")  # until issue 35: exit 0
    refused(capsys, ["hexapod", "--config", str(rc)], "friction_coeff = -1.0 must be >= 0")
    rc.write_text("rho1_k = -500;\n")  # a negative leg stiffness: "discontinuous boundary?"
    refused(capsys, ["hexapod", "--config", str(rc)], "rho_k", "must be > 0")
    # 1e6 kg on 500 N/m legs: a tripod sags m g / (3 k) = 6.67 km, the legs are 0.2 m long
    rc.write_text("body_mass = 1e6;\n")
    refused(capsys, ["hexapod", "--config", str(rc)], "sags a tripod's legs", "6.67e+03 m")


def test_stick_slip_refuses_steps_that_do_not_resolve_the_log(capsys):
    # until issue 35: --dts 10 on the 6 s log gave "0.000 s stuck" and MAEs of 0.0000, exit 0
    refused(capsys, ["stick-slip", "--params", "xl330/m6", "--log", LOG, "--dts", "10"], "more than 1/100 of the log's 6 s")
    refused(capsys, ["stick-slip", "--params", "xl330/m6", "--log", LOG, "--dts", "1e-9"], "6e+09 steps")


def test_animation_frame_count_is_bounded_before_the_run(capsys, tmp_path):
    # until issue 35: --animate-fps 1e6 ran past 400 s
    for command in ("slip", "wheel"):
        refused(capsys, [command, "--animate", str(tmp_path / "a.gif"), "--animate-fps", "1e6", "--final-time", "1"],
                "1e+06 frames, more than 15000")


def test_a_run_too_stiff_for_its_settings_stops_on_the_step_budget(capsys):
    # a 1 mg wheel on the 5e4 N/m tire (contact period 2 pi sqrt(m / k) = 28 us): until issue 35 it did
    # not finish 0.2 s in 300 s; the budget stops it with a message (exit 1, a failed run). 300 steps
    # would reach 0.2 s at the wheel's largest step (1 ms), so the message blames the stiffness
    refused(capsys, ["wheel", "--param", "mass=1e-6", "--final-time", "0.2", "--max-steps", "300"],
            "step budget exhausted: 300 integrator steps", "too stiff", "--max-steps", code=1)


class Fall(HybridModel):
    state_names = ("y", "v")
    n_continuous = 2
    chart_names = ("FLIGHT",)

    def vector_field(self, t, x, chart):
        return np.array([x[1], -9.81])

    def boundaries(self, chart):
        return [Boundary(0, Side.RIGHT)]

    def boundary(self, t, x, chart, index):
        return x[0] + 100.0

    def transition(self, t, x, chart, index):
        return Transition(0, x.copy())


def test_the_step_budget_counts_steps_over_the_whole_run():
    # max step 0.01 s over 1 s: at least 100 steps; a budget of 50 stops the run half-way, keeping its data
    settings = RunSettings(final_time=1.0, max_time_step=0.01, max_steps=50, record_period=0.01)
    result = simulate(Fall(), [0.0, 0.0], settings)
    assert result.status == -1 and "step budget exhausted: 50" in result.message
    # 50 steps cannot reach 1 s at 0.01 s a step: the message says so, not that the model is stiff
    assert "needs at least 100 steps in all" in result.message and "stiff" not in result.message
    assert 0.0 < result.t[-1] <= 0.5 + 1e-12
    np.testing.assert_allclose(result.state("y"), -9.81 * result.t ** 2 / 2, atol=1e-9)
    assert simulate(Fall(), [0.0, 0.0], RunSettings(final_time=1.0, max_time_step=0.01, max_steps=200)).success


class Drop(Fall):
    """Falls 1.2 m, then starts again from rest at 0 (a new chart epoch every 0.495 s)."""

    def boundary(self, t, x, chart, index):
        return x[0] + 1.2

    def transition(self, t, x, chart, index):
        return Transition(0, np.zeros(2))


def test_the_step_budget_message_counts_the_steps_of_earlier_charts():
    # 1 s at most 0.01 s a step: at least 100 steps, ~50 of them before the first drop at 0.495 s. A
    # budget of 80 runs out in the second chart, from whose start 80 steps would do: the message
    # counted from there, and blamed the stiffness
    result = simulate(Drop(), [0.0, 0.0], RunSettings(final_time=1.0, max_time_step=0.01, max_steps=80))
    assert result.status == -1 and "step budget exhausted: 80" in result.message
    assert 0.5 < result.t[-1] < 1.0  # in the second chart
    assert "needs at least 10" in result.message and "steps in all" in result.message, result.message
    assert "stiff" not in result.message


def test_stick_slip_checks_its_log_and_proceeds_knowingly_with_allow_odd_logs(capsys, tmp_path):
    """A log with its length in centimetres is refused naming file and field; the refusal's own
    advice, --allow-odd-logs, is an option of stick-slip too (it only warns then)."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / LOG).read_text())
    data["entries"] = data["entries"][:60]
    data["length"] = 10.0  # 10 cm meant
    odd = tmp_path / "cm.json"
    odd.write_text(json.dumps(data))
    err = refused(capsys, ["stick-slip", "--params", "xl330/m1", "--log", str(odd), "--dts", "0.001"],
                  "cm.json", "length", "--allow-odd-logs")
    assert "centimetres" in err
    assert main(["stick-slip", "--params", "xl330/m1", "--log", str(odd), "--dts", "0.001", "--allow-odd-logs"]) == 0
    out, err = capsys.readouterr()
    assert "warning" in err and "MAE vs reference" in out
