"""The wheel with the lumped spatial-spring tire on the hybrid engine: energy, settling, curved ground, CLI."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from hybrid_sim import RunSettings, simulate
from hybrid_sim.cli import main
from hybrid_sim.wheel import FLIGHT, STICK, Wheel, WheelParameters, initial_state
from hybrid_sim.wheel_geometry import closest_ground_point

UNDAMPED = WheelParameters(d_theta=0.0, d_t=0.0, d_z=0.0, mu=float("inf"), k_t=2e4, k_z=2e4)


def run(params, final_time, tolerance=1e-8, **initial):
    model = Wheel(params)
    x0 = initial_state(params=params, **initial)
    result = simulate(model, x0, RunSettings(final_time=final_time, record_period=0.005, tolerance=tolerance,
                                             max_time_step=5e-3, max_chart_count=5000))
    assert result.success, result.message
    return model, result, dict(zip(result.aux_names, result.aux))


@pytest.fixture(scope="module")
def undamped():
    return run(UNDAMPED, 10.0, spin=8.0, xd=1.0)


def test_undamped_rolling_and_bouncing_conserves_energy(undamped):
    model, result, aux = undamped
    touchdowns = sum(1 for e in result.events if e.chart_from == FLIGHT)
    assert touchdowns >= 10                                   # it keeps bouncing (about 30 in 10 s)
    assert aux["dissipated"][-1] == pytest.approx(0.0, abs=1e-12)
    e0 = aux["energy"][0]                                     # 2.5 + 1.35 + 17.2 J
    # kinetic + gravity + spring, plus the spring energy released at liftoff, is constant
    assert np.ptp(aux["balance"]) < 2e-6 * e0
    # and within every epoch kinetic + gravity + spring alone is constant
    bounds = [0.0] + [e.t for e in result.events] + [result.t[-1] + 1.0]
    for start, end in zip(bounds[:-1], bounds[1:]):
        inside = (result.t >= start) & (result.t < end)
        if inside.sum() > 1:
            assert np.ptp(aux["energy"][inside]) < 2e-6 * e0
    # the liftoff releases only tangential/torsional energy (f_z = -k_z z = 0 there)
    for e in result.events:
        if e.chart_to == FLIGHT:
            assert abs(e.state_before[13]) < 1e-9


def test_damped_energy_never_increases():
    model, result, aux = run(WheelParameters(), 1.5, spin=10.0)
    steps = np.diff(aux["energy"])
    assert steps.max() < 1e-7                                 # never up (beyond integrator noise)
    assert aux["energy"][0] - aux["energy"][-1] > 5.0         # and it did lose energy (about 10 of 28 J)
    assert np.all(np.diff(aux["dissipated"]) >= -1e-12)
    assert np.ptp(aux["balance"]) < 1e-5


@pytest.fixture(scope="module")
def dropped():
    return run(WheelParameters(), 2.0, spin=10.0)


def test_drop_with_spin_bounces_settles_and_rolls(dropped):
    model, result, aux = dropped
    p = model.params
    touchdowns = [e.t for e in result.events if e.chart_from == FLIGHT]
    assert len(touchdowns) >= 3                               # bounces (7 with the defaults)
    assert any(e.chart_to == 2 for e in result.events)        # slides first (SLIP)
    assert result.chart[-1] == STICK and touchdowns[-1] < 1.0  # then stays on the ground, sticking
    assert aux["slip_velocity"][-1] < 1e-6
    assert aux["tangential_energy"][-1] < 1e-12
    k_z = model.model.stiffness.normal
    delta = p.mass * p.gravity / k_z                          # static deflection 0.98 mm
    assert aux["f_n"][-1] == pytest.approx(p.mass * p.gravity, rel=1e-4)
    assert aux["z"][-1] == pytest.approx(p.radius - delta, abs=2e-6)
    # rolling without slip about p_c: it lies k_tire / (k_ground + k_tire) of the overlap below the
    # ground (eq. 1 with stiffness weights), so the rolling radius is R - delta + 0.005 delta
    depth = p.k_z / (p.k_ground + p.k_z) * (p.radius - aux["z"][-1])
    assert aux["xd"][-1] == pytest.approx((aux["z"][-1] + depth) * aux["phid"][-1], rel=1e-8)
    assert np.ptp(aux["balance"]) < 1e-5


def test_rolling_over_waves_keeps_the_hinge_under_the_wheel():
    params = WheelParameters(amplitude=0.01, wavelength=1.5)
    model, result, aux = run(params, 2.0, spin=10.0)
    ground = params.ground()
    assert result.chart[-1] != FLIGHT and aux["x"][-1] > 1.0
    in_contact = result.chart != FLIGHT
    closest = np.array([closest_ground_point(ground, x, z) for x, z in zip(aux["x"], aux["z"])])
    # the ground hinge, moved by the rolling kinematics and the released slide, stays at the point
    # under the centre up to the tangential deflection (without moving it on release: 29 mm off)
    assert np.max(np.abs(aux["u1"][in_contact] + aux["qx"][in_contact] - closest[in_contact])) < 2.5e-3
    assert np.ptp(aux["balance"]) < 1e-5


def test_cli_wheel_without_mujoco_says_how_to_install_it(monkeypatch, capsys):
    import sys

    from hybrid_sim.wheel_mujoco import run_mujoco

    monkeypatch.setitem(sys.modules, "mujoco", None)  # as if MuJoCo were not installed: import fails
    assert main(["wheel", "--final-time", "0.1", "--mujoco"]) == 2
    assert "--mujoco: MuJoCo is not installed; pip install 'hybrid_sim[mujoco]'" in capsys.readouterr().err
    with pytest.raises(ImportError, match=re.escape("hybrid_sim[mujoco]")):
        run_mujoco(WheelParameters(), initial_state(params=WheelParameters()), 0.01)


def test_cli_wheel_writes_plot_and_json(tmp_path, capsys):
    png = tmp_path / "wheel.png"
    assert main(["wheel", "--final-time", "0.3", "--plot", str(png), "--json"]) == 0
    info = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert png.stat().st_size > 10000
    assert info["touchdowns"] == 2 and info["events"][0]["to"] == "SLIP"
    assert main(["wheel", "--final-time", "0.3", "--plot", str(png)]) == 2            # no overwrite
    assert main(["wheel", "--param", "radius=-1"]) == 2
    assert main(["wheel", "--param", "bogus=1"]) == 2
    assert "bogus" in capsys.readouterr().err
    rc = tmp_path / "wheel.rc"
    rc.write_text("finalTime = 0.05;\nheight = 0.01;\n")   # a 1 cm drop touches down at 0.045 s
    assert main(["wheel", "--config", str(rc), "--json"]) == 0
    info = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert info["touchdowns"] == 1 and info["events"][0]["t"] == pytest.approx(np.sqrt(2 * 0.01 / 9.81), abs=1e-9)
    rc.write_text("bogus = 1;\n")
    assert main(["wheel", "--config", str(rc)]) == 2


@pytest.mark.parametrize("mu", [0.3, 0.8, 1.0])
def test_undamped_wheel_with_friction_runs_and_keeps_its_liftoff_energy(mu):
    # before issue 25 this stopped at the first liftoff for every mu: the slip -> stick boundary
    # jumped as the normal force ran out ("not located to stop precision ... discontinuous boundary?")
    params = WheelParameters(d_theta=0.0, d_t=0.0, d_z=0.0, mu=mu)
    model = Wheel(params)
    settings = RunSettings(final_time=2.0, record_period=0.002, stop_precision=1e-10, tolerance=1e-9,
                           max_time_step=1e-3, max_chart_count=20000)
    result = simulate(model, initial_state(params=params, spin=10.0), settings)
    assert result.success, result.message
    assert result.t[-1] == 2.0
    aux = dict(zip(result.aux_names, result.aux))
    assert sum(1 for e in result.events if e.chart_from == FLIGHT) >= 5
    # E + dissipated + released - work is constant (E: kinetic + gravity + spring, about 28 J)
    assert np.ptp(aux["balance"]) < 1e-6
    # the friction circle shrinks with the normal force, so the slip has already dissipated the
    # tangential spring when f_z = -k_z z reaches 0: nothing is left to release at liftoff
    assert aux["released"][-1] < 1e-9
    assert aux["dissipated"][-1] > 1.0
    for e in result.events:
        if e.chart_to == FLIGHT:
            assert model.model.stiffness.energy(e.state_before[10:14]) < 1e-9


# ---------------------------------------------------------------- section VI: compression hardening (issue 25)
def test_hardening_spring_wrench_is_the_differential_of_its_energy():
    from hybrid_sim.tire_spring import Stiffness, rate_map

    k = Stiffness.isotropic(200.0, 5e4, 5e4, hardening=50.0)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.normal(0.0, [0.05, 2e-3, 2e-3, 5e-3])
        numeric = np.array([(k.energy(q + dq) - k.energy(q - dq)) / 2e-9 for dq in np.eye(4) * 1e-9])
        np.testing.assert_allclose(k.gradient(q), numeric, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(k.wrench(q), -rate_map(q).T @ numeric, rtol=1e-5, atol=1e-6)
    q = np.array([0.0, 1e-3, 0.0, -0.01])  # 1 cm of compression: k_t exp(0.5)
    assert -k.wrench(q)[1] / 1e-3 == pytest.approx(5e4 * np.exp(0.5), rel=1e-9)
    assert Stiffness.isotropic(200.0, 5e4, 5e4).energy(q) < k.energy(q)
    with pytest.raises(ValueError, match="does not harden"):
        WheelParameters(hardening=50.0).contact().slip


def test_undamped_wheel_with_hardening_tire_conserves_energy():
    params = WheelParameters(d_theta=0.0, d_t=0.0, d_z=0.0, mu=float("inf"), hardening=50.0)
    model, result, aux = run(params, 2.0, spin=8.0, xd=1.0)
    assert sum(1 for e in result.events if e.chart_from == FLIGHT) >= 2
    assert np.ptp(aux["balance"]) < 2e-6 * aux["energy"][0]
    soft = run(WheelParameters(d_theta=0.0, d_t=0.0, d_z=0.0, mu=float("inf")), 2.0, spin=8.0, xd=1.0)[2]
    assert np.abs(aux["x"] - soft["x"]).max() > 1e-4  # the hardening changes the motion
