"""One exit-status convention for the command-line tools (``actuator-models``,
``actuator-sim``, ``actuator-bench``).

* 0 - done;
* 2 - bad input: a malformed or missing file, an unusable argument, an output that exists
  (argparse's own usage errors are 2 too);
* 1 - a runtime fault: the hardware, the bus or the disk failed while doing the work;
* 130 - interrupted (Ctrl-C, or SIGTERM, which :func:`run_command` turns into Ctrl-C so that
  ``kill PID`` keeps what Ctrl-C keeps: a fit's best parameters so far...).

Each problem prints one ``<prog>: error: ...`` line on stderr, without a traceback; each
:class:`InputWarning` (odd input a command goes on with) one ``<prog>: warning: ...`` line.
"""

from __future__ import annotations

import argparse
import functools
import gc
import signal
import sys
import threading
import warnings
from contextlib import contextmanager, redirect_stdout
from types import FrameType
from typing import Callable, Iterator, NoReturn, Optional, TextIO, Tuple, Type

DONE, RUNTIME_FAULT, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130

#: ``OSError`` subclasses that mean a path given by the user is wrong (bad input).
BAD_PATH_ERRORS: Tuple[Type[BaseException], ...] = (FileNotFoundError, IsADirectoryError, NotADirectoryError)

Errors = Tuple[Type[BaseException], ...]


class DiskFault(OSError):
    """An output that cannot be written: a runtime fault (exit 1) in every command, even one that
    counts other OSErrors as bad input (``hybrid-sim``)."""


class InputWarning(UserWarning):
    """Odd input that a real user could mean (a log a real bench could produce...): a command
    goes on, after one ``<prog>: warning: ...`` line on stderr; Python callers get a warning."""


def _show_input_warnings(prog: str) -> None:
    """Inside a ``warnings.catch_warnings()`` block: every :class:`InputWarning` printed as one
    ``prog: warning: message`` line (each time, not once per place), other warnings as usual."""
    shown = warnings.showwarning

    def show(message: Warning | str, category: Type[Warning], filename: str, lineno: int,
             file: Optional[TextIO] = None, line: Optional[str] = None) -> None:
        if issubclass(category, InputWarning):
            print(f"{prog}: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.simplefilter("always", InputWarning)
    warnings.showwarning = show


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with a usage error as one line, ``prog: error: message (see 'prog
    --help')``, exit status 2, instead of the whole usage block before it. Subparsers made by
    ``add_subparsers`` inherit the class."""

    def error(self, message: str) -> "NoReturn":
        self.exit(BAD_INPUT, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _interrupt(signum: int, frame: Optional[FrameType]) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block (main thread), SIGTERM raises ``KeyboardInterrupt`` like Ctrl-C: a
    command keeps and says what it has (a fit its best parameters, a recording its partial log,
    a driver releases the torque) and exits 130. Elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def json_alone(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A subcommand with a ``--json`` option, made to print its JSON alone on stdout: under
    ``--json`` its human-readable lines go to stderr, and it prints the JSON line to
    ``args.json_stream`` (the stdout it was called with), so ``cmd --json > x.json`` is JSON."""
    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        args.json_stream = sys.stdout
        if not getattr(args, "json", False):
            return command(args)
        with redirect_stdout(sys.stderr):
            return command(args)
    return run


def run_command(
    run: Callable[[], int],
    prog: str,
    bad_input: Errors,
    runtime: Errors = (OSError,),
) -> int:
    """Run ``run()`` and turn the expected failures into one stderr line and an exit status:
    ``bad_input`` (and a wrong path) -> 2, ``runtime`` -> 1, Ctrl-C -> 130. An
    :class:`InputWarning` raised meanwhile is one ``prog: warning:`` line; SIGTERM is Ctrl-C."""
    with warnings.catch_warnings(), terminate_as_interrupt():
        _show_input_warnings(prog)
        return _run(run, prog, bad_input, runtime)


def _run(run: Callable[[], int], prog: str, bad_input: Errors, runtime: Errors) -> int:
    try:
        return int(run() or DONE)
    except DiskFault as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return RUNTIME_FAULT
    except BAD_PATH_ERRORS + bad_input as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return BAD_INPUT
    except runtime as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return RUNTIME_FAULT
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED


def whole_process(main: Callable[[], int]) -> int:
    """Run a console script's ``main`` as the whole life of its process, with Python's cyclic
    garbage collector kept off the objects that live until the exit: those of the modules
    imported before ``main`` (frozen first, so that the collections the command triggers do not
    scan them again and again) and, once ``main`` returns, all of them: the interpreter's exit
    otherwise runs full collections over every object of optuna, scipy and the rest before
    the process ends anyway (about 0.3 s of a 1.5 s ``actuator-models fit --trials 1500``, measured
    when numba was imported too).
    Objects still die by reference counting and ``atexit`` handlers run; only cyclic garbage
    left at the exit is not finalised (the commands close their files themselves). Not for
    ``main`` called inside a longer-lived process (tests call ``main`` itself)."""
    gc.freeze()
    try:
        return main()
    finally:
        gc.freeze()
