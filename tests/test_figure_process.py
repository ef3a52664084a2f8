"""The fit report's figure drawn by a forked child (actuator_models.figure_process): the same
file as drawn in-process, its errors raised in the parent, and matplotlib never imported by
the fitting process."""

import json
import subprocess
import sys

import pytest

from actuator_models.figure_process import draw_mae_bars, start_figure_process

MAES = {"train": {"M1": 0.061, "M6": 0.049}, "validation": {"M1": 0.066, "M6": 0.054}}


def test_child_draws_the_same_png_as_the_parent(tmp_path):
    figures = start_figure_process()
    assert figures is not None  # Linux: fork is there
    with figures:
        figures.draw("mae_bars", MAES, str(tmp_path / "child.png"), "xl330: MAE per friction model")
        assert figures.result() == str(tmp_path / "child.png")
    draw_mae_bars(MAES, str(tmp_path / "parent.png"), "xl330: MAE per friction model")
    child, parent = (tmp_path / "child.png").read_bytes(), (tmp_path / "parent.png").read_bytes()
    assert child[:8] == b"\x89PNG\r\n\x1a\n" and len(child) > 10_000
    assert child == parent


def test_errors_of_the_child_are_raised_in_the_parent_and_it_goes_on(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    with start_figure_process() as figures:
        figures.draw("mae_bars", MAES, str(tmp_path / "file" / "mae.png"), "")
        figures.draw("mae_bars", {}, str(tmp_path / "empty.png"), "")
        figures.draw("mae_bars", MAES, str(tmp_path / "ok.png"), "")
        with pytest.raises(OSError):  # the folder is a file
            figures.result()
        with pytest.raises(ValueError, match="no MAE to plot"):
            figures.result()
        assert figures.result() == str(tmp_path / "ok.png")
    assert not (tmp_path / "empty.png").exists() and (tmp_path / "ok.png").stat().st_size > 10_000


def test_fit_writes_the_figure_without_importing_matplotlib(tmp_path, xl330_processed):
    code = ("import sys, json; from actuator_models.cli import main; "
            f"status = main(['fit', '--logs', {str(xl330_processed)!r}, '--actuator', 'xl330', '--model', 'm1', "
            f"'--trials', '48', '--out', {str(tmp_path / 'm1.json')!r}, '--quiet']); "
            "print(json.dumps([status, sorted(m for m in sys.modules if m.startswith('matplotlib'))]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    status, imported = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and imported == []
    assert (tmp_path / "m1.report" / "mae.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "m1.report" / "report.json").read_text())["best_model"] == "m1"
