"""Model definition of a hybrid system: charts, vector fields, boundaries, transitions (manual 3.1, 3.5).

A model is an atlas of charts, numbered ``0 .. len(chart_names)-1``. The state ``x`` has
``n_continuous`` continuous states first (integrated by the engine) followed by bookkeeping
states (manual 3.5.1): these are held constant during an epoch and change only at transitions.

Each chart has a list of boundary functions (manual 3.5.5-3.5.6). The patch of the chart is where
every boundary function is positive; an epoch ends when one of them crosses zero from above, and
``transition`` maps the state on the patch boundary into the next chart (possibly the same chart
with a new state, manual 3.5.7).

All model functions must be pure: a function of their arguments only, with no hidden memory and
no reliance on the order or time of calls (manual 3.5.4): the integrator evaluates them at trial
points, out of chronological order.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Optional, Sequence, Tuple, Union

import numpy as np


class Side(enum.Enum):
    """Which side of a crossing the located state lies on (manual 3.5.6, ``STOP_TYPE_LEFT/RIGHT``).

    The crossing is found only up to the stop precision: ``LEFT`` returns the state just before it
    (boundary value in ``(0, stop_precision]``), ``RIGHT`` the state just after it (boundary value
    in ``[-stop_precision, 0]``).
    """

    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True)
class Boundary:
    """One boundary function of a chart: ``model.boundary(t, x, chart, index)``, crossing side."""

    index: int
    side: Side = Side.RIGHT


@dataclass(frozen=True)
class Transition:
    """The result of a transition: the chart entered and the full state (bookkeeping included)."""

    chart: int
    state: np.ndarray


class HybridModel(ABC):
    """Base class of a hybrid model; subclasses fill in the class attributes and abstract methods.

    Attributes:
        state_names: names of all states, continuous ones first (used in ``.initial`` files).
        state_units: the unit of each state (``m``, ``m/s``...) where it has one, for plot labels.
        n_continuous: how many leading states the vector field evolves.
        chart_names: one name per chart index (used in event lists and plots).
    """

    state_names: Tuple[str, ...] = ()
    state_units: Mapping[str, str] = MappingProxyType({})
    n_continuous: int = 0
    chart_names: Tuple[str, ...] = ()

    # ------------------------------------------------------------------ required
    @abstractmethod
    def vector_field(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        """Time derivative of the ``n_continuous`` continuous states at ``(t, x)`` in ``chart``."""

    @abstractmethod
    def boundaries(self, chart: int) -> Sequence[Boundary]:
        """The boundary functions active in ``chart`` (manual 3.5.5, DefineChart)."""

    @abstractmethod
    def boundary(self, t: float, x: np.ndarray, chart: int, index: int) -> float:
        """Value of boundary function ``index``; positive inside the patch."""

    @abstractmethod
    def transition(self, t: float, x: np.ndarray, chart: int, index: int) -> Transition:
        """New chart and state after boundary ``index`` of ``chart`` was crossed at ``(t, x)``."""

    # ------------------------------------------------------------------ optional
    def parameters(self) -> Mapping[str, Union[float, str]]:
        """Model parameters by name (written to the ``.param`` file; a string for a named option,
        such as the hexapod's control type)."""
        return {}

    def initial_chart(self, t: float, x: np.ndarray) -> Transition:
        """Initial chart and (possibly completed) state for an initial state (manual 3.5.3)."""
        return Transition(0, np.asarray(x, dtype=float))

    def validate(self, t: float, x: np.ndarray, chart: int) -> Optional[str]:
        """``None`` when ``x`` is a valid state of ``chart``, else why not (manual 3.5.8)."""
        return None

    def rest(self, t: float, x: np.ndarray, chart: int, index: int) -> Optional[Transition]:
        """The resting chart and state where transitions on boundary ``index`` of ``chart`` accumulate.

        Called instead of ``transition`` at a Zeno point or chattering (see the engine): ``x`` is on
        the boundary. ``None`` (default): the run stops there with status -2.
        """
        return None

    def aux_names(self) -> Tuple[str, ...]:
        """Names of the auxiliary outputs (manual 3.5.9); default: time and every state."""
        return ("t",) + tuple(self.state_names)

    def auxiliary(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        """Auxiliary outputs at a recorded point, in the order of ``aux_names``."""
        return np.concatenate(([t], x))

    def chart_count(self) -> int:
        """How many charts exist (numbered from 0); default: one per name in ``chart_names``."""
        return len(self.chart_names)

    def chart_name(self, chart: int) -> str:
        return self.chart_names[chart] if 0 <= chart < len(self.chart_names) else str(chart)
