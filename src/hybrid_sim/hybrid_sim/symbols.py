"""SimSect symbol files (manual 2.3, 2.4.1): ``name = value;`` lines, ``#`` comments.

Values are real numbers or strings in double quotes. The run writes three files next to each
other: ``BASE.data`` (one row of auxiliary outputs per recorded sample, space separated),
``BASE.initial`` (the initial state by state name) and ``BASE.param`` (the model parameters).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Mapping, Sequence, Tuple, Union

import numpy as np

from .result import HybridResult

Value = Union[float, str]
_NAME = r"[A-Za-z][A-Za-z0-9_]*"
_LINE = re.compile(rf"^\s*({_NAME})\s*=\s*(\"[^\"]*\"|[^;\"]+?)\s*;\s*(#.*)?$")
SUFFIXES = (".data", ".initial", ".param")


def parse_symbols(text: str, source: str = "<text>") -> Dict[str, Value]:
    """Symbols of an initialization file; a malformed line raises ``ValueError`` naming it."""
    symbols: Dict[str, Value] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            raise ValueError(f"{source}:{number}: expected 'name = value;', got {stripped!r}")
        name, raw = match.group(1), match.group(2)
        if raw.startswith('"'):
            symbols[name] = raw[1:-1]
            continue
        try:
            symbols[name] = float(raw)
        except ValueError:
            raise ValueError(f"{source}:{number}: {name} = {raw!r} is neither a number nor a quoted string") from None
    return symbols


def read_symbols(path: Union[str, Path]) -> Dict[str, Value]:
    path = Path(path)
    return parse_symbols(path.read_text(), str(path))


def format_symbols(symbols: Mapping[str, Value], comment: str = "") -> str:
    """``name = value;`` lines (numbers with full precision), after an optional ``#`` comment."""
    lines = [f"# {line}" for line in comment.splitlines()]
    for name, value in symbols.items():
        if not re.fullmatch(_NAME, name):
            raise ValueError(f"symbol name {name!r} is not a letter followed by letters, digits or '_'")
        text = f'"{value}"' if isinstance(value, str) else repr(float(value))
        lines.append(f"{name} = {text};")
    return "\n".join(lines) + "\n"


def refuse_overwrite(path: Union[str, Path], force: bool) -> None:
    """Raise ``FileExistsError`` for an existing ``path`` unless ``force``."""
    if not force and Path(path).exists():
        raise FileExistsError(f"{path}: exists (use --force to overwrite)")


def output_paths(base: Union[str, Path]) -> Tuple[Path, Path, Path]:
    base = str(base)
    return tuple(Path(base + suffix) for suffix in SUFFIXES)  # type: ignore[return-value]


def write_outputs(base: Union[str, Path], result: HybridResult, initial: Union[Sequence[float], np.ndarray],
                  parameters: Mapping[str, Value], force: bool = False) -> Tuple[Path, Path, Path]:
    """Write ``BASE.data``, ``BASE.initial``, ``BASE.param``; existing files only with ``force``."""
    paths = output_paths(base)
    for path in paths:
        refuse_overwrite(path, force)
    data_path, initial_path, param_path = paths
    header = " ".join(result.aux_names)
    np.savetxt(data_path, result.aux.T, fmt="%.17g", header=header)
    initial_path.write_text(format_symbols(dict(zip(result.state_names, map(float, initial))),
                                           "initial state"))
    param_path.write_text(format_symbols(parameters, "model parameters"))
    return paths
