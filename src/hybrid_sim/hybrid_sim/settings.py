"""Run settings of the integrator (manual section 2.4.2) with their SimSect symbol names."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Dict, Mapping, Union

METHODS = ("RK45", "DOP853", "RK23", "Radau", "BDF", "LSODA")

#: SimSect symbol name -> RunSettings field (``maxStopIter`` is the manual's spelling in 2.4.2,
#: ``maxStopIterations`` the one of its Figure 1: both are accepted).
SYMBOLS: Dict[str, str] = {
    "finalTime": "final_time",
    "recordPeriod": "record_period",
    "stopPrecision": "stop_precision",
    "maxStopIterations": "max_stop_iterations",
    "maxStopIter": "max_stop_iterations",
    "tolerance": "tolerance",
    "maxTimeStep": "max_time_step",
    "minTimeStep": "min_time_step",
    "maxChartCount": "max_chart_count",
    "minEventInterval": "min_event_interval",
    "measurePeriod": "measure_period",
    "maxSteps": "max_steps",
}


@dataclass(frozen=True)
class RunSettings:
    """How a hybrid run is integrated; defaults are the manual's (section 2.4.2).

    Attributes:
        final_time: end of the run [s]; the last step ends exactly there.
        record_period: sampling period of the recorded trajectory [s]; samples at exact
            multiples ``k * record_period``; 0 records every integrator step.
        stop_precision: a boundary crossing is located until the boundary value is within this
            of zero, on the boundary's side (units of the boundary function).
        max_stop_iterations: root-finding iterations allowed per crossing before the run fails
            (a boundary that cannot be brought within the precision is discontinuous).
        tolerance: relative and absolute local error tolerance of the Runge-Kutta method.
        max_time_step: largest integrator step [s].
        min_time_step: smallest integrator step [s]; a smaller step (other than the last one
            before final time) fails the run.
        max_chart_count: most transitions allowed; the next one stops the run with an error,
            keeping everything recorded so far.
        method: a scipy.integrate OdeSolver class name (RK45 is the 4(5) Dormand-Prince pair).
        min_event_interval: a transition sooner than this [s] after the previous one is taken as
            chattering (the model's resting chart, or status -2); 0 (default) disables the check
            (a boundary that falls through its precision band is caught regardless). Not a
            symbol of the manual: ``minEventInterval`` here.
        max_steps: the step budget: the most integrator steps a run may take (all epochs
            together); the next one stops it with status -1 and a message (a model too stiff for
            its settings, e.g. a 1 mg wheel on a 5e4 N/m tire, would otherwise run for hours).
            Not a symbol of the manual: ``maxSteps`` here.
        measure_period: a progress message every this much simulated time [s] (manual 2.4.2's
            ``measurePeriod``, through ``simulate``'s ``progress``); 0 (default): none.
    """

    final_time: float = 1.0
    record_period: float = 0.0
    stop_precision: float = 1e-10
    max_stop_iterations: int = 128
    tolerance: float = 1e-4
    max_time_step: float = 1e-2
    min_time_step: float = 1e-15
    max_chart_count: int = 128
    method: str = "RK45"
    min_event_interval: float = 0.0
    measure_period: float = 0.0
    max_steps: int = 200_000

    def __post_init__(self) -> None:
        checks = (
            ("final_time", self.final_time >= 0.0),
            ("record_period", self.record_period >= 0.0),
            ("stop_precision", self.stop_precision > 0.0),
            ("max_stop_iterations", self.max_stop_iterations >= 1),
            ("tolerance", self.tolerance > 0.0),
            ("max_time_step", self.max_time_step > 0.0),
            ("min_time_step", 0.0 <= self.min_time_step < self.max_time_step),
            ("max_chart_count", self.max_chart_count >= 0),
            ("method", self.method in METHODS),
            ("min_event_interval", self.min_event_interval >= 0.0),
            ("measure_period", self.measure_period >= 0.0),
            ("max_steps", self.max_steps >= 1),
        )
        for name, ok in checks:
            if not ok:
                raise ValueError(f"run settings: invalid {name} = {getattr(self, name)!r}")

    def with_symbols(self, symbols: Mapping[str, Union[float, str]]) -> "RunSettings":
        """These settings updated by the SimSect symbols in ``symbols`` (others are ignored)."""
        types = {f.name: f.type for f in fields(self)}
        changes: Dict[str, Any] = {}  # int or float, by the field's declared type
        for symbol, field_name in SYMBOLS.items():
            if symbol in symbols:
                value = symbols[symbol]
                try:
                    changes[field_name] = int(value) if types[field_name] in (int, "int") else float(value)
                except (TypeError, ValueError):
                    raise ValueError(f"run settings: {symbol} = {value!r} is not a number") from None
        return replace(self, **changes)

    def symbols(self) -> Dict[str, float]:
        """The settings as SimSect symbols (one name per field)."""
        seen: Dict[str, float] = {}
        for symbol, field_name in SYMBOLS.items():
            if field_name not in seen.values():
                seen[symbol] = getattr(self, field_name)
        return seen
