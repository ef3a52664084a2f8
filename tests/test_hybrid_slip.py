"""SLIP runner (SimSect manual section 4): energy, flight closed forms, stance symmetry, a polar
reference integration of the stance, and the command line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from hybrid_sim import RunSettings, simulate
from hybrid_sim.cli import main
from hybrid_sim.slip import (ASCENT, COMPRESSION, DECOMPRESSION, DESCENT, Slip, SlipParameters, initial_state,
                             spring_force, spring_potential)
from hybrid_sim.slip_cli import energy_drift

TIGHT = RunSettings(final_time=5.0, record_period=0.01, tolerance=1e-12, max_time_step=1e-3,
                    stop_precision=1e-13, max_chart_count=1000, method="DOP853")
P = SlipParameters()


@pytest.fixture(scope="module")
def default_run():
    model = Slip()
    return model, simulate(model, initial_state({}), TIGHT)


def events_entering(result, chart):
    return [e for e in result.events if e.chart_to == chart]


@pytest.mark.parametrize("i, j", [(1.0, -2.0), (2.0, 1.0), (1.0, 1.0)])
def test_spring_force_is_minus_the_potential_derivative(i, j):
    p = SlipParameters(spri=i, sprj=j)
    for q in (0.7, 0.95, 1.2):
        h = 1e-6
        derivative = (spring_potential(q + h, p) - spring_potential(q - h, p)) / (2 * h)
        assert spring_force(q, p) == pytest.approx(-derivative, rel=1e-7)
    assert spring_potential(p.q_0, p) == 0.0
    if (i, j) == (1.0, -2.0):  # the manual's law: k / q^3, pushing the body away from the foot
        assert spring_force(0.9, p) == pytest.approx(1000.0 / 0.9 ** 3)


def test_energy_is_conserved_over_5_s_at_tight_tolerances(default_run):
    model, result = default_run
    assert result.success and result.t[-1] == 5.0
    assert len(result.events) == 37
    assert energy_drift(model, result) < 1e-6  # J, of E0 = 596.84 J
    e0 = 0.5 * P.body_mass * 1.0 + P.body_mass * P.g_stance * 0.9 + P.k / 2 * (0.9 ** -2 - 1.0)
    assert model.energy(result.y[:, 0], result.chart[0]) == pytest.approx(e0, rel=1e-15)


def test_charts_cycle_in_the_manuals_order(default_run):
    _, result = default_run
    charts = [e.chart_to for e in result.events]
    assert charts[:4] == [ASCENT, DESCENT, COMPRESSION, DECOMPRESSION]
    assert all(b == (a + 1) % 4 for a, b in zip(charts, charts[1:]))


def test_flight_phases_follow_the_projectile_closed_form(default_run):
    _, result = default_run
    for lo, apex, td in zip(events_entering(result, ASCENT), events_entering(result, DESCENT),
                            events_entering(result, COMPRESSION)):
        y, yd, theta = lo.state_after[1], lo.state_after[3], lo.state_after[6]
        assert apex.t - lo.t == pytest.approx(yd / P.g_flight, abs=1e-10)
        assert apex.state_after[1] == pytest.approx(y + yd ** 2 / (2 * P.g_flight), abs=1e-10)
        # touchdown when y(t) = q_rt cos(theta), on the falling branch
        y_td = P.q_rt * math.cos(theta)
        t_fall = (yd + math.sqrt(yd ** 2 + 2 * P.g_flight * (y - y_td))) / P.g_flight
        assert td.t - lo.t == pytest.approx(t_fall, abs=1e-10)
        assert td.state_after[4] == pytest.approx(td.state_after[0] + P.q_rt * math.sin(theta), abs=1e-12)


def test_the_default_gait_is_periodic_and_each_stance_symmetric(default_run):
    _, result = default_run
    mids = events_entering(result, DECOMPRESSION)
    assert len(mids) >= 8
    period = mids[1].t - mids[0].t
    for a, b in zip(mids, mids[1:]):
        assert b.t - a.t == pytest.approx(period, abs=1e-9)
        np.testing.assert_allclose(b.state_after[1:4], [0.9, 1.0, 0.0], atol=1e-8)  # y, xd, yd of t = 0
    # a stance is mirror-symmetric about mid-stance: liftoff mirrors touchdown
    for td, mid, lo in zip(events_entering(result, COMPRESSION), mids, events_entering(result, ASCENT)[1:]):
        assert mid.t - td.t == pytest.approx(lo.t - mid.t, abs=1e-9)
        x_td, x_lo = td.state_after, lo.state_before
        assert x_lo[1] == pytest.approx(x_td[1], abs=1e-9) and x_lo[3] == pytest.approx(-x_td[3], abs=1e-8)
        assert x_lo[0] - x_lo[4] == pytest.approx(-(x_td[0] - x_td[4]), abs=1e-9)


def test_stance_matches_a_polar_reference_integration(default_run):
    """The first full stance, integrated independently in polar coordinates about the foot."""
    _, result = default_run
    td = events_entering(result, COMPRESSION)[0]
    lo = events_entering(result, ASCENT)[1]
    x, y, xd, yd, fx, fy, _ = td.state_after
    r, phi = math.hypot(x - fx, y - fy), math.atan2(x - fx, y - fy)  # phi from vertical, forward > 0
    rd = ((x - fx) * xd + (y - fy) * yd) / r
    phid = ((y - fy) * xd - (x - fx) * yd) / r ** 2

    def polar(t, s):
        r, phi, rd, phid = s
        return [rd, phid, r * phid ** 2 - P.g_stance * math.cos(phi) + spring_force(r, P) / P.body_mass,
                (-2 * rd * phid + P.g_stance * math.sin(phi)) / r]

    def liftoff(t, s):
        return P.q_rl - s[0] if t > 1e-3 else 1.0

    liftoff.terminal, liftoff.direction = True, -1
    ref = solve_ivp(polar, (0.0, 1.0), [r, phi, rd, phid], method="Radau", rtol=1e-12, atol=1e-12, events=liftoff)
    t_ref = ref.t_events[0][0]
    r_e, phi_e, rd_e, phid_e = ref.y_events[0][0]
    assert lo.t - td.t == pytest.approx(t_ref, abs=1e-8)
    xd_ref = rd_e * math.sin(phi_e) + r_e * phid_e * math.cos(phi_e)
    yd_ref = rd_e * math.cos(phi_e) - r_e * phid_e * math.sin(phi_e)
    assert lo.state_before[2] == pytest.approx(xd_ref, abs=1e-7)
    assert lo.state_before[3] == pytest.approx(yd_ref, abs=1e-7)


def test_asymmetric_apex_start_settles_on_a_neutral_two_stride_orbit():
    """From y = 1.2, xd = 1, theta = 0.2 the liftoff-angle rule makes each stance the time-reversed
    mirror of the previous one, so apex heights alternate 1.2, h, 1.2, h, ... (not decaying)."""
    model = Slip()
    settings = RunSettings(**{**TIGHT.__dict__, "final_time": 4.0})
    result = simulate(model, initial_state({"y": 1.2, "xd": 1.0, "theta": 0.2}), settings)
    assert result.success and result.events[0].chart_from == DESCENT
    apexes = [e.state_before[1] for e in events_entering(result, DESCENT)]
    assert len(apexes) >= 4
    np.testing.assert_allclose(apexes[1::2], 1.2, atol=1e-8)
    np.testing.assert_allclose(apexes[0::2], apexes[0], atol=1e-8)
    assert abs(apexes[0] - 1.2) > 1e-2


def test_cli_json_lists_every_transition_with_state_and_energy(capsys):
    assert main(["slip", "--final-time", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["transitions"] == len(out["events"]) == out["transitions_1s"] == 7
    first = out["events"][0]
    assert first["chart"] == "ASCENT"
    assert set(first["state"]) == {"x", "y", "xd", "yd", "foot_x", "foot_y", "theta"}
    assert [e["chart"] for e in out["events"][:4]] == ["ASCENT", "DESCENT", "COMPRESSION", "DECOMPRESSION"]
    assert all(abs(e["energy"] - out["energy_initial"]) < 1e-5 for e in out["events"])
    assert set(out["first_stride"]) == {"liftoff", "apex", "touchdown", "mid_stance"}


def test_cli_rejects_bad_input_and_keeps_existing_files(tmp_path, capsys):
    assert main(["slip", "--final-time", "1", "--initial", "q=1"]) == 2
    assert "unknown state 'q'" in capsys.readouterr().err
    base = tmp_path / "run"
    assert main(["slip", "--final-time", "0.5", "--out", str(base)]) == 0
    assert (tmp_path / "run.data").exists() and "body_mass = 50.48;" in (tmp_path / "run.param").read_text()
    assert main(["slip", "--final-time", "0.5", "--out", str(base)]) == 2
    assert "use --force" in capsys.readouterr().err
    # a run stopped by the chart count limit exits 1 after writing its data
    assert main(["slip", "--final-time", "1", "--max-chart-count", "2", "--out", str(base), "--force"]) == 1
    assert np.loadtxt(tmp_path / "run.data").shape[0] > 10
