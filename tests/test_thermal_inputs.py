"""Nonsense for the ``thermal`` and ``supply`` additions (params files, logs' ``temp`` column, fit
flags) is one ``error:`` line naming the file, field and value, and exit status 2, never a
number: the audit of the surfaces added with issue 31. Commands run in-process, as a user types
them (the helpers of :mod:`test_trustworthy_inputs`)."""

from __future__ import annotations

import json

import pytest

from actuator_models.addition_thermal import THERMAL_ADDITION
from test_trustworthy_inputs import error_line, published, run

THERMAL = {"thermal_alpha": 0.0039, "thermal_winding_resistance": 10.0, "thermal_winding_capacity": 1.0,
           "thermal_case_resistance": 30.0, "thermal_case_capacity": 15.0, "thermal_ambient": 25.0,
           "thermal_initial": 25.0}


def params_file(tmp_path, **change):
    """xl330/m6 carrying ``thermal`` and ``supply``, with ``change`` (None: the key removed)."""
    data = {**published("xl330/m6"), **THERMAL, "supply_resistance": 0.08, **change}
    path = tmp_path / "p.json"
    path.write_text(json.dumps({k: v for k, v in data.items() if v is not None}))
    return path


def first_log(xl330_processed):
    return sorted(xl330_processed.glob("*.json"))[0]


def test_the_valid_thermal_params_file_simulates(tmp_path, xl330_processed):
    assert set(THERMAL) == set(THERMAL_ADDITION.parameter_names)
    result = run("simulate", "--params", params_file(tmp_path), "--log", first_log(xl330_processed))
    assert result.returncode == 0 and "MAE 0.0272" in result.stdout, result.stderr


@pytest.mark.parametrize("key, value", [("thermal_ambient", -300), ("thermal_initial", -300.0),
                                        ("thermal_ambient", 1e9), ("thermal_initial", 1e9)])
def test_a_temperature_setting_no_servo_can_be_at_is_refused(tmp_path, xl330_processed, key, value):
    """Before: -300 degC (below absolute zero) and 1e9 degC simulated to an MAE, exit 0."""
    path = params_file(tmp_path, **{key: value})
    for command in (("simulate", "--log", first_log(xl330_processed)), ("evaluate", "--logs", xl330_processed)):
        result = run(command[0], "--params", path, *command[1:])
        line = error_line(result)
        assert result.returncode == 2 and f"{path}: key '{key}' is {value!r}" in line and "absolute zero" in line


@pytest.mark.parametrize("value", [-300, 1e6])
def test_a_log_temperature_no_servo_can_read_is_refused(tmp_path, xl330_processed, value):
    """Before: a ``temp`` column of -300 simulated to MAE 279.6 rad with exit 0."""
    data = json.loads(first_log(xl330_processed).read_text())
    for entry in data["entries"]:
        entry["temp"] = value
    path = tmp_path / "hot.json"
    path.write_text(json.dumps(data))
    result = run("simulate", "--params", params_file(tmp_path), "--log", path)
    line = error_line(result)
    assert result.returncode == 2 and f"{path}: field 'temp': entry 0: {value:g}" in line


@pytest.mark.parametrize("key", ["thermal_initial", "thermal_ambient", "thermal_case_capacity"])
def test_a_thermal_model_missing_one_of_its_keys_is_refused(tmp_path, xl330_processed, key):
    """Before: the other six keys were accepted and the model simulated without ``thermal``, exit 0."""
    path = params_file(tmp_path, **{key: None})
    result = run("simulate", "--params", path, "--log", first_log(xl330_processed))
    line = error_line(result)
    assert result.returncode == 2 and f"{path}: key '{key}'" in line and "is missing" in line and "thermal" in line


def test_carry_refuses_heating_with_thermal_and_supply_on_a_current_law(tmp_path, xl330_processed):
    """Before: both fitted with exit 0 (``supply`` on an eRob reported a resistance, 0.20 ± 0.11
    ohm, that changes nothing); nothing is written."""
    quick = ("--model", "m1", "--trials", "16", "--quiet", "--out", tmp_path / "fit")
    both = run("fit", "--logs", xl330_processed, "--actuator", "xl330", *quick, "--carry", "thermal,heating")
    assert both.returncode == 2 and "--carry: 'thermal' and 'heating' cannot be carried together" in error_line(both)
    erob = run("fit", "--logs", xl330_processed, "--actuator", "erob80_50", *quick, "--carry", "supply")
    line = error_line(erob)
    assert erob.returncode == 2 and "--carry: 'supply'" in line and "erob80_50" in line and "voltage law" in line
    assert not (tmp_path / "fit").exists()


def test_a_params_file_carrying_what_its_actuator_cannot_is_refused(tmp_path, xl330_processed):
    path = params_file(tmp_path, heating=0.01)
    both = run("simulate", "--params", path, "--log", first_log(xl330_processed))
    assert both.returncode == 2 and f"{path}: additions: 'thermal' and 'heating'" in error_line(both)
    path.write_text(json.dumps({**published("erob80_50/m1"), "supply_resistance": 0.3}))
    erob = run("evaluate", "--params", path, "--logs", xl330_processed, "--allow-mismatch")
    assert erob.returncode == 2 and f"{path}: additions: 'supply'" in error_line(erob)


def test_a_thermal_network_faster_than_the_step_is_refused_where_it_would_be_simulated(tmp_path, xl330_processed):
    """Before: a winding capacity of 1e-4 J/K (time constant 1e-3 s) gave explicit Euler over the
    5 ms step a growth factor of -4 a step: ``simulate`` and ``evaluate`` printed MAE nan with exit
    0, ``actuator-sim pendulum`` a MuJoCo MAE beside a NaN reference. Every simulator refuses it
    where the step is known (numpy and scalar steps, kernel, MuJoCo, hybrid-sim's rollouts)."""
    from actuator_models.addition_thermal import fastest_time_constant
    from actuator_sim.cli import main as actuator_sim
    from hybrid_sim.cli import main as hybrid_sim

    assert fastest_time_constant({**THERMAL, "thermal_winding_capacity": 1e-4}) == pytest.approx(1e-3, rel=0.01)
    path, log = params_file(tmp_path, thermal_winding_capacity=1e-4), first_log(xl330_processed)
    for command in (("simulate", "--log", log), ("evaluate", "--logs", xl330_processed)):
        result = run(command[0], "--params", path, *command[1:])
        line = error_line(result)
        assert result.returncode == 2 and "fastest time constant is 0.001 s" in line, line
        assert "thermal_winding_capacity" in line and "a simulation step of 0.005 s" in line
    for main, args in ((actuator_sim, ["pendulum"]), (hybrid_sim, ["stick-slip"])):
        assert main([*args, "--params", str(path), "--log", str(log)]) == 2
    assert run("simulate", "--params", params_file(tmp_path, thermal_winding_capacity=0.01), "--log",
               log).returncode == 0  # 0.1 s: stable


def test_an_addition_s_parameter_may_be_fixed_when_the_fit_carries_it(tmp_path, xl330_processed):
    """``fit --set thermal_ambient=...`` was refused as "not a parameter of xl330/m6" although the
    default fit carries thermal (its ambient is a setting the user may know better than the logs'
    lowest reading); where the fit does not carry the addition, the name is refused, nothing written."""
    quick = ("--logs", xl330_processed, "--actuator", "xl330", "--model", "m6", "--trials", "60", "--quiet")
    carried = run("fit", *quick, "--set", "thermal_ambient=26.5", "--out", tmp_path / "carried")
    assert carried.returncode == 0, carried.stderr
    assert json.loads((tmp_path / "carried" / "m6.json").read_text())["thermal_ambient"] == 26.5
    dropped = run("fit", *quick, "--set", "thermal_ambient=26.5", "--carry", "none", "--out", tmp_path / "none")
    line = error_line(dropped)
    assert dropped.returncode == 2 and "'thermal_ambient' is not one of model xl330/m6" in line, line
    assert not (tmp_path / "none").exists()
    misspelt = run("fit", *quick, "--set", "thermal_ambiant=26.5", "--out", tmp_path / "misspelt")
    assert misspelt.returncode == 2 and "did you mean 'thermal_ambient'?" in error_line(misspelt)
