"""``actuator-sim``: MuJoCo replays, 2R arm runs and figures from the shell.

Bad input (a malformed log or params file, an unknown arm or path) prints one ``error: ...``
line and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from actuator_models.exit_codes import ArgumentParser, run_command
from actuator_models.logs import Log, check_motor, read_log, read_logs
from actuator_models.model import Model, load_model
from actuator_models.outputs import refuse_existing
from actuator_models.plots import source_labels

from .friction_split import VISCOUS_MODES

PARAMS_HELP = "a params JSON file or a published model such as mx64/m6"
ALLOW_MISMATCH_HELP = "use a log recorded on another motor than the params' actuator (an error otherwise)"
FORCE_HELP = "overwrite an existing output (refused otherwise)"
DEFAULT_SYNTHETIC_BENCHES = ((1.0, 0.15, 8.0), (0.5, 0.2, 32.0), (1.5, 0.1, 4.0))

EPILOG = """\
examples:
  actuator-sim pendulum --params xl330/m6 --log data/xl330/processed/2026-01-15_10h28m10.json --json
  actuator-sim consistency --params mx64/m1 mx64/m6 --synthetic mx64/m6
  actuator-sim arm --arm mx --shoulder m1 --elbow m1 --path circle --gain low \\
      --reference-shoulder m6 --reference-elbow m6 --out traj.json
  actuator-sim arm-compare --arm mx --gain low --out arm_mae.json
  actuator-sim plot-diagram --params mx64/m1 mx64/m6 --out diagram.png
  actuator-sim plot-trajectory --params xl330/m1 xl330/m6 --log LOG.json --out trajectory.png
  actuator-sim plot-mae --eval arm_mae.json --out mae.png
  actuator-sim export-models --out models/ --mass 0.5 --length 0.2

Outputs are never overwritten without --force. Exit status: 0 done, 2 bad input (one 'error:'
line naming file, field and value), 1 a runtime fault, 130 interrupted.
Units: rad, rad/s, N m, kg, m, s. Models M1-M6: Duclusaud et al., ICRA 2025."""

#: Examples shown by each subcommand's --help.
EXAMPLES = {
    "pendulum": ["actuator-sim pendulum --params xl330/m6 --log data/xl330/processed/2026-01-15_10h28m17.json",
                 "actuator-sim pendulum --params fit-xl330/m6.json --log run.json --viscous damping --json"],
    "consistency": ["actuator-sim consistency --params mx64/m1 mx64/m6 --synthetic mx64/m6",
                    "actuator-sim consistency --params xl330/m6 --logs data/xl330/processed --json"],
    "arm": ["actuator-sim arm --arm mx --shoulder m1 --elbow m1 --path circle --gain low \\\n"
            "      --reference-shoulder m6 --reference-elbow m6 --out traj.json"],
    "arm-compare": ["actuator-sim arm-compare --arm mx --gain low --out arm_mae.json",
                    "actuator-sim arm-compare --arm mx --candidate fitted m1 fit-mx64/m6.json --paths circle"],
    "transfer": ["actuator-sim transfer --arm mx --trials 500 --paths circle --out-dir transfer/"],
    "plot-diagram": ["actuator-sim plot-diagram --params mx64/m1 mx64/m6 --out diagram.png",
                     "actuator-sim plot-diagram --params xl330/m6 fit-xl330/m6.json --out compare.png"],
    "plot-trajectory": ["actuator-sim plot-trajectory --params xl330/m1 xl330/m6 \\\n"
                        "      --log data/xl330/processed/2026-01-15_10h28m17.json --out trajectory.png"],
    "plot-mae": ["actuator-sim plot-mae --eval arm_mae.json --out mae.png",
                 "actuator-sim plot-mae --params xl330/m1 xl330/m6 --logs data/xl330/processed --out mae.png"],
    "export-models": ["actuator-sim export-models --out models/ --mass 0.5 --length 0.2"],
}


def _examples(command: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])


def _load(sources: Sequence[str]) -> List[Model]:
    """Load params; once all are valid, print the defaults they use (one note each)."""
    notes: List[str] = []
    models = [load_model(source, notes.append) for source in sources]
    for text in notes:
        print(text, file=sys.stderr)
    return models


def _check_motor(log: Log, models: Sequence[Model], sources: Sequence[str], allow: bool) -> None:
    for model, source in zip(models, sources):
        check_motor([log], model.actuator.name, f"params {source}", allow)


def _models_title(models: Sequence[Model], labels: Sequence[str]) -> str:
    """``"Dynamixel MX-64 - models: mx64/m1, m6.json"``: actuators and sources of a figure."""
    actuators = ", ".join(dict.fromkeys(m.actuator.title for m in models))
    return f"{actuators} - models: {', '.join(labels)}"


def resolve_params(text: str, actuator: str) -> Model:
    """A params file / library name, or ``m1``..``m6`` meaning the published model of ``actuator``."""
    if re.fullmatch(r"m[1-6]", text.lower()):
        return load_model(f"{actuator}/{text.lower()}")
    return load_model(text)


def _print_json(data: object) -> None:
    print(json.dumps(data))


# ---------------------------------------------------------------------------- pendulum replays
def _cmd_pendulum(args: argparse.Namespace) -> int:
    from .replay import replay

    model, = _load([args.params])
    log = read_log(args.log)
    _check_motor(log, [model], [args.params], args.allow_mismatch)
    result = replay(model, log, args.viscous)
    print(f"{Path(args.log).name}: {model.name}, MuJoCo dt {log.dt} s, viscous part in {args.viscous}")
    print(f"  MAE MuJoCo vs log:                          {result.mae_log:.6f} rad")
    print(f"  MAE MuJoCo vs reference (semi-implicit):    {result.mae_reference:.6f} rad")
    if args.json:
        _print_json({"mae_log": result.mae_log, "mae_reference": result.mae_reference})
    return 0


def _bounded(text: str, positive: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a {'positive' if positive else 'non-negative'} number")
    return value


def _positive(text: str) -> float:
    return _bounded(text, True)


def _non_negative(text: str) -> float:
    return _bounded(text, False)


def _parse_bench(text: str) -> Tuple[float, float, float]:
    try:
        mass, length, kp = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MASS,LENGTH,KP") from None
    if not (mass > 0 and length > 0 and kp >= 0):
        raise argparse.ArgumentTypeError(f"{text!r}: expected MASS > 0 kg, LENGTH > 0 m, KP >= 0")
    return mass, length, kp


def _cmd_consistency(args: argparse.Namespace) -> int:
    from actuator_models.synthesis import BenchConfig, synthesize_logs

    from .replay import replays

    if args.logs:
        logs = read_logs(args.logs)
        source = args.logs
    else:
        truth = load_model(args.synthetic)
        benches = args.bench or DEFAULT_SYNTHETIC_BENCHES
        logs = synthesize_logs(truth, [BenchConfig(*bench) for bench in benches], encoder_step=0.0)
        source = f"synthetic logs of {truth.name} ({len(logs)})"
    print(f"MuJoCo vs reference simulator (semi-implicit) on {source}, viscous part in {args.viscous}")
    print(f"{'params':<16} {'mean MAE ref':>13} {'max MAE ref':>12} {'mean MAE log':>13}")
    table: Dict[str, Dict[str, float]] = {}
    for name in args.params:
        model = load_model(name)
        results = replays(model, logs, args.viscous)
        ref = np.array([r.mae_reference for r in results])
        row = {"mean_mae_reference": float(ref.mean()), "max_mae_reference": float(ref.max()),
               "mean_mae_log": float(np.mean([r.mae_log for r in results]))}
        table[name] = row
        print(f"{name:<16} {row['mean_mae_reference']:>13.2e} {row['max_mae_reference']:>12.2e} "
              f"{row['mean_mae_log']:>13.5f}")
    if args.json:
        _print_json(table)
    return 0


# ---------------------------------------------------------------------------- 2R arms
def _cmd_arm(args: argparse.Namespace) -> int:
    from .arm import arm, joint_mae, run_path

    a = arm(args.arm)
    run = run_path(a, resolve_params(args.shoulder, a.shoulder), resolve_params(args.elbow, a.elbow),
                   args.path, args.gain, viscous=args.viscous)
    out: Dict[str, object] = {"arm": a.name, "path": args.path, "gain": a.gain(args.gain),
                              "shoulder": args.shoulder, "elbow": args.elbow, **run.to_dict()}
    tracking = np.mean(np.abs(run.position - run.goal), axis=0)
    print(f"arm {a.name}, path {args.path}, gain {args.gain} (kp {a.gain(args.gain):g}): "
          f"tracking MAE shoulder {tracking[0]:.5f} rad, elbow {tracking[1]:.5f} rad")
    summary: Dict[str, float] = {}
    if args.reference_shoulder or args.reference_elbow:
        if not (args.reference_shoulder and args.reference_elbow):
            raise ValueError("give both --reference-shoulder and --reference-elbow")
        reference = run_path(a, resolve_params(args.reference_shoulder, a.shoulder),
                             resolve_params(args.reference_elbow, a.elbow), args.path, args.gain,
                             viscous=args.viscous)
        mae = joint_mae(run, reference)
        summary = {"mae_shoulder": float(mae[0]), "mae_elbow": float(mae[1]), "mae": float(mae.mean())}
        out.update(reference={"shoulder": args.reference_shoulder, "elbow": args.reference_elbow,
                              "position": reference.position.tolist()}, **summary)
        print(f"MAE against the reference run: shoulder {mae[0]:.5f} rad, elbow {mae[1]:.5f} rad, "
              f"mean {mae.mean():.5f} rad")
    if args.out:
        refuse_existing([args.out], args.force)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(out))
        print(f"joint trajectories written to {args.out}")
    if args.json:
        _print_json(summary)
    return 0


def _candidates(args: argparse.Namespace) -> List[Tuple[str, str, str]]:
    if args.candidate:
        return [tuple(c) for c in args.candidate]  # type: ignore[misc]
    return [(f"M{i}", f"m{i}", f"m{i}") for i in range(1, 7)]


def _cmd_arm_compare(args: argparse.Namespace) -> int:
    from .arm import arm
    from .experiment import compare_arm

    a = arm(args.arm)
    if args.out:
        refuse_existing([args.out], args.force)
    real = (resolve_params(args.real_shoulder, a.shoulder), resolve_params(args.real_elbow, a.elbow))
    candidates = {label: (resolve_params(s, a.shoulder), resolve_params(e, a.elbow)) for label, s, e in _candidates(args)}
    maes = compare_arm(a, real, candidates, args.paths, args.gain, args.viscous)
    print(f"arm {a.name}: joint MAE [rad] against the 'real' arm ({real[0].name} + {real[1].name})")
    _print_table(maes, list(candidates))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"arm": a.name, "real": [real[0].name, real[1].name], "maes": maes}, indent=2))
        print(f"MAE table written to {args.out}")
    return 0


def _print_table(maes: Dict[str, Dict[str, float]], labels: Sequence[str]) -> None:
    width = max(12, *(len(label) + 2 for label in labels))
    first = max(len("path"), *(len(group) for group in maes))  # the longest path name sets the first column
    print(f"{'path':<{first}}" + "".join(f"{label:>{width}}" for label in labels))
    for group, row in maes.items():
        print(f"{group:<{first}}" + "".join(f"{row[label]:>{width}.5f}" for label in labels))
    print(f"{'mean':<{first}}" + "".join(f"{np.mean([r[label] for r in maes.values()]):>{width}.5f}" for label in labels))


def _cmd_transfer(args: argparse.Namespace) -> int:
    from .arm import arm
    from .transfer import transfer_experiment

    a = arm(args.arm)
    if args.out_dir:
        refuse_existing([Path(args.out_dir) / "transfer.json"], args.force)
    result = transfer_experiment(a, args.paths, args.gain, trials=args.trials, seed=args.seed,
                                 log=lambda text: print(text, flush=True))
    print("validation MAE on the virtual bench [rad] (shoulder, elbow), each with its own integrator:")
    for label, (shoulder, elbow) in result.validation.items():
        print(f"  {label:<20} {shoulder:.5f}  {elbow:.5f}")
    print(f"arm {a.name}: joint MAE [rad] against the 'real' arm ({a.shoulder}/m6 + {a.elbow}/m6) in MuJoCo")
    _print_table({g: dict(r) for g, r in result.maes.items()}, list(result.fitted))
    if args.out_dir:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        result.save(out)
        summary = {"arm": a.name, "trials": args.trials, "validation": result.validation, "maes": result.maes}
        (out / "transfer.json").write_text(json.dumps(summary, indent=2))
        print(f"fitted params and transfer.json written to {out}")
    return 0


# ---------------------------------------------------------------------------- figures
def _cmd_plot_diagram(args: argparse.Namespace) -> int:
    from .drive_backdrive import drive_backdrive, stall_torque
    from actuator_models.plots import plot_drive_backdrive

    refuse_existing([args.out], args.force)
    labels = source_labels(args.params)
    models = _load(args.params)
    top = args.max_torque or 0.5 * max(stall_torque(m) for m in models)
    velocities = [float(v) for v in range(args.velocities)]
    panels = {f"{label}\n{m.name}, {m.friction.title}": drive_backdrive(m, top, velocities)
              for label, m in zip(labels, models)}
    title = args.title or f"Drive/backdrive limits: {_models_title(models, labels)}\n(from the params alone, no log)"
    out = plot_drive_backdrive(panels, args.out, title=title)
    print(f"drive/backdrive diagram written to {out} ({len(panels)} panels: {', '.join(labels)})")
    return 0


def _cmd_plot_trajectory(args: argparse.Namespace) -> int:
    from actuator_models.simulation import simulate_logs

    from actuator_models.plots import plot_trajectory
    from .replay import mujoco_positions

    refuse_existing([args.out], args.force)
    labels = source_labels(args.params)
    models = _load(args.params)
    log = read_log(args.log)
    _check_motor(log, models, args.params, args.allow_mismatch)
    simulated = {}
    for label, model in zip(labels, models):
        positions = mujoco_positions(model, log) if args.engine == "mujoco" else simulate_logs(model, [log])[0]
        named = "" if label == model.name else f"{model.name}, "  # a library name is said once
        simulated[f"{label} ({named}{args.engine} sim.)"] = positions
        mae = float(np.mean(np.abs(np.asarray(positions) - log.position)))
        print(f"{label}: MAE {mae:.6f} rad ({named}{args.engine} simulator)")
    bench = f"{log.trajectory}, m={log.mass:g} kg, l={log.length:g} m, kp={log.kp:g}"
    title = args.title or (f"data: {Path(args.log).name} ({bench}, motor {log.motor or 'not logged'})\n"
                           f"{_models_title(models, labels)}")
    out = plot_trajectory(log.timestamp - log.timestamp[0], log.position, simulated, args.out,
                          goal=log.goal_position, title=title)
    print(f"trajectory figure written to {out}")
    return 0


def mae_groups(data: object) -> Dict[str, Dict[str, float]]:
    """``{group: {model: mae}}`` from an ``arm-compare`` JSON (``{"maes": ...}``), a grouped
    dictionary, or an ``actuator-models evaluate --json`` line (``{model: {"mean": x}}``)."""
    if isinstance(data, dict) and isinstance(data.get("maes"), dict):
        data = data["maes"]
    if not isinstance(data, dict) or not data:
        raise ValueError("evaluation JSON: expected a non-empty object")
    if all(isinstance(v, dict) and "mean" in v for v in data.values()):
        return {"mean over logs": {k: float(v["mean"]) for k, v in data.items()}}
    try:
        return {g: {m: float(x) for m, x in row.items()} for g, row in data.items()}
    except (AttributeError, TypeError, ValueError):
        raise ValueError("evaluation JSON: expected {group: {model: mae}} or {model: {'mean': mae}}") from None


def _read_json(path: str) -> object:
    """A JSON file, or the last JSON line of a command's saved output (``... --json > file``)."""
    text = Path(path).read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        lines = [line for line in text.splitlines() if line.startswith("{")]
        if not lines:
            raise ValueError(f"{path}: no JSON object found") from None
        return json.loads(lines[-1])


def _models_named(row: Dict[str, float]) -> List[Model]:
    """The models named by the keys of an evaluation row, or [] when a key is not a params source."""
    try:
        return [load_model(name) for name in row]
    except ValueError:
        return []


def _cmd_plot_mae(args: argparse.Namespace) -> int:
    from actuator_models.plots import plot_mae_bars

    refuse_existing([args.out], args.force)
    if args.eval:
        data = _read_json(args.eval)
        groups = mae_groups(data)
        title = f"MAE from {Path(args.eval).name}"
        models = _models_named(next(iter(groups.values())))
        if models:  # an 'evaluate --json' line: its keys are the params
            title = f"Mean MAE, data: {Path(args.eval).name}\n{_models_title(models, list(next(iter(groups.values()))))}"
        if isinstance(data, dict) and "arm" in data:
            real = " + ".join(data.get("real", []))
            title = f"2R arm {data['arm']}: joint MAE against the 'real' arm ({real}), from {Path(args.eval).name}"
    else:
        if not (args.params and args.logs):
            raise ValueError("give --eval FILE, or --params and --logs")
        from actuator_models.evaluation import evaluate_model

        labels = source_labels(args.params)
        models = _load(args.params)
        logs = read_logs(args.logs)
        for model, source in zip(models, args.params):
            check_motor(logs, model.actuator.name, f"params {source}", args.allow_mismatch)
        groups = {f"mean over {len(logs)} logs of {args.logs}": {
            label: evaluate_model(model, logs).mean for label, model in zip(labels, models)}}
        title = f"Mean MAE: {_models_title(models, labels)}"
    out = plot_mae_bars(groups, args.out, title=args.title or title)
    print(f"MAE figure written to {out}")
    return 0


def _cmd_export_models(args: argparse.Namespace) -> int:
    from .models import generated_files, read_model
    from .pendulum import PendulumBench, pendulum_mjcf, pendulum_urdf

    out = Path(args.out)
    bench = PendulumBench(args.mass, args.length, args.arm_mass, args.q_offset, args.dt)
    files = {**generated_files(), "pendulum.xml": pendulum_mjcf(bench), "pendulum.urdf": pendulum_urdf(bench)}
    files.update({name: read_model(name) for name in ("arm_mx.xml", "arm_erob.xml")})
    refuse_existing((out / name for name in files), args.force)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)
        print(out / name)
    return 0


# ---------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    from .arm import ARMS, GAIN_LEVELS
    from .paths import PATHS

    parser = ArgumentParser(
        prog="actuator-sim",
        description="MuJoCo simulation of servo joints with the extended friction models M1-M6: "
                    "pendulum replays, 2R arm paths and figures.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help: str, description: str = "") -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=description or help, epilog=_examples(name),
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    def force(p: argparse.ArgumentParser) -> None:
        p.add_argument("--force", action="store_true", help=FORCE_HELP)

    def allow_mismatch(p: argparse.ArgumentParser) -> None:
        p.add_argument("--allow-mismatch", action="store_true", help=ALLOW_MISMATCH_HELP)

    def viscous(p: argparse.ArgumentParser) -> None:
        p.add_argument("--viscous", choices=VISCOUS_MODES, default="frictionloss",
                       help="where the viscous part Kv|v| of the budget goes (default: frictionloss)")

    p = command("pendulum", help="replay a log in MuJoCo; MAE vs the log and vs the reference simulator",
                       description="Replay a processed pendulum log in MuJoCo (goal positions, torque enable, "
                                   "bench from the log; timestep = the log's dt) and print the MAE against the "
                                   "log and against the core simulator run with the semi-implicit integrator.")
    p.add_argument("--params", required=True, metavar="P", help=PARAMS_HELP)
    p.add_argument("--log", required=True, metavar="L", help="a processed JSON log")
    p.add_argument("--json", action="store_true", help='last line: {"mae_log": x, "mae_reference": y}')
    allow_mismatch(p)
    viscous(p)
    p.set_defaults(run=_cmd_pendulum)

    p = command("consistency", help="MuJoCo vs reference simulator MAE table over many logs",
                       description="For each params, replay every log in MuJoCo and in the reference simulator "
                                   "(semi-implicit) and print the mean and max MAE between the two.")
    p.add_argument("--params", required=True, nargs="+", metavar="P", help=PARAMS_HELP)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--logs", metavar="DIR", help="folder of processed logs")
    src.add_argument("--synthetic", metavar="P", help="generate the four trajectories with this model")
    p.add_argument("--bench", type=_parse_bench, action="append", metavar="MASS,LENGTH,KP",
                   help="synthetic bench configuration (repeatable; default: 3 configurations)")
    p.add_argument("--json", action="store_true", help="also print the table as one JSON line")
    viscous(p)
    p.set_defaults(run=_cmd_consistency)

    p = command("arm", help="run a 2R arm on an end-effector path; write joint trajectories",
                       description="Simulate a 2R arm following an end-effector path (IK to joint goals) with the "
                                   "chosen servo models; optionally the MAE against a reference run.")
    p.add_argument("--arm", required=True, choices=sorted(ARMS))
    p.add_argument("--shoulder", required=True, metavar="P", help=PARAMS_HELP + ", or m1..m6 for the arm's actuator")
    p.add_argument("--elbow", required=True, metavar="P", help="as --shoulder")
    p.add_argument("--path", required=True, choices=list(PATHS))
    p.add_argument("--gain", default="low", help=f"{' or '.join(GAIN_LEVELS)} or a number (default low)")
    p.add_argument("--reference-shoulder", metavar="P", help="shoulder model of the reference run")
    p.add_argument("--reference-elbow", metavar="P", help="elbow model of the reference run")
    p.add_argument("--out", metavar="JSON", help="write the joint trajectories here")
    force(p)
    p.add_argument("--json", action="store_true", help="last line: the MAE against the reference as JSON")
    viscous(p)
    p.set_defaults(run=_cmd_arm)

    p = command("arm-compare", help="virtual 2R experiment: MAE of candidate models vs a 'real' arm",
                       description="Simulate a 'real' arm and candidate model pairs on every path and print the "
                                   "joint MAE of each candidate against the real arm.")
    p.add_argument("--arm", required=True, choices=sorted(ARMS))
    p.add_argument("--real-shoulder", default="m6", metavar="P", help="default: the arm's published m6")
    p.add_argument("--real-elbow", default="m6", metavar="P", help="default: the arm's published m6")
    p.add_argument("--candidate", nargs=3, action="append", metavar=("LABEL", "SHOULDER", "ELBOW"),
                   help="a candidate pair (repeatable; default: published M1..M6)")
    p.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    p.add_argument("--gain", nargs="+", default=["low"], help="gain levels (default: low)")
    p.add_argument("--out", metavar="JSON", help="write the MAE table (input of plot-mae)")
    force(p)
    viscous(p)
    p.set_defaults(run=_cmd_arm_compare)

    p = command("transfer", help="do semi-implicit-identified models transfer to MuJoCo better than bam ones?",
                       description="Virtual pendulum bench (MuJoCo, published M6 as the real actuators), "
                                   "identification of M1 and M6 with the bam and the semi-implicit step (same logs, "
                                   "same trials), then the 2R arm MAE of each fitted pair against the real arm. "
                                   "Needs actuator_models.identification; takes minutes.")
    p.add_argument("--arm", required=True, choices=sorted(ARMS))
    p.add_argument("--trials", type=int, default=2000, help="CMA-ES trials per fit (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    p.add_argument("--gain", nargs="+", default=["low"], help="gain levels (default: low)")
    p.add_argument("--out", "--out-dir", dest="out_dir", metavar="DIR", help="write the fitted params and transfer.json here")
    force(p)
    p.set_defaults(run=_cmd_transfer)

    p = command("plot-diagram", help="drive/backdrive diagrams (paper Fig. 2 and 4)",
                       description="Drive and backdrive limits of the load for each motor torque, one line per "
                                   "velocity (0, 1, 2, ... rad/s), one panel per params.")
    p.add_argument("--params", required=True, nargs="+", metavar="P", help=PARAMS_HELP)
    p.add_argument("--out", required=True, metavar="PNG", help="the figure file")
    force(p)
    p.add_argument("--max-torque", type=float, help="axis range [N m] (default: half the stall torque)")
    p.add_argument("--velocities", type=int, default=4, help="number of velocity lines (default 4)")
    p.add_argument("--title", default="", help="figure title (default: actuator, data and models)")
    p.set_defaults(run=_cmd_plot_diagram)

    p = command("plot-trajectory", help="simulated vs measured trajectory and error (paper Fig. 1)",
                description="Measured vs simulated position of one log and the error, one curve per params "
                            "source (labelled by file or library name, with its MAE).")
    p.add_argument("--params", required=True, nargs="+", metavar="P", help=PARAMS_HELP)
    p.add_argument("--log", required=True, metavar="L", help="a processed JSON log")
    p.add_argument("--out", required=True, metavar="PNG", help="the figure file")
    force(p)
    p.add_argument("--engine", choices=("reference", "mujoco"), default="reference",
                   help="simulator: the core reference (params' integrator) or MuJoCo")
    allow_mismatch(p)
    p.add_argument("--title", default="", help="figure title (default: actuator, data and models)")
    p.set_defaults(run=_cmd_plot_trajectory)

    p = command("plot-mae", help="MAE bars per model (paper Fig. 5 and 7)",
                       description="MAE bars from an evaluation JSON (arm-compare --out, or the JSON line of "
                                   "'actuator-models evaluate --json') or from --params and --logs.")
    p.add_argument("--eval", metavar="JSON", help="evaluation JSON file")
    p.add_argument("--params", nargs="+", metavar="P", help=PARAMS_HELP)
    p.add_argument("--logs", metavar="DIR", help="folder of processed logs (with --params)")
    allow_mismatch(p)
    p.add_argument("--out", required=True, metavar="PNG", help="the figure file")
    force(p)
    p.add_argument("--title", default="", help="figure title (default: actuator, data and models)")
    p.set_defaults(run=_cmd_plot_mae)

    p = command("export-models", help="write the MJCF/URDF files (pendulum for a given bench)")
    p.add_argument("--out", required=True, metavar="DIR")
    force(p)
    p.add_argument("--mass", type=_positive, default=1.0, help="pendulum mass [kg]")
    p.add_argument("--length", type=_positive, default=0.15, help="pendulum length [m]")
    p.add_argument("--arm-mass", type=_non_negative, default=0.0, help="pendulum arm mass [kg]")
    p.add_argument("--q-offset", type=float, default=0.0, help="encoder offset [rad]")
    p.add_argument("--dt", type=float, default=0.005, help="MuJoCo timestep [s]")
    p.set_defaults(run=_cmd_export_models)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return run_command(lambda: args.run(args), "actuator-sim", (ValueError,))


if __name__ == "__main__":
    sys.exit(main())
