"""Issue 9, findings 1, 2, 3, 6 and 8: no data lost, no silent nonsense, servos the project does
not ship, one command-line vocabulary. Each test drives the installed commands as a user would
(in-process ``main``, or bash for the README's shell example) or the functions they call."""

import contextlib
import importlib
import io
import json
import math
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

from actuator_models.actuator_file import ActuatorFileError, actuator_from_description, read_actuator_file
from actuator_models.actuators import XL330_GAIN, actuator, actuator_names
from actuator_models.friction import DYNAMIC_FRICTION_MODELS, FRICTION_MODELS
from actuator_models.logs import LogError, log_from_dict, read_logs, write_log
from actuator_models.model import OPTIONAL_PARAMETERS, ParamsError, library_names, load_model, model_from_dict, new_model
from actuator_models.simulation import log_maes
from actuator_models.synthesis import BenchConfig, synthesize_logs

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "src" / "actuator_models" / "actuator_models" / "library"
XM430 = (ROOT / "config" / "actuators" / "xm430.yaml").read_text()  # the README's worked example


Result = namedtuple("Result", "returncode stdout stderr")


def run(*args, cwd=None, tool="actuator_models.cli"):
    """A command as a user types it, run in-process (the same ``main`` as the installed script;
    seconds instead of a Python start per call): exit status, stdout, stderr."""
    main = importlib.import_module(tool).main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([str(a) for a in args])
        except SystemExit as stop:  # argparse's own usage errors and --help
            status = stop.code
    return Result(status, out.getvalue(), err.getvalue())


def error_line(result):
    lines = [line for line in result.stderr.splitlines() if not line.startswith("note:")]
    assert len(lines) == 1 and "error: " in lines[0] and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def published(name):
    return json.loads((LIBRARY / f"{name}.json").read_text())


# ----------------------------------------------------------------------------- 1. data loss
def test_process_refuses_its_input_folder_and_existing_outputs(tmp_path, xl330_raw):
    raw = tmp_path / "raw"
    raw.mkdir()
    for path in sorted(xl330_raw.glob("*.json"))[:2]:
        (raw / path.name).write_bytes(path.read_bytes())
    before = {p.name: p.read_bytes() for p in raw.iterdir()}
    for out in (raw, raw / "processed"):  # the issue: `process same same` replaced raw logs silently
        result = run("process", "--logs", raw, "--out", out)
        assert result.returncode == 2 and "input folder" in error_line(result)
    assert run("process", raw, raw).returncode == 2  # the former positional form too
    assert {p.name: p.read_bytes() for p in raw.iterdir()} == before
    out = tmp_path / "processed"
    assert run("process", "--logs", raw, "--out", out).returncode == 0
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    (out / sorted(first)[0]).write_text("{}")  # a user's edit must survive a second run
    again = run("process", "--logs", raw, "--out", out, "--dt", "0.01")
    assert again.returncode == 2 and "--force" in error_line(again) and (out / sorted(first)[0]).read_text() == "{}"
    assert run("process", "--logs", raw, "--out", out, "--force").returncode == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first


def test_readme_fit_examples_in_order_keep_each_others_outputs(tmp_path, xl330_processed):
    """The README's two fit examples, run in order (with a small budget): the second must not
    replace the first's m6.json nor turn its six-model report into a one-model report."""
    quick = ("--trials", "16", "--popsize", "8", "--no-polish", "--quiet")
    first = run("fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "all", "--out", "fit-xl330/", *quick,
                cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    saved = {p: p.read_bytes() for p in (tmp_path / "fit-xl330").rglob("*") if p.is_file()}
    second = run("fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m6", "--validation-kp", "800",
                 *quick, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert {p: p.read_bytes() for p in (tmp_path / "fit-xl330").rglob("*") if p.is_file()} == saved
    assert len(json.loads((tmp_path / "fit-xl330" / "report" / "report.json").read_text())["models"]) == 6
    assert (tmp_path / "fit-xl330-2" / "m6.json").is_file() and "fit-xl330-2" in second.stdout
    # an explicit --out holding an earlier run is refused, and names what exists
    again = run("fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1", "--out", "fit-xl330", *quick,
                cwd=tmp_path)
    assert again.returncode == 2 and "m1.json" in error_line(again)
    assert (tmp_path / "fit-xl330" / "m1.json").read_bytes() == saved[tmp_path / "fit-xl330" / "m1.json"]


def test_outputs_of_simulate_and_figures_are_not_overwritten(tmp_path, xl330_processed):
    log = sorted(xl330_processed.glob("*.json"))[0]
    target = tmp_path / "mine.json"
    target.write_text("my notes")
    result = run("simulate", "--params", "xl330/m1", "--log", log, "--out", target)
    assert result.returncode == 2 and "mine.json" in error_line(result) and target.read_text() == "my notes"
    plot = run("plot-diagram", "--params", "xl330/m1", "--out", target, tool="actuator_sim.cli")
    assert plot.returncode == 2 and target.read_text() == "my notes"
    assert run("simulate", "--params", "xl330/m1", "--log", log, "--out", target, "--force").returncode == 0
    assert len(json.loads(target.read_text())["entries"]) == 1201


# ----------------------------------------------------------------------------- 2. silent nonsense
@pytest.mark.parametrize("name", library_names())
def test_every_published_model_loads_with_only_r_and_q_offset_defaulted(name):
    notes = []
    model = load_model(name, notes.append)
    data = published(name)
    absent = {p.name for p in model.parameters} - set(data)
    assert absent <= set(OPTIONAL_PARAMETERS)
    assert len(notes) == len(absent) and all(any(f" {n} not set" in note for note in notes) for n in absent)
    assert all(model.values[k] == v for k, v in data.items() if k not in ("model", "actuator"))


ALL_FRICTION = {**FRICTION_MODELS, **DYNAMIC_FRICTION_MODELS}


@pytest.mark.parametrize("friction", sorted(ALL_FRICTION))
def test_every_friction_parameter_of_the_model_is_required(friction):
    """Validation follows each model's own parameter set (the Dahl models included)."""
    full = new_model("mx64", friction).to_dict()
    for p in ALL_FRICTION[friction].parameters:
        data = {k: v for k, v in full.items() if k != p.name}
        with pytest.raises(ParamsError, match=f"p.json: key '{p.name}' .* is missing"):
            model_from_dict(data, "p.json")
    assert model_from_dict(full, "p.json").values == new_model("mx64", friction).values


@pytest.mark.parametrize("change, expected", [
    ({"friction_stribeck": None}, "key 'friction_stribeck' (extra static (Stribeck) friction at rest, N m) is missing"),
    ({"friction_stribeck": None, "friction_stribek": 0.1}, "unknown key 'friction_stribek' (value 0.1) for model "
                                                           "xl330/m6 (did you mean 'friction_stribeck'?)"),
    ({"friction_base": -0.01}, "key 'friction_base' is -0.01: expected >= 0"),
    ({"load_friction_motor_quad": -1e-3}, "key 'load_friction_motor_quad' is -0.001: expected >= 0"),
    ({"armature": 0.0}, "key 'armature' is 0.0: expected > 0"),
    ({"kt": -0.3}, "key 'kt' is -0.3: expected > 0"),
    ({"dtheta_stribeck": 0}, "key 'dtheta_stribeck' is 0: expected > 0"),
    ({"release_armature_share": 1.5, "release_friction_share": 0.2},  # a negative armature with the torque off
     "key 'release_armature_share' is 1.5: expected from 0 to 1"),
    ({"kt": None}, "key 'kt' (torque constant (motor and reducer), N m/A) is missing"),
])
def test_bad_params_file_is_one_clear_error(tmp_path, xl330_processed, change, expected):
    data = published("xl330/m6")
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    result = run("simulate", "--params", path, "--log", sorted(xl330_processed.glob("*.json"))[0])
    assert result.returncode == 2
    assert error_line(result).startswith(f"actuator-models: error: {path}: {expected}")


def test_model_and_actuator_alone_is_refused(tmp_path, xl330_processed):
    path = tmp_path / "bare.json"
    path.write_text(json.dumps({"model": "m6", "actuator": "xl330"}))
    result = run("simulate", "--params", path, "--log", sorted(xl330_processed.glob("*.json"))[0])
    assert result.returncode == 2 and "key 'kt'" in error_line(result) and "is missing" in error_line(result)


def test_log_motor_must_match_params_and_actuator(tmp_path, xl330_processed):
    log = sorted(xl330_processed.glob("*.json"))[0]
    wrong = run("simulate", "--params", "mx64/m6", "--log", log)  # the issue: 0.444 rad, exit 0
    assert wrong.returncode == 2 and "field 'motor' is 'xl330', not 'mx64'" in error_line(wrong)
    allowed = run("simulate", "--params", "mx64/m6", "--log", log, "--allow-mismatch")
    assert allowed.returncode == 0 and float(allowed.stdout.split("MAE ")[1].split()[0]) > 0.1
    evaluate = run("evaluate", "--params", "xl330/m6", "mx106/m1", "--logs", xl330_processed)
    assert evaluate.returncode == 2 and "mx106" in error_line(evaluate)
    fit = run("fit", "--logs", xl330_processed, "--actuator", "mx64", "--model", "m1", "--trials", "8", "--out", tmp_path / "f")
    assert fit.returncode == 2 and "--actuator mx64" in error_line(fit) and not (tmp_path / "f").exists()
    plot = run("plot-trajectory", "--params", "mx64/m6", "--log", log, "--out", tmp_path / "t.png", tool="actuator_sim.cli")
    assert plot.returncode == 2 and "motor" in error_line(plot)


@pytest.mark.parametrize("field, value, expected", [
    ("mass", -1, "field 'mass': -1.0 is not physical, expected > 0"),
    ("mass", 0, "field 'mass': 0.0 is not physical, expected > 0"),
    ("length", -0.15, "field 'length': -0.15 is not physical, expected > 0"),
    ("arm_mass", -0.1, "field 'arm_mass': -0.1 is not physical, expected >= 0"),
    ("kp", -4, "field 'kp': -4.0 is not physical, expected >= 0"),
    ("vin", 0, "field 'vin': 0.0 is not physical, expected > 0"),
])
def test_unphysical_bench_in_a_log_is_refused(tmp_path, xl330_processed, field, value, expected):
    data = json.loads(sorted(xl330_processed.glob("*.json"))[0].read_text())
    data[field] = value
    with pytest.raises(LogError, match=f"^x.json: {expected}$"):
        log_from_dict(data, "x.json")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = run("simulate", "--params", "xl330/m6", "--log", path)  # the issue: mass -1 simulated to 134 rad
    assert result.returncode == 2 and expected in error_line(result)


def test_unphysical_bench_arguments_are_refused():
    with pytest.raises(ValueError, match="field 'length': 0.0 is not physical"):
        BenchConfig(1.0, 0.0, 8.0)
    result = run("consistency", "--params", "mx64/m1", "--synthetic", "mx64/m6", "--bench=-1,0.15,8",
                 tool="actuator_sim.cli")
    assert result.returncode == 2 and "MASS in (0, 100] kg" in result.stderr
    result = run("export-models", "--out", "x", "--length", "-0.2", tool="actuator_sim.cli")
    assert result.returncode == 2 and "'-0.2' is not a positive number" in result.stderr


# ----------------------------------------------------------------------------- 6. user-defined actuators
def test_a_description_equal_to_the_xl330_reproduces_it_exactly(tmp_path, xl330_processed):
    """Independent reference: the shipped XL330 law. A description file with its constants, and
    params carrying the published xl330/m6 values, give the same MAE on every real log."""
    description = {
        "name": "xl330", "control_law": "voltage",
        "constants": {"error_gain": {"value": XL330_GAIN, "unit": "1/rad"}, "max_duty": {"value": 1.0, "unit": "1"},
                      "vin": {"value": 7.4, "unit": "V"}},
        "parameters": {"kt": {"default": 0.4, "bounds": [0.1, 3.0], "unit": "N·m/A"},
                       "R": {"default": 3.0, "bounds": [2.0, 5.0], "unit": "ohm"},
                       "armature": {"default": 0.002, "bounds": [1e-4, 0.05], "unit": "kg m^2"},
                       "q_offset": {"default": 0.0, "bounds": [-0.1, 0.1], "unit": "rad"}},
    }
    (tmp_path / "mine.json").write_text(json.dumps(description))
    params = {**published("xl330/m6"), "actuator": "mine.json"}  # a path, relative to the params file
    (tmp_path / "p.json").write_text(json.dumps(params))
    logs = read_logs(xl330_processed)
    ours, shipped = load_model(tmp_path / "p.json"), load_model("xl330/m6")
    assert ours.actuator.description and not shipped.actuator.description
    assert np.array_equal(log_maes(ours, logs), log_maes(shipped, logs))


def test_fit_and_simulate_a_servo_the_project_does_not_ship(tmp_path):
    (tmp_path / "xm430.yaml").write_text(XM430)
    xm430 = actuator(tmp_path / "xm430.yaml")
    assert xm430.name == "xm430" and xm430.default_vin == 12.0 and "xm430" not in actuator_names()
    truth = new_model(str(tmp_path / "xm430.yaml"), "m1", kt=1.9, R=5.0, armature=0.01, friction_base=0.12,
                      friction_viscous=0.3)
    logs = synthesize_logs(truth, [BenchConfig(0.5, 0.15, 30.0), BenchConfig(1.0, 0.1, 60.0)], encoder_step=0.0)
    assert {log.motor for log in logs} == {"xm430"}
    for i, log in enumerate(logs):
        write_log(log, tmp_path / "logs" / f"{i:02d}_{log.trajectory}.json")
    fit = run("fit", "--logs", "logs", "--actuator", "xm430.yaml", "--model", "m1", "--trials", "400",
              "--validation-fraction", "0", "--quiet", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    params = json.loads((tmp_path / "fit-xm430" / "m1.json").read_text())
    assert params["actuator"] == "xm430" and params["actuator_description"]["control_law"] == "voltage"
    default = float(np.mean(log_maes(new_model(str(tmp_path / "xm430.yaml"), "m1"), logs)))
    (tmp_path / "xm430.yaml").unlink()  # the params file alone is enough from now on
    result = run("evaluate", "--params", "fit-xm430/m1.json", "--logs", "logs", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    mean = json.loads(result.stdout.splitlines()[-1])["fit-xm430/m1.json"]["mean"]
    assert mean < 0.5 * default  # the fit recovered the friction of the synthetic servo
    assert run("evaluate", "--params", "fit-xm430/m1.json", "xl330/m1", "--logs", "logs", cwd=tmp_path).returncode == 2


@pytest.mark.parametrize("edit, expected", [
    (("unit: N m/A", "unit: N m"), "parameters.kt: unit 'N m', expected 'N m/A'"),
    (("control_law: voltage", "control_law: pwm"), "field 'control_law' is 'pwm', expected one of voltage, current"),
    (("  max_duty:", "  max_dutty:"), "unknown field 'max_dutty' (did you mean 'max_duty'?)"),
    (("kt: {default: 1.78", "kt: {default: 5.0"), "parameters.kt: default 5 is outside bounds [0.5, 4]"),
    (("armature: {default: 0.008, bounds: [0.001", "armature: {default: 0.008, bounds: [-0.001"),
     "parameters.armature: lower bound -0.001: expected > 0"),
    (("friction_base: {bounds: [0.0", "friction_base: {bounds: [-0.1"), "friction_bounds.friction_base: lower bound -0.1"),
    (("  R: {default: 5.2, bounds: [2.0, 10.0], unit: ohm}\n", ""), "parameters.R: missing"),
])
def test_bad_description_is_one_clear_error(tmp_path, edit, expected):
    path = tmp_path / "servo.yaml"
    path.write_text(XM430.replace(*edit))
    with pytest.raises(ActuatorFileError, match=None) as error:
        read_actuator_file(path)
    assert str(error.value).startswith(str(path)) and expected in str(error.value)
    result = run("fit", "--logs", tmp_path, "--actuator", path, "--model", "m1")
    assert result.returncode == 2 and expected in result.stderr


def test_current_law_description():
    servo = actuator_from_description({
        "name": "myservo", "control_law": "current",
        "constants": {"max_current": {"value": 3.0, "unit": "A"}, "vin": {"value": 24.0, "unit": "V"}},
        "parameters": {"kt": {"default": 0.5, "bounds": [0.1, 2], "unit": "N m/A"},
                       "R": {"default": 1.0, "bounds": [0.1, 5], "unit": "ohm"},
                       "armature": {"default": 0.01, "bounds": [0.001, 0.1], "unit": "kg m^2"}},
    })
    p = {"kt": 0.5, "R": 1.0}
    assert servo.control(1.0, 0.0, 0.0, 10.0, 24.0) == 3.0  # clipped at max_current
    # paper eq. 14-15: the voltage-limited band (vin - kt v) / R caps the current at speed
    assert servo.torque(3.0, 1, 10.0, p, 24.0) == pytest.approx(0.5 * 3.0)  # band (24 - 5) / 1 = 19 A: not reached
    assert servo.torque(3.0, 1, 44.0, p, 24.0) == pytest.approx(0.5 * (24.0 - 0.5 * 44.0) / 1.0)
    with pytest.raises(ValueError, match="did you mean 'xl330'"):
        actuator("xl33")


# ----------------------------------------------------------------------------- 8. one vocabulary
SUBCOMMANDS = {
    "actuator_models.cli": ("actuator-models", ("process", "simulate", "evaluate", "library", "fit", "dahl")),
    "actuator_sim.cli": ("actuator-sim", ("pendulum", "consistency", "arm", "arm-compare", "transfer", "plot-diagram",
                                          "plot-trajectory", "plot-mae", "export-models")),
    "actuator_bench.cli": ("actuator-bench", ("emulate", "record", "record-all", "demo", "bag2json")),
}


@pytest.mark.parametrize("tool", sorted(SUBCOMMANDS))
def test_every_subcommand_help_has_examples(tool, capsys):
    main = importlib.import_module(tool).main
    prog, names = SUBCOMMANDS[tool]
    with pytest.raises(SystemExit):
        main(["--help"])
    assert f"examples:\n  {prog} " in capsys.readouterr().out  # the issue: 'actuator-bench --help' had none
    for name in names:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        text = capsys.readouterr().out
        assert "example" in text, f"{prog} {name} --help has no example"
        assert f"{prog} {name}" in text.split("example")[1]


def test_same_words_and_exit_codes_across_the_three_commands(tmp_path, xl330_processed):
    log = sorted(xl330_processed.glob("*.json"))[0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"model": "m1", "actuator": "mx64"}))
    results = [
        run("simulate", "--params", bad, "--log", log),
        run("pendulum", "--params", bad, "--log", log, tool="actuator_sim.cli"),
        # before: --model here and exit status 1 for the same bad params file
        run("emulate", "--actuator", "mx64", "--params", bad, "--mass", "1", "--length", "0.15", tool="actuator_bench.cli"),
    ]
    for result in results:
        assert result.returncode == 2 and "key 'kt'" in error_line(result)
    negative = run("emulate", "--actuator", "mx64", "--params", "mx64/m6", "--mass", "-1", "--length", "0.15",
                   tool="actuator_bench.cli")
    assert negative.returncode == 2 and "--mass" in negative.stderr
    record = " ".join(run("record", "--help", tool="actuator_bench.cli").stdout.split())
    assert "--out DIR, --logdir DIR" in record and "--trajectory {sin_time_square," in record
    assert "identification trajectory (paper section V-A" in record  # --trajectory had no help


def _readme_block(marker):
    text = (ROOT / "README.md").read_text()
    blocks = text.split("```sh\n")[1:]
    return next(b.split("```")[0] for b in blocks if marker in b)


def command_dir() -> Path:
    """Folder of the ``actuator-bench`` command: the venv's bin (``make install``), else, in a
    sourced ROS 2 workspace, where colcon installs console scripts (``lib/actuator_bench``, the
    folder ``ros2 run actuator_bench`` runs from)."""
    here = Path(sys.executable).parent
    if (here / "actuator-bench").is_file():
        return here
    from ament_index_python.packages import get_package_prefix

    return Path(get_package_prefix("actuator_bench")) / "lib" / "actuator_bench"


def test_readme_emulate_and_record_run_as_written(tmp_path):
    """The README's emulate + record example, run as written (against the emulator it starts),
    with one protocol for both."""
    block = _readme_block("actuator-bench emulate")
    protocols = {line.split("--protocol")[1].split()[0] for line in block.splitlines() if "--protocol" in line}
    assert len(protocols) == 1 and block.count("--protocol") >= 2
    script = block.replace(".venv/bin/", str(command_dir()) + "/")
    result = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    logs = read_logs(tmp_path / "logs" / "raw")
    assert len(logs) == 1 and logs[0].motor == "mx64" and logs[0].duration == pytest.approx(6.0, abs=0.1)
    assert math.isfinite(float(np.mean(logs[0].position)))


# ----------------------------------------------------------------------------- 3. honest figures
def test_figures_keep_every_source_apart(tmp_path, xl330_processed, reference_mae_file):
    """A published model and a fitted file of the same actuator/model are two curves, each
    with its own MAE (the issue: one curve named mx64/m6 carrying the fitted file's number)."""
    log = sorted(xl330_processed.glob("*.json"))[1]
    fitted = {**published("xl330/m6"), "friction_base": 0.05, "load_friction_motor": 0.1}
    (tmp_path / "m6.json").write_text(json.dumps(fitted))
    result = run("plot-trajectory", "--params", "xl330/m6", tmp_path / "m6.json", "--log", log,
                 "--out", tmp_path / "t.png", tool="actuator_sim.cli")
    assert result.returncode == 0, result.stderr
    maes = {line.split(": MAE ")[0]: float(line.split(": MAE ")[1].split()[0])
            for line in result.stdout.splitlines() if ": MAE " in line}
    published_mae = json.loads(reference_mae_file.read_text())["models"]["m6"][log.name]  # the paper's tool
    assert maes["xl330/m6"] == pytest.approx(published_mae, abs=1e-6)
    assert maes["m6.json"] == pytest.approx(log_maes(load_model(tmp_path / "m6.json"), read_logs(xl330_processed))[1],
                                            abs=1e-6)
    assert abs(maes["m6.json"] - maes["xl330/m6"]) > 1e-3
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "m6.json").write_text(json.dumps(published("xl330/m1") | {"model": "m1"}))
    diagram = run("plot-diagram", "--params", "xl330/m6", tmp_path / "m6.json", tmp_path / "other" / "m6.json",
                  "--out", tmp_path / "d.png", tool="actuator_sim.cli")
    assert diagram.returncode == 0, diagram.stderr
    assert f"(3 panels: xl330/m6, {tmp_path / 'm6.json'}, {tmp_path / 'other' / 'm6.json'})" in diagram.stdout
    twice = run("plot-diagram", "--params", "xl330/m6", "xl330/m6", "--out", tmp_path / "e.png", tool="actuator_sim.cli")
    assert twice.returncode == 2 and "given twice" in error_line(twice)
