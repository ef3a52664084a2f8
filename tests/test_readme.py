"""The README, executed (issue 24): every ```sh and ```python block of README.md and of each
package README runs as written, in document order, in one scratch folder per README (a
walk-through: a block may use what an earlier one wrote), against the emulators.

The scratch folder holds what a checkout has at its root: ``.venv`` (the running interpreter's
environment, also on the PATH, as when activated: the package READMEs name the commands bare),
``data/`` and ``config/`` (copies: commands write next to them) and ``benchmarks/``.
A shell block runs with ``bash -e`` (the first failing line fails the test), a Python block with
the interpreter; neither may print a traceback. Lines are changed only as the tables below say,
each with its reason:

* hardware lines (``/dev/ttyUSB0``) run and must fail cleanly: exit status 1 or 2 and a
  "cannot open" line, never a traceback;
* root-only lines (``sudo ...``) run as root without ``sudo`` (absent from containers), their
  veth names made unique (a shared CI host may run two suites at once), and are skipped with the
  reason where the test does not run as root;
* the ROS blocks run in tests/test_readme_ros.py (they need a sourced ROS 2, and their
  ``ros2 launch`` lines run until stopped: there, each graph is started, called and stopped);
* :data:`SKIPPED` and :data:`REDUCED` list every other line not run exactly as written.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

pytestmark = pytest.mark.slow  # 10 s or more on 2 busy cores (issue 33's measurements): not in make test-fast

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted(REPO.glob("src/*/README.md"))]
FENCE = re.compile(r"^```(sh|python)\n(.*?)^```", re.MULTILINE | re.DOTALL)
ROOT = os.geteuid() == 0
DAHL_SAMPLES = REPO / "src" / "hybrid_sim" / "Dahl"

#: Lines not run, by a piece of their text, and why.
SKIPPED: Dict[str, str] = {
    "make demo": "tests/test_demo.py runs the demo it starts (actuator-bench demo --quick)",
    "make test": "the test suite this test is part of",
    "pip install": "installs the packages: make install has done it for this environment",
    "demo --quick --actuator erob80_100": ("the demo on an emulated eRob takes minutes; its recording and fitting "
                                           "run in tests/test_erob_identification.py"),
    "dahl identify --constant-velocity A.csv": (
        "the Dahl sample records A.csv and B.csv come with issue 25 (hybrid_sim/Dahl), not in this branch yet"),
}

#: Long lines run with a smaller budget (a piece of their text -> (what is replaced, by what, why)).
REDUCED: Dict[str, Tuple[str, str, str]] = {
    "benchmarks/": ("", " --help", "a measurement run by hand (minutes): here its --help only, which imports it"),
    **{piece: ("", " --trials 1000", "the default budget, 60000 trials per model, is a minute or more of CPU per "
                                     "command: the same command with 1000")
       for piece in ("--model all --out fit-xl330/", "--model m6 --validation-kp 800", "--study xl330 --workers 2",
                     "--actuator sts3215 --model all --out fits/sts")},
    "record-all --emulate erob80_100/m6 --actuator erob80_100 --masses 3.1,14.6 --kps 25,100": (
        "--masses 3.1,14.6 --kps 25,100", "--masses 3.1 --kps 25 --trajectories sin_sin",
        "16 recordings at 1 kHz are minutes: here one of them"),
    'record --port "$(sed -n 2p emulator.txt)"': (
        "", " --latency-ms 200 --retries 10", "the emulator is another process in real time: on a loaded CI machine "
        "it may answer later than a USB adapter would, so generous receive timeouts"),
    "record-all --emulate mx64/m6 --actuator mx64 --out logs --unattended": (
        "", " --masses 1 --lengths 0.15 --kps 32 --trajectories sin_sin",
        "the whole Table I grid is 2 minutes of recordings: here one configuration of it"),
}

ROS_MARKERS = ("ros2 ", "colcon ", "/opt/ros/")


@dataclass(frozen=True)
class Block:
    """One fenced block of a README: its file, first line number, language and text."""

    doc: Path
    line: int
    language: str
    text: str

    @property
    def name(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"


def blocks() -> List[Block]:
    found = []
    for doc in DOCS:
        text = doc.read_text()
        for match in FENCE.finditer(text):
            found.append(Block(doc, text.count("\n", 0, match.start()) + 1, match.group(1), match.group(2)))
    return found


def logical_lines(text: str) -> List[str]:
    """The commands of a shell block, continuation lines joined."""
    return [line for line in re.sub(r"\s*\\\n\s*", " ", text).splitlines() if line.strip()]


def shell_script(block: Block, veth_suffix: str) -> Tuple[str, List[str]]:
    """The block as it runs here, and the notes on every line not run as written."""
    notes: List[str] = []
    script = ['expect_cannot_open() {  # a hardware line without the hardware: one clean error',
              '  if "$@" 2> hardware.err; then echo "ran without hardware: $*" >&2; return 1; fi',
              '  if grep -q Traceback hardware.err || ! grep -q "cannot open" hardware.err; then cat hardware.err >&2; return 1; fi',
              '}']
    for line in logical_lines(block.text):
        if line.lstrip().startswith("#"):
            continue
        skip = next((reason for piece, reason in SKIPPED.items() if piece in line), None)
        if skip and not ("dahl identify" in line and DAHL_SAMPLES.is_dir()):
            notes.append(f"skipped ({skip}): {line}")
            continue
        for piece, (old, new, reason) in REDUCED.items():
            if piece in line:
                command = line.split("#")[0].rstrip()
                line = (command.replace(old, new) if old else command + new)
                notes.append(f"reduced ({reason}): {line}")
        if line.lstrip().startswith("sudo "):
            if not ROOT:
                notes.append(f"skipped (needs root: veth pairs and raw sockets): {line}")
                continue
            line = re.sub(r"^(\s*)sudo (-E )?", r"\1", line)
            line = re.sub(r"\becm0\b", f"ecm{veth_suffix}", re.sub(r"\becs0\b", f"ecs{veth_suffix}", line))
        if "/dev/ttyUSB0" in line:
            line = f"expect_cannot_open {line}"
        script.append(line)
    return "\n".join(script) + "\n", notes


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory) -> Dict[Path, Path]:
    """One scratch folder per README, laid out like a checkout's root."""
    folders = {}
    for doc in DOCS:
        folder = tmp_path_factory.mktemp(doc.parent.name or "readme")
        (folder / ".venv").symlink_to(Path(sys.prefix))
        shutil.copytree(REPO / "data", folder / "data")
        shutil.copytree(REPO / "config", folder / "config")
        (folder / "benchmarks").symlink_to(REPO / "benchmarks")
        folders[doc] = folder
    return folders


def run_in(folder: Path, argv: List[str], timeout: float) -> subprocess.CompletedProcess:
    """Run in its own process group, output to files (a background job of a block keeps pipes
    open), and end the group once the block is done: what a block started in the background
    and left running (the eRob emulator) goes with it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PATH": f"{folder / '.venv' / 'bin'}:{os.environ['PATH']}"}
    with open(folder / "block.out", "w+") as out, open(folder / "block.err", "w+") as err:
        process = subprocess.Popen(argv, cwd=folder, stdout=out, stderr=err, text=True, start_new_session=True, env=env)
        try:
            process.wait(timeout=timeout)
        finally:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            process.wait()
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, process.returncode, out.read(), err.read())


def ros_block(block: Block) -> bool:
    """The "With ROS 2" blocks: run by tests/test_readme_ros.py, in a sourced ROS 2 environment."""
    return block.language == "sh" and any(marker in block.text for marker in ROS_MARKERS)


@pytest.mark.parametrize("block", [b for b in blocks() if not ros_block(b)], ids=lambda b: b.name)
def test_readme_block_runs_as_written(block: Block, walkthrough):
    folder = walkthrough[block.doc]
    if block.language == "python":
        if "emulated_erob" in block.text and not ROOT:
            pytest.skip("needs root: a veth pair and raw sockets")
        (folder / "readme_block.py").write_text(block.text)
        result = run_in(folder, [sys.executable, "readme_block.py"], timeout=600)
        notes: List[str] = []
    else:
        script, notes = shell_script(block, uuid.uuid4().hex[:6])
        result = run_in(folder, ["bash", "-e", "-c", script], timeout=600)
    for note in notes:
        print(note)
    assert result.returncode == 0, f"{block.name} failed:\n{result.stderr[-4000:]}"
    assert "Traceback" not in result.stderr, result.stderr[-4000:]
