"""Recording a configuration grid in the style of the paper's Table I.

The grid is grouped by pendulum (mass, length): within a group every gain and trajectory is
recorded; between groups the load changes, either by a person (:func:`prompt_bench` asks on
the terminal) or by software (an emulator's ``set_bench``). The ``change_bench``
callback decides which.

Each family declares the default grid of its actuators (``Family.grids``): paper Table I
(Dynamixel: mass 0.5 / 1 / 1.5 kg, length 0.1 / 0.15 / 0.2 m, kp 4 / 8 / 16 / 32, the four
trajectories; eRob80: mass 3.1 / 8.2 / 12.7 / 14.6 / 19.6 kg at 0.5 m, kp 10 / 25 / 50 / 100);
the XL330's follows the shipped XL330 logs: 0.49 kg at 0.1 m, kp 100 / 200 / 800.
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple, Union

from actuator_models.bench import Bench
from actuator_models.trajectories import TRAJECTORIES
from actuator_models.family import installed_families

from .messages import BenchInfo
from .recording import Recording, RecordOutput, record

ALL_TRAJECTORIES: Tuple[str, ...] = tuple(TRAJECTORIES)


@dataclass(frozen=True)
class Grid:
    """Configurations to record: every (mass [kg], length [m]) group x kp x trajectory."""

    masses: Tuple[float, ...]
    lengths: Tuple[float, ...]
    kps: Tuple[float, ...]
    trajectories: Tuple[str, ...] = ALL_TRAJECTORIES

    def __post_init__(self) -> None:
        for name in ("masses", "lengths", "kps", "trajectories"):
            if not getattr(self, name):
                raise ValueError(f"grid {name}: at least one value is needed")
        unknown = [t for t in self.trajectories if t not in TRAJECTORIES]
        if unknown:
            raise ValueError(f"grid trajectories: unknown {unknown}; expected some of {', '.join(TRAJECTORIES)}")

    def groups(self) -> List[Tuple[float, float]]:
        """The (mass, length) groups, in recording order."""
        return list(product(self.masses, self.lengths))

    def __len__(self) -> int:
        return len(self.masses) * len(self.lengths) * len(self.kps) * len(self.trajectories)


def default_grids() -> Dict[str, Grid]:
    """The Table I style grid of every actuator, as the installed families declare them
    (``Family.grids``, :mod:`actuator_models.family`)."""
    return {actuator: Grid(*data) for family in installed_families().values() for actuator, data in family.grids.items()}


def default_grid(actuator: str) -> Grid:
    """The Table I style grid of an actuator."""
    grids = default_grids()
    try:
        return grids[actuator]
    except KeyError:
        raise ValueError(f"no default grid for actuator {actuator!r}; expected one of {', '.join(grids)}") from None


def prompt_bench(mass: float, length: float) -> bool:
    """Ask the user to mount the pendulum; False if they answer ``q``."""
    answer = input(f"Mount {mass:g} kg at {length:g} m on the bench, then press Enter (q to stop): ")
    return answer.strip().lower() not in ("q", "quit")


def record_all(
    bench: Bench,
    grid: Grid,
    actuator: str,
    logdir: Union[str, Path],
    change_bench: Callable[[float, float], bool],
    *,
    arm_mass: float = 0.0,
    vin: Optional[float] = None,
    on_recording: Optional[Callable[[Recording], None]] = None,
    **options,
) -> List[Recording]:
    """Record every configuration of ``grid`` on ``bench`` into ``logdir`` (logs of ``actuator``,
    supply voltage ``vin`` [V] or the measured one).

    ``change_bench(mass, length)`` is called before each group and returns False to stop early.
    ``options`` go to :func:`~.recording.record` (``settings``: a
    :class:`~.recording.RecordSettings`, ``progress``). A failed recording stops the grid (:class:`~.recording.RecordingError`, partial
    log kept).
    """
    done: List[Recording] = []
    for mass, length in grid.groups():
        if not change_bench(mass, length):
            break
        info = BenchInfo(actuator, mass=mass, length=length, arm_mass=arm_mass, vin=vin or 0.0)
        for kp, name in product(grid.kps, grid.trajectories):
            recording = record(bench, name, info, kp, output=RecordOutput(logdir), **options)
            done.append(recording)
            if on_recording is not None:
                on_recording(recording)
    return done


def parse_values(text: str, what: str) -> Tuple[float, ...]:
    """``"0.5,1,1.5"`` -> ``(0.5, 1.0, 1.5)``, every value finite and positive; raises ValueError
    naming the option."""
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a comma-separated list of numbers") from None
    if not values:
        raise ValueError(f"{what}: no values in {text!r}")
    wrong = [v for v in values if not (math.isfinite(v) and v > 0)]
    if wrong:  # issue 34: refused before anything is recorded, not after the first groups
        raise ValueError(f"{what}: {wrong[0]:g} in {text!r} is not a positive number; nothing was recorded")
    return values


def split_names(text: str, what: str) -> Tuple[str, ...]:
    """``"sin_sin,up_and_down"`` -> names; raises ValueError naming the option when there are none."""
    names = tuple(v.strip() for v in text.split(",") if v.strip())
    if not names:
        raise ValueError(f"{what}: no names in {text!r}")
    return names
