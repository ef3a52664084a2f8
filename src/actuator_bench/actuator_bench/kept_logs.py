"""An interrupted recording command says what it kept (issue 34: ``record-all`` said only
"interrupted", leaving the user to guess which of the grid's logs were written)."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Callable, List, Set

Run = Callable[[argparse.Namespace], int]


def _logs(folder: Path) -> Set[Path]:
    return set(folder.glob("*.json")) if folder.is_dir() else set()


def kept_message(prog: str, folder: Path, new: List[Path]) -> str:
    """``prog interrupted; kept N log(s) in folder (first .. last)``."""
    names = f" ({new[0].name} .. {new[-1].name})" if len(new) > 1 else f" ({new[0].name})" if new else ""
    return f"{prog} interrupted; kept {len(new)} log(s) in {folder}{names}"


def saying_kept_logs(prog: str) -> Callable[[Run], Run]:
    """A recording command (its output folder in ``args.logdir``) that, when interrupted (Ctrl-C,
    SIGTERM), first says which logs of this run it kept, then lets the interrupt go on (exit 130)."""
    def wrap(run: Run) -> Run:
        @functools.wraps(run)
        def wrapped(args: argparse.Namespace) -> int:
            folder = Path(args.logdir)
            before = _logs(folder)
            try:
                return run(args)
            except KeyboardInterrupt:
                print(kept_message(prog, folder, sorted(_logs(folder) - before)), file=sys.stderr)
                raise
        return wrapped
    return wrap
