"""A subcommand of the bench tools (``actuator-bench``, ``actuator-drivers``), in its own module so
that a family's tools (``Family.commands``) can define theirs without importing the command line."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable, Sequence


@dataclass(frozen=True)
class Command:
    """A subcommand: ``configure(parser)`` adds its options, ``run(args)`` returns the exit status;
    ``examples`` are shown by its ``--help``."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    examples: Sequence[str] = ()
