"""The plain data of a fit: its settings, progress reports, per-phase figures and result.

See :mod:`.identification` for what produces them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, Mapping, Optional, Tuple

from .addition_heating import HEATED_PRIOR
from .additions import parts
from .model import Model
from .objective import SearchSpace
from .splits import Dataset

#: Default trial budget (search and polish), a hard cap: four starts of the 45000 search trials,
#: halved twice (the last start standing gets about 26000), and a 15000-trial polish. On the XL330
#: logs with the heating addition, 30000 left one seed of eight in a costlier basin (validation
#: 0.040 rad against 0.029); 60000 brings all eight within 3 % (docs/FIDELITY.md, section 6). A
#: default M6 fit on the 12 XL330 logs took 12.6 s as a whole process on 2 quiet cores (it stopped
#: on patience near 45000 trials; the restart, :data:`DEFAULT_RESTARTS`, spends part of the rest).
DEFAULT_TRIALS = 60000
#: Independent CMA-ES starts of the search, run in lockstep (one kernel call per generation).
DEFAULT_STARTS = 4
#: IPOP restarts after the search (a random start, twice the population), within what the search
#: left of its share of the budget: a search that settles early in a costlier basin gets a second
#: look. On the 12 XL330 logs (M6, validation fraction 0, seeds 0-7) the search left 2 seeds of
#: 8 in a basin 9 % costlier, the restart 1; every nested-gain fold's figure stayed the same to the
#: last digit, and a default fit took 5 % longer (docs/FIDELITY.md, section 7.15).
DEFAULT_RESTARTS = 1
#: Default weight of the prior toward the actuator's defaults (see :class:`~.objective.Prior`) of
#: a model without the heating addition. On the 12 XL330 logs without it (train kp 100 and 800,
#: validate kp 200, M6, seeds 0-7) the weight trades how well the fit predicts against whether it
#: depends on the seed: at 0.1 and 0.3 basins of (nearly) equal cost validate 0.033-0.053 rad; at
#: 1.0 every seed lands within 3 % (median 0.0446 rad) (docs/FIDELITY.md, section 4b).
DEFAULT_PRIOR = 1.0
#: Default prior weight of a model carrying ``heating``: that addition's declared hint
#: (:data:`.addition_heating.HEATED_PRIOR`, where the measurement behind it is written).
DEFAULT_PRIOR_HEATED = HEATED_PRIOR
#: How a fit sets ``thermal_initial`` (:class:`FitSettings`): the mean of the training logs' first
#: readings, or fitted after the search (:mod:`.thermal_start`).
THERMAL_STARTS = ("mean", "fitted")  # the first: the default
#: Default patience: generations without a CONVERGED improvement before a CMA-ES run stops.
PATIENCE = 60


def default_prior(model: Model) -> float:
    """The prior weight of ``FitSettings(prior=None)``: the smallest ``prior_weight`` hint of the
    additions the model carries (heating: :data:`DEFAULT_PRIOR_HEATED`), else :data:`DEFAULT_PRIOR`."""
    hints = [a.prior_weight for a in parts(model.additions) if a.prior_weight is not None]
    return min(hints) if hints else DEFAULT_PRIOR


@dataclass(frozen=True)
class FitSettings:
    """How to search. ``trials``: the budget, all phases together (a resumed study counts its
    own trials); ``seed``: CMA-ES seed (worker ``w`` uses ``seed + w``); ``popsize``: population
    (default :func:`default_popsize`); ``patience``: generations without a 0.1 % improvement
    before a run stops (None: never); ``restarts``: IPOP restarts; ``starts``: independent CMA-ES starts
    of the search, simulated together; ``prior``: weight of the pull toward the actuator's
    defaults (:class:`~.objective.Prior`, 0: none; None: :func:`default_prior` of the model); ``log_scale``: search wide positive
    ranges on a log scale (:class:`~.objective.SearchSpace`); ``polish``: run the polish;
    ``workers``: processes on the study (helpers take indices ``worker + 1``...); ``worker``:
    this process's index; ``fixed``/``bounds``: parameters held out of the search / search
    bounds; ``force``: fit even on fewer training logs than :func:`minimum_train_logs`;
    ``search_sigma``: initial CMA-ES step of the search starts, a fraction of each range (None:
    the identification's default; small: a local search around the start point);
    ``thermal_start`` (a model carrying ``thermal``, issue 31): how ``thermal_initial`` is set,
    ``"mean"`` of the training logs' first readings or ``"fitted"`` after the search
    (:mod:`.thermal_start`); ``unfed_share``: the share of the objective's position term scored on
    the training logs simulated without their temperature (:class:`~.objective.Objective`, 0: none)."""

    trials: int = DEFAULT_TRIALS
    seed: int = 0
    popsize: Optional[int] = None
    patience: Optional[int] = PATIENCE
    restarts: int = DEFAULT_RESTARTS
    starts: int = DEFAULT_STARTS
    prior: Optional[float] = None
    log_scale: bool = True
    polish: bool = True
    workers: int = 1
    worker: int = 0
    fixed: Mapping[str, float] = field(default_factory=dict)
    bounds: Mapping[str, Tuple[float, float]] = field(default_factory=dict)
    force: bool = False
    search_sigma: Optional[float] = None
    thermal_start: str = THERMAL_STARTS[0]
    unfed_share: float = 0.0

    def __post_init__(self) -> None:
        if self.thermal_start not in THERMAL_STARTS:
            raise ValueError(f"thermal_start: {self.thermal_start!r} must be one of {', '.join(THERMAL_STARTS)}")
        if not 0.0 <= self.unfed_share <= 1.0:
            raise ValueError(f"unfed_share: {self.unfed_share} must be within 0-1")
        if self.trials < 1:
            raise ValueError(f"trials: {self.trials} must be at least 1")
        if self.prior is not None and not self.prior >= 0:
            raise ValueError(f"prior: {self.prior} must be a weight >= 0")
        if self.starts < 1:
            raise ValueError(f"starts: {self.starts} must be at least 1")
        if self.workers < 1 or self.worker < 0:
            raise ValueError(f"workers: {self.workers} must be at least 1 and worker {self.worker} not negative")


@dataclass(frozen=True)
class Progress:
    """A fit's progress, after each generation: ``phase`` (start, search, polish), completed
    trials of the study and the budget, trials/s of this process's run so far, training MAE
    [rad] of the best trial so far (best by cost: the MAE, times the prior's factor when there
    is one) and estimated seconds left (``inf`` when unknown). ``cost``: that trial's cost, the
    figure the fit minimises, so it never rises (``best`` may, with a prior, by up to its factor)."""

    model: str
    phase: str
    trials: int
    budget: int
    rate: float
    best: float
    eta: float
    cost: float = math.nan

    def figure(self) -> str:
        """The best-so-far figure a progress line shows, one that never rises: the training MAE
        when it is the cost, else the cost (the MAE times the prior's factor, issue 34)."""
        if math.isnan(self.cost) or self.cost == self.best:
            return f"best MAE {self.best:.5f} rad"
        return f"best cost {self.cost:.5f} rad (MAE x prior)"


ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class PhaseFigures:
    """What one phase did in this run: trials evaluated, seconds, and the best parameter set so
    far once it ended (by cost, the phase's or an earlier one's: a phase that finds nothing better
    keeps the better, issue 34): its training MAE [rad] (``best``) and its cost [rad] (``cost``,
    which never rises from phase to phase; the MAE may, with a prior, by up to its factor)."""

    phase: str
    trials: int
    seconds: float
    best: float
    cost: float = math.nan


@dataclass(frozen=True)
class StartFigures:
    """One independent search run (a CMA-ES start): its worker and run index, trials, best
    training MAE [rad] and the validation MAE [rad] of that best point (None: no validation)."""

    worker: int
    run: int
    trials: int
    train_mae: float
    validation_mae: Optional[float]


@dataclass
class FitResult:
    """A fitted model and its errors [rad].

    Attributes:
        model: the fitted model (fixed and default values included).
        train_mae / validation_mae: mean MAE on the training / validation logs (None if none).
        train_logs / validation_logs: per-log MAE by file name.
        trials: completed trials in the study. seconds: wall time of this run.
        study_name: the optuna study (None in memory). space: what was searched.
        dataset: the split. phases: per-phase figures of this run. at_bounds: free parameters
        that ended at a search bound. stopped: the stop event ended the fit early.
    """

    model: Model
    train_mae: float
    validation_mae: Optional[float]
    train_logs: Dict[str, float]
    validation_logs: Dict[str, float]
    trials: int
    seconds: float
    study_name: Optional[str]
    space: SearchSpace
    dataset: Optional[Dataset] = None
    phases: Tuple[PhaseFigures, ...] = ()
    at_bounds: Tuple[str, ...] = ()
    stopped: bool = False
    starts: Tuple[StartFigures, ...] = ()


class FitInterrupted(Exception):
    """Raised by :func:`fit` when stopped (Ctrl-C), once the best parameters so far are saved."""

    def __init__(self, result: FitResult) -> None:
        super().__init__("identification interrupted; best parameters so far were kept")
        self.result = result
