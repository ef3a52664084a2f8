"""The trials a fit records (actuator_models.studies.record, .study_records): in every storage,
the same completed trials as ``optuna.trial.create_trial`` makes, and in memory a copy the
caller cannot change afterwards (what optuna's deep copy is for)."""

from __future__ import annotations

import copy
from pathlib import Path

import optuna
import pytest

from actuator_models import studies
from actuator_models.model import new_model
from actuator_models.objective import SearchSpace


@pytest.fixture
def space() -> SearchSpace:
    return SearchSpace.for_model(new_model("xl330", "m6"))


def points(space: SearchSpace, count: int):
    return [{p.name: p.lower + (p.upper - p.lower) * (i + 1) / (count + 1) for p in space.free} for i in range(count)]


@pytest.mark.parametrize("storage", [None, "journal"])
def test_a_generation_is_one_trial_of_its_best_member(space: SearchSpace, storage, tmp_path: Path) -> None:
    """Each generation is one completed trial, what ``create_trial`` makes of its best member, with
    its size, the median of its costs and the optimizer's state as user attributes."""
    url = None if storage is None else str(tmp_path / "fit.journal")
    study = studies.open_study(studies.open_storage(url), None if url is None else "s")
    sets = points(space, 5)
    costs = [[0.5, 0.1, 0.3, 0.2, 0.4], [0.35, 0.6, 0.05, 0.7, 0.9]]
    state = {"mean": [0.1, 1 / 3], "sigma": 0.07, "generation": 3}
    where = [{"phase": "search", "run": 1, "worker": 0, "generation": g} for g in (7, 8)]
    studies.record(study, space, [studies.Generation(sets, c, w, state) for c, w in zip(costs, where)])
    trials = studies.completed(study)
    assert [type(t) for t in trials] == [optuna.trial.FrozenTrial] * 2
    for index, (t, best, value, median) in enumerate(zip(trials, (1, 2), (0.1, 0.05), (0.3, 0.6))):
        made = optuna.trial.create_trial(
            params=sets[best], value=value,
            user_attrs={**where[index], "evaluations": 5, "median_cost": median, "cma_state": t.user_attrs["cma_state"]},
            distributions={p.name: optuna.distributions.FloatDistribution(p.lower, p.upper, log=p.log) for p in space.free})
        assert (t.params, t.distributions, t.value, t.user_attrs, t.state) == (
            made.params, made.distributions, made.value, made.user_attrs, made.state)
        assert t.number == index and studies.state(t) == state  # the state round-trips exactly
    assert studies.best(trials).value == 0.05 and studies.evaluations(trials) == 10
    assert list(studies.run_trials(trials, "search", 1, 0)) == [7, 8] and not studies.run_trials(trials, "search", 0, 0)


def test_in_memory_records_are_copies(space: SearchSpace) -> None:
    """Changing the attributes or point given to ``record`` afterwards leaves the study as it
    was; a deep copy of a stored trial equals it and shares no container with it."""
    study = studies.open_study(None, None)
    point, attrs = points(space, 1)[0], {"phase": "polish", "worker": 0}
    studies.record(study, space, [studies.Generation([point], [0.25], attrs)])
    name = space.free[0].name
    expected = point[name]
    point[name] = -1.0
    attrs["phase"] = "changed"
    stored = studies.completed(study)[0]
    assert stored.params[name] == expected
    assert stored.user_attrs == {"phase": "polish", "worker": 0, "evaluations": 1, "median_cost": 0.25}
    twin = copy.deepcopy(stored)
    assert twin == stored and twin.params is not stored.params and twin.user_attrs is not stored.user_attrs
