"""Where a boundary of a chart is crossed within one integrator step (see :mod:`.engine`).

A crossing at a sign change is located on the step's dense output with a bracketing root
finder (:func:`locate_crossing`); a boundary positive at both ends of a step that dips below zero
inside it is found from its one-sided slopes at the step's ends and a bounded minimiser
(:func:`find_dip`, manual 3.3's limit of sign-change detection). Times [s]; a boundary ``g(t)``
is the boundary's value on the step's dense output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import numpy as np
import scipy.optimize

from .errors import SimulationError
from .model import Boundary, Side


@dataclass(frozen=True)
class Crossing:
    """A located crossing of boundary ``boundary`` (``position`` in its chart's list) at ``t``."""

    t: float
    y: np.ndarray  # continuous states at t
    position: int  # position of the boundary in the chart's list
    boundary: Boundary
    fell_through: bool = False  # a disarmed boundary fell below -stop_precision (Zeno, chattering)
    entry_value: Optional[float] = None  # set when the boundary was below -stop_precision on entry

    @property
    def immediate(self) -> bool:
        """Taken without the flow re-entering the patch: a fall through, or outside it on entry."""
        return self.fell_through or self.entry_value is not None


def locate_crossing(g: Callable[[float], float], ta: float, ga: float, tb: float, gb: float,
                    side: Side, precision: float, max_iterations: int) -> float:
    """A time where ``g`` is within ``precision`` of zero on ``side`` of a crossing in ``[ta, tb]``.

    ``g(ta) = ga > 0 >= gb = g(tb)``. Returns ``t`` with ``0 < g(t) <= precision`` (LEFT) or
    ``-precision <= g(t) <= 0`` (RIGHT). Raises ``SimulationError`` when that takes more than
    ``max_iterations`` evaluations or the bracket shrinks to floating-point resolution first
    (a discontinuous boundary, or a precision finer than the boundary can resolve).
    """
    wa, wb = ga, gb  # Illinois weights: the values used for the secant, halved when an end stalls
    last = 0
    for _ in range(max_iterations + 1):
        if side is Side.RIGHT and gb >= -precision:
            return tb
        if side is Side.LEFT and ga <= precision:
            return ta
        tc = tb - wb * (tb - ta) / (wb - wa)
        if not ta < tc < tb:
            tc = 0.5 * (ta + tb)
        if not ta < tc < tb:
            break
        gc = g(tc)
        if gc > 0.0:
            ta, ga, wa = tc, gc, gc
            wb = 0.5 * wb if last == 1 else wb
            last = 1
        else:
            tb, gb, wb = tc, gc, gc
            wa = 0.5 * wa if last == -1 else wa
            last = -1
    raise SimulationError(
        f"boundary crossing in [{ta!r}, {tb!r}] s not located to stop precision {precision:g} "
        f"within {max_iterations} iterations (values {ga:g}, {gb:g}): discontinuous boundary?")


def find_dip(g: Callable[[float], float], ta: float, ga: float, tb: float, gb: float,
             falling_at_start: Optional[bool]) -> Tuple[Optional[Tuple[float, float]], bool]:
    """``(t, g(t))`` with ``g(t) <= 0`` where a boundary positive at both step ends dips below zero.

    A dip shorter than the step leaves no sign change at the ends (manual 3.3's limit of
    event detection); the guard's derivative does: falling at the step start and rising at its
    end (one-sided differences on the step's dense output), the step holds a minimum, found
    with a bounded scalar minimiser. ``None``: no minimum inside, or one above zero.

    ``g``: the boundary on the step ``[ta, tb]`` (``g(ta) = ga``, ``g(tb) = gb``).
    ``falling_at_start``: known from the previous step's end (``None``: evaluate it). Returns
    the dip (or ``None``) and whether the boundary is falling at the step's end.
    """
    h = 1e-3 * (tb - ta)
    if falling_at_start is None:
        falling_at_start = g(ta + h) < ga
    rising_at_end = g(tb - h) < gb
    if not (falling_at_start and rising_at_end):
        return None, not rising_at_end
    found = scipy.optimize.minimize_scalar(g, bounds=(ta, tb), method="bounded", options={"xatol": 1e-6 * (tb - ta)})
    t_min = float(found.x)
    g_min = g(t_min)
    return ((t_min, g_min) if g_min <= 0.0 else None), False
