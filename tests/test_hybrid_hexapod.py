"""Compliant hexapod (SimSect manual section 5): leg geometry against finite differences, rigid
body invariants in flight, the chart bit layout, the documented parameter choices, and the
controller's phase events against the gait's closed-form times."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hybrid_sim import RunSettings, simulate
from hybrid_sim.hexapod import (CONTROL, F, FD, REF, W, Hexapod, HexapodParameters, chart_of, contacts_of,
                                free_leg_length, leg_force_matrix, phases_of, rotation, spherical)

P = HexapodParameters()


def toe(theta, phi, rho):
    """Manual 5.1.8: Cartesian leg vector from spherical leg coordinates."""
    return np.array([rho * math.sin(theta), rho * math.cos(theta) * math.sin(phi),
                     -rho * math.cos(theta) * math.cos(phi)])


def test_leg_force_matrix_columns_are_minus_the_unit_coordinate_directions():
    theta, phi, rho, h = 0.3, -0.7, 0.17, 1e-7
    matrix = leg_force_matrix(np.array([theta]), np.array([phi]))[0]
    d_rho = (toe(theta, phi, rho + h) - toe(theta, phi, rho - h)) / (2 * h)
    d_theta = (toe(theta + h, phi, rho) - toe(theta - h, phi, rho)) / (2 * h) / rho
    d_phi = (toe(theta, phi + h, rho) - toe(theta, phi - h, rho)) / (2 * h) / (rho * math.cos(theta))
    np.testing.assert_allclose(matrix, -np.stack([d_rho, d_theta, d_phi], 1), atol=1e-7)


def test_spherical_leg_coordinates_and_rates_match_finite_differences():
    rng = np.random.default_rng(3)
    v = rng.normal(size=(6, 3)) * 0.1 + [0.0, 0.0, -0.15]
    vd = rng.normal(size=(6, 3))
    theta, phi, rho, theta_d, phi_d, rho_d = spherical(v, vd)
    for i in range(6):
        np.testing.assert_allclose(toe(theta[i], phi[i], rho[i]), v[i], atol=1e-12)
    h = 1e-7
    plus, minus = spherical(v + h * vd, vd), spherical(v - h * vd, vd)
    for value, rate in zip(range(3), (theta_d, phi_d, rho_d)):
        np.testing.assert_allclose((plus[value] - minus[value]) / (2 * h), rate, rtol=1e-6, atol=1e-8)


def test_rigid_body_in_flight_keeps_angular_momentum_and_rotational_energy():
    model = Hexapod()
    x0 = model.standing_state()
    x0[7:10] += [0.0, 0.0, 5.0]  # high above the ground: every leg in flight
    x0[F] = (x0[F].reshape(6, 3) + [0.0, 0.0, 5.0]).ravel()
    x0[W] = [0.4, -1.1, 0.7]
    x0[10:13] = [0.1, 0.0, 0.5]
    settings = RunSettings(final_time=0.2, record_period=0.05, tolerance=1e-9, max_time_step=1e-3)
    result = simulate(model, x0, settings)
    assert result.success and all(e.boundary >= CONTROL for e in result.events)  # controller phases only
    assert not any(contacts_of(int(c)).any() for c in result.chart)
    inertia_body = np.array(P.inertia)
    momenta, energies = [], []
    for x in result.y.T:
        rot = rotation(x[0:4])
        inertia = rot @ inertia_body @ rot.T
        momenta.append(inertia @ x[W])
        energies.append(0.5 * x[W] @ inertia @ x[W])
    np.testing.assert_allclose(momenta, np.broadcast_to(momenta[0], np.shape(momenta)), atol=1e-7)
    np.testing.assert_allclose(energies, energies[0], rtol=1e-7)
    assert abs(np.linalg.norm(momenta[-1] - momenta[0])) < 1e-7 < np.linalg.norm(result.y[W, -1] - x0[W])
    t = result.t[-1]
    assert result.y[9, -1] == pytest.approx(5.16 + 0.5 * t - 0.5 * P.g * t * t, abs=1e-8)  # free fall


def test_chart_bit_layout_of_manual_5_5_2():
    contacts, phases = [True, False, True, False, True, False], [0, 2, 0, 2, 1, 3]
    chart = chart_of(contacts, phases)
    assert chart & 0b111111 == 0b010101
    assert (chart >> 6) == 0 | 2 << 2 | 0 << 4 | 2 << 6 | 1 << 8 | 3 << 10
    assert list(contacts_of(chart)) == contacts and list(phases_of(chart)) == phases
    model = Hexapod()
    start = model.initial_chart(0.0, model.standing_state())
    assert model.chart_name(start.chart) == "SFSFSF/020202"
    assert model.chart_count() == 2 ** 6 * 4 ** 6


def test_documented_parameter_choices():
    # legs 4 and 5 no longer share an attachment point: leg 4 mirrors leg 1 across the body
    attach = np.array(P.attach)
    assert len({tuple(a) for a in attach}) == 6
    np.testing.assert_array_equal(attach[4], attach[1] * [-1, 1, 1])
    # the saturation stiffens the leg past the liftoff length: a free leg rests just beyond it,
    # where the radial force vanishes
    for k in (500.0, 1000.0):
        rho = free_leg_length(k, 0.2, P.q_rl, P.saturation)
        assert P.q_rl < rho < P.q_rl + 0.002
        assert k * (0.2 - rho) == pytest.approx(P.saturation * math.expm1(rho - P.q_rl), rel=1e-9)
    # at the standing state, a flight leg at that length has no radial force on its toe
    model = Hexapod()
    x0 = model.standing_state()
    chart = model.initial_chart(0.0, x0).chart
    legs = model.legs(x0, chart)
    assert legs.rho[1] == pytest.approx(free_leg_length(1000.0, 0.2, P.q_rl, P.saturation))
    radial = -np.einsum("ij,ij->i", legs.force_body, legs.leg) / legs.rho
    assert abs(radial[1]) < 1e-9 and radial[0] > 10.0  # flight leg 1 free; stance leg 0 compressed


@pytest.fixture(scope="module")
def short_walk():
    model = Hexapod()
    settings = RunSettings(final_time=0.75, record_period=0.01, tolerance=1e-5, max_time_step=1e-3,
                           max_chart_count=1000)
    return model, simulate(model, model.standing_state(), settings)


def test_controller_phases_change_at_the_gaits_closed_form_times(short_walk):
    model, result = short_walk
    assert result.success, result.message
    t_s, t_f = P.cycle_time - P.flight_time, P.flight_time  # 0.6 s slow, 0.4 s fast
    phase_events = [e for e in result.events if e.boundary >= CONTROL]
    # tripod {1,3,5} starts mid-swing: swing ends at t_f/2; tripod {0,2,4} starts mid-stance: stance
    # ends at t_s/2; then the half phases follow: t_s/2 + t_f/2 for both
    expected = [t_f / 2, t_s / 2, t_f / 2 + t_s / 2, t_s / 2 + t_f / 2 + t_s / 2]
    times = sorted({round(e.t, 9) for e in phase_events})
    np.testing.assert_allclose(times[:3], expected[:3], atol=1e-9)
    # each phase event moves a whole tripod at once
    for e in phase_events:
        changed = np.flatnonzero(phases_of(e.chart_from) != phases_of(e.chart_to))
        assert sorted(changed) in ([0, 2, 4], [1, 3, 5], [0, 1, 2, 3, 4, 5])
    # the reference angle of tripod {0,2,4} follows the piecewise-linear profile
    k = np.searchsorted(result.t, 0.5)
    ref = result.y[REF.start, k]
    assert ref == pytest.approx(P.sweep_angle / 2 + (result.t[k] - t_s / 2) * (2 * math.pi - P.sweep_angle) / t_f,
                                abs=1e-9)


def test_legs_touch_down_and_lift_off_and_the_body_moves_forward(short_walk):
    model, result = short_walk
    kinds = {("touchdown" if e.boundary % 2 else "liftoff") for e in result.events if e.boundary < CONTROL}
    assert kinds == {"touchdown", "liftoff"}
    # touchdowns put the toe on the ground with zero velocity
    for e in result.events:
        if e.boundary < CONTROL and e.boundary % 2:
            leg = e.boundary // 2
            assert e.state_after[F.start + 3 * leg + 2] == 0.0
            assert np.all(e.state_after[FD.start + 3 * leg: FD.start + 3 * leg + 3] == 0.0)
    y = result.aux[result.aux_names.index("y")]
    z = result.aux[result.aux_names.index("z")]
    assert y[-1] < -0.1  # forward is -y_B
    assert 0.12 < z.min() and z.max() < 0.2  # neither collapses nor jumps


def test_cli_prints_the_walk_summary_with_its_events_and_writes_the_plot(tmp_path, capsys):
    import json

    from hybrid_sim.cli import main

    png = tmp_path / "hexapod.png"
    assert main(["hexapod", "--final-time", "0.3", "--json", "--plot", str(png)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["status"] == 0 and out["transitions"] == len(out["events"]) > 0
    first = out["events"][0]
    assert set(first) == {"t", "event", "chart", "chart_number"} and first["event"].startswith("touchdown")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_run_of_zero_seconds_records_the_standing_start_as_slip_does(tmp_path, capsys):
    """``--final-time 0`` (found by tests/test_fuzz_cli.py: it ended on an AssertionError): one
    record, the first record of any run (the standing start at t = 0), and the plot."""
    from hybrid_sim.cli import main

    def records(base: str) -> list:
        return [line for line in (tmp_path / f"{base}.data").read_text().splitlines() if not line.startswith("#")]

    png = tmp_path / "hexapod.png"
    assert main(["hexapod", "--final-time", "0", "--out", str(tmp_path / "still"), "--plot", str(png)]) == 0
    assert "reached final time; 0 transitions" in capsys.readouterr().out
    assert main(["hexapod", "--final-time", "0.05", "--out", str(tmp_path / "walk")]) == 0
    (still,), walk = records("still"), records("walk")
    assert len(walk) > 1 and still == walk[0] and float(still.split()[0]) == 0.0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
