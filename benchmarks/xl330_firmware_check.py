"""What the XL330 logs' own columns say about the firmware and the motor (docs/FIDELITY.md, 6).

Per log of ``data/xl330/processed`` (or ``--logs``):

- the **firmware law**: the logged ``load`` column is the servo's Present PWM (raw counts,
  two's complement in 16 bits, 885 = 100 %); it is compared with the model's law
  ``duty = kp * error_gain * (goal - q)`` of the logged goal and position: slope (counts per
  unit duty, 885 if the law is right) and correlation over the samples with torque on and the
  duty unsaturated;
- the **command lag**: the delay of the logged goal (0-30 ms, interpolated in 1 ms steps) that
  best explains the PWM (a transport delay of the goal would show here, 0 if none);
- the **temperature** and **supply voltage** the servo reported: mean and range.

    python benchmarks/xl330_firmware_check.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

import numpy as np

from actuator_models.actuators import XL330_GAIN
from actuator_models.logs import Log, read_logs

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
FULL_SCALE = 885.0  # XL330 PWM limit [counts] = duty 1


def signed_pwm(load: np.ndarray) -> np.ndarray:
    """Present PWM [counts] from the logged raw register (16-bit two's complement)."""
    return np.where(load > 32767, load - 65536, load)


def law_fit(log: Log, lag: float = 0.0) -> tuple:
    """(slope [counts per unit duty], correlation, mean |PWM - 885 duty| [counts]) of the
    logged PWM against the P law of the goal delayed by ``lag`` [s]."""
    t = np.arange(len(log)) * log.dt
    goal = np.interp(t - lag, t, log.goal_position)
    duty = log.kp * XL330_GAIN * (goal - log.position)
    pwm = signed_pwm(log.extra["load"])
    use = log.torque_enable.astype(bool) & (np.abs(pwm) < FULL_SCALE - 5) & (np.abs(duty) < 0.99) & (t > 0.05)
    slope = float(np.sum(duty[use] * pwm[use]) / np.sum(duty[use] ** 2))
    return slope, float(np.corrcoef(duty[use], pwm[use])[0, 1]), float(np.mean(np.abs(FULL_SCALE * duty[use] - pwm[use])))


def best_lag(log: Log) -> float:
    """The goal delay [s] (0-30 ms) whose P law is closest to the logged PWM."""
    lags = np.arange(0.0, 0.0301, 0.001)
    return float(lags[int(np.argmin([law_fit(log, lag)[2] for lag in lags]))])


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--logs", type=Path, default=LOGS)
    args = p.parse_args(argv)
    print("| log | kp | trajectory | PWM / duty slope [counts] | correlation | best goal lag [ms] | "
          "temperature [degC] | supply [V] |")
    print("|---|---|---|---|---|---|---|---|")
    for log in read_logs(args.logs):
        slope, r, _ = law_fit(log)
        temp, volts = log.extra["temp"], log.extra["input_volts"]
        print(f"| {Path(log.source).name} | {log.kp:g} | {log.trajectory} | {slope:.0f} | {r:.4f} | "
              f"{1000 * best_lag(log):.0f} | {temp.mean():.1f} ({temp.min():.0f}-{temp.max():.0f}) | "
              f"{volts.mean():.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
