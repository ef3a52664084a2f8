"""``actuator-models dahl identify``: the two-stage Dahl identification from CSV records.

Each record is a CSV file with a header line naming the columns ``t,x,F`` (time [s],
displacement [rad], measured friction force [N m]; any order, extra columns ignored).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

import numpy as np

from .dahl_identification import ILL_CONDITIONED, METHODS, DahlDataError, Record, identify
from .exit_codes import json_alone
from .option_numbers import open_fraction
from .outputs import refuse_existing

COLUMNS = ("t", "x", "F")
LABELS = ("eq. 39 (Xmin)", "eq. 40 (Xmax)", "eq. 41 (midpoint)", "least squares, eq. 35")


def read_record(path: str) -> Record:
    """Read a ``t,x,F`` CSV record; errors name the file, line and column."""
    file = Path(path)
    if not file.is_file():
        raise DahlDataError(f"{path}: {'a folder, not a CSV file' if file.is_dir() else 'no such file'}")
    try:
        text = file.read_text()
    except UnicodeDecodeError as error:  # issue 34: was a traceback
        raise DahlDataError(f"{path}: not a text (UTF-8) CSV file: byte {error.start} is "
                            f"{error.object[error.start]:#04x}") from None
    if "\0" in text:
        raise DahlDataError(f"{path}: not a text CSV file (it holds NUL bytes)")
    reader = csv.reader(text.splitlines())
    header = [name.strip() for name in next(reader, [])]
    missing = [name for name in COLUMNS if name not in header]
    if missing:
        raise DahlDataError(f"{path}: header {header} lacks column(s) {', '.join(missing)} (need t,x,F)")
    where = [header.index(name) for name in COLUMNS]
    rows = []
    for line, row in enumerate(reader, start=2):
        if not row or all(not cell.strip() for cell in row):
            continue
        values = []
        for name, index in zip(COLUMNS, where):
            try:
                value = float(row[index])
            except (IndexError, ValueError):
                cell = row[index] if index < len(row) else "<missing>"
                raise DahlDataError(f"{path}: line {line}: column {name!r} is {cell!r}, expected a number") from None
            if not math.isfinite(value):
                raise DahlDataError(f"{path}: line {line}: column {name!r} is {value}, expected a finite number")
            values.append(value)
        rows.append(values)
    if not rows:
        raise DahlDataError(f"{path}: no data rows")
    data = np.array(rows)
    return Record(data[:, 0], data[:, 1], data[:, 2], str(path))


@json_alone
def _cmd_identify(args: argparse.Namespace) -> int:
    result = identify(read_record(args.constant_velocity), read_record(args.periodic), args.tail)
    h = result.hysteresis
    print(f"stage 1 (eq. 20): Fc = {result.fc:.8g} N m  (velocity {result.coulomb.velocity:.6g} rad/s, "
          f"{result.coulomb.samples} samples averaged, spread {result.coulomb.spread:.3g})")
    print(f"stage 2: last full period of {h.periods} at t = {h.start_time:.6g} s, T = {h.period:.6g} s, "
          f"Xmin = {h.x_min:.6g}, Xmax = {h.x_max:.6g} rad, drift from the previous period {h.drift:.2e} Fc")
    if h.x_noise > 0.0:
        print(f"  noise on x: {h.x_noise:.3g} rad (standard deviation)")
    for label, name in zip(LABELS, METHODS):
        print(f"  rho {label:<22} = {getattr(h, name):.8g} +- {h.uncertainty[name]:.3g} 1/rad")
    print(f"rho = {result.rho:.8g} +- {h.uncertainty[h.method]:.3g} 1/rad ({LABELS[METHODS.index(h.method)]}: "
          f"the smallest uncertainty, 1 sd)")
    if h.condition > ILL_CONDITIONED:
        print(f"warning: eqs. 39 and 40 are ill-conditioned here: rho (Xmax - Xmin) = "
              f"{result.rho * (h.x_max - h.x_min):.3g}, so a relative force error e at Xmin or Xmax moves "
              f"their rho by {h.condition:.3g} e; use the least-squares rho", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict()), file=args.json_stream)
    return 0


def write_record(path: Path, t: np.ndarray, x: np.ndarray, force: np.ndarray) -> None:
    """A ``t,x,F`` CSV record (12 significant digits)."""
    rows = "\n".join(f"{a:.12g},{b:.12g},{c:.12g}" for a, b, c in zip(t, x, force))
    path.write_text(f"t,x,F\n{rows}\n")


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .dahl_experiments import PaperExperiments, with_noise

    out = Path(args.out_dir)
    paths = (out / "constant_velocity.csv", out / "periodic.csv")
    refuse_existing(paths, args.force)
    if not args.x_noise >= 0.0:
        raise DahlDataError(f"--x-noise: must be >= 0, got {args.x_noise}")
    try:
        experiments = PaperExperiments(fc=args.fc, rho=args.rho, amplitude=args.amplitude)
    except ValueError as error:
        raise DahlDataError(str(error)) from None
    rng = np.random.default_rng(args.seed)
    out.mkdir(parents=True, exist_ok=True)
    for path, record in zip(paths, (experiments.constant_velocity(), experiments.periodic())):
        write_record(path, *with_noise(record, args.x_noise, rng))
        print(f"wrote {path}")
    return 0


def _cmd_figures(args: argparse.Namespace) -> int:
    from .dahl_figures import draw_figures

    refuse_existing([Path(args.out_dir) / f"fig{n}.png" for n in range(5, 12)], args.force)
    for path in draw_figures(args.out_dir):
        print(f"wrote {path}")
    return 0


def add_dahl_command(sub: "argparse._SubParsersAction") -> None:
    """Add ``dahl identify``."""
    examples = ("examples:\n  actuator-models dahl simulate --out-dir data/dahl --x-noise 1e-5\n"
                "  actuator-models dahl identify --constant-velocity data/dahl/constant_velocity.csv "
                "--periodic data/dahl/periodic.csv --json\n  actuator-models dahl figures --out-dir dahl-figures")
    dahl = sub.add_parser("dahl", help="Dahl dynamic friction: two-stage identification",
                          description="The Dahl friction model (Garcia-Banos and Ikhouane).", epilog=examples,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = dahl.add_subparsers(dest="dahl_command", metavar="SUBCOMMAND", required=True)
    p = commands.add_parser(
        "identify", help="Fc from a constant-velocity record, rho from a wave-periodic one",
        description="Stage 1: Fc as the settled force under constant velocity (eq. 20). Stage 2: rho from "
                    "the loading branch of the last full period of a wave-periodic displacement (eqs. 39, "
                    "40, 41, and a least-squares fit of eq. 35). CSV records with a header line: t,x,F "
                    "(s, rad, N m). Noise on x is smoothed; each estimate's uncertainty is its spread over the "
                    "periods after the first, and rho is the estimate with the smallest one.",
        epilog=examples, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--constant-velocity", required=True, metavar="A.csv", help="stage-1 record (t,x,F)")
    p.add_argument("--periodic", required=True, metavar="B.csv", help="stage-2 record (t,x,F), wave-periodic x")
    p.add_argument("--tail", type=open_fraction, default=0.25,
                   help="fraction of the stage-1 travel, at its end, averaged for Fc (default 0.25)")
    p.add_argument("--json", action="store_true",
                   help="also print one JSON line: Fc, rho, rho_eq39, rho_eq40, rho_eq41, rho_lsq, details")
    p.set_defaults(run=_cmd_identify)
    sim = commands.add_parser(
        "simulate", help="write the paper's two experiments (section 3) as t,x,F records",
        description="Stage 1: x = t for 30 s; stage 2: x = -A cos t for 6 periods; 100 Hz; force Fc w from "
                    "the exact Dahl update from w(0) = 0; optional white noise on x. Writes "
                    "OUT/constant_velocity.csv and OUT/periodic.csv.")
    sim.add_argument("--out-dir", required=True, metavar="OUT")
    sim.add_argument("--fc", type=float, default=1.0, help="Fc [N m] (default 1)")
    sim.add_argument("--rho", type=float, default=1.0, help="rho [1/rad] (default 1)")
    sim.add_argument("--amplitude", type=float, default=1.0, help="A [rad] of stage 2 (default 1)")
    sim.add_argument("--x-noise", type=float, default=0.0, metavar="RAD",
                     help="standard deviation of white noise added to x [rad] (default 0)")
    sim.add_argument("--seed", type=int, default=0, help="noise seed (default 0)")
    sim.add_argument("--force", action="store_true", help="overwrite existing files")
    sim.set_defaults(run=_cmd_simulate)
    fig = commands.add_parser("figures", help="redraw the paper's Figures 5-11 (fig5.png .. fig11.png)")
    fig.add_argument("--out-dir", required=True, metavar="OUT")
    fig.add_argument("--force", action="store_true", help="overwrite existing files")
    fig.set_defaults(run=_cmd_figures)
