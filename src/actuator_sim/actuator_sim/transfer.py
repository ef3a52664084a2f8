"""Transfer to MuJoCo: do models identified with the semi-implicit integrator do better in MuJoCo
than models identified with the published ``bam`` step?

The virtual experiment: the "real" actuators are the published M6 of each joint of a 2R arm.

1. A virtual pendulum bench - the MuJoCo pendulum driven by the real actuator - records the
   four identification trajectories over a grid of masses, lengths and gains (paper Table I).
2. M1 and M6 are identified on those logs twice, with ``integrator="bam"`` and
   ``"semi-implicit"`` (same logs, same seed, same number of trials), by
   the fit front end ``actuator_models.fitting.fit``.
3. The "real" arm (MuJoCo, real actuators) and the arm with each fitted pair run every path;
   the joint MAE [rad] against the real arm scores each pair (:mod:`actuator_sim.experiment`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from actuator_models.logs import Log
from actuator_models.model import Model, load_model, save_model
from actuator_models.synthesis import BenchConfig, grid, synthesize_logs
from actuator_models.trajectories import TRAJECTORIES

from .arm import Arm
from .experiment import ModelPair, compare_arm
from .replay import mujoco_positions

#: Bench configurations of the virtual bench per arm: the paper's Table I.
BENCH_GRIDS: Dict[str, List[BenchConfig]] = {
    "mx": grid((0.5, 1.0, 1.5), (0.1, 0.15, 0.2), (4.0, 8.0, 16.0, 32.0)),
    "erob": grid((3.1, 8.2, 12.7, 14.6, 19.6), (0.5,), (10.0, 25.0, 50.0, 100.0)),
}
INTEGRATORS = ("bam", "semi-implicit")


def recorded(log: Log, positions: np.ndarray) -> Log:
    """``log`` with ``positions`` [rad] as measurements (speed: their gradient, 0 at the start)."""
    speed = np.gradient(positions, log.period)
    speed[0] = 0.0
    return replace(log, position=np.asarray(positions, dtype=float), speed=speed)


def virtual_bench_logs(model: Model, configs: Sequence[BenchConfig],
                       trajectories: Sequence[str] = tuple(TRAJECTORIES)) -> List[Log]:
    """Logs of the MuJoCo pendulum driven by ``model`` for every configuration and trajectory
    (no encoder quantisation). The commands come from ``actuator_models.synthesis``."""
    commands = synthesize_logs(model, configs, trajectories, encoder_step=0.0)
    return [recorded(log, mujoco_positions(model, log)) for log in commands]


@dataclass(frozen=True)
class Identified:
    """A model fitted on the virtual bench and its validation MAE [rad] (own integrator)."""

    model: Model
    validation_mae: Optional[float]


def identify(logs: Sequence[Log], actuator: str, friction: str, integrator: str, trials: int,
             seed: int = 0) -> Identified:
    """Fit ``friction`` (m1..m6) of ``actuator`` on ``logs`` with the given integrator."""
    from actuator_models.fit_data import FitSettings  # imported when used: the fit loads optuna
    from actuator_models.fit_spec import FitSpec
    from actuator_models.fitting import fit

    result = fit(FitSpec(list(logs), actuator, (friction,), FitSettings(trials=trials, seed=seed), integrator,
                         carry=())).result()
    return Identified(result.model, result.validation_mae)


@dataclass(frozen=True)
class TransferResult:
    """Fitted pairs by label (``"M6 semi-implicit"``...), their validation MAEs on the virtual
    bench ``{label: (shoulder, elbow)}``, and the arm MAE table ``{"<path>, low gain": {label: mae}}``."""

    fitted: Mapping[str, ModelPair]
    validation: Mapping[str, Tuple[Optional[float], Optional[float]]]
    maes: Mapping[str, Mapping[str, float]]

    def save(self, directory: Path) -> None:
        """Params files ``<label>_<joint>.json`` of the fitted models."""
        for label, pair in self.fitted.items():
            for joint, model in zip(("shoulder", "elbow"), pair):
                save_model(model, directory / f"{label.replace(' ', '_').lower()}_{joint}.json")


def transfer_experiment(arm: Arm, paths: Sequence[str], gains: Sequence[str] = ("low",),
                        frictions: Sequence[str] = ("m1", "m6"), trials: int = 2000,
                        configs: Optional[Sequence[BenchConfig]] = None, seed: int = 0,
                        log: Optional[Callable[[str], None]] = None) -> TransferResult:
    """Run the whole experiment for ``arm`` (see the module docstring); ``log`` gets progress lines.
    A gain the arm cannot have is refused before the fits (:meth:`Arm.gain`)."""
    for gain in gains:
        arm.gain(gain)
    say = log or (lambda text: None)
    configs = BENCH_GRIDS[arm.name] if configs is None else configs
    real = (load_model(f"{arm.shoulder}/m6"), load_model(f"{arm.elbow}/m6"))
    bench = {}
    for model in real:
        say(f"virtual bench: {model.name}, {len(configs)} configurations x {len(TRAJECTORIES)} trajectories")
        bench[model.actuator.name] = virtual_bench_logs(model, configs)
    fitted: Dict[str, ModelPair] = {}
    validation: Dict[str, Tuple[Optional[float], Optional[float]]] = {}
    for friction, integrator in itertools.product(frictions, INTEGRATORS):
        label = f"{friction.upper()} {integrator}"
        pair = []
        for model in real:
            say(f"identify {model.actuator.name}/{friction} with the {integrator} step ({trials} trials)")
            pair.append(identify(bench[model.actuator.name], model.actuator.name, friction, integrator, trials, seed))
        fitted[label] = (pair[0].model, pair[1].model)
        validation[label] = (pair[0].validation_mae, pair[1].validation_mae)
    say("2R arm runs")
    return TransferResult(fitted, validation, compare_arm(arm, real, fitted, paths, gains))
