"""``actuator-bench``: the driver tools of ``actuator_drivers`` (emulate, veth), recording
(``record``, ``record-all``: :mod:`.record_cli`) and the bench's own commands.

    actuator-bench bag2json BAG --out DIR [--dt 0.005 | --raw] [--namespace /real] [--force]
    actuator-bench demo [--quick] [--out DIR] [--force]
    actuator-bench play --backend dynamixel_emulator --trajectory sin_sin --kp 400 --out logs [--bag bags/run] [--force]

``play`` runs the bench node's control loop without ROS on any backend of the registry
(:mod:`actuator_bench.backends`) and records JSON logs (and an MCAP bag) of the same cycles.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from actuator_drivers.cli import EMULATOR_COMMANDS, Command
from actuator_drivers.cli import main as run_commands

from actuator_models.actuators import ACTUATORS
from actuator_models.exit_codes import INTERRUPTED
from actuator_models.log_checks import check_dt_option
from actuator_models.outputs import refuse_existing
from actuator_models.trajectories import TRAJECTORIES

from actuator_models.bench import BenchParams
from actuator_models.family import family_actuators

from .backends import BackendRegistry, installed_backends
from .bench_options import add_command_timeout
from .bag2json import DEFAULT_DT, convert
from .demo_outputs import clear_earlier_demo, recorded_outputs
from .demo_settings import DEMO_MARKER, DEMO_OUTPUTS, demo_settings, interrupts_raise, kept
from .messages import BenchInfo
from .player import ARM_PATHS
from .record_cli import RECORD_COMMANDS


def _configure_bag2json(p: argparse.ArgumentParser) -> None:
    p.add_argument("bag", type=Path, help="rosbag2 folder (MCAP or SQLite 3) recorded from a bench")
    p.add_argument("--out", type=Path, metavar="DIR", help="folder for the JSON logs (created)")
    p.add_argument("out_dir", type=Path, nargs="?", help=argparse.SUPPRESS)  # the former positional form
    p.add_argument("--force", action="store_true", help="overwrite logs of an earlier conversion (refused otherwise)")
    timing = p.add_mutually_exclusive_group()
    timing.add_argument("--dt", type=float, default=DEFAULT_DT,
                        help=f"resampling period of the processed logs, s [{DEFAULT_DT}]")
    timing.add_argument("--raw", action="store_true", help="write raw logs (the samples as recorded)")
    p.add_argument("--namespace", help="only this bench namespace, e.g. /real [all]")


def _run_bag2json(args: argparse.Namespace) -> int:
    out = args.out or args.out_dir
    if out is None:
        raise ValueError("bag2json: give --out DIR, the folder for the JSON logs")
    if not args.raw:
        check_dt_option(args.dt)
    paths = convert(args.bag, out, None if args.raw else args.dt, args.namespace, overwrite=args.force)
    for path in paths:
        print(path)
    print(f"{len(paths)} log(s) written to {out}", file=sys.stderr)
    return 0


def _configure_demo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="a smaller grid and search: about a minute")
    p.add_argument("--out", type=Path, default=Path("demo-out"), help="output folder [demo-out]")
    p.add_argument("--force", action="store_true",
                   help=f"replace the files an earlier demo wrote in {', '.join(DEMO_OUTPUTS)} of a non-empty --out, and "
                        "no other (refused otherwise)")
    p.add_argument("--actuator", choices=tuple(demo_settings()), default="mx64",
                   help="emulated servo: the demo of each installed family (a Dynamixel MX-64 on a pty, a Feetech STS3215, "
                        "an eRob80:100 over EtherCAT on a veth pair: root) [mx64]")


def _run_demo(args: argparse.Namespace) -> int:
    marker = args.out / DEMO_MARKER
    if args.out.exists() and any(args.out.iterdir()):
        refuse_existing([args.out], args.force)
        if marker.is_file():  # a fresh start: no raw logs of an earlier demo in the new fit, no user file lost
            print("\n".join(clear_earlier_demo(args.out)), file=sys.stderr)
        else:
            print(f"note: {args.out} was not written by a demo: nothing in it is removed, the demo's files are "
                  "replaced", file=sys.stderr)
    else:
        refuse_existing([args.out / DEMO_MARKER], option="--out")  # writable: checked before the recording
    args.out.mkdir(parents=True, exist_ok=True)
    from .demo import run_demo  # imports MuJoCo and optuna: only when asked

    with interrupts_raise(), recorded_outputs(args.out):
        try:
            return run_demo(args.out, args.quick, args.actuator)
        except KeyboardInterrupt:
            print(f"\n[demo] interrupted; kept in {args.out}: {kept(args.out)}", file=sys.stderr)
            return INTERRUPTED


def _configure_play(registry: BackendRegistry) -> Callable[[argparse.ArgumentParser], None]:
    def configure(p: argparse.ArgumentParser) -> None:
        p.add_argument("--backend", required=True, choices=tuple(registry), help=registry.describe())
        p.add_argument("--trajectory", required=True, choices=(*TRAJECTORIES, *ARM_PATHS))
        p.add_argument("--kp", type=float, required=True, help="gain (actuator units)")
        p.add_argument("--actuator", default="xl330", choices=sorted({*ACTUATORS, *family_actuators()}),
                       help="actuator [xl330]")
        p.add_argument("--model", default="", help="servo model (params file or name such as xl330/m6) "
                       "[<actuator>/m6]")
        p.add_argument("--mass", type=float, default=0.49, help="pendulum mass, kg [0.49]")
        p.add_argument("--length", type=float, default=0.1, help="pendulum length, m [0.1]")
        p.add_argument("--port", help="bus device or network interface, for a backend that has one [its default]")
        p.add_argument("--rate", type=float, default=100.0, help="control rate, Hz of bench time [100]")
        p.add_argument("--time-scale", type=float, default=1.0, help="emulator/simulation speed-up [1]")
        p.add_argument("--seed", type=int, default=0, help="emulator seed [0]")
        add_command_timeout(p)
        p.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder of the JSON logs (created)")
        p.add_argument("--force", action="store_true", help="overwrite logs of an earlier run (refused otherwise)")
        p.add_argument("--raw", action="store_true", help="raw logs (not resampled)")
        p.add_argument("--bag", type=Path, help="also write an MCAP bag of the run (a new folder)")
    return configure


def _run_play(registry: BackendRegistry) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from .session import RunOutput, record_run

        settings = registry[args.backend].settings_from({"port": args.port} if args.port else {})
        params = BenchParams(actuators=(args.actuator,), models=(args.model,), mass=args.mass, length=args.length,
                             time_scale=args.time_scale, seed=args.seed, command_timeout=args.command_timeout,
                             settings=settings)
        bench = registry.open(args.backend, params)
        try:
            info = BenchInfo(args.actuator, mass=args.mass, length=args.length)
            record = record_run(bench, info, args.trajectory, args.kp, rate=args.rate,
                                output=RunOutput(args.out, args.bag, None if args.raw else DEFAULT_DT,
                                                 args.backend, args.force))
        finally:
            bench.close()
        for path in record.paths:
            print(path)
        print(f"{record.ticks} cycles; {len(record.paths)} log(s) in {args.out}"
              + (f"; bag {record.bag}" if record.bag else ""), file=sys.stderr)
        return 0
    return run


def commands(registry: Optional[BackendRegistry] = None) -> Tuple[Command, ...]:
    """Every subcommand; ``play`` offers the backends of ``registry`` (default: the installed ones)."""
    registry = registry if registry is not None else installed_backends()
    play = Command("play", "play a trajectory on a bench of any backend (no ROS) into JSON logs and an MCAP bag",
                   _configure_play(registry), _run_play(registry),
                   ("actuator-bench play --backend dynamixel_emulator --trajectory sin_sin --kp 400 --out logs/play",
                    "actuator-bench play --backend mujoco --trajectory lift_and_drop --kp 400 --out logs/sim "
                    "--bag bags/sim"))
    return EMULATOR_COMMANDS + RECORD_COMMANDS + BENCH_COMMANDS + (play,)


BENCH_COMMANDS = (
    Command("demo", "the whole pipeline without ROS or hardware: emulated servo, recordings, M1-M6 fits, report, plots",
            _configure_demo, _run_demo,
            ("actuator-bench demo --quick --out demo-out      # about a minute",
             "actuator-bench demo --out demo-full --force     # 48 recordings, under 10 minutes on 2 cores")),
    Command("bag2json", "convert a bench bag into JSON logs (one per trajectory run and joint) for identification",
            _configure_bag2json, _run_bag2json,
            ("actuator-bench bag2json bags/run1 --out logs/",
             "actuator-bench bag2json bags/run1 --out logs/raw --raw --namespace /real")),
)


def main(argv: Optional[List[str]] = None, registry: Optional[BackendRegistry] = None) -> int:
    return run_commands(argv, commands(registry), prog="actuator-bench")


if __name__ == "__main__":
    sys.exit(main())
