"""The ``thermal`` addition (issue 31): the servo's winding and case temperatures as simulated state.

- the network against its closed form: a stalled servo at constant current heats as
  ``T(t) = T_ss + expm(A t) (T0 - T_ss)`` (the two-node linear network; scipy's matrix
  exponential), the step's explicit Euler converging at first order in dt; the energy balance
  ``Cw dTw + Cc dTc = dt (P - (Tc - Ta) / Rc)`` holds exactly step by step;
- every simulator carries the state through the one servo step: the compiled kernel equals the
  numpy rollout to 1e-12 (positions, position and temperature MAE), the scalar step
  (PendulumSimulator) equals the batched rollout to 1e-12, MuJoCo's joint simulation follows the
  closed form within its integrator's tolerance;
- a fit on the XL330 logs predicts the ``temp`` register of logs it did not see from their first
  reading within 1.5 K, heating where the register rose.
"""

import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy.linalg import expm

from actuator_models import kernel
from actuator_models.addition_thermal import THERMAL_ADDITION, heat_step
from actuator_models.logs import read_logs
from actuator_models.model import load_model, new_model, save_model
from actuator_models.simulation import (LogBatch, Pendulum, PendulumSimulator, mean_absolute_errors, rollout,
                                        rollout_temperatures, temperature_errors)

NETWORK = {"thermal_alpha": 0.0, "thermal_winding_resistance": 5.0, "thermal_winding_capacity": 0.2,
           "thermal_case_resistance": 10.0, "thermal_case_capacity": 2.0, "thermal_ambient": 22.0,
           "thermal_initial": 22.0}
GOAL, KP, VIN = 3.0, 800.0, 6.0


def _stalled(**values):
    """An XL330 law with a friction budget no motor torque overcomes: the drive never moves, so the
    current is the stall current ``vin max_duty / R`` every step."""
    return new_model("xl330", "m1", additions=("thermal",)).with_values(friction_base=100.0, **{**NETWORK, **values})


def _closed_form(model, t):
    """(winding, case) [degC] of the linear network at constant stall power, times ``t`` [s]."""
    p = model.values
    power = (VIN * model.actuator.max_duty) ** 2 / p["R"]
    rw, cw = p["thermal_winding_resistance"], p["thermal_winding_capacity"]
    rc, cc = p["thermal_case_resistance"], p["thermal_case_capacity"]
    a = np.array([[-1 / (rw * cw), 1 / (rw * cw)], [1 / (rw * cc), -1 / (rw * cc) - 1 / (rc * cc)]])
    ambient = p["thermal_ambient"]
    steady = np.array([ambient + power * (rw + rc), ambient + power * rc])
    start = np.full(2, p["thermal_initial"])
    return np.array([steady + expm(a * s) @ (start - steady) for s in t])


def _pendulum_temperatures(model, dt, steps):
    sim = PendulumSimulator(model, Pendulum(0.2, 0.1), vin=VIN)
    out = []
    for _ in range(steps):
        out.append(sim.temperatures)
        sim.step(GOAL, True, KP, dt)
    assert sim.q == 0.0  # stalled: the closed form's constant current
    return np.array(out)


def test_stalled_servo_heats_as_the_closed_form_and_euler_converges_at_first_order():
    model = _stalled()
    horizon = 3.0
    errors = []
    for dt in (2e-3, 1e-3):
        steps = int(round(horizon / dt))
        got = _pendulum_temperatures(model, dt, steps)
        want = _closed_form(model, np.arange(steps) * dt)
        assert want[-1, 0] - want[0, 0] > 20.0  # the winding heats by tens of kelvin
        errors.append(np.max(np.abs(got - want)))
    assert errors[1] < 0.02
    assert 1.8 < errors[0] / errors[1] < 2.2  # explicit Euler: first order in dt


def test_resistance_follows_the_winding_and_the_energy_balances_exactly():
    """With a copper coefficient the losses rise with the winding temperature; every step the heat
    stored in both nodes is the losses minus what the case gives the ambient."""
    p = {**NETWORK, "thermal_alpha": 0.0039, "R": 2.5, "kt": 0.4}
    state = (30.0, 25.0)
    rng = np.random.default_rng(1)
    for current in rng.uniform(-2.0, 2.0, 200):
        r = p["R"] * (1.0 + p["thermal_alpha"] * (state[0] - 25.0))
        motor = dict(THERMAL_ADDITION.on_motor_state(state, p, {}))
        assert motor["R"] == r
        new = heat_step(state, current, motor, 0.01)
        stored = p["thermal_winding_capacity"] * (new[0] - state[0]) + p["thermal_case_capacity"] * (new[1] - state[1])
        lost = (state[1] - p["thermal_ambient"]) / p["thermal_case_resistance"]
        assert stored == pytest.approx(0.01 * (current**2 * r - lost), abs=1e-11)
        state = new


def test_mujoco_carries_the_thermal_state_within_its_integrator_tolerance():
    from actuator_sim.joint_sim import JointSimulation, Servo
    from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

    dt, steps = 1e-3, 2000
    model = _stalled()
    sim = JointSimulation.from_xml(pendulum_mjcf(PendulumBench(mass=0.2, length=0.1, timestep=dt)),
                                   [Servo("pendulum", model, kp=KP, vin=VIN)])
    sim.set_goal(GOAL)
    got = []
    for _ in range(steps):
        got.append(sim.temperatures[0])
        sim.step()
    want = _closed_form(model, np.arange(steps) * dt)
    pendulum = _pendulum_temperatures(model, dt, steps)
    assert np.max(np.abs(np.array(got) - want)) < 0.05
    assert np.max(np.abs(np.array(got) - pendulum)) < 0.05


def test_the_simulated_bench_reports_the_temperature_its_register_would_read(tmp_path):
    """The ``mujoco`` backend (the sim node's bench) publishes, as a real servo's ``temp``
    register, the case node of a thermal model, started at its ``temperature`` setting; a heating
    model's held setting; NaN for a model with neither (test_nodes_cores)."""
    from actuator_models.bench import BenchParams, Command
    from actuator_sim.bench import SimBench, SimSettings

    model = _stalled(thermal_alpha=1e-9)  # a params file's coefficient is positive; this one changes R by 2e-8
    save_model(model, tmp_path / "thermal.json")
    save_model(new_model("xl330", "m1", additions=("heating",)), tmp_path / "heating.json")
    with pytest.raises(ValueError, match="temperature -300.0: expected a temperature in degC above absolute zero"):
        SimSettings(temperature=-300.0)
    for name, start in (("thermal", 40.0), ("heating", 35.0), ("thermal", float("nan"))):
        bench = SimBench.open(BenchParams(models=(str(tmp_path / f"{name}.json"),), mass=0.2, length=0.1,
                                          vin=(VIN,), settings=SimSettings(temperature=start)))
        first = bench.sample().temperature[0]
        samples = []
        for _ in range(20):  # a command every 0.1 s keeps the watchdog off
            bench.apply(Command(("pendulum",), (2.0,), (True,), (KP,)))  # within the joint limits; duty saturated
            samples.append(bench.advance(bench.time + 0.1))
        assert bench.time == pytest.approx(2.0)
        if name == "heating":
            assert first == start and {s.temperature[0] for s in samples} == {start}
            continue
        assert first == (start if start == start else NETWORK["thermal_initial"])
        assert samples[-1].temperature[0] == bench.sim.temperatures[0][1]  # the case node, not the winding
        assert samples[-1].temperature[0] - first > 1.0  # a stalled servo heats its case within 2 s
        want = _closed_form(model.with_values(thermal_initial=first), [2.0])[0, 1]
        assert samples[-1].temperature[0] == pytest.approx(want, abs=0.05)


def test_the_emulated_servo_s_register_reads_its_case_node():
    """An emulated XL330 carrying ``thermal``, read through dynamixel-sdk on its pseudo-terminal:
    the Present Temperature register starts at the servo's power-up temperature and follows the
    simulated case node (whole degC) as the stalled motor heats it, across a change of load."""
    from dynamixel_sdk import COMM_SUCCESS, PacketHandler

    from actuator_drivers.dynamixel.bus import BusPort
    from actuator_drivers.dynamixel.tables import control_table
    from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
    from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo

    table = control_table("xl330", 2)
    register = table["present_temperature"].address
    servo = EmulatedServo(table, _stalled(), Pendulum(0.2, 0.1), vin=VIN, temperature=40.0)
    with DynamixelEmulator([servo], time_scale=None) as emu:
        port = BusPort(emu.port, 16.0, emu.clock)
        sdk = PacketHandler(2.0)
        assert port.setBaudRate(57600)
        assert sdk.read1ByteTxRx(port, 1, register) == (40, COMM_SUCCESS, 0)
        assert sdk.write4ByteTxRx(port, 1, table["goal_position"].address, 4095)[0] == COMM_SUCCESS
        assert sdk.write1ByteTxRx(port, 1, table["torque_enable"].address, 1)[0] == COMM_SUCCESS
        emu.clock.sleep(2.0)
        reading, result, _ = sdk.read1ByteTxRx(port, 1, register)
        case = emu.servo(1).sim.temperatures[1]
        assert result == COMM_SUCCESS and reading == round(case) and case > 45.0
        emu.set_bench(0.3, 0.1)  # a person changes the load: the servo stays as warm as it was
        assert emu.servo(1).sim.temperatures[1] == case and sdk.read1ByteTxRx(port, 1, register)[0] == reading
        port.closePort()


def _short_logs(xl330_processed, n=300):
    logs = read_logs(xl330_processed)[::3]
    cut = [replace(log, **{f: getattr(log, f)[:n] for f in ("timestamp", "position", "speed", "goal_position",
                                                            "torque_enable")},
                   extra={k: np.asarray(v)[:n] for k, v in log.extra.items()}) for log in logs]
    cut[1] = replace(cut[1], extra={k: v for k, v in cut[1].extra.items() if k != "temp"})  # one without a reading
    return cut


def _thermal_sets(size=4, seed=0):
    """Parameter sets of the published M6 with random thermal networks (``(P,)`` arrays)."""
    base = load_model("xl330/m6").values
    rng = np.random.default_rng(seed)
    values = {k: np.full(size, v) for k, v in base.items()}
    for p in THERMAL_ADDITION.parameters:
        low, high = (p.lower, p.upper) if p.name not in ("thermal_ambient", "thermal_initial") else (20.0, 35.0)
        values[p.name] = np.exp(rng.uniform(np.log(low), np.log(high), size)) if p.log else rng.uniform(low, high, size)
    values["thermal_alpha"] = rng.uniform(0.003, 0.03, size)  # up to 8x copper: the state acts visibly
    return values


@pytest.mark.parametrize("integrator", ["bam", "semi-implicit"])
def test_kernel_equals_the_numpy_rollout_with_the_thermal_state(xl330_processed, integrator):
    model = load_model("xl330/m6")
    batch = LogBatch.from_logs(_short_logs(xl330_processed), model.actuator.default_vin)
    values = _thermal_sets()
    positions, temperatures = rollout_temperatures(model.actuator, model.friction, values, batch, integrator)
    maes, heat, compiled = kernel.run_thermal(model.actuator, model.friction, values, batch, integrator, positions=True)
    assert np.max(np.abs(compiled - positions)) < 1e-12
    assert np.max(np.abs(maes - mean_absolute_errors(positions, batch))) < 1e-12
    assert np.max(np.abs(heat - temperature_errors(temperatures, batch))) < 1e-12
    assert np.all(heat[:, 1] == 0.0) and np.all(heat[:, [0, 2, 3]] > 0.0)  # the log without readings scores none
    # the fit's path (sets two by two, no positions; with "bam" and readings, the step compiled
    # for the default fit's switches) gives the same numbers to the bit
    paired, paired_heat, _ = kernel.run_thermal(model.actuator, model.friction, values, batch, integrator)
    np.testing.assert_array_equal(paired, maes)
    np.testing.assert_array_equal(paired_heat, heat)
    plain = rollout(model.actuator, model.friction, {k: v for k, v in values.items() if not k.startswith("thermal")},
                    batch, integrator)
    assert np.max(np.abs(plain - positions)) > 1e-3  # the thermal state acts


def test_the_scalar_step_equals_the_batched_rollout_with_the_thermal_state(xl330_processed):
    model = load_model("xl330/m6")
    log = _short_logs(xl330_processed)[2]
    values = {k: float(v[0]) for k, v in _thermal_sets(1, seed=3).items()}
    thermal = model.with_values(**{k: v for k, v in values.items() if k.startswith("thermal")})
    batch = LogBatch.from_logs([log], model.actuator.default_vin)
    positions, temperatures = rollout_temperatures(model.actuator, model.friction, thermal.values, batch)
    sim = PendulumSimulator(thermal, Pendulum(log.mass, log.length, log.arm_mass), vin=log.vin,
                            q=float(log.position[0]), v=float(log.speed[0]), temperature=float(log.extra["temp"][0]))
    q, case = [], []
    for k in range(len(log)):
        q.append(sim.q)
        case.append(sim.temperatures[1])
        sim.step(float(log.goal_position[k]), bool(log.torque_enable[k] > 0.5), float(log.kp), float(log.dt))
    assert np.max(np.abs(np.array(q) - positions[0])) < 1e-12
    assert np.max(np.abs(np.array(case) - temperatures[0])) < 1e-12


def test_without_a_reading_the_nodes_start_at_the_setting_and_heating_warns(xl330_processed):
    model = load_model("xl330/m6").with_values(**{k: float(v[0]) for k, v in _thermal_sets(1).items()
                                                   if k.startswith("thermal")})
    sim = PendulumSimulator(model, Pendulum(0.2, 0.1))
    assert sim.temperatures == (model.values["thermal_initial"],) * 2
    with pytest.warns(UserWarning, match="heating.*no temperature"):
        PendulumSimulator(load_model("xl330/m6").with_values(heating=0.03), Pendulum(0.2, 0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PendulumSimulator(load_model("xl330/m6").with_values(heating=0.03), Pendulum(0.2, 0.1), temperature=30.0)


def test_a_fit_predicts_the_temperature_register_of_logs_it_did_not_see(xl330_processed):
    """Fit M6 carrying thermal on two gains (8 logs: its 15 parameters against the positions, thermal's 5 against
    the 8 registers, no force needed), predict the third gain's register from each
    log's first reading: within 1.5 K, rising where the register rose. The ambient and
    start settings come from the training logs."""
    from actuator_models.identification import FitSettings, Identification
    from actuator_models.splits import Dataset

    logs = read_logs(xl330_processed)
    train = tuple(log for log in logs if log.kp != 800)
    held = tuple(log for log in logs if log.kp == 800)
    result = Identification(new_model("xl330", "m6", additions=("thermal",)), Dataset(tuple(logs), train, held, "test"),
                            FitSettings(seed=0, trials=900, starts=1)).run()
    fitted = result.model
    assert fitted.values["thermal_ambient"] == min(float(np.min(log.extra["temp"])) for log in train)
    batch = LogBatch.from_logs(list(held), fitted.actuator.default_vin)
    _, temperatures = rollout_temperatures(fitted.actuator, fitted.friction, fitted.values, batch)
    predicted = temperature_errors(temperatures, batch)
    assert predicted.mean() < 1.5
    ends = batch.lengths - 1
    rose = batch.temperature[np.arange(len(held)), ends] - batch.temperature[:, 0] >= 1.0
    predicted_rise = temperatures[np.arange(len(held)), ends] - temperatures[:, 0]
    assert rose.any() and np.all(predicted_rise[rose] > 0.0)  # it heats (not cools) where the register rose


def test_stick_slip_reference_carries_the_thermal_state_with_the_rollout(xl330_processed):
    """The continuous reference integrates the winding and case temperatures with q and v: on a
    kp-800 XL330 log, a hot-running network (small capacities, 8x copper's coefficient) moves the
    reference by what it moves the 1 ms rollout, and both predict the same case temperature (the
    rollout within its discretisation error)."""
    from hybrid_sim.pendulum import discrete_rollout, exact_rollout, held_log

    log = _short_logs(xl330_processed)[3]
    assert log.kp == 800
    plain = load_model("xl330/m6")
    hot = plain.with_values(**{**NETWORK, "thermal_alpha": 0.03, "thermal_winding_capacity": 0.05,
                               "thermal_ambient": 30.0})
    runs = {}
    for name, model in (("plain", plain), ("hot", hot)):
        reference = exact_rollout(model, log, 0.001)
        assert reference.success, reference.message
        _, q = discrete_rollout(model, log, 0.001, "semi-implicit")
        n = min(q.size, reference.state("q").size)
        runs[name] = (reference, q[:n], n)
    reference, q, n = runs["hot"]
    moved_reference = reference.state("q")[:n] - runs["plain"][0].state("q")[:n]
    moved_rollout = q - runs["plain"][1]
    assert np.max(np.abs(moved_reference)) > 0.02
    assert np.max(np.abs(moved_reference - moved_rollout)) < 0.1 * np.max(np.abs(moved_reference))
    held = held_log(log, 0.001)
    batch = LogBatch.from_logs([held], hot.actuator.default_vin)
    _, case = rollout_temperatures(hot.actuator, hot.friction, hot.values, batch, "semi-implicit")
    rise = reference.state("Tc")[:n] - reference.state("Tc")[0]
    assert np.max(rise) > 0.5  # the case heats
    assert np.max(np.abs(case[0, :n] - reference.state("Tc")[:n])) < 0.05 * np.max(rise)


def test_the_report_says_when_the_resistance_coefficient_leaves_coppers():
    """Issue 31: thermal_alpha is searched near copper's 0.0039 /K; the report says when the data
    put it further than 15 % from it (the CLI's summary gives the ratio either way)."""
    from actuator_models.addition_selection import markdown

    values = dict(THERMAL_ADDITION.settings({"temperature": [np.array([30.0, 33.0])]}), thermal_alpha=0.0039)
    assert THERMAL_ADDITION.remark(values) is None
    assert THERMAL_ADDITION.remark({**values, "thermal_alpha": 0.0044}) is None  # 1.13x: within 15 %
    said = THERMAL_ADDITION.remark({**values, "thermal_alpha": 0.00564})
    assert said is not None and said.startswith("thermal_alpha 0.00564 /K is 1.45x copper's 0.0039 /K") and "faster" in said
    assert "slower" in THERMAL_ADDITION.remark({**values, "thermal_alpha": 0.003})
    assert THERMAL_ADDITION.describe(0.00564) == "thermal: copper coefficient 0.00564 /K (1.45x copper's)"
    report = {"m6": {"additions": {"carried": {"thermal": {**values, "thermal_alpha": 0.00564}, "supply": 0.08}}}}
    lines = markdown(report)
    assert said in lines and sum("copper's" in line for line in lines) == 1  # supply has nothing to say
    assert not any("copper's" in line for line in markdown({"m6": {"additions": {"carried": {"thermal": values}}}}))
