"""Train / validation splits of bench logs (paper section V-B: 75 % fit, 25 % validation), and
the :class:`Dataset` that carries one split through a fit, its report and its figures.

Three rules, one per way of asking:

- ``validation_logs=N``: exactly N logs held out, stratified by gain and trajectory;
- ``validation_fraction=F`` given explicitly: exactly ``round(F * N)`` logs, stratified;
- neither (the default): a quarter, raised to one log per gain and per trajectory so that each
  is represented (4 of the 12 logs of 3 gains x 4 trajectories) — with a warning saying so when
  that holds out more than a quarter;
- ``validation_kp=K``: the logs recorded at gain K;
- ``validation_match=PATTERN``: the logs whose file name or trajectory name matches the regular
  expression (``lift_and_drop``, ``10h28m1[07]``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .logs import Log

#: Fraction held out when nothing is asked (paper section V-B).
DEFAULT_FRACTION = 0.25


def stratified_pick(logs: Sequence[Log], count: int, seed: int = 0) -> Tuple[List[Log], List[Log]]:
    """(train, validation) with exactly ``count`` validation logs, drawn one at a time, each
    time among the logs whose gain and trajectory are the least represented in validation so
    far (a seeded shuffle breaks ties): every gain and trajectory is represented as evenly as
    the count allows, and each (gain, trajectory) group of several logs gives its share."""
    if not 0 <= count < len(logs):
        raise ValueError(f"cannot hold out {count} of {len(logs)} logs (at least one must remain to fit on)")
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


def covering_count(logs: Sequence[Log], fraction: float = DEFAULT_FRACTION) -> int:
    """``round(fraction * N)`` raised to one log per gain and per trajectory (at most N - 1)."""
    count = int(round(fraction * len(logs)))
    if fraction > 0:
        needed = max(len({log.kp for log in logs}), len({log.trajectory for log in logs}))
        count = min(max(count, needed, 1), len(logs) - 1)
    return count


def stratified_split(
    logs: Sequence[Log], validation_fraction: float = DEFAULT_FRACTION, seed: int = 0
) -> Tuple[List[Log], List[Log]]:
    """The default rule: :func:`covering_count` logs held out, stratified (:func:`stratified_pick`)."""
    if not 0.0 <= validation_fraction < 1.0:
        raise ValueError(f"validation fraction {validation_fraction} is not in [0, 1)")
    return stratified_pick(logs, covering_count(logs, validation_fraction), seed)


def split_by_gain(logs: Sequence[Log], validation_kp: float) -> Tuple[List[Log], List[Log]]:
    """Validation = the logs recorded at gain ``validation_kp``; train = the others."""
    validation = [log for log in logs if log.kp == validation_kp]
    if not validation:
        gains = sorted({log.kp for log in logs})
        raise ValueError(f"no log has kp {validation_kp:g} (gains present: {', '.join(f'{g:g}' for g in gains)})")
    if len(validation) == len(logs):
        raise ValueError(f"every log has kp {validation_kp:g}: nothing left to fit on")
    return [log for log in logs if log.kp != validation_kp], validation


def split_by_match(logs: Sequence[Log], pattern: str) -> Tuple[List[Log], List[Log]]:
    """Validation = the logs whose file name or trajectory matches the regular expression
    ``pattern`` (``re.search``); train = the others."""
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise ValueError(f"validation logs match: {pattern!r} is not a regular expression ({error})") from None
    chosen = [bool(compiled.search(Path(log.source).name) or compiled.search(log.trajectory)) for log in logs]
    if not any(chosen):
        names = sorted({log.trajectory for log in logs if log.trajectory})
        raise ValueError(f"validation logs match: no log's file name or trajectory matches {pattern!r} "
                         f"(trajectories: {', '.join(names) or 'none named'})")
    if all(chosen):
        raise ValueError(f"validation logs match: every log matches {pattern!r}: nothing left to fit on")
    return [log for log, c in zip(logs, chosen) if not c], [log for log, c in zip(logs, chosen) if c]


def split_logs(
    logs: Sequence[Log],
    validation_fraction: float = DEFAULT_FRACTION,
    validation_kp: Optional[float] = None,
    seed: int = 0,
) -> Tuple[List[Log], List[Log]]:
    """(train, validation): by gain when ``validation_kp`` is given, else the default stratified rule."""
    if validation_kp is not None:
        return split_by_gain(logs, validation_kp)
    return stratified_split(logs, validation_fraction, seed)


@dataclass(frozen=True)
class Dataset:
    """Processed logs split once into training and validation logs.

    Attributes:
        logs: all logs. train / validation: the split. rule: how it was made, in words.
        warnings: what the user should know about the split (printed by the CLI, in the report).
    """

    logs: Tuple[Log, ...]
    train: Tuple[Log, ...]
    validation: Tuple[Log, ...]
    rule: str
    warnings: Tuple[str, ...] = ()

    @classmethod
    def split(
        cls,
        logs: Sequence[Log],
        validation_fraction: Optional[float] = None,
        validation_logs: Optional[int] = None,
        validation_kp: Optional[float] = None,
        seed: int = 0,
        validation_match: Optional[str] = None,
    ) -> "Dataset":
        """Split ``logs`` by one rule (see the module docstring); at most one of
        ``validation_fraction``, ``validation_logs``, ``validation_kp`` and ``validation_match``
        may be given."""
        asked = [name for name, v in (("validation_fraction", validation_fraction), ("validation_logs", validation_logs),
                                      ("validation_kp", validation_kp), ("validation_match", validation_match))
                 if v is not None]
        if len(asked) > 1:
            raise ValueError(f"give at most one of {', '.join(asked)}")
        if not logs:
            raise ValueError("no logs to fit on")
        warnings: List[str] = []
        if validation_kp is not None:
            train, validation = split_by_gain(logs, validation_kp)
            rule = f"logs at kp {validation_kp:g} held out"
        elif validation_match is not None:
            train, validation = split_by_match(logs, validation_match)
            rule = f"logs matching {validation_match!r} held out"
        elif validation_logs is not None:
            if not 0 <= validation_logs < len(logs):
                raise ValueError(f"validation logs: {validation_logs} must be in [0, {len(logs) - 1}] with {len(logs)} logs")
            train, validation = stratified_pick(logs, validation_logs, seed)
            rule = f"{validation_logs} logs held out, stratified by gain and trajectory (seed {seed})"
        elif validation_fraction is not None:
            if not 0.0 <= validation_fraction < 1.0:
                raise ValueError(f"validation fraction: {validation_fraction} is not in [0, 1)")
            count = int(round(validation_fraction * len(logs)))
            if validation_fraction > 0 and count == 0:
                raise ValueError(f"validation fraction: {validation_fraction} of {len(logs)} logs is no log; "
                                 "give a larger fraction or --validation-logs")
            train, validation = stratified_pick(logs, min(count, len(logs) - 1), seed)
            rule = f"{validation_fraction:g} of the logs held out ({len(validation)}), stratified (seed {seed})"
        else:
            train, validation = stratified_split(logs, DEFAULT_FRACTION, seed)
            asked_count = int(round(DEFAULT_FRACTION * len(logs)))
            rule = (f"{len(validation)} of {len(logs)} logs held out, one per gain and trajectory at least "
                    f"(stratified, seed {seed})")
            if len(validation) > asked_count:
                warnings.append(
                    f"holding out {len(validation)} of {len(logs)} logs, not a quarter ({asked_count}), so that every "
                    f"gain and trajectory is validated; --validation-logs N or --validation-fraction F hold out exactly that")
        return cls(tuple(logs), tuple(train), tuple(validation), rule, tuple(warnings))

    @property
    def train_names(self) -> List[str]:
        return [Path(log.source).name for log in self.train]

    @property
    def validation_names(self) -> List[str]:
        return [Path(log.source).name for log in self.validation]

    def to_dict(self) -> dict:
        return {"rule": self.rule, "train": self.train_names, "validation": self.validation_names,
                "warnings": list(self.warnings)}


def minimum_train_logs(free_parameters: int) -> int:
    """Fewest training logs a fit accepts without ``force``: one per two free parameters.

    Each log pins several parameters (about a thousand samples over distinct speed and load
    regimes), but a fit on fewer logs than that tends to validate worse than the unfitted
    defaults (four logs of an unknown servo: one to fit, three to validate). One log per
    parameter would refuse the reference fit of M6 (15 parameters) on 8 of the 12 XL330 logs,
    which validates well."""
    return -(-free_parameters // 2)
