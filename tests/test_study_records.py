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
def test_recorded_trials_are_what_create_trial_makes(space: SearchSpace, storage, tmp_path: Path) -> None:
    url = None if storage is None else str(tmp_path / "fit.journal")
    study = studies.open_study(studies.open_storage(url), None if url is None else "s")
    sets = points(space, 5)
    studies.record(study, space, sets, [0.5, 0.1, 0.3, 0.2, 0.4], {"phase": "search", "run": 1, "worker": 0, "generation": 7})
    trials = studies.completed(study)
    assert [type(t) for t in trials] == [optuna.trial.FrozenTrial] * 5
    for index, (t, point, value) in enumerate(zip(trials, sets, [0.5, 0.1, 0.3, 0.2, 0.4])):
        made = optuna.trial.create_trial(
            params=point, value=value, user_attrs={"phase": "search", "run": 1, "worker": 0, "generation": 7, "member": index},
            distributions={p.name: optuna.distributions.FloatDistribution(p.lower, p.upper, log=p.log) for p in space.free})
        assert (t.params, t.distributions, t.value, t.user_attrs, t.state) == (
            made.params, made.distributions, made.value, made.user_attrs, made.state)
        assert t.number == index
    assert studies.best(trials).value == 0.1


def test_in_memory_records_are_copies(space: SearchSpace) -> None:
    """Changing the attributes or point given to ``record`` afterwards leaves the study as it
    was; a deep copy of a stored trial equals it and shares no container with it."""
    study = studies.open_study(None, None)
    point, attrs = points(space, 1)[0], [{"phase": "polish", "worker": 0}]
    studies.record(study, space, [point], [0.25], attrs)
    name = space.free[0].name
    expected = point[name]
    point[name] = -1.0
    attrs[0]["phase"] = "changed"
    stored = studies.completed(study)[0]
    assert stored.params[name] == expected and stored.user_attrs == {"phase": "polish", "worker": 0}
    twin = copy.deepcopy(stored)
    assert twin == stored and twin.params is not stored.params and twin.user_attrs is not stored.user_attrs
