"""The hybrid integrator: flow in a chart until a boundary crosses, transition, repeat (manual 3.3).

Within an epoch the continuous states are integrated with a scipy.integrate ``OdeSolver`` (the
adaptive Runge-Kutta steppers behind ``solve_ivp``), driven one step at a time so that the event
rules of SimSect can be kept exactly (``solve_ivp``'s own events cannot express them):

* after each accepted step every *armed* boundary is evaluated at the step end; those at or below
  zero crossed inside the step. Each crossing is located on the step's dense output with a
  bracketing root finder (Illinois false position, bisection fallback) until the boundary value
  is within ``stop_precision`` of zero on the boundary's side (``Side``); the earliest located
  crossing wins (ties: the boundary listed first);
* a boundary positive at both ends of a step but falling at its start and rising at its end (its
  derivative, by one-sided differences on the dense output) holds a minimum inside the step: it is
  found with a bounded minimiser and, at or below zero, located like a crossing, so a dip shorter
  than a step is never missed (manual 3.3's limit of sign-change detection);
* a boundary below ``-stop_precision`` when its chart is entered (the initial state included) and
  not rising along the flow is armed by its sign: it fires at once, at the entry time;
* a boundary within ``stop_precision`` of zero when its chart is entered, or below it and rising, is
  disarmed until it has risen above ``stop_precision``, so a transition never re-fires at once. Hence when several
  boundaries cross at the same instant only the first listed fires: a model whose boundaries
  cross together handles them all in that one transition (the hexapod's tripods do);
* recorded samples are evaluated on the dense output at exact multiples ``k * record_period``
  (or at every step end when the period is 0) and kept strictly increasing in time: one state per
  time, the post-transition one at an event time (epochs are ``[t_i, t_{i+1})``). No dense output
  spanning an event is ever built, which is how solve_ivp gets duplicate times (scipy #15262,
  #17066);
* a boundary disarmed on entry is never integrated past: if it falls below ``-stop_precision``
  (or below its entry value) before it was re-armed, the flow left the patch again without
  re-entering it. That fall is located like a crossing (to within ``stop_precision`` of
  ``-stop_precision``) and its transition taken, unless it leads back into a chart entered since
  the last located crossing: then the transitions accumulate (a Zeno point such as a bouncing
  ball coming to rest, or chattering between charts whose vector fields point at each other,
  manual section 6); the same for a boundary firing at once on entry, and for a transition sooner
  than ``min_event_interval`` after the previous one. There the model's ``rest`` map may move the
  state into a resting chart and the run goes on; when it declares none the run stops with
  ``status = -2`` (``ZENO``), a message saying where, and ``zeno_time``, the accumulation time
  extrapolated from the last three event times (exact for geometrically shrinking intervals);
* more than ``max_chart_count`` transitions, a step below ``min_time_step``, a crossing that
  cannot be located in ``max_stop_iterations``, a solver failure or an invalid chart stop the run
  with ``status = -1`` and a message, keeping everything recorded so far.
"""

from __future__ import annotations

import math
from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy as np
import scipy.integrate

from .crossing import Crossing, find_dip, locate_crossing
from .errors import SimulationError
from .model import Boundary, HybridModel, Side, Transition
from .result import FAILED, REACHED_FINAL_TIME, ZENO, Event, HybridResult
from .settings import RunSettings


class _Zeno(Exception):
    """Transitions accumulate at a crossing; ``simulate`` rests the state or stops the run."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


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
        """``nfev``: [vector-field evaluations, integrator steps] of the run so far (updated)."""
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

    def run(self, recorder: _Recorder) -> Optional[Crossing]:
        """Flow until the earliest crossing (returned) or the final time (``None``)."""
        s = self.settings
        recorder.start_epoch(self.t0, self.full(self.y0), self.chart)
        if self.t0 >= s.final_time:
            recorder.flow(lambda _t: self.y0, self.book, self.chart, self.t0, True)
            return None
        values = [self.value(i, self.t0, self.y0) for i in range(len(self.bounds))]
        outside = [i for i, v in enumerate(values) if v < -s.stop_precision and not self._rising(i, v)]
        if outside:
            return self._on_entry(outside[0], values[outside[0]])
        armed = [v > s.stop_precision for v in values]
        # disarmed on entry (on the patch boundary, or outside it and rising): watched for a fall below
        # the precision band, or below the entry value
        floor = [min(v - s.stop_precision, -s.stop_precision) for v in values]
        # per boundary: falling at the end of the last step (None: not known), the start of the next
        falling: List[Optional[bool]] = [None] * len(values)
        spent = self.nfev[1]  # the run's steps before this chart: the budget is the whole run's
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
            self.nfev[1] += 1
            if self.nfev[1] > s.max_steps:
                # the run's steps to the final time at the largest step from here: those spent before
                # this chart, and this chart's from its start
                fewest = spent + (s.final_time - self.t0) / s.max_time_step
                why = (f"the final time needs at least {fewest:.3g} steps in all of at most max_time_step "
                       f"{s.max_time_step:g} s; lower it (--final-time) or" if fewest > s.max_steps else
                       "the model is too stiff for these settings or its parameters are out of scale;")
                raise SimulationError(f"step budget exhausted: {s.max_steps} integrator steps by t = {float(t_new)!r} s "
                                      f"of {s.final_time:g} s (last step {t_new - t_old:g} s): {why} raise "
                                      f"max_steps (--max-steps) to go on")
            if self.on_step is not None:
                self.on_step(t_new)
            new_values = [self.value(i, t_new, y_new) for i in range(len(self.bounds))]
            dense = solver.dense_output()
            ends: List[Optional[Tuple[float, float]]] = [None] * len(new_values)
            for i, v in enumerate(new_values):
                if armed[i] and v <= 0.0:
                    ends[i] = (t_new, v)
                elif armed[i]:
                    ends[i], falling[i] = find_dip(self._on_step(i, dense), t_old, values[i], t_new, v, falling[i])
            candidates = [(i, end[0], end[1], 0.0) for i, end in enumerate(ends) if end is not None]
            candidates += [(i, t_new, v, -floor[i]) for i, v in enumerate(new_values)
                           if not armed[i] and v < floor[i]]
            if candidates:
                crossing = self._earliest(dense, t_old, values, candidates)
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

    def _on_entry(self, position: int, value: float) -> Crossing:
        """A boundary below ``-stop_precision`` on entry and not rising: armed by its sign, it fires at once."""
        return Crossing(self.t0, self.y0.copy(), position, self.bounds[position], entry_value=value)

    def _rising(self, position: int, value: float) -> bool:
        """Whether a boundary outside its patch on entry moves towards it (the flow re-enters the patch).

        Evaluated at a short explicit-Euler step along the vector field.
        """
        h = 1e-6 * self.settings.max_time_step
        y = self.y0 + h * self.fun(self.t0, self.y0)
        return self.value(position, self.t0 + h, y) > value

    def _on_step(self, position: int, dense: Callable[[float], np.ndarray]) -> Callable[[float], float]:
        """Boundary ``position`` along a step's dense output: ``t -> g(t)``."""
        return lambda t: self.value(position, t, dense(t))

    def _earliest(self, dense, ta: float, values: Sequence[float],
                  candidates: Sequence[Tuple[int, float, float, float]]) -> Crossing:
        """The earliest crossing in ``[ta, t_end]`` (ties: the boundary listed first).

        ``candidates``: (position, end time, boundary value there, shift): a crossing of zero by the
        value plus the shift (> 0 for a disarmed boundary falling through its floor). Boundaries are located in list order, each only up to the earliest crossing
        found so far: one that has not crossed by then is not located at all, so a boundary that
        is discontinuous only beyond an earlier crossing (the wheel's slip release at liftoff)
        never stops the run.
        """
        best: Optional[Crossing] = None
        for i, end, g_end, shift in sorted(candidates):
            if best is not None and best.t < end:
                g_end = self.value(i, best.t, best.y)
                if g_end + shift > 0.0:
                    continue
                end = best.t
            found = self._locate(i, dense, ta, values[i], end, g_end, shift)
            if best is None or found.t < best.t:
                best = found
        assert best is not None
        return best

    def _locate(self, position: int, dense, ta: float, ga: float, tb: float, gb: float,
                shift: float = 0.0) -> Crossing:
        """The crossing of zero (or, for a fall, ``shift`` > 0, of ``-shift``, located before it)."""
        s = self.settings
        bound = self.bounds[position]
        fell_through = shift > 0.0
        side = Side.LEFT if fell_through else bound.side
        g = self._on_step(position, dense)
        t = locate_crossing(lambda tc: g(tc) + shift, ta, ga + shift, tb,
                            gb + shift, side, s.stop_precision, s.max_stop_iterations)
        return Crossing(t, dense(t), position, bound, fell_through)


def simulate(model: HybridModel, x0: Union[Sequence[float], np.ndarray], settings: RunSettings = RunSettings(),
             t0: float = 0.0, progress: Optional[Callable[[float, int], None]] = None) -> HybridResult:
    """Integrate ``model`` from state ``x0`` at ``t0`` until ``settings.final_time`` or a failure.

    ``progress(t, transitions)`` is called each time the integration passes a multiple of
    ``settings.measure_period`` (the manual's ``measurePeriod``; not at all when it is 0).

    A failure (chart-count limit, invalid chart, step or stop-iteration limit, solver failure)
    does not raise: the result has ``status = -1``, the reason in ``message`` and every sample
    and event recorded up to the failure.
    """
    initial = np.asarray(x0, dtype=float)
    if initial.shape != (len(model.state_names),):
        raise ValueError(f"initial state: expected {len(model.state_names)} values "
                         f"({', '.join(model.state_names)}), got shape {initial.shape}")
    if not np.all(np.isfinite(initial)):
        raise ValueError(f"initial state: not finite: {initial.tolist()}")
    recorder = _Recorder(settings.record_period, settings.final_time)
    events: List[Event] = []
    nfev = [0, 0]
    status, message, zeno_time = REACHED_FINAL_TIME, "reached final time", None
    on_step = _measure(settings.measure_period, progress, events, t0)
    start = model.initial_chart(t0, initial)
    t, x, chart = t0, np.asarray(start.state, dtype=float), start.chart
    chain = [chart]
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
                new = _next_chart(model, settings, crossing, before, chart, events, chain)
            except _Zeno as zeno:
                if settings.record_period == 0.0:
                    recorder.add(crossing.t, before, chart)
                zeno_time = accumulation_time([e.t for e in events])
                at = f"; transitions accumulate at t = {zeno_time!r} s" if zeno_time is not None else ""
                status, message = ZENO, (
                    f"Zeno/chattering at t = {crossing.t!r} s: {zeno.why} (boundary {crossing.boundary.index} "
                    f"of chart {model.chart_name(chart)}){at}; the model declares no resting chart (rest)")
                break
            chain[:] = chain + [new.chart] if crossing.immediate else [chart, new.chart]
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


def _next_chart(model: HybridModel, settings: RunSettings, crossing: Crossing, before: np.ndarray,
                chart: int, events: List[Event], chain: List[int]) -> "Transition":
    """The transition at ``crossing``: the model's own, or its resting chart where transitions accumulate.

    ``chain``: the charts entered since the last located crossing (its source chart first). An
    immediate crossing (a boundary outside its patch on entry, or fallen through it) whose transition
    leads back into one of them would loop at one instant: chattering (or a Zeno point).
    """
    why = ""
    new = model.transition(crossing.t, before, chart, crossing.boundary.index)
    if crossing.immediate and new.chart in chain:
        why = (f"the boundary fell below -stop_precision {settings.stop_precision:g} before the flow "
               f"re-entered its patch after the last transition" if crossing.fell_through else
               f"the boundary was {crossing.entry_value:g} on entry, outside the patch")
        why += (f", and its transition leads back to chart {model.chart_name(new.chart)}, entered "
                f"since the last located crossing (charts {' -> '.join(map(model.chart_name, chain))})")
    elif events and crossing.t - events[-1].t < settings.min_event_interval:
        why = (f"{crossing.t - events[-1].t:g} s since the previous transition, below min_event_interval "
               f"{settings.min_event_interval:g} s")
    if not why:
        return new
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
