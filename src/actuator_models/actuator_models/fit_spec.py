"""What a fit is asked to do: a :class:`FitSpec`, the one input of :func:`.fitting.fit`.

Light on purpose (no optuna, no scipy): the command line builds one before anything heavy loads.
Runtime hooks (a stop event, a progress callback, a warning sink, a figure process) are not part
of the spec; they are :func:`.fitting.fit`'s keyword arguments, as ``callback`` is scipy's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence, Tuple, Union

from .fit_data import FitSettings
from .fit_outputs import FitOutputs
from .friction import FRICTION_MODELS

if TYPE_CHECKING:
    from .logs import Log
    from .model import Model
    from .splits import Dataset

#: The models fitted by default (``--model all``, an empty FitModels list, the demo), in order
#: (each may start from a nested one before it): the registry's static budgets M1-M6; any
#: registered model (:func:`.friction.installed_friction_models`) may be asked for. The one place
#: the default model list is looked up.
ALL_MODELS: Tuple[str, ...] = tuple(FRICTION_MODELS)


@dataclass(frozen=True)
class FitSpec:
    """A fit of one or more friction models of one actuator on one set of logs.

    Attributes:
        logs: a folder of processed JSON logs, loaded logs or an already split dataset.
        actuator: a registry name or an actuator description file.
        models: friction models, fitted in this order (default: :data:`ALL_MODELS`).
        settings: how each model is searched (:class:`~.fit_data.FitSettings`).
        integrator: the simulation step fitted with (``bam`` or ``semi-implicit``).
        validation_fraction / validation_logs / validation_kp / validation_match: how the logs
        are split (at most one; none: :meth:`~.splits.Dataset.split`'s default). Ignored when
        ``logs`` is a dataset.
        allow_mismatch: use logs recorded on another motor than ``actuator``.
        carry: additions every model carries from the start; None: the carry rule
        (:func:`~.additions.carried_by_default` of the training logs).
        additions: additions each model tries by cross-validation (:mod:`.addition_selection`).
        cv_rules: cross-validate every model (``gain``, ``trajectory``); the best model is then
        chosen by the cross-validated error. cv_trials: budget of each cross-validation fit
        (default: a quarter of ``settings.trials``).
        storage / study_prefix: optuna storage URL or journal file, and the studies' name prefix
        (``<prefix>-<model>``, prefix ``fit`` by default); no storage: in memory (several
        ``settings.workers`` then share a scratch journal).
        start: a fitted model the first model starts from (it must nest it); later models start
        from the best earlier one they nest.
        outputs: where the params files and the report go; None: nothing is written.
        allow_odd_logs: use logs that fail the plausibility checks (:mod:`.log_checks`), warned.
    """

    logs: Union[str, Path, Sequence["Log"], "Dataset"]
    actuator: str
    models: Tuple[str, ...] = ALL_MODELS
    settings: FitSettings = field(default_factory=FitSettings)
    integrator: str = "bam"
    validation_fraction: Optional[float] = None
    validation_logs: Optional[int] = None
    validation_kp: Optional[float] = None
    validation_match: Optional[str] = None
    allow_mismatch: bool = False
    carry: Optional[Tuple[str, ...]] = None
    additions: Tuple[str, ...] = ()
    cv_rules: Tuple[str, ...] = ()
    cv_trials: Optional[int] = None
    storage: Optional[str] = None
    study_prefix: Optional[str] = None
    start: Optional["Model"] = None
    outputs: Optional[FitOutputs] = None
    allow_odd_logs: bool = False

    def __post_init__(self) -> None:
        if not self.models:
            raise ValueError("models: none given")
        if self.integrator not in ("bam", "semi-implicit"):
            raise ValueError(f"integrator: {self.integrator!r} is not bam or semi-implicit")

    def study_name(self, model: str) -> Optional[str]:
        """The study of ``model`` in the storage: ``<prefix>-<model>``; None in memory."""
        if self.storage is None and self.study_prefix is None:
            return None
        return f"{self.study_prefix or 'fit'}-{model}"

    @property
    def cv_settings(self) -> FitSettings:
        """The settings of each cross-validation fit: ``cv_trials`` or a quarter of the budget."""
        return replace(self.settings, trials=self.cv_trials or max(self.settings.trials // 4, 1))
