"""Issue 34: every output path of the hybrid commands is checked writable before the run. Before,
``hybrid-sim slip --plot /proc/x/slip.png`` simulated, then failed on the write with exit 2 and
a message without the option; now it is refused at once naming the option, exit 1 (a disk
fault, as the README says), with nothing simulated and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybrid_sim.cli import main

LOG = "2026-01-15_10h28m17.json"


COMMANDS = {
    "slip": ["slip", "--final-time", "0.5"],
    "hexapod": ["hexapod", "--final-time", "0.5"],
    "wheel": ["wheel", "--final-time", "0.2"],
    "stick-slip": ["stick-slip", "--params", "xl330/m1", "--log", "{log}"],
}
OUTPUTS = {"--out": "run", "--plot": "run.png", "--animate": "run.gif"}
#: every command's output options (stick-slip draws no animation: it has no --animate)
CASES = [(command, option) for command in COMMANDS for option in OUTPUTS
         if not (command == "stick-slip" and option == "--animate")]


@pytest.mark.parametrize("which, option", CASES)
def test_an_unwritable_output_is_refused_before_the_run_naming_the_option(tmp_path, capsys, xl330_processed, which, option):
    command, name = COMMANDS[which], OUTPUTS[option]
    argv = [str(Path(xl330_processed) / LOG) if word == "{log}" else word for word in command]
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("a file of the user's, not a folder")
    for folder in (Path("/proc/x"), not_a_folder):
        target = folder / name
        assert main([*argv, option, str(target)]) == 1
        out, err = capsys.readouterr()
        (line,) = err.strip().splitlines()
        assert line.startswith(f"hybrid-sim: error: {option}: cannot write {target}") and "nothing was done" in line
        assert out == ""  # refused before the run: no summary printed
    assert not_a_folder.read_text() == "a file of the user's, not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
