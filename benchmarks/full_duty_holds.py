"""Why the model holds a load too strongly at full duty on a gain it was not fitted on (issue 31).

For each seed: a default fit of M6 carrying ``thermal`` on the 8 shared XL330 logs of two gains
(default: kp 100 and 200, which never reach full duty), then the 4 logs of the held-out gain (kp
800, at full duty 23 % of the time) are simulated with four supply voltages:

- the log header's ``vin`` (7.4 V), as every simulator does today;
- the logged ``input_volts`` register, step by step (the measured supply, what the H-bridge has);
- each log's mean ``input_volts`` (the level alone, no sag);
- a supply sag law ``vin = a - b duty^2`` fitted (least squares) on the training logs' registers
  only, at the duty the firmware commands from the simulated encoder reading (nested: nothing of
  the held-out gain is used).

Per variant and log: position MAE [rad]; and in the saturated holds (the ``residuals`` phase
"hold under load" where the logged PWM is at 98 % or more of its limit of 885), the mean of
``(q_sim - q_meas) sign(goal - q_meas)`` [rad] (> 0: the model holds nearer the goal than the servo,
too strong) and the mean logged supply [V] there. The fit's parameters are not refitted with the
other supplies: this checks which candidate explains the held-out residual, it is not a fit.

Then the ``supply`` addition (:mod:`actuator_models.addition_supply`) on the same fit: its
``supply_resistance`` alone chosen on a grid by the training logs' MAE (every other parameter
kept), and the held-out logs' MAE at that choice (and, for the record only, at each grid value).

    python benchmarks/full_duty_holds.py --seeds 0-1
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

from actuator_models.actuators import XL330_GAIN
from actuator_models.fit_data import FitSettings
from actuator_models.identification import Identification
from actuator_models.logs import Log, read_logs
from actuator_models.model import Model, new_model
from actuator_models.residuals import PHASES, phase_labels
from actuator_models.servo import Drive, Servo, output, start
from actuator_models.simulation import LogBatch, bench_step, rollout
from actuator_models.splits import Dataset
from seeds import seeds_of  # this folder (a script's own folder is on sys.path)

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
#: The XL330's PWM limit [counts] (control table: PWM Limit 885 = 100 %).
PWM_LIMIT = 885.0
#: A hold is saturated where the logged PWM is at least this fraction of the limit.
SATURATED = 0.98
#: The supply [V] of one step from (step index, the duty commanded from the encoder reading).
Supply = Callable[[int, np.ndarray], np.ndarray]
#: The grid of ``supply_resistance`` [ohm] the training logs choose from.
SUPPLY_GRID = np.round(np.arange(0.0, 0.5001, 0.025), 3)


def column(log: Log, name: str, steps: int) -> np.ndarray:
    """A logged column padded with its last value to ``steps`` (as :class:`LogBatch` pads)."""
    values = np.asarray(log.extra[name], dtype=float)
    return np.pad(values, (0, steps - len(values)), mode="edge")


def duty(log: Log) -> np.ndarray:
    """The logged PWM as a duty in [-1, 1] (NaN where the unsigned register's wrap was resampled)."""
    load = np.asarray(log.extra["load"], dtype=float)
    load = np.where(load > 32767, load - 65536, load)
    return np.where(np.abs(load) <= PWM_LIMIT, load / PWM_LIMIT, np.nan)


def sag_law(logs: Sequence[Log]) -> Tuple[float, float]:
    """``(a, b)`` [V] of ``input_volts = a - b duty^2``, least squares over the logs' samples."""
    d = np.concatenate([duty(log) for log in logs])
    v = np.concatenate([np.asarray(log.extra["input_volts"], dtype=float) for log in logs])
    ok = np.isfinite(d)
    (a, slope), *_ = np.linalg.lstsq(np.c_[np.ones(ok.sum()), d[ok] ** 2], v[ok], rcond=None)
    return float(a), float(-slope)


def simulate(model: Model, batch: LogBatch, supply: Supply) -> np.ndarray:
    """Simulated positions [rad] ``(L, T)``: the rollout's loop, with the supply of each step."""
    p = {name: np.asarray(value, dtype=float)[..., None] for name, value in model.values.items()}
    servo = Servo.carrying(model.actuator, model.friction, model.values)
    q, v = batch.position[:, 0].copy(), batch.speed[:, 0].copy()
    state = start(servo, q, p, batch.dt, {"temperature": batch.first_temperature()})
    out = np.empty((len(batch.kp), batch.steps))
    for k in range(batch.steps):
        out[:, k] = output(servo, state, q)
        commanded = np.clip(batch.kp * XL330_GAIN * (batch.goal_position[:, k] - out[:, k]), -1.0, 1.0)
        drive = Drive(batch.goal_position[:, k], batch.torque_enable[:, k], batch.kp, supply(k, commanded), batch.dt,
                      {"temperature": batch.temperature[:, k]})
        q, v, _ = bench_step(servo, state, q, v, batch.bench, drive, p, model.integrator)
    return out


def hold_figures(log: Log, simulated: np.ndarray) -> Tuple[float, float, float]:
    """(share of the log in saturated holds, mean signed "too strong" error there [rad], mean
    logged supply there [V])."""
    labels = phase_labels(log)
    n = len(labels)
    measured = np.asarray(log.position, dtype=float)[:n]
    goal = np.asarray(log.goal_position, dtype=float)[:n]
    saturated = (labels == PHASES.index("hold under load")) & (np.abs(np.nan_to_num(duty(log)[:n])) >= SATURATED)
    if not saturated.any():
        return 0.0, float("nan"), float("nan")
    strong = (simulated[:n] - measured) * np.sign(goal - measured)
    volts = np.asarray(log.extra["input_volts"], dtype=float)[:n]
    return float(saturated.mean()), float(strong[saturated].mean()), float(volts[saturated].mean())


def mean_mae(model: Model, logs: Sequence[Log], values: Dict[str, float]) -> float:
    """Mean over ``logs`` of the position MAE [rad] of the rollout at ``values``."""
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    q = rollout(model.actuator, model.friction, values, batch, model.integrator)
    return float(np.mean([np.mean(np.abs(q[i, :n] - batch.position[i, :n])) for i, n in enumerate(batch.lengths)]))


def supply_scan(model: Model, train: Sequence[Log], test: Sequence[Log]) -> List[str]:
    """The supply resistance chosen by the training logs, and the held-out MAE there."""
    scores = [(rs, mean_mae(model, train, {**model.values, "supply_resistance": rs}),
               mean_mae(model, test, {**model.values, "supply_resistance": rs})) for rs in SUPPLY_GRID]
    chosen = min(scores, key=lambda s: s[1])
    return ([f"  supply addition, supply_resistance chosen on the training logs: {chosen[0]:.3f} ohm (training MAE "
             f"{chosen[1]:.5f}, {scores[0][1]:.5f} without): held-out MAE {chosen[2]:.5f} ({scores[0][2]:.5f} without)"]
            + ["    grid (record only): " + ", ".join(f"{rs:.3f}: {t:.4f}/{h:.4f}" for rs, t, h in scores)])


def seed_report(logs: List[Log], seed: int, held: float, trials: int) -> List[str]:
    train = tuple(log for log in logs if log.kp != held)
    test = [log for log in logs if log.kp == held]
    dataset = Dataset(tuple(logs), train, tuple(test), "gains")
    settings = FitSettings(seed=seed) if trials <= 0 else FitSettings(seed=seed, trials=trials)
    model = Identification(new_model("xl330", "m6", additions=("thermal",)), dataset, settings).run().model
    batch = LogBatch.from_logs(test, model.actuator.default_vin)
    logged = np.stack([column(log, "input_volts", batch.steps) for log in test])
    a, b = sag_law(train)
    supplies: Dict[str, Supply] = {
        f"header vin {batch.vin[0]:.2f} V": lambda k, d: batch.vin,
        "logged input_volts": lambda k, d: logged[:, k],
        "each log's mean input_volts": lambda k, d: logged.mean(axis=1),
        f"sag law {a:.3f} - {b:.3f} duty^2 (training logs)": lambda k, d: a - b * d ** 2,
    }
    rows = [f"seed {seed}, fitted without kp {held:g}: kt {model.values['kt']:.4f} N m/A, R {model.values['R']:.4f} ohm"]
    for name, supply in supplies.items():
        simulated = simulate(model, batch, supply)
        maes = [float(np.mean(np.abs(s[: len(log)] - np.asarray(log.position)))) for s, log in zip(simulated, test)]
        holds = [hold_figures(log, s) for log, s in zip(test, simulated)]
        rows.append(f"  {name}: MAE {np.mean(maes):.4f} rad (" + ", ".join(f"{m:.4f}" for m in maes) + ")")
        rows += [f"    {log.trajectory:16s} saturated holds {share:4.0%}: too strong by {err:+.4f} rad, supply {volts:.2f} V"
                 for log, (share, err, volts) in zip(test, holds) if share > 0]
    return rows + supply_scan(model, train, test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0", help="a range, e.g. 0-3 [0]")
    parser.add_argument("--held", type=float, default=800.0, help="the held-out gain [800]")
    parser.add_argument("--trials", type=int, default=0, help="the fit's budget (0: default)")
    args = parser.parse_args()
    logs = read_logs(LOGS)
    for seed in seeds_of(args.seeds):
        print("\n".join(seed_report(logs, seed, args.held, args.trials)), flush=True)


if __name__ == "__main__":
    main()
