"""Where a model's error comes from: residuals of a simulated replay, by trajectory phase.

A model is replayed on processed logs (as :func:`~actuator_models.simulation.simulate_logs`
does) and its error ``simulated - measured`` [rad] is split by what the servo was doing:

- **torque release**: torque disabled (the arm falls or swings freely);
- **reversal**: within ``reversal_window`` [s] of a reversal of the measured motion (where the
  friction force changes sign: hysteresis and backlash live here);
- **hold under load**: nearly still (``|v| < hold_speed``) while gravity loads the joint with
  more than ``load_fraction`` of its largest torque (static friction, stiction, sag);
- **high speed**: ``|v| > high_speed`` (viscous friction, back-EMF, saturation);
- **other**: the rest.

Each sample gets the first label that applies, in that order. Per log it also estimates a
**latency** [s]: the lag that maximises the cross-correlation of simulated and measured
position increments (positive: the measurement lags the simulation, as a command or
measurement delay would make it), and a **hysteresis** [rad]: the mean signed error after
reversals toward positive speed minus that after reversals toward negative speed (a
direction-dependent offset, as backlash or an unmodelled presliding regime leave). Errors are
also binned by measured speed and by gravity load.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .logs import Log
from .model import Model
from .simulation import simulate_logs

PHASES = ("torque release", "reversal", "hold under load", "high speed", "other")
#: Bin edges of |measured speed| [rad/s] and of gravity load (fraction of the bench's largest).
SPEED_BINS = (0.0, 0.1, 0.5, 1.5, 3.0, np.inf)
LOAD_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.01)


@dataclass(frozen=True)
class PhaseRules:
    """Thresholds of the phases: ``reversal_window`` [s], ``hold_speed``, ``high_speed``
    [rad/s], ``load_fraction`` (of the largest gravity torque), ``reversal_speed`` [rad/s]: the
    speed the motion must reach on both sides for a sign change to count as a reversal."""

    reversal_window: float = 0.1
    hold_speed: float = 0.1
    high_speed: float = 2.0
    load_fraction: float = 0.3
    reversal_speed: float = 0.2


def reversals(speed: np.ndarray, threshold: float) -> List[Tuple[int, int]]:
    """(index, new direction +1/-1) where the motion reverses: the sign of the speed, taken
    only where ``|speed| > threshold``, changes."""
    out: List[Tuple[int, int]] = []
    last = 0
    for k in np.flatnonzero(np.abs(speed) > threshold):
        sign = int(np.sign(speed[k]))
        if last and sign != last:
            out.append((int(k), sign))
        last = sign
    return out


def phase_labels(log: Log, rules: PhaseRules = PhaseRules()) -> np.ndarray:
    """Index into :data:`PHASES` of each sample of a processed log."""
    n = len(log)
    speed = np.asarray(log.speed, dtype=float)[:n]
    q = np.asarray(log.position, dtype=float)[:n]
    load = np.abs(np.sin(q))  # gravity torque / its largest value
    labels = np.full(n, PHASES.index("other"))
    labels[np.abs(speed) > rules.high_speed] = PHASES.index("high speed")
    labels[(np.abs(speed) < rules.hold_speed) & (load > rules.load_fraction)] = PHASES.index("hold under load")
    window = max(1, int(round(rules.reversal_window / log.period)))
    for k, _ in reversals(speed, rules.reversal_speed):
        labels[max(0, k - window):k + window] = PHASES.index("reversal")
    labels[~(np.asarray(log.torque_enable)[:n] > 0.5)] = PHASES.index("torque release")
    return labels


def latency(simulated: np.ndarray, measured: np.ndarray, dt: float, max_lag: float = 0.1) -> float:
    """Lag [s] (a multiple of ``dt``, within ``max_lag``) maximising the correlation of the
    position increments; positive when ``measured`` lags ``simulated``."""
    a, b = np.diff(simulated), np.diff(measured)
    lags = range(-int(round(max_lag / dt)), int(round(max_lag / dt)) + 1)

    def corr(lag: int) -> float:
        x, y = (a[:len(a) - lag], b[lag:]) if lag >= 0 else (a[-lag:], b[:len(b) + lag])
        if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
            return -np.inf
        return float(np.corrcoef(x, y)[0, 1])

    return max(lags, key=corr) * dt


def hysteresis(error: np.ndarray, speed: np.ndarray, dt: float, rules: PhaseRules = PhaseRules()) -> float:
    """Mean signed error [rad] in the ``reversal_window`` after reversals toward positive speed
    minus after reversals toward negative speed (0 when one direction has none)."""
    window = max(1, int(round(rules.reversal_window / dt)))
    after: Dict[int, List[float]] = {1: [], -1: []}
    for k, direction in reversals(speed, rules.reversal_speed):
        after[direction] += list(error[k:k + window])
    if not after[1] or not after[-1]:
        return 0.0
    return float(np.mean(after[1]) - np.mean(after[-1]))


def binned(error: np.ndarray, x: np.ndarray, edges: Sequence[float]) -> List[float]:
    """Mean |error| in each bin of ``x`` (NaN where a bin is empty)."""
    out = []
    for low, high in zip(edges[:-1], edges[1:]):
        inside = (x >= low) & (x < high)
        out.append(float(np.mean(np.abs(error[inside]))) if inside.any() else float("nan"))
    return out


@dataclass
class LogResiduals:
    """One log's residuals: MAE [rad] overall and by phase (with each phase's share of the
    samples), latency [s], hysteresis [rad], mean signed error (bias) [rad], MAE by speed and
    load bin (:data:`SPEED_BINS`, :data:`LOAD_BINS`), the servo's mean logged temperature
    [degC] (None when the log has none: the heating addition's input)."""

    name: str
    kp: float
    trajectory: str
    mae: float
    bias: float
    latency: float
    hysteresis: float
    by_phase: Dict[str, float] = field(default_factory=dict)
    share: Dict[str, float] = field(default_factory=dict)
    by_speed: List[float] = field(default_factory=list)
    by_load: List[float] = field(default_factory=list)
    temperature: Optional[float] = None


def analyse(model: Model, logs: Sequence[Log], rules: PhaseRules = PhaseRules()) -> Tuple[List[LogResiduals], np.ndarray]:
    """Residuals of ``model`` on each processed log; also the simulated positions ``(L, T)``."""
    simulated = simulate_logs(model, logs)
    out = []
    for log, sim in zip(logs, simulated):
        n = len(log)
        measured = np.asarray(log.position, dtype=float)[:n]
        speed = np.asarray(log.speed, dtype=float)[:n]
        error = sim[:n] - measured
        labels = phase_labels(log, rules)
        by_phase = {p: float(np.mean(np.abs(error[labels == i]))) for i, p in enumerate(PHASES) if (labels == i).any()}
        share = {p: float(np.mean(labels == i)) for i, p in enumerate(PHASES) if (labels == i).any()}
        out.append(LogResiduals(
            Path(log.source).name, float(log.kp), log.trajectory, float(np.mean(np.abs(error))), float(np.mean(error)),
            latency(sim[:n], measured, log.period), hysteresis(error, speed, log.period, rules), by_phase, share,
            binned(error, np.abs(speed), SPEED_BINS), binned(error, np.abs(np.sin(measured)), LOAD_BINS),
            float(np.mean(log.extra["temp"])) if "temp" in log.extra else None,
        ))
    return out, simulated


def by_group(residuals: Sequence[LogResiduals], key: str) -> Dict[str, Dict[str, float]]:
    """Phase MAE [rad] weighted by samples, grouped by ``"kp"`` or ``"trajectory"``:
    ``{group: {phase: mae}}``."""
    sums: Dict[str, Dict[str, List[float]]] = {}
    for r in residuals:
        value = getattr(r, key)
        group = f"kp {value:g}" if key == "kp" else str(value)
        for phase, mae in r.by_phase.items():
            entry = sums.setdefault(group, {}).setdefault(phase, [0.0, 0.0])
            entry[0] += mae * r.share[phase]
            entry[1] += r.share[phase]
    return {g: {p: s / w for p, (s, w) in phases.items()} for g, phases in sums.items()}


def to_dict(residuals: Sequence[LogResiduals]) -> Dict[str, object]:
    """JSON-ready content: per log, and phase MAE grouped by gain and by trajectory."""
    return {
        "phases": list(PHASES),
        "speed_bins": [float(e) for e in SPEED_BINS],
        "load_bins": [float(e) for e in LOAD_BINS],
        "logs": [asdict(r) for r in residuals],
        "by_gain": by_group(residuals, "kp"),
        "by_trajectory": by_group(residuals, "trajectory"),
    }


def summary_rows(residuals: Sequence[LogResiduals]) -> List[str]:
    """One text line per log (for the terminal)."""
    rows = [f"{'log':<28} {'kp':>5} {'trajectory':<16} {'degC':>5} {'MAE':>7} {'bias':>8} {'lag ms':>6} {'hyst':>7}  "
            + "  ".join(f"{p:>15}" for p in PHASES)]
    for r in residuals:
        cells = "  ".join(f"{r.by_phase[p]:15.4f}" if p in r.by_phase else f"{'-':>15}" for p in PHASES)
        rows.append(f"{r.name:<28} {r.kp:5g} {r.trajectory:<16} {'-' if r.temperature is None else f'{r.temperature:.1f}':>5} {r.mae:7.4f} {r.bias:+8.4f} {1000 * r.latency:6.0f} "
                    f"{r.hysteresis:+7.4f}  {cells}")
    return rows
