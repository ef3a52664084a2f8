"""The fit's data rule (:mod:`actuator_models.data_rule`): one training log per two free
parameters, thermal's counted against the logs that record the temperature register it is fitted
against (issue 31), the rest against the position records."""

from dataclasses import replace

import pytest

from actuator_models.addition_release import releases_torque
from actuator_models.data_rule import evidence_counts, shortfall
from actuator_models.fit_data import FitSettings
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import TooFewTrainingLogs, prepare
from actuator_models.identification import Identification
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.objective import SearchSpace
from actuator_models.splits import Dataset

SETTINGS = {"thermal_ambient": 28.0, "thermal_initial": 29.0}


def _free(model):
    return [p.name for p in SearchSpace.for_model(model, SETTINGS).free]


def _without_temperature(log):
    return replace(log, extra={k: v for k, v in log.extra.items() if k != "temp"})


def test_thermal_parameters_count_against_the_logs_recording_the_register(xl330_processed):
    """M6 carrying thermal: 15 parameters against the positions, thermal's 5 searched ones (its
    ambient and start temperatures are settings) against the temperature register. 8 logs that
    all record it are enough (8 >= 15/2, 8 >= 5/2); 8 logs of which 2 record it are not (5
    parameters need 3), and the refusal names the register; 7 logs are short of positions."""
    model = new_model("xl330", "m6", additions=("thermal",))
    free = _free(model)
    assert len(free) == 20
    assert evidence_counts(model, free) == {"positions": 15, "temperature": 5}
    assert evidence_counts(new_model("xl330", "m6", additions=("heating",)), free[:15] + ["heating"]) == {
        "positions": 16}
    logs = read_logs(xl330_processed)[:8]
    assert shortfall(model, free, logs) is None
    few = [log if k < 2 else _without_temperature(log) for k, log in enumerate(logs)]
    short = shortfall(model, free, few)
    assert (short.evidence, short.free, short.have, short.needed) == ("temperature", 5, 2, 3)
    short = shortfall(model, free, logs[:7])
    assert (short.evidence, short.free, short.have, short.needed) == ("positions", 15, 7, 8)
    with pytest.raises(ValueError, match="2 training log.s. recording the temperature for 5 free parameters fitted "
                                         "against the temperature of xl330/m6: at least 3 needed"):
        Identification(model, Dataset(tuple(few), tuple(few), (), "test"), FitSettings(trials=10))


def test_release_parameters_count_against_the_logs_that_release_the_torque(xl330_processed):
    """M6 carrying release: its 2 shares against the logs releasing the torque (the only ones that
    identify them), M6's 15 against the positions: 8 logs of which one releases are enough; 8 that
    never release are not, and the refusal names the torque release."""
    model = new_model("xl330", "m6", additions=("release",))
    free = [p.name for p in SearchSpace.for_model(model).free]
    assert evidence_counts(model, free) == {"positions": 15, "torque release": 2}
    logs = read_logs(xl330_processed)
    assert [releases_torque(log.torque_enable) for log in logs] == [log.trajectory == "lift_and_drop" for log in logs]
    one = [log for log in logs if log.trajectory != "lift_and_drop"][:7] + [logs[1]]
    assert shortfall(model, free, one) is None
    never = [log for log in logs if log.trajectory != "lift_and_drop"][:8]
    short = shortfall(model, free, never)
    assert (short.evidence, short.free, short.have, short.needed) == ("torque release", 2, 0, 1)
    with pytest.raises(ValueError, match="0 training log.s. recording the torque release for 2 free parameters "
                                         "fitted against the torque release"):
        Identification(model, Dataset(tuple(never), tuple(never), (), "test"), FitSettings(trials=10))


def test_a_default_split_fits_m6_carrying_thermal_supply_and_release_without_force(xl330_processed):
    """The default split of the 12 XL330 logs trains on 8, two of which release the torque: the
    default fit of M6 carries thermal, supply and release (23 free parameters) and is accepted
    without --force; hold out 6 and it is refused by the positions' count (16 parameters: M6's 15
    and supply's, 8 needed), not a blanket one of 23."""
    prepared = prepare(FitSpec(str(xl330_processed), "xl330", ("m6",)))
    assert prepared.carry == ("thermal", "supply", "release") and len(prepared.dataset.train) == 8
    assert sum(releases_torque(log.torque_enable) for log in prepared.dataset.train) == 2
    with pytest.raises(TooFewTrainingLogs) as refused:
        prepare(FitSpec(str(xl330_processed), "xl330", ("m6",), validation_fraction=0.5))
    assert (refused.value.evidence, refused.value.free, refused.value.train, refused.value.needed) == (
        "positions", 16, 6, 8)
    assert len(prepared.dataset.validation) == 4
