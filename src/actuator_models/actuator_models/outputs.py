"""Where commands write: never over a user's files unless asked (``--force``).

The rules shared by the command-line tools:

* :func:`refuse_existing` - the files a command is about to write must not exist yet;
* :func:`refuse_inside` - an output folder must not be (inside) the input folder it reads;
* :func:`new_run_folder` - a default output folder that is new on every run
  (``fit-xl330``, then ``fit-xl330-2``, ...);
* :func:`check_writable` - an output path can be written, checked before the work starts (a fit
  that cannot write its result is refused at once, not after an hour);
* :func:`check_folder` - the same for an output folder, which must not be a file.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Iterable, Optional, Union

from .exit_codes import DiskFault, InputWarning

PathLike = Union[str, Path]


class OutputExistsError(ValueError):
    """A command would overwrite existing files (or its own input)."""


def refuse_existing(paths: Iterable[PathLike], force: bool = False, option: str = "--out",
                    switch: Optional[str] = None) -> None:
    """Raise :class:`OutputExistsError` naming the paths that exist, unless ``force`` (then an
    :class:`~.exit_codes.InputWarning` says what is replaced); and
    :class:`OutputUnwritableError` naming ``option`` (how the caller named the output: ``--out``
    on the command line, ``out`` from Python) when one cannot be written (:func:`check_writable`):
    both before any work. ``switch``: how the caller says ``force`` (default ``--force`` for an
    option, else ``force=True``)."""
    switch = switch or ("--force" if option.startswith("-") else "force=True")
    targets = [Path(p) for p in paths]
    for path in {p.parent: p for p in targets}.values():  # one try per folder
        check_writable(path, option)
    existing = [p for p in targets if p.exists()]
    if existing and not force:
        shown = ", ".join(str(p) for p in existing[:3])
        more = f" and {len(existing) - 3} more" if len(existing) > 3 else ""
        remedy = f"pass {switch} to overwrite, or choose another {option}"  # the caller's own names
        raise OutputExistsError(
            f"{shown}{more} already exist{'s' if len(existing) == 1 else ''}; nothing was written ({remedy})"
        )
    if existing:  # forced: say what is replaced (issue 34: --force replaced files without a word)
        shown = ", ".join(str(p) for p in existing[:3]) + (f" and {len(existing) - 3} more" if len(existing) > 3 else "")
        warnings.warn(f"{switch}: replacing {shown}", InputWarning,
                      stacklevel=2)


def refuse_inside(out: PathLike, source: PathLike) -> None:
    """Raise :class:`OutputExistsError` when folder ``out`` is ``source`` or lies inside it."""
    out_path, source_path = Path(out).resolve(), Path(source).resolve()
    if out_path == source_path or source_path in out_path.parents:
        raise OutputExistsError(
            f"{out}: output folder is {'the' if out_path == source_path else 'inside the'} input folder "
            f"{source}; choose an output folder outside it (the inputs would be overwritten or mixed "
            "with the outputs)"
        )


def new_run_folder(base: PathLike) -> Path:
    """``base`` if it does not exist or is an empty folder, else the first free ``base-N``
    (N = 2, 3, ...)."""
    base = Path(base)
    candidate, n = base, 1
    while candidate.exists() and (not candidate.is_dir() or any(candidate.iterdir())):
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def check_folder(path: Optional[PathLike], option: str) -> None:
    """Before any work: :class:`OutputExistsError` naming ``option`` when ``path``, an output
    folder (created where absent), is a file; :class:`OutputUnwritableError` when nothing can be
    written there (:func:`check_writable`). None: nothing to check."""
    if path is None:
        return
    if Path(path).exists() and not Path(path).is_dir():
        raise OutputExistsError(f"{option}: {path} is a file, not a folder; nothing was done")
    check_writable(path, option)


class OutputUnwritableError(DiskFault):
    """An output path that cannot be written: a disk (runtime) fault, exit status 1."""


def check_writable(path: Optional[PathLike], option: str) -> None:
    """Raise :class:`OutputUnwritableError` naming ``option`` when no file can be created at
    ``path`` (a file or a folder to be created): its nearest existing folder is tried with a
    temporary file, removed at once. Nothing is created otherwise. None: nothing to check."""
    if path is None:
        return
    target = Path(path)
    existing = next((p for p in (target, *target.parents) if p.exists()), Path("."))
    if not existing.is_dir():
        existing = existing.parent if existing == target else existing
    try:
        if not existing.is_dir():
            raise NotADirectoryError(20, "not a folder")
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        raise OutputUnwritableError(
            f"{option}: cannot write {path} ({existing}: {error.strerror or error}); nothing was done") from None
