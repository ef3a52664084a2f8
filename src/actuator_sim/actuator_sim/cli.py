"""``actuator-sim``: MuJoCo replays, 2R arm runs and figures from the shell.

Bad input (a malformed log or params file, an unknown arm or path) prints one ``error: ...``
line and exits with status 2.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from actuator_models.divergence import params_named
from actuator_models.exit_codes import ArgumentParser, json_alone, run_command
from actuator_models.log_checks import LENGTH_RANGE, MASS_RANGE
from actuator_models.logs import ALLOW_MISMATCH_HELP, ALLOW_ODD_LOGS_HELP, read_log, read_logs
from actuator_models.model import load_model
from actuator_models.option_numbers import count, finite, non_negative, positive, temperature
from actuator_models.simulation import BENCH_DT
from actuator_models.outputs import refuse_existing

from .arm_commands import cmd_arm, cmd_arm_compare, cmd_transfer
from .export_command import cmd_export
from .cli_params import check_params_motor, load_params, print_json, resolve_params  # noqa: F401 (resolve_params: public here before)
from .figure_commands import cmd_plot_diagram, cmd_plot_mae, cmd_plot_trajectory, mae_groups  # noqa: F401 (mae_groups: public here before)
from .friction_split import VISCOUS_MODES

PARAMS_HELP = "a params JSON file or a published model such as mx64/m6"
ARM_MISMATCH_HELP = "use a model of another servo than the arm's on a joint (an error otherwise: gains in its units)"
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
  actuator-sim export --params xl330/m6 --out servo.xml --logs data/xl330/processed

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
    "export": ["actuator-sim export --params xl330/m6 --out servo.xml --logs data/xl330/processed",
               "actuator-sim export --params sts3215/m1 --arm so100 --out so100.xml"],
}


def _examples(command: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])


# ---------------------------------------------------------------------------- pendulum replays
@json_alone
def _cmd_pendulum(args: argparse.Namespace) -> int:
    from .replay import replay

    model, = load_params([args.params])
    log = read_log(args.log, args.allow_odd_logs)
    check_params_motor(log, [model], [args.params], args.allow_mismatch)
    with params_named(args.params):
        result = replay(model, log, args.viscous)
    print(f"{Path(args.log).name}: {model.name}, MuJoCo dt {log.dt} s, viscous part in {args.viscous}")
    print(f"  MAE MuJoCo vs log:                          {result.mae_log:.6f} rad")
    print(f"  MAE MuJoCo vs reference (semi-implicit):    {result.mae_reference:.6f} rad")
    if args.json:
        print_json({"mae_log": result.mae_log, "mae_reference": result.mae_reference}, args.json_stream)
    return 0


def _parse_bench(text: str) -> Tuple[float, float, float]:
    try:
        mass, length, kp = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MASS,LENGTH,KP") from None
    if not (0 < mass <= MASS_RANGE[1] and 0 < length <= LENGTH_RANGE[1] and 0 <= kp < math.inf):
        raise argparse.ArgumentTypeError(f"{text!r}: expected MASS in (0, {MASS_RANGE[1]:g}] kg, LENGTH in "
                                         f"(0, {LENGTH_RANGE[1]:g}] m (a bench's scale), KP >= 0")
    return mass, length, kp


@json_alone
def _cmd_consistency(args: argparse.Namespace) -> int:
    from actuator_models.synthesis import BenchConfig, synthesize_logs

    from .replay import replays

    if args.logs:
        logs = read_logs(args.logs, args.allow_odd_logs)
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
        with params_named(name):
            results = replays(model, logs, args.viscous)
        ref = np.array([r.mae_reference for r in results])
        row = {"mean_mae_reference": float(ref.mean()), "max_mae_reference": float(ref.max()),
               "mean_mae_log": float(np.mean([r.mae_log for r in results]))}
        table[name] = row
        print(f"{name:<16} {row['mean_mae_reference']:>13.2e} {row['max_mae_reference']:>12.2e} "
              f"{row['mean_mae_log']:>13.5f}")
    if args.json:
        print_json(table, args.json_stream)
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
        p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)

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
    p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)
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
    p.add_argument("--allow-mismatch", action="store_true", help=ARM_MISMATCH_HELP)
    force(p)
    p.add_argument("--json", action="store_true", help="last line: the MAE against the reference as JSON")
    viscous(p)
    p.set_defaults(run=cmd_arm)

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
    p.add_argument("--allow-mismatch", action="store_true", help=ARM_MISMATCH_HELP)
    force(p)
    viscous(p)
    p.set_defaults(run=cmd_arm_compare)

    p = command("transfer", help="do semi-implicit-identified models transfer to MuJoCo better than bam ones?",
                       description="Virtual pendulum bench (MuJoCo, published M6 as the real actuators), "
                                   "identification of M1 and M6 with the bam and the semi-implicit step (same logs, "
                                   "same trials), then the 2R arm MAE of each fitted pair against the real arm. "
                                   "Needs actuator_models.identification; takes minutes.")
    p.add_argument("--arm", required=True, choices=sorted(ARMS))
    p.add_argument("--trials", type=count, default=2000, help="CMA-ES trials per fit (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    p.add_argument("--gain", nargs="+", default=["low"], help="gain levels (default: low)")
    p.add_argument("--out", "--out-dir", dest="out_dir", metavar="DIR", help="write the fitted params and transfer.json here")
    force(p)
    p.set_defaults(run=cmd_transfer)

    p = command("plot-diagram", help="drive/backdrive diagrams (paper Fig. 2 and 4)",
                       description="Drive and backdrive limits of the load for each motor torque, one line per "
                                   "velocity (0, 1, 2, ... rad/s), one panel per params.")
    p.add_argument("--params", required=True, nargs="+", metavar="P", help=PARAMS_HELP)
    p.add_argument("--out", required=True, metavar="PNG", help="the figure file")
    force(p)
    p.add_argument("--max-torque", type=positive, help="axis range [N m] (default: half the stall torque)")
    p.add_argument("--velocities", type=count, default=4, help="number of velocity lines (default 4)")
    p.add_argument("--title", default="", help="figure title (default: actuator, data and models)")
    p.set_defaults(run=cmd_plot_diagram)

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
    p.set_defaults(run=cmd_plot_trajectory)

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
    p.set_defaults(run=cmd_plot_mae)

    p = command("export-models", help="write the MJCF/URDF files (pendulum for a given bench)")
    p.add_argument("--out", required=True, metavar="DIR")
    force(p)
    p.add_argument("--mass", type=positive, default=1.0, help="pendulum mass [kg]")
    p.add_argument("--length", type=positive, default=0.15, help="pendulum length [m]")
    p.add_argument("--arm-mass", type=non_negative, default=0.0, help="pendulum arm mass [kg]")
    p.add_argument("--q-offset", type=finite, default=0.0, help="encoder offset [rad]")
    p.add_argument("--dt", type=positive, default=BENCH_DT, help="MuJoCo timestep [s]")
    p.set_defaults(run=_cmd_export_models)

    p = command("export", help="a servo model as native MJCF (no Python in the loop) and what that loses",
                description="Write MJCF that plain MuJoCo runs: the servo's control law as MuJoCo's <dcmotor> (a PWM "
                            "law, with the winding's heating for a thermal model) or a <general> actuator (a current "
                            "law), control = goal position [rad], its armature, and its Coulomb-viscous friction as "
                            "frictionloss/damping (the pendulum bench, or a shipped arm with --arm). With --logs, "
                            "print the MAE the approximation loses against the exact model on those logs.")
    p.add_argument("--params", required=True, metavar="P", help=PARAMS_HELP)
    p.add_argument("--out", required=True, metavar="XML", help="the MJCF file")
    force(p)
    p.add_argument("--arm", choices=sorted(ARMS), help="the servo on both joints of this shipped arm")
    p.add_argument("--kp", type=non_negative, help="firmware gain (default: the arm's low gain, 400 on the pendulum)")
    p.add_argument("--vin", type=positive, help="supply voltage [V] (default: the actuator's)")
    p.add_argument("--mass", type=positive, help="pendulum mass [kg] (default 1)")
    p.add_argument("--length", type=positive, help="pendulum length [m] (default 0.15)")
    p.add_argument("--arm-mass", type=non_negative, help="pendulum arm mass [kg] (default 0)")
    p.add_argument("--dt", type=positive, help="MuJoCo timestep [s] (default 0.005)")
    p.add_argument("--temperature", type=temperature, metavar="DEGC",
                   help="the servo's temperature at the start: the winding resistance R is taken at it, and a "
                        "thermal model's winding heats from it (default: where the model's simulations start, "
                        "thermal_initial for a thermal model, else 25)")
    p.add_argument("--logs", metavar="DIR", help="processed pendulum logs: print the approximation's MAE loss "
                   "(each log exported at its own gain, voltage and first temperature reading)")
    allow_mismatch(p)
    p.add_argument("--json", action="store_true", help="last line: the MAEs as JSON")
    p.set_defaults(run=cmd_export)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return run_command(lambda: args.run(args), "actuator-sim", (ValueError,))


if __name__ == "__main__":
    sys.exit(main())
