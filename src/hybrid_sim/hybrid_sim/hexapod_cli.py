"""``hybrid-sim hexapod``: the compliant hexapod of the SimSect manual (section 5) on flat ground
with the open-loop tripod gait; walking summary, event list, plot."""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Dict, List, Sequence, Tuple

import numpy as np

from .engine import simulate
from .hexapod import CONTROL, N_LEGS, Hexapod, HexapodParameters, contacts_of
from .hexapod_parts import ALIASES, UNUSED_SYMBOLS
from .result import HybridResult, joined
from .runopts import (add_animate_arguments, add_run_arguments, check_outputs, finish, parse_assignments,
                      progress_printer, read_config, settings_from_args)
from .settings import RunSettings
from .symbols import refuse_overwrite

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: the manual's Figure 1 settings (its example init file is the hexapod's), 10 s
FIGURE1 = RunSettings(final_time=10.0, record_period=0.01, stop_precision=1e-10, max_stop_iterations=128,
                      tolerance=1e-5, max_time_step=1e-3, min_time_step=1e-15, max_chart_count=128000)


#: controller parameters ``--change`` may set during a run (manual 5.2)
CONTROL_NAMES = ("cycle_time", "sweep_angle", "flight_time", "leg_offset", "kp", "kd", "turn_polarity", "delta_ts",
                 "delta_offset")


def event_kind(boundary: int) -> str:
    if boundary >= CONTROL:
        return f"phase leg {boundary - CONTROL}"
    return f"{'touchdown' if boundary % 2 else 'liftoff'} leg {boundary // 2}"


def cycle_speeds(result: HybridResult, cycle_time: float) -> List[float]:
    """Average forward speed (-y_B direction, m/s) over each whole controller cycle."""
    forward = -result.aux[result.aux_names.index("y")]
    ends = np.arange(0.0, result.t[-1] + 1e-9, cycle_time)
    at = np.interp(ends, result.t, forward)
    return list(np.diff(at) / cycle_time)


def summary(model: Hexapod, result: HybridResult) -> Dict[str, Any]:
    speeds = cycle_speeds(result, model.p.cycle_time)
    steady = speeds[1:] if len(speeds) > 1 else speeds
    kinds: Dict[str, int] = {}
    for e in result.events:
        key = event_kind(e.boundary).split(" leg")[0]
        kinds[key] = kinds.get(key, 0) + 1
    z = result.aux[result.aux_names.index("z")]
    return {
        "final_time": result.t_final, "status": result.status, "message": result.message,
        "transitions": len(result.events), "transition_kinds": kinds,
        "forward_distance": float(-(result.aux[result.aux_names.index("y")][-1])),
        "cycle_speeds": speeds, "mean_speed_after_first_cycle": float(np.mean(steady)) if steady else None,
        "speed_spread_after_first_cycle": float(np.ptp(steady)) if steady else None,
        "height_range": [float(z.min()), float(z.max())],
        "events": [{"t": e.t, "event": event_kind(e.boundary), "chart": model.chart_name(e.chart_to),
                    "chart_number": e.chart_to} for e in result.events],
    }


def plot_hexapod(model: Hexapod, result: HybridResult, path: str) -> None:
    """Write :func:`hexapod_figure` as a PNG."""
    import matplotlib.pyplot as plt

    fig = hexapod_figure(model, result)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def hexapod_figure(model: Hexapod, result: HybridResult) -> "Figure":
    """Forward distance, height, roll/pitch/yaw, and the gait diagram (stance per leg, coloured by
    tripod, the colours in its legend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    aux = dict(zip(result.aux_names, result.aux))
    fig, axes = plt.subplots(4, 1, sharex=True, figsize=(9, 8), gridspec_kw={"height_ratios": [2, 1.5, 1.5, 1.5]})
    axes[0].plot(result.t, -aux["y"], lw=1.0)
    axes[0].set_ylabel("forward (-y) [m]")
    axes[1].plot(result.t, aux["z"], lw=1.0)
    axes[1].set_ylabel("height z [m]")
    for name in ("roll", "pitch", "yaw"):
        axes[2].plot(result.t, aux[name], lw=1.0, label=name)
    axes[2].set_ylabel("angle [rad]")
    axes[2].legend(fontsize=7, loc="upper right")
    stance = np.array([contacts_of(int(c)) for c in result.chart])
    tripods = (((0, 2, 4), "C0"), ((1, 3, 5), "C1"))
    for legs, colour in tripods:
        for leg in legs:
            axes[3].fill_between(result.t, leg - 0.4, leg + 0.4, where=stance[:, leg], step="post", color=colour)
    axes[3].legend(handles=[Patch(color=colour, label=f"legs {', '.join(map(str, legs))} in stance")
                            for legs, colour in tripods], fontsize=7, loc="upper right", ncol=2)
    axes[3].set_yticks(range(N_LEGS))
    axes[3].set_ylim(-0.6, N_LEGS + 1.2)  # room for the legend above leg 5
    axes[3].set_ylabel("stance (leg)")
    axes[3].set_xlabel("t [s]")
    for ax in axes:
        ax.grid(alpha=0.3)
    speeds = cycle_speeds(result, model.p.cycle_time)
    mean = f"{np.mean(speeds[1:]):.3f} m/s" if len(speeds) > 1 else "n/a (under two cycles)"
    fig.suptitle(f"hexapod, tripod gait: {len(result.events)} transitions, mean speed after the first cycle "
                 f"{mean}; {result.message}", fontsize=9)
    fig.tight_layout()
    return fig


def parse_changes(items: Sequence[str]) -> List[Tuple[float, Dict[str, float]]]:
    """``--change T:NAME=VALUE,...`` items -> ``[(T, {NAME: VALUE})]`` sorted by time."""
    changes = []
    for item in items:
        when, sep, rest = item.partition(":")
        try:
            t = float(when)
        except ValueError:
            t = math.nan
        if not sep or not t > 0.0:
            raise ValueError(f"--change: expected T:NAME=VALUE,... with T > 0, got {item!r}")
        values = parse_assignments(rest, "--change")
        for name in values:
            if name not in CONTROL_NAMES:
                raise ValueError(f"--change: {name!r} is not a controller parameter ({', '.join(CONTROL_NAMES)})")
        changes.append((t, values))
    return sorted(changes, key=lambda c: c[0])


def run_schedule(params: HexapodParameters, settings: RunSettings, changes: List[Tuple[float, Dict[str, float]]],
                 progress=None) -> Tuple[Hexapod, HybridResult]:
    """Run with the controller parameters changed at the given times (manual 5.2: behaviour is
    controlled by changing them during locomotion): one run per segment, each from the last
    recorded state of the one before (change times must be multiples of the record period)."""
    model = Hexapod(params)
    x, t, result = model.standing_state(), 0.0, None
    for when, values in changes + [(settings.final_time, {})]:
        end = min(when, settings.final_time)
        if end > t or (result is None and end == settings.final_time):  # a run of 0 s still records its start
            part = simulate(model, x, replace(settings, final_time=end), t0=t, progress=progress)
            result = part if result is None else joined(result, part)
            if not part.success or part.t[-1] < end:
                return model, result
            x, t = part.y[:, -1], end
        if values and when < settings.final_time:
            controls: Dict[str, Any] = dict(values)  # float fields by name, checked by parse_changes
            params = replace(params, **controls)
            model = Hexapod(params)
    assert result is not None
    return model, result


def _run(args: argparse.Namespace) -> int:
    names = list(HexapodParameters().scalars()) + list(UNUSED_SYMBOLS) + list(ALIASES)
    symbols = read_config(args.config, names)
    unused = [n for n in symbols if n in UNUSED_SYMBOLS]
    if unused:
        print(f"note: {', '.join(unused)}: Table 2 symbols this model does not use", file=sys.stderr)
    params = HexapodParameters.from_symbols({n: v for n, v in symbols.items() if n in names})
    settings = settings_from_args(args, FIGURE1, symbols)
    changes = parse_changes(args.change)
    for when, _ in changes:
        if when >= settings.final_time:  # it would never act
            raise ValueError(f"--change: time {when:g} s is not before the final time {settings.final_time:g} s")
        k = when / settings.record_period if settings.record_period > 0 else 0.0
        if settings.record_period > 0 and abs(k - round(k)) > 1e-9:
            raise ValueError(f"--change: time {when:g} s is not a multiple of the record period "
                             f"{settings.record_period:g} s")
    check_outputs(args, settings)
    model, result = run_schedule(params, settings, changes, progress_printer(settings))
    first = Hexapod(params)  # the .param file holds the parameters the run started with
    x0 = first.standing_state()
    info = summary(model, result)
    print(f"hexapod {settings.final_time:g} s: {result.message}; {len(result.events)} transitions "
          f"{info['transition_kinds']}; forward {info['forward_distance']:.3f} m")
    print("  speed per cycle [m/s]: " + " ".join(f"{v:.4f}" for v in info["cycle_speeds"]))
    if args.animate:
        from .animate_models import animate_hexapod

        animate_hexapod(model, result, args.animate, args.animate_fps)
    plot_path = args.plot
    args.plot = None  # the generic plot does not fit 55 states: draw the hexapod's own
    code = finish(result, first, x0, args, info)
    if plot_path:
        refuse_overwrite(plot_path, args.force)
        plot_hexapod(model, result, plot_path)
    return code


def add_subparser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hexapod", help="compliant hexapod, open-loop tripod gait (manual section 5)",
                       description="RHex-like hexapod on flat ground with the manual's Table 2 parameters and "
                       "tripod gait; run settings default to the manual's Figure 1 over 10 s.")
    p.add_argument("--change", action="append", default=[], metavar="T:NAME=VALUE,...",
                   help="change controller parameters at time T [s] (repeatable): "
                        + ", ".join(CONTROL_NAMES))
    add_run_arguments(p, FIGURE1)
    add_animate_arguments(p)
    p.set_defaults(run=_run)
