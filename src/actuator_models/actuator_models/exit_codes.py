"""One exit-status convention for the command-line tools (``actuator-models``,
``actuator-sim``, ``actuator-bench``).

* 0 - done;
* 2 - bad input: a malformed or missing file, an unusable argument, an output that exists
  (argparse's own usage errors are 2 too);
* 1 - a runtime fault: the hardware, the bus or the disk failed while doing the work;
* 130 - interrupted (Ctrl-C).

Each problem prints one ``<prog>: error: ...`` line on stderr, without a traceback.
"""

from __future__ import annotations

import argparse
import gc
import sys
from typing import Callable, NoReturn, Tuple, Type

DONE, RUNTIME_FAULT, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130

#: ``OSError`` subclasses that mean a path given by the user is wrong (bad input).
BAD_PATH_ERRORS: Tuple[Type[BaseException], ...] = (FileNotFoundError, IsADirectoryError, NotADirectoryError)

Errors = Tuple[Type[BaseException], ...]


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with a usage error as one line, ``prog: error: message (see 'prog
    --help')``, exit status 2, instead of the whole usage block before it. Subparsers made by
    ``add_subparsers`` inherit the class."""

    def error(self, message: str) -> "NoReturn":
        self.exit(BAD_INPUT, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def run_command(
    run: Callable[[], int],
    prog: str,
    bad_input: Errors,
    runtime: Errors = (OSError,),
) -> int:
    """Run ``run()`` and turn the expected failures into one stderr line and an exit status:
    ``bad_input`` (and a wrong path) -> 2, ``runtime`` -> 1, Ctrl-C -> 130."""
    try:
        return int(run() or DONE)
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
    otherwise runs full collections over every object of numba, optuna and matplotlib before
    the process ends anyway (about 0.3 s of a 1.5 s ``actuator-models fit --trials 1500``).
    Objects still die by reference counting and ``atexit`` handlers run; only cyclic garbage
    left at the exit is not finalised (the commands close their files themselves). Not for
    ``main`` called inside a longer-lived process (tests call ``main`` itself)."""
    gc.freeze()
    try:
        return main()
    finally:
        gc.freeze()
