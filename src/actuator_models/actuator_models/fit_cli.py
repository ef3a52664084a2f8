"""``actuator-models fit``: identify M1-M6 from processed logs (see :mod:`.identification`)."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import math
import sys
import threading
import warnings
import time
from pathlib import Path
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Dict, Mapping, Optional, Sequence, Tuple

from .actuators import actuator, actuator_names
from .additions import ADDITIONS
from .fit_data import (DEFAULT_PRIOR, DEFAULT_PRIOR_HEATED, DEFAULT_RESTARTS, DEFAULT_STARTS, DEFAULT_TRIALS, PATIENCE,
                       THERMAL_STARTS, FitSettings)
from .fit_spec import ALL_MODELS, FitSpec
from .friction import installed_friction_models
from .fit_counts import trial_counts
from .logs import ALLOW_ODD_LOGS_HELP, LogError
from .model import new_model
from .thermal_start import RULES
from .figure_process import start_figure_process
from .argument_names import COMMAND_LINE
from .fit_outputs import interrupted_message, plan_outputs, resume_command

if TYPE_CHECKING:
    from .identification import FitResult, Progress


class FitUsageError(ValueError):
    """A fit argument that cannot be used (unknown parameter, bad bounds file...)."""


def parse_set(text: Optional[str]) -> Dict[str, float]:
    """``"kt=1.5,R=2"`` -> ``{"kt": 1.5, "R": 2.0}``."""
    fixed: Dict[str, float] = {}
    for item in filter(None, (text or "").split(",")):
        name, sep, value = item.partition("=")
        try:
            if not sep:
                raise ValueError
            fixed[name.strip()] = float(value)
        except ValueError:
            raise FitUsageError(f"--set: {item!r} is not name=value with a number") from None
    return fixed


def read_bounds(path: Optional[str]) -> Dict[str, Tuple[float, float]]:
    """A YAML or JSON file ``{name: [lower, upper]}``."""
    if not path:
        return {}
    import yaml  # JSON is YAML too

    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise FitUsageError(f"{path}: cannot read bounds ({' '.join(str(error).split())})") from None  # one line
    if not isinstance(data, dict):
        raise FitUsageError(f"{path}: expected a mapping name: [lower, upper]")
    bounds = {}
    for name, pair in data.items():
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(v, (int, float)) for v in pair)):
            raise FitUsageError(f"{path}: field {name!r}: expected [lower, upper], got {pair!r}")
        bounds[str(name)] = (float(pair[0]), float(pair[1]))
    return bounds


def check_parameters(values: Mapping[str, Sequence[float]], source: str, actuator_name: str,
                     models: Sequence[str]) -> None:
    """Every name of ``--set`` or of a ``--bounds`` file (``source`` says which) must be a
    parameter of each model fitted or of an addition it may carry (which ones, the carry rule
    decides from the training logs; the search space then refuses one of an addition not
    carried), and each of its ``values`` inside the parameter's physical domain (a negative
    armature, a share above 1, NaN: a fit would write a model that nothing loads); the error
    names the source, the value and the closest name."""
    from .additions import installed_additions

    carried = {p.name: p for a in installed_additions().values() for p in a.parameters}
    for model_name in models:
        known = {p.name: p for p in new_model(actuator_name, model_name).parameters} | carried
        for name, given in values.items():
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"its parameters: {', '.join(sorted(known))}"
                raise FitUsageError(f"{source}: {name!r} is not a parameter of {actuator(actuator_name).name}/"
                                    f"{model_name}; {hint}")
            for value in given:
                problem = known[name].problem(value)
                if problem:
                    raise FitUsageError(f"{source}: {name!r} is {value!r}: {problem}")


def count(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer >= {minimum}")
        return value
    return parse


def parse_cv(text: Optional[str]) -> Tuple[str, ...]:
    """``--cv gain,trajectory`` -> ``("gain", "trajectory")``."""
    rules = tuple(r.strip() for r in (text or "").split(",") if r.strip())
    for rule in rules:
        if rule not in ("gain", "trajectory"):
            raise FitUsageError(f"--cv: {rule!r} is not gain or trajectory")
    return rules


def parse_additions(text: Optional[str]) -> Tuple[str, ...]:
    """``--additions latency,backlash`` -> ``("latency", "backlash")`` (any of :data:`.additions.ADDITIONS`)."""
    from .additions import check_additions

    return check_additions(tuple(a.strip() for a in (text or "").split(",") if a.strip()))


def parse_carry(text: str, actuator_arg: str) -> Optional[Tuple[str, ...]]:
    """``--carry auto|none|NAMES`` -> the additions every model carries from the start (names
    ``actuator_arg``'s actuator can carry together); ``auto``: None, the fit's carry rule
    (:func:`.additions.carried_by_default` of the training logs)."""
    from .additions import check_additions, check_carried

    if text == "auto":
        return None
    if text == "none":
        return ()
    names = check_additions(tuple(a.strip() for a in text.split(",") if a.strip()), "--carry")
    check_carried(names, actuator(actuator_arg), "--carry")
    return names


def _summary(name: str, result: "FitResult") -> str:
    val = "—" if result.validation_mae is None else f"{result.validation_mae:.5f}"
    return (
        f"{name.upper()}: train MAE {result.train_mae:.5f} rad, validation MAE {val} rad, "
        f"{trial_counts(result.trials, result.phases)} in {result.seconds:.1f} s"
    )


class ProgressPrinter:
    """Prints a fit's :class:`~.identification.Progress` to stderr: at the first generation of
    each model, then at most every ``every`` s."""

    def __init__(self, actuator: str, every: float = 1.0, prefix: str = "") -> None:
        self.actuator, self.every, self.prefix, self.last, self.model = actuator, every, prefix, -math.inf, ""

    def __call__(self, p: "Progress") -> None:
        now = time.monotonic()
        if now - self.last < self.every and p.trials < p.budget and p.model == self.model:
            return
        self.last, self.model = now, p.model
        eta = f"{p.eta:5.0f}s" if math.isfinite(p.eta) else "    ?"
        print(f"{self.prefix}[{self.actuator}/{p.model} {p.phase}] {p.trials:>6}/{p.budget} trials  {p.rate:7.1f} trials/s  "
              f"{p.figure()}  ETA {eta}", file=sys.stderr, flush=True)


def _actuator_arg(text: str) -> str:
    """``--actuator``: a registry name or an actuator description file, checked now."""
    try:
        actuator(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def spec_of(args: argparse.Namespace) -> FitSpec:
    """The :class:`~.fit_spec.FitSpec` of ``actuator-models fit``'s arguments (checked here: what
    names a flag; the fit checks the rest); its outputs are planned (and refused when they exist)."""
    models = ALL_MODELS if args.model == "all" else (args.model,)
    fixed, bounds = parse_set(args.set), read_bounds(args.bounds)
    check_parameters({name: (value,) for name, value in fixed.items()}, "--set", args.actuator, models)
    check_parameters(bounds, f"--bounds {args.bounds}", args.actuator, models)
    try:
        settings = FitSettings(
            trials=args.trials, seed=args.seed, popsize=args.popsize, patience=args.patience or None,
            restarts=args.restarts, starts=args.starts, prior=args.prior, polish=not args.no_polish,
            workers=args.workers, worker=args.worker, fixed=fixed, bounds=bounds, force=args.force,
            thermal_start=args.thermal_start,
        )
        spec = FitSpec(
            args.logs, args.actuator, models, settings, args.integrator, args.validation_fraction, args.validation_logs,
            args.validation_kp, args.validation_logs_match, args.allow_mismatch, parse_carry(args.carry, args.actuator),
            parse_additions(args.additions), parse_cv(args.cv), args.cv_trials, args.storage, args.study,
            allow_odd_logs=args.allow_odd_logs,
        )
    except ValueError as error:
        raise FitUsageError(str(error)) from None
    return spec


def run_fit(args: argparse.Namespace) -> int:
    from .fitting import fit, prepare
    from .identification import FitInterrupted, stop_on_sigint

    spec = spec_of(args)
    if args.workers > 1 and not args.storage:
        raise FitUsageError("several workers need a storage they share (--storage FILE.journal or an RDB URL)")
    models = list(spec.models)
    outputs = plan_outputs(args.out, actuator(args.actuator).name, models, args.force or bool(args.storage),
                           COMMAND_LINE)
    with warnings.catch_warnings(record=True) as held:  # said once the storage is known usable
        try:
            prepared = prepare(spec, COMMAND_LINE)  # warns of a budget too small to converge
        except LogError:
            raise
        except ValueError as error:
            raise FitUsageError(str(error)) from None
    if args.storage:
        from .studies import StorageError, open_storage

        try:
            open_storage(args.storage)  # a URL nothing can open is one error line, before any warning
        except StorageError as error:
            raise FitUsageError(str(error)) from None
    for caught in held:
        warnings.showwarning(caught.message, caught.category, caught.filename, caught.lineno)
    for warning in prepared.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    prepared = replace(prepared, spec=replace(spec, outputs=outputs))
    stop = threading.Event()
    try:  # the report's figure is drawn by a child process that imports matplotlib while the fit runs here
        with stop_on_sigint(stop), start_figure_process() or contextlib.nullcontext() as figures:
            report = fit(prepared, stop=stop, progress=None if args.quiet else ProgressPrinter(args.actuator),
                         figures=figures)
    except FitInterrupted as stopped:
        r = stopped.result
        name = r.model.friction.name
        command = resume_command(getattr(args, "argv", []), outputs.folder, args.out, args.storage)
        print(interrupted_message(models[:models.index(name)], name, _summary(name, r), outputs, command, args.storage),
              file=sys.stderr)
        return 130
    except ValueError as error:
        raise FitUsageError(str(error)) from None
    for name, rep in report.models.items():
        print(_summary(name, rep.result))
        if rep.selection is not None or report.carry:
            from .additions import describe

            how = "kept by cross-validation" if rep.selection is not None else "carried (--carry)"
            print(f"    additions {how}: {describe(rep.result.model.values)}")
        for s in rep.spreads:
            flags = [f for f, on in (("undetermined by these logs", not s.determined),
                                     ("at a search bound", s.name in rep.result.at_bounds)) if on]
            flag = f"  ({', '.join(flags)})" if flags else ""
            print(f"    {s.name:<32} {s.value:>11.5g} ± {s.half_width:<9.2g} {s.unit}{flag}")
    for name, rep in report.models.items():
        if rep.without_temperature and set(report.carry) & {"heating", "thermal"}:
            bare = rep.without_temperature
            val = "" if bare["validation_mae"] is None else f", validation MAE {bare['validation_mae']:.5f}"
            start = rep.result.model.values.get("thermal_initial")
            at = "" if start is None else f" (thermal starts at {start:.2f} degC: {RULES[report.spec.settings.thermal_start]})"
            print(f"{name.upper()} simulated without the logs' temperature: train MAE {bare['train_mae']:.5f} rad{val}{at}")
    for name, rep in report.models.items():
        for there in rep.other_simulators.values():
            val = "" if there.get("validation_mae") is None else f", validation MAE {there['validation_mae']:.5f}"
            done = f"cannot run it: {there['refused']}" if "refused" in there else f"train MAE {there['train_mae']:.5f} rad{val}"
            print(f"{name.upper()} {there['what']}: {done}")
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"best model by {report.chosen_by}: {report.best_model.upper()}", end="")
    if report.improvement_over_m1 and report.best_model != "m1":
        print(f" ({report.improvement_over_m1:.2f}x better than M1)")
    else:
        print()
    params = ", ".join(str(path) for path in outputs.params.values()) if len(models) == 1 else f"{outputs.folder}/"
    print(f"params written to {params} (report: {outputs.report / 'report.md'})")
    return 0


def add_fit_command(sub: "argparse._SubParsersAction") -> None:
    p = sub.add_parser(
        "fit",
        help="identify friction models M1-M6 with CMA-ES",
        description="Fit friction models to processed logs with CMA-ES; the cost is the mean absolute "
                    "position error (rad), simulated by a compiled kernel. A quarter of the logs is held out "
                    "for validation, stratified by gain and trajectory and raised to one log per gain and "
                    "trajectory (said when it is); --validation-logs N or --validation-fraction F hold out "
                    "exactly that. The trial budget (evaluated parameter sets) covers the search and the polish. "
                    "Progress is printed; Ctrl-C keeps the best parameters so far. Every CMA-ES generation is a "
                    "completed trial of an optuna study (its best parameter set, its size and the optimizer's "
                    "state): --storage/--study make a run resumable (no completed generation lost) and "
                    "shareable by several workers, each running its own CMA-ES.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  actuator-models fit --logs logs/ --actuator xl330 --model m6\n"
               "  actuator-models fit --logs logs/ --actuator mx64 --model all --out fit-mx64/\n"
               "  actuator-models fit --logs logs/ --actuator xl330 --model m6 --validation-kp 800\n"
               "  actuator-models fit --logs logs/ --actuator xl330 --model m3 --set q_offset=0 \\\n"
               "      --storage runs.journal --study xl330-m3 --workers 2\n"
               "  # one more worker on the same study, from another shell or machine sharing the RDB:\n"
               "  actuator-models fit --logs logs/ --actuator xl330 --model m6 --storage postgresql+psycopg2://host/db \\\n"
               "      --study xl330 --worker 1\n"
               "  actuator-models fit --logs xm430_logs/ --actuator xm430.yaml --model m1   # a servo of your own\n\n"
               "Without --out each run writes a new folder (fit-xl330/, fit-xl330-2/, ...). One model's report\n"
               "goes beside its params file, named after it (m6.json, m6.report/); --model all writes\n"
               "m1.json .. m6.json and report/. Params or a report of an earlier run are not overwritten\n"
               "unless --force (or --storage: a resumed study updates its outputs). Ctrl-C keeps the best\n"
               "parameters so far, reports the finished models and prints the command that resumes.\n"
               "Logs recorded on another motor than --actuator are refused unless --allow-mismatch.",
    )
    p.add_argument("--logs", required=True, metavar="DIR", help="folder of processed JSON logs")
    p.add_argument("--actuator", required=True, type=_actuator_arg, metavar="NAME|FILE",
                   help=f"actuator: {', '.join(actuator_names())}, or an actuator description file (.yaml/.json)")
    p.add_argument("--allow-mismatch", action="store_true",
                   help="use logs whose 'motor' is another actuator than --actuator (an error otherwise)")
    p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)
    p.add_argument("--force", action="store_true",
                   help="overwrite the params and report of an earlier run in --out, and fit even on fewer training "
                        "logs than one per two free parameters (thermal's counted against the logs recording the "
                        "temperature; both refused otherwise)")
    p.add_argument("--model", required=True, choices=[*installed_friction_models(), "all"],
                   help="friction model, or all of M1-M6")
    p.add_argument("--trials", type=count(1), default=DEFAULT_TRIALS,
                   help="trial budget per model, search and polish together, never exceeded (default %(default)s)")
    split = p.add_mutually_exclusive_group()
    split.add_argument("--validation-fraction", type=float, metavar="F",
                       help="hold out exactly round(F x logs) logs, stratified by gain and trajectory (0 = fit on all); "
                            "default: a quarter, at least one per gain and trajectory")
    split.add_argument("--validation-logs", type=count(0), metavar="N", help="hold out exactly N logs, stratified")
    split.add_argument("--validation-kp", type=float, metavar="K", help="hold out the logs recorded at gain K instead")
    split.add_argument("--validation-logs-match", metavar="PATTERN",
                       help="hold out the logs whose file name or trajectory matches this regular expression, "
                            "e.g. lift_and_drop")
    p.add_argument("--seed", type=count(0), default=0, help="random seed (split and CMA-ES), default 0")
    p.add_argument("--out", metavar="PATH",
                   help="params file (.json) for one model, else a folder for params and report "
                        "(default: a new folder fit-<actuator>/, fit-<actuator>-2/, ... on each run)")
    p.add_argument("--set", metavar="NAME=VALUE,...", help="fix parameters, e.g. --set q_offset=0,R=2.5")
    p.add_argument("--bounds", metavar="FILE", help="YAML/JSON file {name: [lower, upper]} overriding search bounds")
    p.add_argument("--storage", metavar="URL",
                   help="optuna storage: a journal file (runs.journal) or an RDB URL (postgresql+psycopg2://...)")
    p.add_argument("--study", metavar="NAME", help="study name prefix in the storage (the model name is appended)")
    p.add_argument("--workers", type=count(1), default=1, help="processes working on each study (default 1)")
    p.add_argument("--worker", type=count(0), default=0, metavar="I",
                   help="this process's worker index on a shared study (default 0); re-run with it to resume its CMA-ES")
    p.add_argument("--integrator", choices=("bam", "semi-implicit"), default="bam",
                   help="simulation step to fit with, recorded in the params files (default bam)")
    p.add_argument("--popsize", type=count(2), help="CMA-ES population (default: up to 4 x (4 + 3 ln parameters), 48 for M6, less on a small --trials budget)")
    p.add_argument("--patience", type=count(0), default=PATIENCE, metavar="G",
                   help=f"stop after G generations without a 0.1%% improvement (default {PATIENCE}; 0 = never)")
    p.add_argument("--restarts", type=count(0), default=DEFAULT_RESTARTS, metavar="R",
                   help="R more CMA-ES runs after the search, each with twice the population (IPOP), within what "
                        "the search left of its budget; the best is kept (default %(default)s)")
    p.add_argument("--starts", type=int, default=DEFAULT_STARTS, metavar="S",
                   help="independent CMA-ES starts of the search, simulated together; the best point by cost (the "
                        "objective searched: training MAE plus prior and temperature terms) is polished, the spread "
                        "across starts is reported (default %(default)s)")
    p.add_argument("--prior", type=float, default=None, metavar="W",
                   help="pull the fit toward the actuator's default parameters: the cost is the MAE times (1 + W x the "
                        "mean squared deviation from the defaults, in quarters of each search range); raise it for few "
                        "logs or logs that lack conditions the model will meet, 0 for none (default: "
                        f"{DEFAULT_PRIOR_HEATED:g} for a model carrying heating, else {DEFAULT_PRIOR:g})")
    p.add_argument("--cv", metavar="RULES",
                   help="cross-validate every model on the training logs, leaving one gain and/or one trajectory out "
                        "(gain, trajectory or gain,trajectory): a table per fold in the report, and the model is chosen "
                        "by the mean cross-validated error")
    p.add_argument("--cv-trials", type=count(1), metavar="N",
                   help="trial budget of each cross-validation fit (default: a quarter of --trials, for speed)")
    p.add_argument("--additions", metavar="NAMES",
                   help=f"try model additions on every model (one or more of {', '.join(ADDITIONS)}, comma-separated, "
                        "e.g. latency,backlash): each is fitted by "
                        "cross-validation on the training logs (the --cv rules, default gain and trajectory, --cv-trials "
                        "each) with and without it, and kept only if it lowers the held-out error; the report says what "
                        "each model carries and what each addition gained")
    p.add_argument("--carry", default="auto", metavar="NAMES",
                   help="model additions every model carries from the start, without a selection: auto (thermal when "
                        "the training logs record the servo temperature over a span of 2 K or more: the winding and "
                        "case temperatures are simulated, the motor's resistance follows the winding; with supply, "
                        "the supply's sag at high duty, for a voltage law; with release, the less armature and friction "
                        "of a servo with its torque off, when a training log releases the torque), none (the paper's models), heating "
                        "(replays the logged temperature), or names (default %(default)s)")
    p.add_argument("--thermal-start", choices=THERMAL_STARTS, default=THERMAL_STARTS[0],
                   help="a model carrying thermal: the start temperature of a simulation without a temperature input "
                        "(thermal_initial, written to the params file): mean (of the training logs' first readings) or "
                        "fitted (after the search, the one that minimises the training logs' MAE simulated without "
                        "their temperature) (default %(default)s)")
    p.add_argument("--no-polish", action="store_true",
                   help="skip the final local CMA-ES run around the best point (a quarter of the budget)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(run=run_fit)
