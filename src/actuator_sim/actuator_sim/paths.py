"""End-effector test paths of the 2R arms (paper Fig. 6): circle, square, square wave, triangular wave.

A path maps the progress ``s`` in [0, 1] to a point of the unit square [-1, 1]^2 (horizontal,
vertical), traversed at constant speed; :func:`path_targets` scales it into the arm's plane and
adds rest phases. Pure, vectorised functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Sequence, Tuple

import numpy as np

Point = Tuple[np.ndarray, np.ndarray]


def polyline(vertices: Sequence[Tuple[float, float]]) -> Callable[[np.ndarray], Point]:
    """A path through ``vertices`` at constant speed (progress proportional to arc length)."""
    pts = np.asarray(vertices, dtype=float)
    lengths = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(lengths)]) / lengths.sum()

    def at(s: np.ndarray) -> Point:
        s = np.clip(np.asarray(s, dtype=float), 0.0, 1.0)
        return np.interp(s, arc, pts[:, 0]), np.interp(s, arc, pts[:, 1])

    return at


def _circle(s: np.ndarray) -> Point:
    angle = 2 * np.pi * np.clip(np.asarray(s, dtype=float), 0.0, 1.0)
    return np.cos(angle), np.sin(angle)


def _wave(levels: Sequence[float]) -> Sequence[Tuple[float, float]]:
    """Vertices of a wave going left to right through ``levels`` (vertical values)."""
    xs = np.linspace(-1.0, 1.0, len(levels))
    return list(zip(xs, levels))


_SQUARE = [(1, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]
_SQUARE_WAVE = [(-1, -1), (-1, 1), (-0.5, 1), (-0.5, -1), (0, -1), (0, 1), (0.5, 1), (0.5, -1), (1, -1), (1, 1)]
_TRIANGLE_WAVE = _wave([-1, 1, -1, 1, -1, 1, -1])


@dataclass(frozen=True)
class Path:
    """A named end-effector path in the unit square.

    Attributes:
        name: ``circle``, ``square``, ``square_wave`` or ``triangle_wave``.
        description: one line.
        at: progress ``s`` in [0, 1] -> unit-square point ``(horizontal, vertical)``.
    """

    name: str
    description: str
    at: Callable[[np.ndarray], Point]


PATHS: Dict[str, Path] = {
    p.name: p
    for p in (
        Path("circle", "one turn of a circle, counter-clockwise from its right-most point", _circle),
        Path("square", "one turn of a square, counter-clockwise from its lower-right corner", polyline(_SQUARE)),
        Path("square_wave", "two periods of a square wave, left to right", polyline(_SQUARE_WAVE)),
        Path("triangle_wave", "three periods of a triangular wave, left to right", polyline(_TRIANGLE_WAVE)),
    )
}


def path(name: str) -> Path:
    """Look a path up by name."""
    try:
        return PATHS[name]
    except KeyError:
        raise ValueError(f"unknown path {name!r}; expected one of {', '.join(PATHS)}") from None


@dataclass(frozen=True)
class PathTiming:
    """Time course of a path run [s]: rest at the start point, motion, rest at the end point."""

    rest_before: float = 1.0
    motion: float = 6.0
    rest_after: float = 1.0

    @property
    def duration(self) -> float:
        return self.rest_before + self.motion + self.rest_after

    def progress(self, t: np.ndarray) -> np.ndarray:
        """Progress ``s`` in [0, 1] at times ``t`` [s]."""
        return np.clip((np.asarray(t, dtype=float) - self.rest_before) / self.motion, 0.0, 1.0)


def path_targets(p: Path, t: np.ndarray, center: Tuple[float, float], half_size: float,
                 timing: PathTiming = PathTiming()) -> Point:
    """End-effector targets ``(y, z)`` [m] at times ``t`` [s]: the unit path scaled by
    ``half_size`` [m] around ``center`` [m] in the arm's plane."""
    u, w = p.at(timing.progress(t))
    return center[0] + half_size * u, center[1] + half_size * w
