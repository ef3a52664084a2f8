"""Train / validation splits of bench logs (paper section V-B: 75 % fit, 25 % validation)."""

from __future__ import annotations

from collections import Counter
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .logs import Log


def stratified_split(
    logs: Sequence[Log], validation_fraction: float = 0.25, seed: int = 0
) -> Tuple[List[Log], List[Log]]:
    """Split ``logs`` into (train, validation), stratified by gain and trajectory.

    ``round(fraction * N)`` logs go to validation, and at least as many as there are gains and
    trajectories, so that every gain and every trajectory is represented (with 12 logs of 3
    gains x 4 trajectories: 4 logs, one per trajectory). They are drawn one at a time, each time among the logs whose gain and trajectory are the
    least represented in validation so far (a seeded shuffle breaks ties), so every gain and
    every trajectory is represented as evenly as the count allows, and each (gain, trajectory)
    group of several logs gives its share.
    """
    if not 0.0 <= validation_fraction < 1.0:
        raise ValueError(f"validation fraction {validation_fraction} is not in [0, 1)")
    count = int(round(validation_fraction * len(logs)))
    if validation_fraction > 0:
        groups_needed = max(len({log.kp for log in logs}), len({log.trajectory for log in logs}))
        count = min(max(count, groups_needed, 1), len(logs) - 1)
    order = list(np.random.default_rng(seed).permutation(len(logs)))
    gains: Counter = Counter()
    trajectories: Counter = Counter()
    groups: Counter = Counter()
    chosen: List[int] = []
    for _ in range(count):
        def load(i: int) -> Tuple[int, int]:
            log = logs[i]
            return groups[(log.kp, log.trajectory)], gains[log.kp] + trajectories[log.trajectory]

        best = min((i for i in order if i not in chosen), key=load)
        chosen.append(best)
        log = logs[best]
        gains[log.kp] += 1
        trajectories[log.trajectory] += 1
        groups[(log.kp, log.trajectory)] += 1
    validation = [logs[i] for i in sorted(chosen)]
    train = [log for i, log in enumerate(logs) if i not in chosen]
    return train, validation


def split_by_gain(logs: Sequence[Log], validation_kp: float) -> Tuple[List[Log], List[Log]]:
    """Validation = the logs recorded at gain ``validation_kp``; train = the others."""
    validation = [log for log in logs if log.kp == validation_kp]
    if not validation:
        gains = sorted({log.kp for log in logs})
        raise ValueError(f"no log has kp {validation_kp:g} (gains present: {', '.join(f'{g:g}' for g in gains)})")
    if len(validation) == len(logs):
        raise ValueError(f"every log has kp {validation_kp:g}: nothing left to fit on")
    return [log for log in logs if log.kp != validation_kp], validation


def split_logs(
    logs: Sequence[Log],
    validation_fraction: float = 0.25,
    validation_kp: Optional[float] = None,
    seed: int = 0,
) -> Tuple[List[Log], List[Log]]:
    """(train, validation): by gain when ``validation_kp`` is given, else stratified."""
    if validation_kp is not None:
        return split_by_gain(logs, validation_kp)
    return stratified_split(logs, validation_fraction, seed)
