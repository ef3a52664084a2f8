"""Fuzzing the argument parsers of every console script (hypothesis), issue 24.

Inputs: a tool (actuator-models, actuator-sim, actuator-bench, hybrid-sim, actuator-drivers), one
of its subcommands, then random flags of that subcommand (read from its ``--help``, so a new
option is fuzzed without editing this file) with random values: numbers (negative, zero, nan,
inf, huge), the subcommand's choices, library names, paths that exist (a raw log folder, two
processed logs, a bad JSON file, a YAML file) or not, and arbitrary text. Property: the tool's
``main(argv)`` returns or exits with 0, 1, 2 or 130 and prints no traceback; an exit status 2 comes
with an ``error:`` line.

Each invocation runs in-process (seconds for thousands) in a scratch folder. An invocation that
turns out to be valid may start long work (a fit, a demo, an emulator that runs until stopped): a
watchdog presses Ctrl-C (SIGINT) after 0.5 s and again every 0.5 s, as an impatient user would, so
those runs also prove that an interrupt at any moment ends in one line and exit status 130, never
a traceback. The test fails if a command still runs 60 s after the first Ctrl-C.

Not fuzzed: ``veth`` and the eRob actuators where the test runs as root (they would create
network interfaces on the host; as a user they are refused at once, and fuzzed).

CI runs a fixed, derandomized set of 2,000 invocations (profile ``ci``); a release runs
``HYPOTHESIS_PROFILE=release pytest tests/test_fuzz_cli.py`` (20,000).
"""

from __future__ import annotations

import _thread
import contextlib
import importlib
import inspect
import io
import os
import pkgutil
import re
import shutil
import signal
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Callable, Dict, List, Optional, Tuple, TypeVar

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

pytestmark = pytest.mark.slow  # 10 s or more on 2 busy cores (issue 33's measurements): not in make test-fast

INVOCATIONS = max(settings().max_examples, 2000)  # ci: 2,000; release: 20,000
REPO = Path(__file__).resolve().parents[1]
TOOLS = {"actuator-models": "actuator_models.cli", "actuator-sim": "actuator_sim.cli", "actuator-bench": "actuator_bench.cli",
         "hybrid-sim": "hybrid_sim.cli", "actuator-drivers": "actuator_drivers.cli"}
ROOT = os.geteuid() == 0
UNSAFE_AS_ROOT = {"veth", "erob80_50", "erob80_100"}
EXIT_STATUSES = {0, 1, 2, 130}
T = TypeVar("T")


def call(module: str, argv: List[str]) -> Tuple[object, str, str]:
    """``main(argv)`` of a tool: exit status, stdout, stderr (anything else escaping is a failure)."""
    main = importlib.import_module(module).main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code
    return status, out.getvalue(), err.getvalue()


Grammar = Tuple[List[str], List[str], List[List[str]]]


def options_of(help_text: str, path: Tuple[str, ...], tool_help: str) -> Grammar:
    """The ``--flags``, the ``{choice,...}`` values that a subcommand's help text shows, and the
    example command lines (the arguments after the subcommand ``path``) of it and of the tool's help."""
    flags = sorted(set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_text)) - {"-h", "--help"})
    choices = sorted({c for group in re.findall(r"\{([^{}\s]+)\}", help_text) for c in group.split(",")})
    examples = []
    for line in (help_text + tool_help).replace("\\\n", " ").splitlines():
        words = line.split("#")[0].split() if line.startswith("  ") else []  # no quotes in the examples
        if words[1:len(path) + 1] == list(path):
            examples.append(words[len(path) + 1:])
    return flags, choices, examples


def listed_commands(help_text: str) -> List[str]:
    """The subcommands a help text lists under its positional arguments (indented by 4)."""
    positional = help_text.split("positional arguments:")[-1].split("options:")[0] if "positional arguments:" in help_text else ""
    return re.findall(r"^    (\S+)", positional, flags=re.MULTILINE)


def subcommands(module: str, path: Tuple[str, ...] = (), tool_help: str = "") -> Dict[str, Grammar]:
    """``{"sub" or "sub nested": grammar}`` of a tool, from the ``--help`` of each level."""
    found: Dict[str, Grammar] = {}
    _, text, _ = call(module, [*path, "--help"])
    nested = listed_commands(text)
    if path and not nested:
        found[" ".join(path)] = options_of(text, path, tool_help)
    for name in nested:
        found.update(subcommands(module, (*path, name), tool_help or text))
    return found


@pytest.fixture(scope="module")
def grammar() -> Dict[str, Dict[str, Grammar]]:
    warm_up()
    table = {tool: subcommands(module) for tool, module in TOOLS.items()}
    if ROOT:
        for commands in table.values():
            for name in [n for n in commands if n.split()[0] in UNSAFE_AS_ROOT]:
                del commands[name]
    return table


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A working folder with inputs of every kind a user may pass."""
    folder = tmp_path_factory.mktemp("fuzz_cli")
    (folder / "processed").mkdir()
    for log in sorted((REPO / "data" / "xl330" / "processed").glob("*.json"))[:2]:
        shutil.copy(log, folder / "processed" / log.name)
    (folder / "raw").mkdir()
    shutil.copy(sorted((REPO / "data" / "xl330" / "raw").glob("*.json"))[0], folder / "raw")
    (folder / "bad.json").write_text('{"model": "m6", "kt": "x"')
    (folder / "bounds.yaml").write_text("kt: [0.1, 5]\nfriction_base: [1, 0]\n")
    (folder / "empty").mkdir()
    shutil.copytree(REPO / "data" / "xl330", folder / "data" / "xl330")  # the examples' (copies: commands write)
    shutil.copytree(REPO / "data" / "xl330" / "processed", folder / "logs")
    shutil.copytree(REPO / "config" / "actuators", folder / "config" / "actuators")
    return folder


VALUES = ["-3", "0", "1", "2", "0.5", "-1e-9", "nan", "inf", "-inf", "1e308", "3,4", "1,2,3", "", "=", "x=1",
          "q_offset=0", "kt=nan", "xl330", "mx64", "mx106", "erob80_100", "m1", "m6", "all", "dahl+viscous",
          "xl330/m6", "mx64/m1", "xl330/m9", "processed", "raw", "empty", "bad.json",
          "bounds.yaml", "missing/dir", "processed/x.json", "/dev/null", "/dev/ttyUSB9", "out.json", "out.png", "out",
          "sin_sin", "lift_and_drop", "circle", "low", "high", "y=1.2,xd=1.0", "amplitude=0.01", "--", "-", "-x"]


@st.composite
def invocations(draw, grammar: Dict[str, Dict[str, Grammar]]) -> Tuple[str, List[str]]:
    """A tool and its arguments: one of a subcommand's examples (or nothing) edited at random:
    tokens deleted or replaced, flags with values inserted."""
    tool = draw(st.sampled_from(sorted(grammar)))
    command = draw(st.sampled_from(sorted(grammar[tool])))
    flags, choices, examples = grammar[tool][command]
    pool = [v for v in VALUES + choices if not (ROOT and v in UNSAFE_AS_ROOT)]
    value = (st.sampled_from(pool) | st.integers(-10, 10**6).map(str)
             | st.floats(allow_nan=True, allow_infinity=True).map(repr) | st.text(max_size=6))
    args = list(draw(st.sampled_from(examples))) if examples and draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(args)))
        edit = draw(st.sampled_from(["delete", "replace", "insert"] if at < len(args) else ["insert"]))
        if edit == "delete":
            del args[at]
        elif edit == "replace":
            args[at] = draw(value)
        else:
            args[at:at] = ([draw(st.sampled_from(flags))] if flags and draw(st.integers(0, 3)) else []) + draw(
                st.lists(value, max_size=2))
    return TOOLS[tool], [*command.split(), *args]


def call_impatiently(function: Callable[[], T], first: float = 0.5, every: float = 0.5) -> Optional[T]:
    """``function()`` while an impatient user presses Ctrl-C (SIGINT's handler, in the main thread)
    after ``first`` s and then every ``every`` s, from a watchdog thread, until it returns; None
    when a press interrupted it after it returned.

    A press raises ``KeyboardInterrupt`` only where it interrupts ``function`` (its frame is on
    the stack): the main thread runs a press's handler at its next check, which may come after the
    call returned and the watchdog stopped, outside any ``except`` (issue 33: a stray
    ``KeyboardInterrupt`` ended a run with "no tests ran"). Putting SIGINT's previous handler back
    runs a press still pending first (CPython does before it changes a handler), so none is left."""
    done = threading.Event()

    def ctrl_c(signum: int, frame: Optional[FrameType]) -> None:
        frame = frame or inspect.currentframe()  # None: delivered late by the command (an InterruptShield)
        while frame is not None:
            if frame.f_code is interrupted.__code__:
                raise KeyboardInterrupt
            frame = frame.f_back

    def interrupted() -> T:
        return function()

    def press() -> None:
        if not done.wait(first):
            _thread.interrupt_main(signal.SIGINT)
            while not done.wait(every):
                _thread.interrupt_main(signal.SIGINT)

    previous = signal.signal(signal.SIGINT, ctrl_c)
    watchdog = threading.Thread(target=press, daemon=True)
    watchdog.start()
    try:
        return interrupted()
    except KeyboardInterrupt:
        return None
    finally:
        done.set()
        watchdog.join()
        signal.signal(signal.SIGINT, previous)


def warm_up() -> None:
    """Import every module of the five packages, and the libraries they import lazily, before
    any Ctrl-C: an import cut short by KeyboardInterrupt leaves a half-initialised module behind
    (a harness artefact, not a property of the commands)."""
    for package in ("actuator_models", "actuator_sim", "actuator_drivers", "actuator_bench", "hybrid_sim"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            if ".nodes" not in info.name and ".test" not in info.name:  # the ROS nodes need rclpy
                with contextlib.suppress(ImportError):
                    importlib.import_module(info.name)
    for name in ("scipy.ndimage", "scipy.integrate", "scipy.optimize", "matplotlib.pyplot", "optuna", "cmaes",
                 "mujoco", "mujoco_warp", "sqlalchemy", "yaml", "rosbags.rosbag2", "dynamixel_sdk", "serial"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


# A Ctrl-C may land in a garbage-collector callback of hypothesis itself, where Python reports it
# as unraisable and drops it (the command gets the next one): not the commands' concern.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_random_command_lines_never_give_a_traceback(grammar, scratch):
    assert sum(len(commands) for commands in grammar.values()) >= 25  # every subcommand of the five tools
    calls: List[List[str]] = []

    @settings(max_examples=INVOCATIONS)
    @given(st.data())
    def property(data):
        module, argv = data.draw(invocations(grammar))
        calls.append(argv)
        start = time.monotonic()
        with contextlib.chdir(scratch):
            result = call_impatiently(lambda: call(module, argv))
        if result is None:  # a Ctrl-C after the command returned, before the watchdog stopped
            return
        status, out, err = result
        assert time.monotonic() - start < 60, f"{module} {argv}: still running 60 s after Ctrl-C"
        assert "Traceback" not in err + out, f"{module} {argv}:\n{err[-3000:]}"
        assert status in EXIT_STATUSES, f"{module} {argv}: exit status {status!r}\n{err[-2000:]}"
        if status == 2:
            assert "error:" in err, f"{module} {argv}: exit 2 without an error line\n{err[-2000:]}"

    property()
    assert len(calls) >= INVOCATIONS
