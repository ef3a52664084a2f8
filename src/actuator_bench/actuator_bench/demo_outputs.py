"""What ``actuator-bench demo`` wrote in its output folder, so that ``--force`` replaces exactly
that and never a file a user put there.

The demo's marker file (:data:`~.demo_settings.DEMO_MARKER`) lists, one path a line relative to
the folder, every file the demo wrote. ``--force`` on a folder with a marker removes those files
only (and the folders they leave empty), says how many it replaces, and names the files it keeps;
a folder without a marker, or a marker without a list (an older demo), loses nothing.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Set

from .demo_settings import DEMO_MARKER, DEMO_OUTPUTS

HEADER = "# written by actuator-bench demo; --force replaces the files listed below (and no other)"


def _files(out: Path) -> Set[str]:
    """Every file under the demo's output folders of ``out``, relative to ``out``."""
    return {path.relative_to(out).as_posix() for name in DEMO_OUTPUTS for path in (out / name).rglob("*")
            if path.is_file() or path.is_symlink()}


def listed(out: Path) -> List[str]:
    """The files the marker of ``out`` says a demo wrote (empty: no marker, or no list)."""
    marker = out / DEMO_MARKER
    if not marker.is_file():
        return []
    lines = [line.strip() for line in marker.read_text(errors="replace").splitlines()]
    return [line for line in lines if line and not line.startswith("#") and ".." not in Path(line).parts
            and not Path(line).is_absolute()]


def clear_earlier_demo(out: Path) -> List[str]:
    """Remove the files an earlier demo wrote in ``out`` (its marker's list); the lines that say
    what was replaced and what was kept."""
    mine = [name for name in listed(out) if (out / name).is_file()]
    for name in mine:
        (out / name).unlink()
    for name in DEMO_OUTPUTS:  # folders left empty, deepest first
        for folder in sorted((p for p in (out / name).rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            if not any(folder.iterdir()):
                folder.rmdir()
    others = sorted(_files(out))
    notes = [f"note: --force replaces {len(mine)} file(s) an earlier demo wrote in {out}"]
    if others:
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        notes.append(f"note: kept {len(others)} file(s) the demo did not write: {shown}")
    return notes


@contextmanager
def recorded_outputs(out: Path) -> Iterator[None]:
    """Within the block the demo writes into ``out``; on leaving it (done, failed or interrupted)
    the marker lists the files that appeared, with those of the list still there."""
    before = _files(out)
    earlier = [name for name in listed(out) if (out / name).is_file()]
    try:
        yield
    finally:
        written = sorted(set(earlier) | (_files(out) - before))
        (out / DEMO_MARKER).write_text("\n".join([HEADER, *written]) + "\n")
