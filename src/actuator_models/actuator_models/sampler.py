"""optuna's CMA-ES sampler, made cheap when a whole generation is asked before it is told.

The stock :class:`optuna.samplers.CmaEsSampler` keeps no optimizer in memory: on every ask it
unpickles the CMA-ES state of the last completed trial and tells it the previous generation
again, which costs ``O(popsize)`` per ask, ``O(popsize^2)`` per generation (about 10 ms per
trial at popsize 64, more than the batched simulation itself). When no trial has completed
since the previous ask, that restored-and-told state is the same, so this subclass reuses it.
Samples, generations and the state stored in the study are those of the stock sampler; with
several workers or after a failure the stock path runs.
"""

from __future__ import annotations

import pickle
from typing import Any, Dict, Optional, Tuple

import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import CmaEsSampler
from optuna.trial import FrozenTrial

try:  # the transform the stock sampler uses (private, stable since optuna 3.x)
    from optuna._transform import _SearchSpaceTransform
except ImportError:  # pragma: no cover - a future optuna: fall back to the stock path
    _SearchSpaceTransform = None


class GenerationCmaEsSampler(CmaEsSampler):
    """:class:`~optuna.samplers.CmaEsSampler` with the restored optimizer reused within a generation."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._cached: Optional[Tuple[Tuple[int, int, Tuple[str, ...]], Any, Any]] = None

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: Dict[str, BaseDistribution]
    ) -> Dict[str, Any]:
        key = (study._study_id, len(self._get_trials(study)), tuple(search_space))
        if self._cached is not None and self._cached[0] == key:
            _, optimizer, transform = self._cached
            optimizer._rng.seed(self._cma_rng.rng.randint(1, 2**16) + trial.number)
            params = optimizer.ask()
            study._storage.set_trial_system_attr(trial._trial_id, self._attr_key_generation, optimizer.generation)
            return transform.untransform(params)
        params = super().sample_relative(study, trial, search_space)
        self._cached = None
        if params and _SearchSpaceTransform is not None and not self._with_margin:
            attrs = study._storage.get_trial(trial._trial_id).system_attrs
            chunks = {k: v for k, v in attrs.items() if k.startswith(self._attr_key_optimizer)}
            if chunks:  # this ask told a generation: its state serves the rest of it
                optimizer = pickle.loads(bytes.fromhex(self._concat_optimizer_attrs(chunks)))
                transform = _SearchSpaceTransform(search_space, transform_step=True, transform_0_1=True)
                self._cached = (key, optimizer, transform)
        return params
