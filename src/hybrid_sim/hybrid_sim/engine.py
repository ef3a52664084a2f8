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
* a boundary disarmed on entry is never integrated past: if it falls below ``-stop_precision``
  before it was re-armed, the flow left the patch again without re-entering it (the transitions
  accumulate: a Zeno point such as a bouncing ball coming to rest, or chattering between charts
  whose vector fields point at each other, manual section 6). That fall is located like a
  crossing (to within ``stop_precision`` of ``-stop_precision``); so is a transition sooner than
  ``min_event_interval`` after the previous one. There the model's ``rest`` map may move the
  state into a resting chart and the run goes on; when it declares none the run stops with
  ``status = -2`` (``ZENO``), a message saying where, and ``zeno_time``, the accumulation time
  extrapolated from the last three event times (exact for geometrically shrinking intervals);
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
from .model import Boundary, HybridModel, Side, Transition
from .result import FAILED, REACHED_FINAL_TIME, ZENO, Event, HybridResult
from .settings import RunSettings


@dataclass(frozen=True)
class _Crossing:
    t: float
    y: np.ndarray  # continuous states at t
    position: int  # position of the boundary in the chart's list
    boundary: Boundary
    fell_through: bool = False  # a disarmed boundary fell below -stop_precision (Zeno, chattering)


class _Zeno(Exception):
    """Transitions accumulate at a crossing; ``simulate`` rests the state or stops the run."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


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
                 nfev: List[int], on_step: Optional[Callable[[float], None]] = None) -> None:
        self.model, self.settings, self.chart = model, settings, chart
        self.on_step = on_step
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
        # disarmed on entry but on the patch boundary (within the precision band): watched for a fall
        watched = [not a and v >= -s.stop_precision for a, v in zip(armed, values)]
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
            if self.on_step is not None:
                self.on_step(t_new)
            new_values = [self.value(i, t_new, y_new) for i in range(len(self.bounds))]
            crossed = [i for i, v in enumerate(new_values) if armed[i] and v <= 0.0]
            fell = [i for i, v in enumerate(new_values) if watched[i] and not armed[i] and v < -s.stop_precision]
            dense = solver.dense_output()
            if crossed or fell:
                crossing = self._earliest(dense, t_old, values, t_new, new_values, crossed, fell)
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

    def _earliest(self, dense, ta: float, values: Sequence[float], tb: float, new_values: Sequence[float],
                  crossed: Sequence[int], fell: Sequence[int]) -> _Crossing:
        """The earliest crossing in ``[ta, tb]`` (ties: the boundary listed first).

        Boundaries are located in list order, each only up to the earliest crossing found so far:
        one that has not crossed by then is not located at all, so a boundary that is
        discontinuous only beyond an earlier crossing (the wheel's slip release at liftoff)
        never stops the run.
        """
        best: Optional[_Crossing] = None
        for i, fell_through in sorted([(i, False) for i in crossed] + [(i, True) for i in fell]):
            shift = self.settings.stop_precision if fell_through else 0.0
            end, g_end = tb, new_values[i]
            if best is not None:
                g_end = self.value(i, best.t, best.y)
                if g_end + shift > 0.0:
                    continue
                end = best.t
            found = self._locate(i, dense, ta, values[i], end, g_end, fell_through)
            if best is None or found.t < best.t:
                best = found
        assert best is not None
        return best

    def _locate(self, position: int, dense, ta: float, ga: float, tb: float, gb: float,
                fell_through: bool = False) -> _Crossing:
        """The crossing of zero (or, for a fall, of ``-stop_precision``, located before it)."""
        s = self.settings
        bound = self.bounds[position]
        shift, side = (s.stop_precision, Side.LEFT) if fell_through else (0.0, bound.side)
        t = locate_crossing(lambda tc: self.value(position, tc, dense(tc)) + shift, ta, ga + shift, tb,
                            gb + shift, side, s.stop_precision, s.max_stop_iterations)
        return _Crossing(t, dense(t), position, bound, fell_through)


def simulate(model: HybridModel, x0: Sequence[float], settings: RunSettings = RunSettings(),
             t0: float = 0.0, progress: Optional[Callable[[float, int], None]] = None) -> HybridResult:
    """Integrate ``model`` from state ``x0`` at ``t0`` until ``settings.final_time`` or a failure.

    ``progress(t, transitions)`` is called each time the integration passes a multiple of
    ``settings.measure_period`` (the manual's ``measurePeriod``; not at all when it is 0).

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
    status, message, zeno_time = REACHED_FINAL_TIME, "reached final time", None
    on_step = _measure(settings.measure_period, progress, events, t0)
    start = model.initial_chart(t0, x0)
    t, x, chart = t0, np.asarray(start.state, dtype=float), start.chart
    try:
        _check_valid(model, t, x, chart)
        while True:
            epoch = _Epoch(model, settings, t, x, chart, nfev, on_step)
            crossing = epoch.run(recorder)
            if crossing is None:
                break
            before = epoch.full(crossing.y)
            if len(events) >= settings.max_chart_count:
                if settings.record_period == 0.0:
                    recorder.add(crossing.t, before, chart)
                raise SimulationError(f"chart count limit {settings.max_chart_count} exceeded at "
                                      f"t = {crossing.t!r} s in chart {model.chart_name(chart)}")
            try:
                new = _next_chart(model, settings, crossing, before, chart, events)
            except _Zeno as zeno:
                if settings.record_period == 0.0:
                    recorder.add(crossing.t, before, chart)
                zeno_time = accumulation_time([e.t for e in events])
                at = f"; transitions accumulate at t = {zeno_time!r} s" if zeno_time is not None else ""
                status, message = ZENO, (
                    f"Zeno/chattering at t = {crossing.t!r} s: {zeno.why} (boundary {crossing.boundary.index} "
                    f"of chart {model.chart_name(chart)}){at}; the model declares no resting chart (rest)")
                break
            after = np.asarray(new.state, dtype=float)
            events.append(Event(crossing.t, chart, new.chart, crossing.boundary.index, before, after))
            t, x, chart = crossing.t, after, new.chart
            _check_valid(model, t, x, chart)
    except SimulationError as error:
        status, message = FAILED, str(error)
    return _result(model, recorder, events, status, message, nfev[0], zeno_time)


def _measure(period: float, progress: Optional[Callable[[float, int], None]], events: List[Event],
             t0: float) -> Optional[Callable[[float], None]]:
    """A step hook calling ``progress`` at each multiple of ``period`` passed (``None``: no reports)."""
    if progress is None or period <= 0.0:
        return None
    due = [math.floor(t0 / period) * period + period]

    def on_step(t: float) -> None:
        while t >= due[0]:
            progress(due[0], len(events))
            due[0] += period
    return on_step


def _next_chart(model: HybridModel, settings: RunSettings, crossing: _Crossing, before: np.ndarray,
                chart: int, events: List[Event]) -> "Transition":
    """The transition at ``crossing``: the model's own, or its resting chart where transitions accumulate."""
    why = ""
    if crossing.fell_through:
        why = (f"the boundary fell below -stop_precision {settings.stop_precision:g} before the flow "
               f"re-entered its patch after the last transition")
    elif events and crossing.t - events[-1].t < settings.min_event_interval:
        why = (f"{crossing.t - events[-1].t:g} s since the previous transition, below min_event_interval "
               f"{settings.min_event_interval:g} s")
    if not why:
        return model.transition(crossing.t, before, chart, crossing.boundary.index)
    rest = model.rest(crossing.t, before, chart, crossing.boundary.index)
    if rest is None:
        raise _Zeno(why)
    return rest


def accumulation_time(times: Sequence[float]) -> Optional[float]:
    """Where event times shrinking geometrically accumulate, from the last three (``None``: not shrinking).

    With intervals ``d1 = t[-2] - t[-3]`` and ``d2 = t[-1] - t[-2]``, ratio ``r = d2 / d1 < 1``:
    ``t[-1] + d2 r / (1 - r)`` (the bouncing ball's closed form, Aitken's extrapolation).
    """
    if len(times) < 3:
        return None
    d1, d2 = times[-2] - times[-3], times[-1] - times[-2]
    if not 0.0 < d2 < d1:
        return None
    r = d2 / d1
    return float(times[-1] + d2 * r / (1.0 - r))


def _check_valid(model: HybridModel, t: float, x: np.ndarray, chart: int) -> None:
    if not 0 <= chart < max(model.chart_count(), 1):
        raise SimulationError(f"t = {t!r} s: chart {chart} does not exist")
    problem = model.validate(t, x, chart)
    if problem:
        raise SimulationError(f"t = {t!r} s, chart {model.chart_name(chart)}: {problem}")


def _result(model: HybridModel, recorder: _Recorder, events: List[Event], status: int, message: str,
            nfev: int, zeno_time: Optional[float]) -> HybridResult:
    n = len(model.state_names)
    y = np.array(recorder.x).T if recorder.x else np.empty((n, 0))
    aux_rows = [np.asarray(model.auxiliary(t, x, c), dtype=float)
                for t, x, c in zip(recorder.t, recorder.x, recorder.chart)]
    aux_names: Tuple[str, ...] = tuple(model.aux_names())
    aux = np.array(aux_rows).T if aux_rows else np.empty((len(aux_names), 0))
    return HybridResult(
        t=np.array(recorder.t, dtype=float), y=y, chart=np.array(recorder.chart, dtype=int), aux=aux,
        events=tuple(events), status=status, message=message, nfev=nfev,
        state_names=tuple(model.state_names), aux_names=aux_names, chart_names=tuple(model.chart_names),
        zeno_time=zeno_time)
