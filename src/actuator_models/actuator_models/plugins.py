"""The installed entry points, read once per process: every registry's lookup of its group.

``importlib.metadata.entry_points`` reads every installed distribution's ``entry_points.txt`` at
each call (2-4 ms with this project's environment, more with each package installed); the
registries (friction models, additions, evaluation backends, actuator families, bench backends)
each asked for their group, several times a command. :func:`entry_points` reads all groups once
and reads them again only when what Python imports from could have changed: ``sys.path`` or
the modification time of one of its folders (``pip install`` adds a folder there), so a package
installed after the process started is still found, as before.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from importlib import metadata
from typing import Any, Tuple


def _path_state() -> Tuple[Tuple[str, int], ...]:
    """``sys.path`` with each entry's modification time [ns] (-1: no such file)."""
    def mtime(path: str) -> int:
        try:
            return os.stat(path or ".").st_mtime_ns
        except OSError:
            return -1

    return tuple((path, mtime(path)) for path in sys.path)


@lru_cache(maxsize=1)
def _scan(state: Tuple[Tuple[str, int], ...]) -> Any:
    """Every installed entry point, for this ``sys.path`` state (the key of the cache): an
    ``EntryPoints`` (Python 3.12+) or ``SelectableGroups`` (3.10, 3.11), both with ``select``."""
    del state
    return metadata.entry_points()


def entry_points(group: str) -> Tuple[metadata.EntryPoint, ...]:
    """The installed entry points of ``group``, as ``importlib.metadata.entry_points(group=...)``."""
    return tuple(_scan(_path_state()).select(group=group))
