"""Nonsense on the command line is refused before any work: exit status 2, one line naming the
option (or file) and the value, nothing written, nothing moved, no number from it.

Each case here was a probe of round 30 that got a traceback, ran a whole bench trajectory before
refusing its output folder (and lost the run), or printed or wrote a result computed from an
impossible value (a NaN timestep in an MJCF, an XL330 model at an MX arm's gain, a 1e9 kg bench).
"""

from __future__ import annotations

import argparse
import json
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from actuator_models import option_numbers
from actuator_models.logs import read_log

SHARED_LOGS = Path(__file__).resolve().parents[2] / "shared" / "data" / "xl330" / "processed"


def one_log() -> Path:
    if not SHARED_LOGS.is_dir():
        pytest.skip(f"{SHARED_LOGS}: the shared XL330 logs are absent")
    return sorted(SHARED_LOGS.glob("*.json"))[0]


def refused(main, argv, capsys, *named: str) -> str:
    """Runs ``main(argv)`` (or its parser's exit); asserts exit 2, nothing on stdout (no result printed first) and one
    stderr line holding every ``named`` text; returns that line."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:  # argparse's refusal of an option's value
        code = stop.code
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and not captured.out.strip() and len(lines) == 1, (code, captured.out, lines)
    assert all(text in lines[0] for text in named), lines[0]
    return lines[0]


@pytest.mark.parametrize("kind, text", [
    ("positive", "nan"), ("positive", "inf"), ("positive", "-1"), ("positive", "0"), ("positive", "x"),
    ("non_negative", "-0.5"), ("non_negative", "inf"), ("fraction", "1.5"), ("fraction", "nan"),
    ("open_fraction", "0"), ("open_fraction", "1"), ("count", "0"), ("count", "2.5"), ("finite", "-inf"),
])
def test_option_numbers_refuse_what_the_option_cannot_mean(kind, text):
    with pytest.raises(argparse.ArgumentTypeError, match=repr(text).replace("'", ".")):
        getattr(option_numbers, kind)(text)


def test_option_numbers_keep_what_it_can():
    assert option_numbers.positive("2.5") == 2.5 and option_numbers.non_negative("0") == 0.0
    assert option_numbers.fraction("1") == 1.0 and option_numbers.open_fraction("0.25") == 0.25
    assert option_numbers.count("3") == 3 and option_numbers.finite("-1e3") == -1000.0


def test_actuator_sim_refuses_before_computing(tmp_path, capsys):
    from actuator_sim.cli import main

    refused(main, ["plot-diagram", "--params", "xl330/m1", "--out", tmp_path / "d.png", "--velocities", "0"],
            capsys, "--velocities", "'0'")
    refused(main, ["plot-diagram", "--params", "xl330/m1", "--out", tmp_path / "d.png", "--max-torque=-1"],
            capsys, "--max-torque", "'-1'")
    refused(main, ["export-models", "--out", tmp_path / "models", "--dt", "nan"], capsys, "--dt", "'nan'")
    refused(main, ["export-models", "--out", tmp_path / "models", "--q-offset", "inf"], capsys, "--q-offset")
    refused(main, ["consistency", "--params", "xl330/m1", "--synthetic", "xl330/m1", "--bench", "1e9,0.1,100"],
            capsys, "--bench", "1e9")
    refused(main, ["transfer", "--arm", "mx", "--trials", "0"], capsys, "--trials")
    refused(main, ["plot-trajectory", "--params", "xl330/m1", "--log", one_log(), "--out", tmp_path / "t.xyz"],
            capsys, "--out", ".xyz")  # before the simulation (its MAE was printed first)
    assert not any(tmp_path.iterdir())


def test_an_arm_refuses_a_model_of_another_servo_and_checks_everything_before_its_run(tmp_path, capsys):
    from actuator_sim.cli import main

    refused(main, ["arm-compare", "--arm", "mx", "--candidate", "x", "xl330/m1", "xl330/m1", "--paths", "circle"],
            capsys, "--candidate x xl330/m1", "xl330", "mx106", "--allow-mismatch")
    refused(main, ["arm", "--arm", "mx", "--shoulder", "m1", "--elbow", "xl330/m6", "--path", "circle"],
            capsys, "--elbow xl330/m6", "mx64")
    # half a reference, or an --out that exists: refused before the run (its MAE was printed first)
    refused(main, ["arm", "--arm", "mx", "--shoulder", "m1", "--elbow", "m1", "--path", "circle",
                   "--reference-shoulder", "m6"], capsys, "--reference-elbow")
    (tmp_path / "mine.json").write_text("mine")
    refused(main, ["arm", "--arm", "mx", "--shoulder", "m1", "--elbow", "m1", "--path", "circle",
                   "--out", tmp_path / "mine.json"], capsys, "mine.json")
    assert (tmp_path / "mine.json").read_text() == "mine"
    refused(main, ["export", "--params", "xl330/m1", "--arm", "mx", "--out", tmp_path / "e.xml"], capsys,
            "--params xl330/m1", "mx106", "--allow-mismatch")
    refused(main, ["export", "--params", "mx64/m1", "--arm", "mx", "--mass", "2", "--out", tmp_path / "e.xml"],
            capsys, "--mass", "--arm")
    assert not (tmp_path / "e.xml").exists()


def test_plot_mae_refuses_an_error_figure_that_is_no_error(tmp_path, capsys):
    from actuator_sim.cli import main

    for name, content, named in (("nan", {"xl330/m1": {"mean": float("nan"), "logs": {}}}, "MAE nan"),
                                 ("negative", {"circle": {"M1": -3}}, "circle, M1: MAE -3"),
                                 ("flat", {"a": 1}, "expected")):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(content))
        refused(main, ["plot-mae", "--eval", path, "--out", tmp_path / f"{name}.png"], capsys, f"--eval {path}", named)
    refused(main, ["plot-mae", "--eval", tmp_path / "flat.json", "--params", "xl330/m1", "--logs", tmp_path,
                   "--out", tmp_path / "both.png"], capsys, "not both")
    assert not list(tmp_path.glob("*.png"))


def test_hybrid_sim_refuses_before_its_run(tmp_path, capsys):
    from hybrid_sim.cli import main

    refused(main, ["wheel", "--final-time", "0.05", "--mujoco", "--mujoco-timestep", "0"], capsys, "--mujoco-timestep")
    refused(main, ["slip", "--final-time", "inf"], capsys, "--final-time", "'inf'")  # 0 is a run of its start
    refused(main, ["wheel3d", "--final-time", "0.05", "--initial", "speed=nan"], capsys, "--initial", "speed=nan")
    refused(main, ["wheel3d", "--final-time", "0.05", "--param", "mu=nan"], capsys, "--param", "mu=nan")
    refused(main, ["hexapod", "--final-time", "0.2", "--change", "99:kp=5"], capsys, "--change", "99")
    refused(main, ["slip", "--final-time", "0.1", "--plot", tmp_path / "s.xyz"], capsys, "--plot", ".xyz")
    refused(main, ["slip", "--config", tmp_path / "none.rc"], capsys, "--config", "no such file")
    log = one_log()
    refused(main, ["stick-slip", "--params", "xl330/m6", "--log", log, "--dts", "nan"], capsys, "--dts", "nan")
    refused(main, ["stick-slip", "--params", "mx64/m6", "--log", log], capsys, "'motor'", "mx64", "--allow-mismatch")
    assert not any(tmp_path.iterdir())


def test_actuator_models_refuses_in_one_line(tmp_path, capsys):
    from actuator_models.cli import main

    refused(main, ["dahl", "identify", "--constant-velocity", tmp_path / "a.csv", "--periodic", tmp_path / "b.csv",
                   "--tail", "0"], capsys, "--tail", "'0'")
    refused(main, ["dahl", "identify", "--constant-velocity", tmp_path, "--periodic", tmp_path / "b.csv"], capsys,
            "a folder")
    bounds = tmp_path / "bounds.yaml"
    bounds.write_text("kt: [: oops\n")
    refused(main, ["fit", "--logs", one_log().parent, "--actuator", "xl330", "--model", "m1", "--trials", "20",
                   "--bounds", bounds, "--out", tmp_path / "fit"], capsys, "bounds.yaml", "cannot read bounds")
    assert not (tmp_path / "fit").exists()


def test_actuator_bench_refuses_before_the_bench_moves(tmp_path, capsys):
    from actuator_bench.cli import main

    (tmp_path / "exists.json").write_text("mine")
    refused(main, ["play", "--backend", "mujoco", "--trajectory", "sin_sin", "--kp", "400",
                   "--out", tmp_path / "exists.json"], capsys, "exists.json", "not a folder")
    refused(main, ["play", "--backend", "mujoco", "--trajectory", "sin_sin", "--kp", "400", "--model", "mx64/m6",
                   "--out", tmp_path / "logs"], capsys, "models 'mx64/m6'", "xl330")
    refused(main, ["emulate", "--params", "mx64/m6", "--mass", "1", "--length", "0.15", "--id", "999"], capsys,
            "--id", "999")
    refused(main, ["emulate", "--params", "mx64/m6", "--mass", "1", "--length", "0.15", "--delay", "-1"], capsys,
            "--delay")
    for option in ("--masses", "--trajectories"):
        refused(main, ["record-all", "--emulate", "xl330/m6", "--actuator", "xl330", "--unattended", "--lockstep",
                       "--kps", "400", "--lengths", "0.1", option, "", "--out", tmp_path / "grid"], capsys, option)
    assert (tmp_path / "exists.json").read_text() == "mine" and sorted(tmp_path.iterdir()) == [tmp_path / "exists.json"]


def test_record_refuses_an_output_folder_that_is_a_file_before_any_cycle(tmp_path):
    """The library's rule behind ``record``: no bench time passes (the lockstep emulator's clock
    moves only with the driver's cycles), the torque stays off."""
    from actuator_bench.messages import BenchInfo
    from actuator_bench.recording import RecordOutput, record
    from actuator_drivers.dynamixel.bench import DynamixelBench
    from actuator_drivers.dynamixel_emulator.emulated import Emulation, emulated_dynamixel
    from actuator_models.outputs import OutputExistsError

    (tmp_path / "logs").write_text("mine")
    with emulated_dynamixel("xl330", "xl330/m6", 0.49, 0.1, emulation=Emulation(time_scale=None)) as (emu, driver):
        bench = DynamixelBench.of(driver, "xl330")
        before = bench.clock.now()
        with pytest.raises(OutputExistsError, match="is a file, not a folder"):
            record(bench, "sin_sin", BenchInfo("xl330", mass=0.49, length=0.1), 400.0,
                   output=RecordOutput(tmp_path / "logs"))
        assert bench.clock.now() == before and not emu.servo(1).torque_enabled
    assert (tmp_path / "logs").read_text() == "mine"


def test_bag2json_refuses_a_damaged_bag_and_an_impossible_step(tmp_path, capsys):
    from actuator_bench.cli import main

    assert main(["play", "--backend", "mujoco", "--trajectory", "sin_sin", "--kp", "400", "--time-scale", "10",
                 "--out", str(tmp_path / "played"), "--bag", str(tmp_path / "bag")]) == 0
    capsys.readouterr()
    (mcap,) = (tmp_path / "bag").glob("*.mcap")
    whole = mcap.read_bytes()
    mcap.write_bytes(whole[: len(whole) - 200])  # cut: the file's end is gone
    refused(main, ["bag2json", tmp_path / "bag", "--out", tmp_path / "logs"], capsys, "bag", "not a readable bag")
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / "metadata.yaml").write_text("garbage")
    refused(main, ["bag2json", tmp_path / "garbage", "--out", tmp_path / "logs"], capsys, "garbage", "not a readable bag")
    refused(main, ["bag2json", tmp_path / "none", "--out", tmp_path / "logs"], capsys, "none", "no such bag")
    for dt in ("0", "100"):
        refused(main, ["bag2json", tmp_path / "garbage", "--out", tmp_path / "logs", "--dt", dt], capsys, f"--dt {dt}")
    assert not (tmp_path / "logs").exists()


def test_a_log_too_sparse_for_its_step_is_written_with_a_warning(tmp_path):
    """A loop that skipped cycles (a host too slow for ``play --time-scale 50``: 5 cycles, then a
    log of 1165 samples interpolated from them, without a word)."""
    from actuator_bench.bag2json import write_logs
    from actuator_models.log_checks import OddLogWarning

    log = read_log(one_log())
    every = np.arange(0, len(log.timestamp), 20)  # 200 Hz -> 10 Hz
    columns = ("timestamp", "position", "speed", "goal_position", "torque_enable")
    sparse = replace(log, **{name: getattr(log, name)[every] for name in columns}, source="sparse.json",
                     extra={name: values[every] for name, values in log.extra.items()})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (path,) = write_logs([sparse], tmp_path, 0.005)
    assert path.is_file()
    assert [str(w.message) for w in caught if issubclass(w.category, OddLogWarning)
            and "sparse.json: achieved rate" in str(w.message)], [str(w.message) for w in caught]
