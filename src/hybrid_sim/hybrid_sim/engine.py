"""The hybrid integrator: flow in a chart until a boundary crosses, transition, repeat (manual 3.3).

Within an epoch the continuous states are integrated with a scipy.integrate ``OdeSolver`` (the
adaptive Runge-Kutta steppers behind ``solve_ivp``), driven one step at a time so that the event
rules of SimSect can be kept exactly (``solve_ivp``'s own events cannot express them):

* after each accepted step every *armed* boundary is evaluated at the step end; those at or below
  zero crossed inside the step. Each crossing is located on the step's dense output with a
  bracketing root finder (Illinois false position, bisection fallback) until the boundary value
  is within ``stop_precision`` of zero on the boundary's side (``Side``); the earliest located
  crossing wins (ties: the boundary listed first);
* a boundary that is at or below ``stop_precision`` when its chart is entered is disarmed until it
  has risen above ``stop_precision``, so a transition never re-fires at once. Hence when several
  boundaries cross at the same instant only the first listed fires: a model whose boundaries
  cross together handles them all in that one transition (the hexapod's tripods do);
* recorded samples are evaluated on the dense output at exact multiples ``k * record_period``
  (or at every step end when the period is 0) and kept strictly increasing in time: one state per
  time, the post-transition one at an event time (epochs are ``[t_i, t_{i+1})``). No dense output
  spanning an event is ever built, which is how solve_ivp gets duplicate times (scipy #15262,
  #17066);
* more than ``max_chart_count`` transitions, a step below ``min_time_step``, a crossing that
  cannot be located in ``max_stop_iterations``, a solver failure or an invalid chart stop the run
  with ``status = -1`` and a message, keeping everything recorded so far.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np
import scipy.integrate

from .errors import SimulationError
from .model import Boundary, HybridModel, Side
from .result import FAILED, REACHED_FINAL_TIME, Event, HybridResult
from .settings import RunSettings


@dataclass(frozen=True)
class _Crossing:
    t: float
    y: np.ndarray  # continuous states at t
    position: int  # position of the boundary in the chart's list
    boundary: Boundary


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


class _Recorder:
    """Collects samples: strictly increasing times, the later state winning at equal times."""

    def __init__(self, period: float, final_time: float) -> None:
        self.period = period
        self.final_time = final_time
        self.t: List[float] = []
        self.x: List[np.ndarray] = []
        self.chart: List[int] = []
        self.next_k = 0

    def add(self, t: float, x: np.ndarray, chart: int) -> None:
        if self.t and t <= self.t[-1]:
            self.t.pop(), self.x.pop(), self.chart.pop()
        self.t.append(t)
        self.x.append(np.array(x, dtype=float))
        self.chart.append(chart)

    def start_epoch(self, t: float, x: np.ndarray, chart: int) -> None:
        if self.period == 0.0:
            self.add(t, x, chart)
            return
        k = math.ceil(t / self.period)
        while k * self.period < t:
            k += 1
        while k > 0 and (k - 1) * self.period >= t:
            k -= 1
        self.next_k = k

    def flow(self, dense: Callable[[float], np.ndarray], book: np.ndarray, chart: int,
             t_end: float, include_end: bool) -> None:
        """Samples after the last one up to ``t_end`` (included or not) from a step's dense output."""
        if self.period == 0.0:
            if include_end:
                self.add(t_end, np.concatenate((dense(t_end), book)), chart)
            return
        at_final = include_end and t_end >= self.final_time
        limit = t_end + 1e-9 * self.period if at_final else t_end
        while True:
            ts = self.next_k * self.period
            if ts > limit or (ts == t_end and not include_end):
                return
            ts_eval = min(ts, t_end)
            self.add(ts, np.concatenate((dense(ts_eval), book)), chart)
            self.next_k += 1


class _Epoch:
    """Integration of one chart from an entry state until a crossing or the final time."""

    def __init__(self, model: HybridModel, settings: RunSettings, t: float, x: np.ndarray, chart: int,
                 nfev: List[int]) -> None:
        self.model, self.settings, self.chart = model, settings, chart
        self.book = np.array(x[model.n_continuous:], dtype=float)
        self.y0 = np.array(x[:model.n_continuous], dtype=float)
        self.t0 = t
        self.nfev = nfev
        self.bounds: Sequence[Boundary] = tuple(model.boundaries(chart))

    def full(self, y: np.ndarray) -> np.ndarray:
        return np.concatenate((y, self.book))

    def fun(self, t: float, y: np.ndarray) -> np.ndarray:
        self.nfev[0] += 1
        return np.asarray(self.model.vector_field(t, self.full(y), self.chart), dtype=float)

    def value(self, position: int, t: float, y: np.ndarray) -> float:
        return float(self.model.boundary(t, self.full(y), self.chart, self.bounds[position].index))

    def run(self, recorder: _Recorder) -> Optional[_Crossing]:
        """Flow until the earliest crossing (returned) or the final time (``None``)."""
        s = self.settings
        recorder.start_epoch(self.t0, self.full(self.y0), self.chart)
        if self.t0 >= s.final_time:
            recorder.flow(lambda _t: self.y0, self.book, self.chart, self.t0, True)
            return None
        values = [self.value(i, self.t0, self.y0) for i in range(len(self.bounds))]
        armed = [v > s.stop_precision for v in values]
        solver_class = getattr(scipy.integrate, s.method)
        solver = solver_class(self.fun, self.t0, self.y0, s.final_time, max_step=s.max_time_step,
                              rtol=s.tolerance, atol=s.tolerance)
        while True:
            message = solver.step()
            if solver.status == "failed":
                raise SimulationError(f"integrator failed at t = {solver.t!r} s: {message}")
            t_old, t_new = solver.t_old, solver.t
            if t_new - t_old < s.min_time_step and t_new < s.final_time:
                raise SimulationError(f"time step {t_new - t_old:g} s at t = {t_old!r} s is below "
                                      f"min_time_step {s.min_time_step:g} s")
            y_new = solver.y.copy()
            new_values = [self.value(i, t_new, y_new) for i in range(len(self.bounds))]
            crossed = [i for i, v in enumerate(new_values) if armed[i] and v <= 0.0]
            dense = solver.dense_output()
            if crossed:
                crossing = min((self._locate(i, dense, t_old, values[i], t_new, new_values[i]) for i in crossed),
                               key=lambda c: (c.t, c.position))
                recorder.flow(dense, self.book, self.chart, crossing.t, include_end=False)
                return crossing
            recorder.flow(dense, self.book, self.chart, t_new, include_end=True)
            problem = self.model.validate(t_new, self.full(y_new), self.chart)
            if problem:
                raise SimulationError(f"t = {t_new!r} s, chart {self.model.chart_name(self.chart)}: {problem}")
            armed = [a or v > s.stop_precision for a, v in zip(armed, new_values)]
            values = new_values
            if solver.status == "finished":
                return None

    def _locate(self, position: int, dense, ta: float, ga: float, tb: float, gb: float) -> _Crossing:
        s = self.settings
        bound = self.bounds[position]
        t = locate_crossing(lambda tc: self.value(position, tc, dense(tc)), ta, ga, tb, gb, bound.side,
                            s.stop_precision, s.max_stop_iterations)
        return _Crossing(t, dense(t), position, bound)


def simulate(model: HybridModel, x0: Sequence[float], settings: RunSettings = RunSettings(),
             t0: float = 0.0) -> HybridResult:
    """Integrate ``model`` from state ``x0`` at ``t0`` until ``settings.final_time`` or a failure.

    A failure (chart-count limit, invalid chart, step or stop-iteration limit, solver failure)
    does not raise: the result has ``status = -1``, the reason in ``message`` and every sample
    and event recorded up to the failure.
    """
    x0 = np.asarray(x0, dtype=float)
    if x0.shape != (len(model.state_names),):
        raise ValueError(f"initial state: expected {len(model.state_names)} values "
                         f"({', '.join(model.state_names)}), got shape {x0.shape}")
    if not np.all(np.isfinite(x0)):
        raise ValueError(f"initial state: not finite: {x0.tolist()}")
    recorder = _Recorder(settings.record_period, settings.final_time)
    events: List[Event] = []
    nfev = [0]
    status, message = REACHED_FINAL_TIME, "reached final time"
    start = model.initial_chart(t0, x0)
    t, x, chart = t0, np.asarray(start.state, dtype=float), start.chart
    try:
        _check_valid(model, t, x, chart)
        while True:
            epoch = _Epoch(model, settings, t, x, chart, nfev)
            crossing = epoch.run(recorder)
            if crossing is None:
                break
            before = epoch.full(crossing.y)
            if len(events) >= settings.max_chart_count:
                if settings.record_period == 0.0:
                    recorder.add(crossing.t, before, chart)
                raise SimulationError(f"chart count limit {settings.max_chart_count} exceeded at "
                                      f"t = {crossing.t!r} s in chart {model.chart_name(chart)}")
            new = model.transition(crossing.t, before, chart, crossing.boundary.index)
            after = np.asarray(new.state, dtype=float)
            events.append(Event(crossing.t, chart, new.chart, crossing.boundary.index, before, after))
            t, x, chart = crossing.t, after, new.chart
            _check_valid(model, t, x, chart)
    except SimulationError as error:
        status, message = FAILED, str(error)
    return _result(model, recorder, events, status, message, nfev[0])


def _check_valid(model: HybridModel, t: float, x: np.ndarray, chart: int) -> None:
    if not 0 <= chart < max(model.chart_count(), 1):
        raise SimulationError(f"t = {t!r} s: chart {chart} does not exist")
    problem = model.validate(t, x, chart)
    if problem:
        raise SimulationError(f"t = {t!r} s, chart {model.chart_name(chart)}: {problem}")


def _result(model: HybridModel, recorder: _Recorder, events: List[Event], status: int, message: str,
            nfev: int) -> HybridResult:
    n = len(model.state_names)
    y = np.array(recorder.x).T if recorder.x else np.empty((n, 0))
    aux_rows = [np.asarray(model.auxiliary(t, x, c), dtype=float)
                for t, x, c in zip(recorder.t, recorder.x, recorder.chart)]
    aux_names: Tuple[str, ...] = tuple(model.aux_names())
    aux = np.array(aux_rows).T if aux_rows else np.empty((len(aux_names), 0))
    return HybridResult(
        t=np.array(recorder.t, dtype=float), y=y, chart=np.array(recorder.chart, dtype=int), aux=aux,
        events=tuple(events), status=status, message=message, nfev=nfev,
        state_names=tuple(model.state_names), aux_names=aux_names, chart_names=tuple(model.chart_names))
