"""``hybrid-sim wheel``: a wheel with the lumped spatial-spring tire dropped on the ground."""

from __future__ import annotations

import argparse
import importlib.util
from dataclasses import asdict, fields
from typing import Any, Dict, Optional

import numpy as np
from actuator_models.option_numbers import positive

from .engine import simulate
from .result import HybridResult
from .runopts import (add_animate_arguments, add_run_arguments, check_outputs, progress_printer, finish, parse_assignments, read_config,
                      settings_from_args)
from .settings import RunSettings
from .wheel import FLIGHT, Wheel, WheelParameters, initial_state
from .wheel_mujoco import INSTALL_HINT, MujocoRun, run_mujoco

DEFAULTS = RunSettings(final_time=2.0, record_period=0.002, stop_precision=1e-10, tolerance=1e-8,
                       max_time_step=1e-3, max_chart_count=20000)
INITIAL = {"x": 0.0, "height": 0.05, "xd": 0.0, "zd": 0.0, "spin": 10.0}


def summary(model: Wheel, result: HybridResult, mujoco: Optional[MujocoRun]) -> Dict[str, Any]:
    aux = dict(zip(result.aux_names, result.aux))
    last = {k: float(aux[k][-1]) for k in ("x", "z", "xd", "phid", "slip_velocity", "tangential_energy",
                                           "spring_energy", "f_n", "energy")}
    info: Dict[str, object] = {
        "status": result.status, "message": result.message, "transitions": len(result.events),
        "touchdowns": sum(1 for e in result.events if e.chart_from == FLIGHT),
        "final_chart": result.chart_name(int(result.chart[-1])) if result.t.size else None,
        "final": last, "balance_drift": float(np.ptp(aux["balance"])),
        "released": float(aux["released"][-1]), "dissipated": float(aux["dissipated"][-1]),
        "events": [{"t": e.t, "from": result.chart_name(e.chart_from), "to": result.chart_name(e.chart_to)}
                   for e in result.events],
    }
    if mujoco is not None:
        n = min(len(mujoco.t), len(result.t))
        same = np.allclose(mujoco.t[:n], result.t[:n], atol=1e-9)
        if same:
            dx = mujoco.state("x")[n - 1] - result.state("x")[n - 1]
            dz = mujoco.state("z")[n - 1] - result.state("z")[n - 1]
            info["mujoco"] = {"t": float(result.t[n - 1]), "dx": float(dx), "dz": float(dz),
                              "dphi": float(mujoco.state("phi")[n - 1] - result.state("phi")[n - 1]),
                              "max_abs_dx": float(np.max(np.abs(mujoco.state("x")[:n] - result.state("x")[:n]))),
                              "transitions": mujoco.transitions}
    return info


def _run(args: argparse.Namespace) -> int:
    names = [f.name for f in fields(WheelParameters)]
    symbols = read_config(args.config, names + list(INITIAL))  # rc file first, options win
    given = {n: float(v) for n, v in symbols.items() if n in names}
    initial = dict(INITIAL, **{n: float(v) for n, v in symbols.items() if n in INITIAL})
    given.update(parse_assignments(args.param, "--param"))
    for name in given:
        if name not in names:
            raise ValueError(f"--param: unknown wheel parameter {name!r}; known: {', '.join(names)}")
    params = WheelParameters(**given)
    for name, value in parse_assignments(args.initial, "--initial").items():
        if name not in initial:
            raise ValueError(f"--initial: unknown name {name!r}; known: {', '.join(initial)}")
        initial[name] = value
    if initial["height"] <= 0.0:
        raise ValueError(f"--initial: height must be > 0 (start in flight), got {initial['height']!r}")
    if args.mujoco and importlib.util.find_spec("mujoco") is None:  # before a long hybrid run, not after
        raise ValueError(f"--mujoco: MuJoCo is not installed; {INSTALL_HINT}")
    settings = settings_from_args(args, DEFAULTS, symbols)
    check_outputs(args, settings)  # --out, --plot, --animate: writable and new (or --force), before the run
    model = Wheel(params)
    x0 = initial_state(params=params, **initial)
    result = simulate(model, x0, settings, progress=progress_printer(settings))
    mujoco = run_mujoco(params, x0, settings.final_time, args.mujoco_timestep, settings.record_period) \
        if args.mujoco else None
    info = summary(model, result, mujoco)
    f = info["final"]
    print(f"wheel {settings.final_time:g} s: {result.message}; {info['transitions']} transitions, "
          f"{info['touchdowns']} touchdowns, final chart {info['final_chart']}")
    print(f"  final x {f['x']:.6f} m, z {f['z']:.6f} m, xd {f['xd']:.6f} m/s, R phid {params.radius * f['phid']:.6f} m/s, "
          f"slip {f['slip_velocity']:.3g} m/s, tangential energy {f['tangential_energy']:.3g} J, f_n {f['f_n']:.3f} N")
    print(f"  energy balance drift {info['balance_drift']:.3g} J (dissipated {info['dissipated']:.4g} J, "
          f"released at liftoff {info['released']:.4g} J)")
    if "mujoco" in info:
        m = info["mujoco"]
        print(f"  MuJoCo (dt {args.mujoco_timestep:g} s) - hybrid at t = {m['t']:g} s: dx {m['dx']:.3g} m, "
              f"dz {m['dz']:.3g} m, dphi {m['dphi']:.3g} rad (max |dx| {m['max_abs_dx']:.3g} m)")
    if args.animate:
        from .animate_models import animate_wheel

        animate_wheel(model, result, args.animate, args.animate_fps)
    if args.plot:
        from .wheel_plot import plot_wheel

        plot_wheel(result, args.plot, mujoco)
    outputs = argparse.Namespace(**{**vars(args), "plot": None})
    return finish(result, model, x0, outputs, info)


def add_subparser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("wheel", help="wheel with the lumped spatial-spring tire contact (Stramigioli-Duindam)",
                       description="A wheel dropped with forward spin on a plane (or waves): charts FLIGHT, "
                       "STICK, SLIP; optional MuJoCo run of the same wheel with the model's wrench.")
    p.add_argument("--initial", default="", metavar="NAME=VALUE,...",
                   help="x, height (tread above ground), xd, zd, spin (phid) (default "
                   + ",".join(f"{k}={v:g}" for k, v in INITIAL.items()) + ")")
    p.add_argument("--param", default="", metavar="NAME=VALUE,...",
                   help="wheel parameters: " + ", ".join(f"{k}={v:g}" for k, v in asdict(WheelParameters()).items())
                   + " (amplitude > 0: waves ground; mu=inf: no slip; k_ground=inf: rigid ground)")
    p.add_argument("--mujoco", action="store_true", help="also run the wheel in MuJoCo and report the difference")
    p.add_argument("--mujoco-timestep", type=positive, default=1e-4, metavar="S", help="MuJoCo step (default %(default)s)")
    add_run_arguments(p, DEFAULTS)
    add_animate_arguments(p)
    p.set_defaults(run=_run)
