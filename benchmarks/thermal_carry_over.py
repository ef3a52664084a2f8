"""What a default fit carrying ``thermal`` gets without a logged temperature (issue 31, acceptance 2).

For each seed: ``actuator-models fit --model m6 --seed S`` at default settings (the default split of
the 12 shared XL330 logs: 8 training logs, 4 held out; the default carry, ``thermal`` on these
logs), then on the 12 logs:

- the position MAE [rad] fed the logged temperature (both thermal nodes start at each log's first
  reading) and with the ``temp`` column removed (they start at the params file's
  ``thermal_initial``: what a simulation that knows no temperature gets), over the training logs,
  the held-out logs and all 12, and the ratio without / with (acceptance: within 10 %);
- the case node's MAE [K] against the ``temp`` register on the held-out logs, started from each
  log's first reading (acceptance: within 1.5 K), and the register's and the prediction's rise
  over each held-out log.

With ``--per-log``, each log's row as well: its gain, its first reading's offset from
``thermal_initial`` [K], the MAE fed / without the temperature and the rise [mrad] over each half of
the log (an offset that decays shows in the first half only; a persistent one in both).

With ``--other-start``, a second row per seed: the same fit with ``thermal_initial`` set by the
other rule (``mean`` of the training logs' first readings <-> ``fitted`` on the training logs
without their temperature, :mod:`actuator_models.thermal_start`); only the no-temperature
figures can differ. ``--thermal-start`` sets the fit's own rule (default: the fit's default).

    python benchmarks/thermal_carry_over.py --seeds 0-3
    python benchmarks/thermal_carry_over.py --seeds 1 --per-log
    python benchmarks/thermal_carry_over.py --seeds 0-7 --other-start
    python benchmarks/thermal_carry_over.py --seeds 0-7 --carry thermal,supply
"""

from __future__ import annotations

import argparse
import warnings
from dataclasses import replace
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy as np

from actuator_models.fit_cli import parse_carry
from actuator_models.fit_data import FitSettings
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.logs import Log
from actuator_models.model import Model
from actuator_models.objective import Objective
from actuator_models.simulation import LogBatch, mean_absolute_errors, rollout_temperatures, temperature_errors
from actuator_models.thermal_start import fitted_initial
from seeds import seeds_of  # this folder (a script's own folder is on sys.path)

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"


def bare(logs: Sequence[Log]) -> List[Log]:
    """``logs`` with the ``temp`` column removed."""
    return [replace(log, extra={k: v for k, v in log.extra.items() if k != "temp"}) for log in logs]


def simulated(model: Model, logs: Sequence[Log]) -> Tuple[np.ndarray, LogBatch]:
    """Simulated positions [rad], one row per log (padded past each log's length), and the logs'
    batch they were simulated on."""
    batch = LogBatch.from_logs(list(logs), model.actuator.default_vin)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        positions, _ = rollout_temperatures(model.actuator, model.friction, model.values, batch, model.integrator)
    return positions, batch


def position_maes(model: Model, logs: Sequence[Log]) -> np.ndarray:
    """Position MAE [rad] per log."""
    return mean_absolute_errors(*simulated(model, logs))


def per_log(model: Model, train: Sequence[Log], logs: Sequence[Log]) -> None:
    """Print one row per log: training or held out, kp, start offset [K], the MAE [rad] fed / without
    the temperature, and its rise [mrad] over the first and the second half of the log."""
    fed, batch = simulated(model, logs)
    blind, _ = simulated(model, bare(logs))
    for i, log in enumerate(logs):
        n = int(batch.lengths[i])
        e_fed, e_blind = (np.abs(x[i, :n] - batch.position[i, :n]) for x in (fed, blind))
        halves = [1000 * (e_blind[part].mean() - e_fed[part].mean()) for part in (slice(0, n // 2), slice(n // 2, n))]
        print(f"|  | {'train' if i < len(train) else 'held out'} {Path(str(log.source)).name} | kp {batch.kp[i]:.0f} | "
              f"{batch.temperature[i, 0] - model.values['thermal_initial']:+.1f} K | {e_fed.mean():.4f} / "
              f"{e_blind.mean():.4f} | {halves[0]:+.1f} / {halves[1]:+.1f} mrad |", flush=True)


def register(model: Model, logs: Sequence[Log]) -> tuple:
    """(case MAE [K] per log, the register's rise [K], the predicted rise [K]) from each log's
    first reading."""
    batch = LogBatch.from_logs(list(logs), model.actuator.default_vin)
    _, temperatures = rollout_temperatures(model.actuator, model.friction, model.values, batch, model.integrator)
    ends = batch.lengths - 1
    rows = np.arange(len(logs))
    return (temperature_errors(temperatures, batch), batch.temperature[rows, ends] - batch.temperature[:, 0],
            temperatures[rows, ends] - temperatures[:, 0])


def one_seed(logs_dir: Path, seed: int, trials: Optional[int], logs_rows: bool = False,
             start: Optional[str] = None, other_start: bool = False,
             carry: Optional[Tuple[str, ...]] = None) -> None:
    settings = FitSettings(seed=seed, **({} if trials is None else {"trials": trials}),
                           **({} if start is None else {"thermal_start": start}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = fit(FitSpec(str(logs_dir), "xl330", ("m6",), settings, carry=carry))
    model, data = report.result().model, report.dataset
    if "thermal" not in model.additions:
        raise SystemExit(f"error: the default fit carries {model.additions or 'nothing'}, not thermal")
    train, held = list(data.train), list(data.validation)
    print_row(model, seed, settings.thermal_start, train, held)
    if other_start:
        if settings.thermal_start == "fitted":
            other, rule = float(np.mean([log.extra["temp"][0] for log in train])), "mean"
        else:
            other, rule = fitted_initial(Objective(model, train), model.values), "fitted"
        print_row(model.with_values(thermal_initial=other), seed, rule, train, held)
    if logs_rows:
        per_log(model, train, train + held)


def print_row(model: Model, seed: int, rule: str, train: List[Log], held: List[Log]) -> None:
    """One table row: the MAE fed / without the temperature over the training, held-out and all
    logs, the register's prediction on the held-out logs, and ``thermal_initial`` (``rule``)."""
    rows = []
    for name, logs in (("train", train), ("held out", held), ("all 12", train + held)):
        fed, blind = float(position_maes(model, logs).mean()), float(position_maes(model, bare(logs)).mean())
        rows.append(f"{name} {fed:.5f} / {blind:.5f} ({100 * (blind / fed - 1):+.1f} %)")
    case, rose, predicted = register(model, held)
    print(f"| {seed} | {' | '.join(rows)} | {case.mean():.2f} (worst {case.max():.2f}) | "
          f"{', '.join(f'{r:+.1f}/{p:+.2f}' for r, p in zip(rose, predicted))} | "
          f"{model.values['thermal_initial']:.2f} ({rule}) |", flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0-3", help="seeds, e.g. 0-7 (default 0-3)")
    p.add_argument("--trials", type=int, default=None, help="trial budget (default: the fit's default)")
    p.add_argument("--logs", type=Path, default=LOGS)
    p.add_argument("--per-log", action="store_true",
                   help="also one row per log: kp, start offset, MAE fed / without, change per half")
    p.add_argument("--thermal-start", choices=("mean", "fitted"), help="the fit's thermal_start (default: the fit's)")
    p.add_argument("--other-start", action="store_true",
                   help="also a row with the same fit's thermal_initial set by the other rule (mean <-> fitted)")
    p.add_argument("--carry", default="auto", help="as fit --carry (default: auto, the fit's carry rule)")
    args = p.parse_args(argv)
    print(f"M6, default fit (default split, carry {args.carry}): position MAE [rad] fed the logged temperature / "
          "without it (change), case-node MAE [K] against the register on the held-out logs from their first "
          "reading, register / predicted rise per held-out log [K], thermal_initial [degC] (rule)")
    print("| seed | train | held out | all 12 | register MAE, held out | rise | T0 |")
    print("|---|---|---|---|---|---|---|")
    for seed in seeds_of(args.seeds):
        one_seed(args.logs, seed, args.trials, args.per_log, args.thermal_start, args.other_start,
                 parse_carry(args.carry, "xl330"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
