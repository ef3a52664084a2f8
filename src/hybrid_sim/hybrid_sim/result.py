"""The outcome of a hybrid run: recorded trajectory and event list, shaped like solve_ivp's result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

#: ``status`` values (as solve_ivp: 0 reached the final time, negative = failure).
REACHED_FINAL_TIME = 0
FAILED = -1
#: transitions accumulate (a Zeno point or chattering) and the model declares no resting chart
ZENO = -2


@dataclass(frozen=True)
class Event:
    """One transition.

    Attributes:
        t: crossing time [s] (located to the stop precision, on the boundary's side).
        chart_from / chart_to: chart left and chart entered (equal for a state-only change).
        boundary: index of the boundary function that crossed.
        state_before: full state at the crossing, in ``chart_from``.
        state_after: full state after the transition map, in ``chart_to``.
    """

    t: float
    chart_from: int
    chart_to: int
    boundary: int
    state_before: np.ndarray
    state_after: np.ndarray


@dataclass(frozen=True)
class HybridResult:
    """Recorded trajectory (times strictly increasing) and events of a run.

    A sample at an event time belongs to the epoch that starts there (epochs are ``[t_i,
    t_{i+1})``, manual 3.1), so it shows the state after the transition; the state before each
    transition is in ``events``.

    Attributes:
        t: sample times [s], shape (N,), strictly increasing.
        y: states, shape (n_states, N) as solve_ivp's ``y``.
        chart: chart of each sample, shape (N,).
        aux: auxiliary outputs, shape (n_aux, N).
        events: every transition in order.
        status: 0 reached the final time; -1 stopped early by a fault, -2 stopped where the
            transitions accumulate (Zeno, chattering) (see ``message``).
        message: why the run ended.
        nfev: vector-field evaluations.
        zeno_time: with status -2, the time [s] the transitions accumulate at, extrapolated from
            the last three event times (``None`` when they do not shrink).
    """

    t: np.ndarray
    y: np.ndarray
    chart: np.ndarray
    aux: np.ndarray
    events: Tuple[Event, ...]
    status: int
    message: str
    nfev: int
    state_names: Tuple[str, ...]
    aux_names: Tuple[str, ...]
    chart_names: Tuple[str, ...]
    zeno_time: Optional[float] = None

    @property
    def success(self) -> bool:
        return self.status >= 0

    @property
    def t_final(self) -> float:
        return float(self.t[-1]) if self.t.size else float("nan")

    def state(self, name: str) -> np.ndarray:
        """The recorded samples of one state by name."""
        try:
            return self.y[self.state_names.index(name)]
        except ValueError:
            raise ValueError(f"no state named {name!r}; states: {', '.join(self.state_names)}") from None

    def transitions_until(self, t: float) -> int:
        """How many transitions happened at times ``<= t``."""
        return sum(1 for e in self.events if e.t <= t)

    def chart_name(self, chart: int) -> str:
        return self.chart_names[chart] if 0 <= chart < len(self.chart_names) else str(chart)

    def event_dicts(self) -> Tuple[Dict[str, object], ...]:
        """Events as plain dicts: time, charts by name, boundary, state after by state name."""
        return tuple(
            {"t": e.t, "chart_from": self.chart_name(e.chart_from), "chart": self.chart_name(e.chart_to),
             "boundary": e.boundary, "state": dict(zip(self.state_names, map(float, e.state_after)))}
            for e in self.events)


def joined(first: HybridResult, second: HybridResult) -> HybridResult:
    """One result from two consecutive runs, ``second`` started from ``first``'s last sample (that
    sample appears once, from ``second``); status and message are ``second``'s."""
    keep = first.t < (second.t[0] if second.t.size else np.inf)
    return HybridResult(
        t=np.concatenate((first.t[keep], second.t)), y=np.concatenate((first.y[:, keep], second.y), axis=1),
        chart=np.concatenate((first.chart[keep], second.chart)),
        aux=np.concatenate((first.aux[:, keep], second.aux), axis=1), events=first.events + second.events,
        status=second.status, message=second.message, nfev=first.nfev + second.nfev,
        state_names=second.state_names, aux_names=second.aux_names, chart_names=second.chart_names,
        zeno_time=second.zeno_time)
