"""``hybrid-sim slip``: the SLIP runner of the SimSect manual, section 4."""

from __future__ import annotations

import argparse
from dataclasses import fields
from typing import Any, Dict, List

import numpy as np

from .engine import simulate
from .result import HybridResult
from .runopts import (add_animate_arguments, add_run_arguments, progress_printer, check_outputs, finish, parse_assignments,
                      read_config, settings_from_args)
from .settings import RunSettings
from .slip import (ASCENT, COMPRESSION, DECOMPRESSION, DESCENT, STATE_ALIASES, STATE_NAMES, Slip,
                   SlipParameters, initial_state, state_dict)

#: the manual's Figure 1 integrator settings
FIGURE1 = RunSettings(final_time=5.0, record_period=0.01, stop_precision=1e-10, max_stop_iterations=128,
                      tolerance=1e-5, max_time_step=1e-3, min_time_step=1e-15, max_chart_count=128000)


def energy_drift(model: Slip, result: HybridResult) -> float:
    """Largest |E - E(0)| [J] over the recorded samples and the states after every event."""
    energies = [model.energy(x, c) for x, c in zip(result.y.T, result.chart)]
    energies += [model.energy(e.state_after, e.chart_to) for e in result.events]
    return float(np.max(np.abs(np.array(energies) - energies[0])))


def summary(model: Slip, result: HybridResult, x0: np.ndarray) -> Dict[str, Any]:
    """The JSON object of a run: events with states and energies, counts, drift, first stride."""
    events: List[Dict[str, Any]] = [
        {"t": e.t, "chart": result.chart_name(e.chart_to), "state": state_dict(e.state_after),
         "energy": model.energy(e.state_after, e.chart_to)} for e in result.events]
    names = {ASCENT: "liftoff", DESCENT: "apex", COMPRESSION: "touchdown", DECOMPRESSION: "mid_stance"}
    stride: Dict[str, Any] = {}
    for e in events:
        key = names[result.chart_names.index(e["chart"])]
        if key in stride:
            break
        stride[key] = {"t": e["t"], "state": e["state"]}
    return {
        "final_time": result.t_final, "status": result.status, "message": result.message,
        "initial": state_dict(x0), "energy_initial": model.energy(x0, result.chart[0]) if result.t.size else None,
        "energy_drift": energy_drift(model, result) if result.t.size else None,
        "transitions": len(result.events), "transitions_1s": result.transitions_until(1.0),
        "apex_heights": [e["state"]["y"] for e in events if e["chart"] == "DESCENT"],
        "first_stride": stride, "events": events,
    }


def _run(args: argparse.Namespace) -> int:
    param_names = [f.name for f in fields(SlipParameters)]
    symbols = read_config(args.config, param_names + list(STATE_NAMES) + list(STATE_ALIASES))
    settings = settings_from_args(args, FIGURE1, symbols)
    params = SlipParameters(**{n: float(symbols[n]) for n in param_names if n in symbols})
    overrides = {n: float(v) for n, v in symbols.items() if n in STATE_NAMES or n in STATE_ALIASES}
    overrides.update(parse_assignments(args.initial, "--initial"))
    model = Slip(params)
    x0 = initial_state(overrides)
    check_outputs(args, settings)
    result = simulate(model, x0, settings, progress=progress_printer(settings))
    info = summary(model, result, model.initial_chart(0.0, x0).state)
    drift = "n/a" if info["energy_drift"] is None else f"{info['energy_drift']:.3g} J"
    print(f"SLIP {settings.final_time:g} s: {result.message}; {len(result.events)} transitions "
          f"({info['transitions_1s']} up to 1 s); energy drift {drift}")
    for e in info["events"][:8]:
        s = e["state"]
        print(f"  t = {e['t']:.6f} s -> {e['chart']:<13} x {s['x']:.6f} y {s['y']:.6f} "
              f"xd {s['xd']:.6f} yd {s['yd']:.6f} theta {s['theta']:.6f}")
    if args.animate:
        from .animate_models import animate_slip

        animate_slip(model, result, args.animate, args.animate_fps)
    return finish(result, model, x0, args, info, plot_states=("x", "y", "xd", "yd"))


def add_subparser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("slip", help="spring-loaded inverted pendulum runner (manual section 4)",
                       description="SLIP runner with the manual's parameters; run settings default to the "
                       "manual's Figure 1 (tolerance 1e-5, max step 1e-3 s, stop precision 1e-10).")
    p.add_argument("--initial", default="", metavar="NAME=VALUE,...",
                   help="override initial states: " + ", ".join(STATE_NAMES) + " (default "
                   + ",".join(f"{n}={v:g}" for n, v in zip(STATE_NAMES, initial_state({}))) + ")")
    add_run_arguments(p, FIGURE1)
    add_animate_arguments(p)
    p.set_defaults(run=_run)
