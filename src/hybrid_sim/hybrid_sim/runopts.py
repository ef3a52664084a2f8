"""Command-line pieces shared by the ``hybrid-sim`` subcommands: run settings, outputs, plots."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Callable, Dict, Mapping, Optional, Sequence, Union

import numpy as np

from actuator_models.option_numbers import non_negative
from actuator_models.outputs import check_writable
from actuator_models.plots import check_figure_path

from .animate import check_animation_path
from .model import HybridModel
from .plot import plot_run
from .result import HybridResult
from .settings import RunSettings
from .symbols import Value, output_paths, read_symbols, refuse_overwrite, write_outputs

#: SimSect symbols that have no meaning here: accepted, and each one given prints why (``notes``)
NOTED_SYMBOLS = {
    "systemName": "the subcommand names the system",
    "dataBaseName": "output files are named by --out BASE",
    "useGeomview": "no Geomview here: --animate FILE writes an animation",
    "framerate": "no Geomview here: --animate-fps sets the animation's frame rate",
    "rkPower": "not used: scipy's RK45 sets its own step-size exponent (1/5, from its 4th-order error estimate)",
    "power": "not used: scipy's RK45 sets its own step-size exponent (1/5, from its 4th-order error estimate)",
}
IGNORED_SYMBOLS = tuple(NOTED_SYMBOLS)


def notes(symbols: Mapping[str, object]) -> None:
    """One stderr line per rc symbol that is accepted without effect, saying why."""
    for name, why in NOTED_SYMBOLS.items():
        if name in symbols:
            print(f"note: {name} = {symbols[name]!r}: {why}", file=sys.stderr)


def progress_printer(settings: RunSettings) -> Optional[Callable[[float, int], None]]:
    """The ``measurePeriod`` messages (stderr): ``t = ... s, N transitions``; ``None`` when 0."""
    if settings.measure_period <= 0.0:
        return None
    return lambda t, n: print(f"t = {t:.6g} s, {n} transitions", file=sys.stderr, flush=True)


def parse_assignments(text: str, option: str) -> Dict[str, float]:
    """``"a=1,b=-2.5"`` -> ``{"a": 1.0, "b": -2.5}``; a malformed item or a NaN value raises
    ``ValueError`` naming ``option`` and the item."""
    values: Dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            values[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"{option}: expected NAME=VALUE, got {item!r}") from None
        if math.isnan(values[name.strip()]):  # an infinity may mean something (mu=inf: no slip)
            raise ValueError(f"{option}: {item!r}: the value is not a number")
    return values


def add_run_arguments(p: argparse.ArgumentParser, defaults: RunSettings) -> None:
    """Options for the run settings (manual 2.4.2), the rc file and the outputs."""
    g = p.add_argument_group("run settings (SimSect manual 2.4.2)")
    g.add_argument("--final-time", type=non_negative, metavar="T", help=f"final time [s] (default {defaults.final_time:g})")
    g.add_argument("--record-period", type=float, metavar="S",
                   help=f"sampling period [s] (0: every step; default {defaults.record_period:g})")
    g.add_argument("--tolerance", type=float, help=f"RK error tolerance (default {defaults.tolerance:g})")
    g.add_argument("--max-time-step", type=float, help=f"[s] (default {defaults.max_time_step:g})")
    g.add_argument("--min-time-step", type=float, help=f"[s] (default {defaults.min_time_step:g})")
    g.add_argument("--stop-precision", type=float, help=f"(default {defaults.stop_precision:g})")
    g.add_argument("--max-stop-iterations", type=int, help=f"(default {defaults.max_stop_iterations})")
    g.add_argument("--max-chart-count", type=int, help=f"(default {defaults.max_chart_count})")
    g.add_argument("--min-event-interval", type=float, metavar="S",
                   help="a transition sooner than this after the previous one is chattering: the run stops "
                        "with status -2 (default 0: off; a boundary falling through is caught regardless)")
    g.add_argument("--measure-period", type=float, metavar="S",
                   help="print progress every S of simulated time (default 0: none)")
    g.add_argument("--max-steps", type=int, metavar="N",
                   help=f"step budget: a run taking more integrator steps stops with an error (default {defaults.max_steps})")
    g.add_argument("--method", help=f"scipy OdeSolver (default {defaults.method})")
    g.add_argument("--config", metavar="RC", help="a SimSect initialization file (name = value; lines); "
                   "command-line options given explicitly win")
    o = p.add_argument_group("outputs")
    o.add_argument("--out", metavar="BASE", help="write BASE.data, BASE.initial, BASE.param (manual 2.3)")
    o.add_argument("--plot", metavar="PNG", help="write a plot of the run")
    o.add_argument("--force", action="store_true", help="overwrite existing output files")
    o.add_argument("--json", action="store_true", help="print one JSON object as the last line")


def add_animate_arguments(p: argparse.ArgumentParser) -> None:
    """``--animate FILE`` and ``--animate-fps`` (SLIP, hexapod, wheel)."""
    o = p.add_argument_group("animation")
    o.add_argument("--animate", metavar="FILE", help="write an animation of the recorded run: FILE.gif "
                   "(Pillow), or FILE.mp4 where ffmpeg is installed")
    o.add_argument("--animate-fps", type=float, default=25.0, metavar="FPS",
                   help="frames per second of simulated time (default %(default)s)")


def read_config(path: Optional[str], known: Sequence[str]) -> Dict[str, Value]:
    """Symbols of an rc file; one that is not a run setting nor in ``known`` raises ``ValueError``."""
    if not path:
        return {}
    if not Path(path).is_file():
        raise ValueError(f"--config {path}: {'a folder, not an rc file' if Path(path).is_dir() else 'no such file'}")
    symbols = read_symbols(path)
    allowed = set(known) | set(IGNORED_SYMBOLS) | set(RunSettings().symbols()) | {"maxStopIter"}
    for name in symbols:
        if name not in allowed:
            raise ValueError(f"{path}: unknown symbol {name!r}")
    notes(symbols)
    return symbols


def settings_from_args(args: argparse.Namespace, defaults: RunSettings,
                       symbols: Mapping[str, Value]) -> RunSettings:
    """Defaults, then the rc file's symbols, then the options given on the command line."""
    settings = defaults.with_symbols(symbols)
    changes = {field: getattr(args, field) for field in asdict(defaults) if getattr(args, field, None) is not None}
    return replace(settings, **changes)


#: the most animation frames a run may ask for (10 minutes at 25 fps)
MAX_FRAMES = 15_000


def check_outputs(args: argparse.Namespace, settings: Optional[RunSettings] = None) -> None:
    """Refuse, before a run rather than after it, output files that cannot be written (naming the
    option: a disk fault, exit 1) or that exist (unless ``--force``), and an animation of more
    than ``MAX_FRAMES`` frames for ``settings.final_time``."""
    for path in (output_paths(args.out) if args.out else ()):
        check_writable(path, "--out")
        refuse_overwrite(path, args.force)
    if args.plot:
        check_figure_path(args.plot, "--plot")
        check_writable(args.plot, "--plot")
        refuse_overwrite(args.plot, args.force)
    check_animation_path(getattr(args, "animate", None), args.force)
    check_animation_frames(args, settings)


def check_animation_frames(args: argparse.Namespace, settings: Optional[RunSettings]) -> None:
    """Refuse ``--animate-fps`` <= 0, or more than ``MAX_FRAMES`` frames over ``settings.final_time``."""
    if not getattr(args, "animate", None):
        return
    if not args.animate_fps > 0.0:
        raise ValueError(f"--animate-fps: must be > 0, got {args.animate_fps!r}")
    if settings is None:
        return
    frames = settings.final_time * args.animate_fps
    if frames > MAX_FRAMES:
        raise ValueError(f"--animate-fps: {args.animate_fps:g} fps over {settings.final_time:g} s is {frames:.3g} "
                         f"frames, more than {MAX_FRAMES}; lower --animate-fps or --final-time")


def finish(result: HybridResult, model: HybridModel, initial: Union[Sequence[float], np.ndarray], args: argparse.Namespace,
           summary: Mapping[str, object], plot_states: Optional[Sequence[str]] = None) -> int:
    """Write the requested outputs, print the JSON line; exit status 1 when the run failed."""
    if args.out:
        write_outputs(args.out, result, initial, model.parameters(), force=args.force)
    if args.plot:
        refuse_overwrite(args.plot, args.force)
        plot_run(result, args.plot, plot_states, units=model.state_units)
    if args.json:
        print(json.dumps(summary))
    if not result.success:
        print(f"error: {result.message}", file=sys.stderr)
        return 1
    return 0
