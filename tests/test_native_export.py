"""``actuator-sim export``: native MJCF of a servo model, loaded and stepped by plain MuJoCo."""

import json
import shutil

import mujoco
import numpy as np
import pytest

from actuator_models.actuators import VoltageControlled
from actuator_models.logs import read_log, read_logs
from actuator_models.model import load_model, new_model, save_model
from actuator_models.simulation import simulate_logs
from actuator_sim.cli import main
from actuator_sim.native import native_servo, pendulum_export


@pytest.fixture(scope="module")
def one_log_dir(xl330_processed, tmp_path_factory):
    folder = tmp_path_factory.mktemp("one_log")
    shutil.copy(sorted(xl330_processed.glob("*.json"))[0], folder)
    return folder


def _replay(path, log):
    """Plain MuJoCo on the exported file: ctrl = logged goal, actuation off while torque is off."""
    mj = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(mj)
    data.qpos[0], data.qvel[0] = log.position[0], log.speed[0]
    out = []
    for goal, enable in zip(log.goal_position, log.torque_enable):
        out.append(data.qpos[0])
        data.ctrl[0] = goal
        mj.opt.disableflags = 0 if enable else int(mujoco.mjtDisableBit.mjDSBL_ACTUATION)
        mujoco.mj_step(mj, data)
    return np.array(out)


@pytest.mark.parametrize("params", ["xl330/m1", "xl330/m6"])
def test_printed_loss_is_a_recomputed_replay(params, one_log_dir, tmp_path, capsys):
    log = read_log(next(one_log_dir.glob("*.json")))
    out = tmp_path / "servo.xml"
    assert main(["export", "--params", params, "--out", str(out), "--logs", str(one_log_dir), "--json",
                 "--mass", str(log.mass), "--length", str(log.length), "--kp", str(log.kp), "--vin", str(log.vin),
                 "--dt", str(log.dt)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    native = _replay(out, log)
    exact = simulate_logs(load_model(params), [log], "semi-implicit")[0]
    assert printed["mae_native"] == pytest.approx(np.mean(np.abs(native - log.position)), rel=1e-9)
    assert printed["mae_exact"] == pytest.approx(np.mean(np.abs(exact - log.position)), rel=1e-9)
    assert printed["loss"] == pytest.approx(printed["mae_native"] - printed["mae_exact"], rel=1e-9)
    assert printed["mae_native_vs_exact"] == pytest.approx(np.mean(np.abs(native - exact)), rel=1e-9)
    if params == "xl330/m1":  # M1 is what the export carries: only integrator details differ (measured 1.0e-4)
        assert printed["mae_native_vs_exact"] < 5e-4
    else:  # M6's load-dependent friction is not carried: the export must lose something measurable
        assert printed["loss"] > 1e-3


@pytest.mark.parametrize("params", ["xl330/m6", "sts3215/m1", "erob80_50/m6"])
def test_native_actuator_force_is_the_servo_torque(params, tmp_path, capsys):
    """MuJoCo's actuator force equals the exact law's motor torque (closed form), below saturation
    and saturated: a voltage law clips its duty BEFORE the back-EMF (the <dcmotor>'s controller
    clips the voltage), so a saturated servo moving against its goal brakes harder than its stall
    torque, and one moving towards it drives less."""
    model = load_model(params)
    kp, out = 40.0, tmp_path / "servo.xml"
    assert main(["export", "--params", params, "--out", str(out), "--kp", str(kp)]) == 0
    mj = mujoco.MjModel.from_xml_path(str(out))
    data = mujoco.MjData(mj)
    act = model.actuator
    vin = act.default_vin
    limit = native_servo(model, kp).force_limit
    for q, v, goal in ((0.1, 0.3, 0.12), (0.1, -2.0, 50.0), (0.1, 2.0, 50.0)):
        data.qpos[0], data.qvel[0], data.ctrl[0] = q, v, goal
        mujoco.mj_forward(mj, data)
        _, target = act.firmware(q, goal, q, True, 1e9, model.values)  # huge dt: the speed limit does not bind
        expected = float(act.torque(act.control(target, q, v, kp, vin), True, v, model.values, vin))
        if goal == 50.0 and isinstance(act, VoltageControlled):  # saturated: the back-EMF beyond the clip
            assert (expected > limit) == (v < 0), (q, v, expected, limit)
        elif goal != 50.0:
            assert abs(expected) < limit
        # MuJoCo writes MJCF numbers with 6 significant digits
        assert data.actuator_force[0] == pytest.approx(expected, rel=2e-5, abs=1e-9), (q, v, goal)
    assert mj.dof_armature[0] == pytest.approx(model.values["armature"], rel=1e-5)
    assert mj.dof_frictionloss[0] == pytest.approx(model.values["friction_base"], rel=1e-5)


def test_arm_export_loads_and_bad_input_exits_2(tmp_path, capsys):
    out = tmp_path / "so100.xml"
    assert main(["export", "--params", "sts3215/m1", "--arm", "so100", "--out", str(out)]) == 0
    mj = mujoco.MjModel.from_xml_path(str(out))
    assert mj.nu == 2 and list(mj.actuator_biastype) == [int(mujoco.mjtBias.mjBIAS_DCMOTOR)] * 2  # a PWM law
    assert main(["export", "--params", "sts3215/m1", "--arm", "so100", "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["export", "--params", "xl330/m6", "--out", str(tmp_path / "x.xml"), "--logs", str(tmp_path / "none")]) == 2
    assert capsys.readouterr().err.startswith("actuator-sim: error: ")


def _stiffness(mj: mujoco.MjModel) -> float:
    """The exported servo's K [N m/rad] at its start: the actuator force per rad of goal error, at
    rest, before any heating."""
    data = mujoco.MjData(mj)
    data.ctrl[0] = 1e-3
    mujoco.mj_forward(mj, data)
    return float(data.actuator_force[0]) / 1e-3


def test_a_temperature_following_model_is_exported_at_its_start_temperature(tmp_path, capsys):
    """A fitted model carrying ``thermal`` (every default fit on logs that read the temperature) was
    exported with R at its 25-degC value: a servo 7 K colder than any simulation of the model starts,
    its drive 3.4 % too strong, without a word (issue 31: no simulator silently assumes 25 degC)."""
    kp, vin = 40.0, 5.0
    thermal = new_model("xl330", "m1", additions=("thermal",)).with_values(thermal_alpha=0.005, thermal_initial=32.0)
    heating = new_model("xl330", "m1", additions=("heating",)).with_values(heating=0.004)
    save_model(thermal, tmp_path / "thermal.json")
    save_model(heating, tmp_path / "heating.json")
    p = thermal.values
    at_25 = p["kt"] * vin * kp * thermal.actuator.error_gain / p["R"]  # closed form of the voltage law's K
    for params, extra, resistance in (("thermal", [], p["R"] * (1 + 0.005 * 7)),
                                      ("thermal", ["--temperature", "45"], p["R"] * (1 + 0.005 * 20)),
                                      ("heating", [], p["R"]),
                                      ("heating", ["--temperature", "45"], p["R"] * (1 + 0.004 * 20))):
        out = tmp_path / f"{params}{len(extra)}.xml"
        assert main(["export", "--params", str(tmp_path / f"{params}.json"), "--out", str(out), "--kp", str(kp),
                     "--vin", str(vin), *extra]) == 0
        assert _stiffness(mujoco.MjModel.from_xml_path(str(out))) == pytest.approx(at_25 * p["R"] / resistance, rel=2e-5)  # MJCF: 6 digits
        printed = capsys.readouterr().out
        assert f"R {resistance:.4g} ohm" in printed, printed
    assert "at 32 degC (the model's thermal_initial" in _export_output(tmp_path, "thermal.json", capsys)
    assert "give --temperature for a heating model" in _export_output(tmp_path, "heating.json", capsys)


def _export_output(tmp_path, params, capsys) -> str:
    assert main(["export", "--params", str(tmp_path / params), "--out", str(tmp_path / "again.xml"), "--force"]) == 0
    return capsys.readouterr().out


def test_each_log_is_exported_at_its_first_temperature_reading(xl330_processed):
    """The loss on logs compares the native MJCF with the exact simulation, which starts at each
    log's first reading: the export is taken there too, not at the model's thermal_initial."""
    log = read_log(sorted(xl330_processed.glob("*.json"))[0])
    first = float(log.extra["temp"][0])
    model = new_model("xl330", "m1", additions=("thermal",)).with_values(thermal_alpha=0.005, thermal_initial=first + 9)
    exported = _stiffness(mujoco.MjModel.from_xml_string(pendulum_export(model, log)))
    p = model.values
    expected = p["kt"] * log.vin * log.kp * model.actuator.error_gain / (p["R"] * (1 + 0.005 * (first - 25)))
    assert exported == pytest.approx(expected, rel=2e-5)


def test_the_export_names_what_plain_mujoco_does_not_carry(tmp_path, capsys):
    """A default M6 fit exported lost its load-dependent friction without a word (on the 12 logs its
    export is far worse than an M1 fit's: benchmarks/native_export_quality.py)."""
    assert main(["export", "--params", "xl330/m6", "--out", str(tmp_path / "m6.xml")]) == 0
    printed = capsys.readouterr().out
    assert "not carried: load_friction_motor, load_friction_external, friction_stribeck" in printed, printed
    assert "note: M6's friction beyond Coulomb-viscous is lost" in printed and "fit --model m1" in printed, printed
    save_model(new_model("xl330", "m1", additions=("latency", "thermal")), tmp_path / "m1.json")
    assert main(["export", "--params", str(tmp_path / "m1.json"), "--out", str(tmp_path / "m1.xml")]) == 0
    printed = capsys.readouterr().out
    assert "not carried: addition latency\n" in printed and "note:" not in printed, printed  # thermal: R at T0


def test_a_sagging_supply_lowers_the_stall_torque_alone():
    """``supply`` makes the motor's R ``R + Rs d^2``: at the small duty of the linear law nothing
    changes, at full duty (the force limit) the stall torque drops by R / (R + Rs max_duty^2)."""
    model = new_model("xl330", "m1", additions=("supply",)).with_values(supply_resistance=0.5)
    plain = native_servo(new_model("xl330", "m1"), 40.0, 5.0)
    servo = native_servo(model, 40.0, 5.0)
    p, d = model.values, model.actuator.max_duty
    assert servo.stiffness == plain.stiffness and servo.damping_gain == plain.damping_gain
    assert servo.force_limit == pytest.approx(p["kt"] * 5.0 * d / (p["R"] + 0.5 * d * d), rel=1e-12)
    assert servo.force_limit < 0.85 * plain.force_limit  # R 2 ohm: 20 % weaker at the stall


def test_evaluate_runs_the_models_in_plain_mujoco(one_log_dir, xl330_processed, tmp_path, capsys):
    """``evaluate --backend mujoco-native`` is the exported MJCF replayed by plain MuJoCo (what a user
    of the export gets: here recomputed from the file ``export`` writes), ``--backend mujoco`` the
    servo step in MuJoCo's loop: the default backend's semi-implicit table within MuJoCo's own
    arithmetic (measured 1.5e-7 rad for M1, 1.9e-4 for M6 on the 12 logs)."""
    from actuator_models.cli import main as models

    log = read_log(next(one_log_dir.glob("*.json")))
    assert models(["evaluate", "--params", "xl330/m6", "--logs", str(one_log_dir), "--backend", "mujoco-native",
                   "--json"]) == 0
    native = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["xl330/m6"]["mean"]
    out = tmp_path / "servo.xml"
    assert main(["export", "--params", "xl330/m6", "--out", str(out), "--mass", str(log.mass), "--length",
                 str(log.length), "--kp", str(log.kp), "--vin", str(log.vin), "--dt", str(log.dt)]) == 0
    assert native == pytest.approx(np.mean(np.abs(_replay(out, log) - log.position)), rel=1e-9)
    capsys.readouterr()
    tables = {}
    for backend in (["--backend", "mujoco"], ["--integrator", "semi-implicit"]):
        assert models(["evaluate", "--params", "xl330/m1", "xl330/m6", "--logs", str(xl330_processed), *backend,
                       "--json"]) == 0
        tables[backend[0]] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for name, bound in (("xl330/m1", 1e-5), ("xl330/m6", 1e-3)):
        for file, mae in tables["--integrator"][name]["logs"].items():
            assert tables["--backend"][name]["logs"][file] == pytest.approx(mae, abs=bound), (name, file)
    name = next(one_log_dir.glob("*.json")).name
    assert abs(tables["--backend"]["xl330/m6"]["logs"][name] - native) > 1e-3  # the export loses M6's load friction


def test_a_fit_report_says_when_plain_mujoco_cannot_run_the_model(xl330_processed):
    """The report's plain-MuJoCo figure is never a number from a replay that diverged: a model
    the native export cannot integrate (kt = 1e6) is reported as refused, with the reason."""
    from actuator_models.report import in_other_simulators

    logs = read_logs(xl330_processed)[:2]
    sane = in_other_simulators(load_model("xl330/m1"), logs[:1], logs[1:])["mujoco-native"]
    assert 0 < sane["train_mae"] < 0.2 and 0 < sane["validation_mae"] < 0.2
    wild = in_other_simulators(load_model("xl330/m6").with_values(kt=1e6), logs[:1], [])["mujoco-native"]
    assert "train_mae" not in wild and "diverged" in wild["refused"] and "kt = 1e+06" in wild["refused"], wild


def test_a_thermal_model_heats_its_winding_in_plain_mujoco(tmp_path):
    """With ``thermal`` the export's <dcmotor> carries the winding node: a held servo (joint
    pinned, constant duty) heats by ``R(T) i^2`` towards the case at the start temperature, and
    drives weaker as it does. Reference: scipy's integration of the node's equation
    ``Cw dT/dt = V^2 / R(T) - (T - Ta) / Rw``, ``R(T) = R (1 + alpha (T - 25))``, ``i = V / R(T)``."""
    from scipy.integrate import solve_ivp

    alpha, rw, cw, start, kp, vin = 0.005, 28.0, 0.1, 31.0, 2000.0, 5.0
    model = new_model("xl330", "m1", additions=("thermal",)).with_values(
        thermal_alpha=alpha, thermal_winding_resistance=rw, thermal_winding_capacity=cw, thermal_initial=start)
    save_model(model, tmp_path / "thermal.json")
    out = tmp_path / "servo.xml"
    assert main(["export", "--params", str(tmp_path / "thermal.json"), "--out", str(out), "--kp", str(kp),
                 "--vin", str(vin)]) == 0
    mj = mujoco.MjModel.from_xml_path(str(out))
    data = mujoco.MjData(mj)
    p, error = model.values, 0.05
    volts = vin * min(kp * model.actuator.error_gain * error, model.actuator.max_duty)
    steps = round(3.0 / mj.opt.timestep)
    for _ in range(steps):
        data.qpos[0], data.qvel[0], data.ctrl[0] = 0.0, 0.0, error  # pinned: the current is V / R(T)
        mujoco.mj_step(mj, data)

    def resistance(t):
        return p["R"] * (1 + alpha * (t - 25.0))

    ode = solve_ivp(lambda _, t: [(volts**2 / resistance(t[0]) - (t[0] - start) / rw) / cw], (0.0, steps * mj.opt.timestep),
                    [start], rtol=1e-10, atol=1e-10)
    winding = float(ode.y[0, -1])
    assert winding - start > 5.0  # a rise that matters: R up by 2.5 % or more
    assert start + float(data.act[0]) == pytest.approx(winding, abs=0.003 * (winding - start))  # MuJoCo: Euler (0.05 %)
    data.qpos[0], data.qvel[0] = 0.0, 0.0
    mujoco.mj_forward(mj, data)
    expected = p["kt"] * volts / resistance(start + float(data.act[0]))
    assert data.actuator_force[0] == pytest.approx(expected, rel=1e-4)
    assert data.actuator_force[0] < p["kt"] * volts / resistance(start) * 0.975


def test_a_winding_too_fast_for_the_timestep_is_refused_and_nothing_written(tmp_path, capsys, one_log_dir):
    """MuJoCo integrates the exported winding node by explicit Euler: a network whose fastest time
    constant (1e-4 s here) is under half MuJoCo's timestep would be written as an MJCF that diverges.
    Refused as the exact step refuses it, one line, exit 2, no file; with --logs as well (the exact
    model's refusal used to come after the file was written)."""
    model = new_model("xl330", "m1", additions=("thermal",)).with_values(thermal_winding_capacity=1e-4,
                                                                          thermal_winding_resistance=1.0)
    save_model(model, tmp_path / "fast.json")
    for extra in ([], ["--logs", str(one_log_dir)]):
        out = tmp_path / "servo.xml"
        assert main(["export", "--params", str(tmp_path / "fast.json"), "--out", str(out), *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "fastest time constant is 0.0001 s" in err and "0.005 s" in err, err
        assert not out.exists()
    assert main(["export", "--params", str(tmp_path / "fast.json"), "--out", str(tmp_path / "ok.xml"),
                 "--dt", "1e-4"]) == 0  # a timestep that integrates it
