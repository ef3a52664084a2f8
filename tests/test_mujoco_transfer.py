"""Plumbing of the transfer experiment: the virtual MuJoCo bench and identification on it."""

from dataclasses import replace

import numpy as np
import pytest

from actuator_models import load_model
from actuator_models.synthesis import BenchConfig, synthesize_logs
from actuator_sim.transfer import BENCH_GRIDS, virtual_bench_logs


def test_virtual_bench_records_the_mujoco_pendulum():
    model = load_model("mx64/m6")
    config = BenchConfig(1.0, 0.15, 8.0)
    logs = virtual_bench_logs(model, [config])
    reference = synthesize_logs(replace(model, integrator="semi-implicit"), [config], encoder_step=0.0)
    assert [log.trajectory for log in logs] == [log.trajectory for log in reference]
    for log, ref in zip(logs, reference):
        assert np.mean(np.abs(log.position - ref.position)) < 0.01
        assert log.speed[0] == 0.0 and log.kp == 8.0 and log.motor == "mx64"
    assert len(BENCH_GRIDS["mx"]) == 36 and len(BENCH_GRIDS["erob"]) == 20


def test_identification_on_the_virtual_bench_records_the_integrator():
    pytest.importorskip("actuator_models.identification")
    from actuator_sim.transfer import identify

    logs = virtual_bench_logs(load_model("mx64/m6"), [BenchConfig(1.0, 0.15, 8.0), BenchConfig(0.5, 0.2, 32.0)])
    result = identify(logs, "mx64", "m1", "semi-implicit", trials=16)
    assert result.model.integrator == "semi-implicit"
    assert result.model.friction.name == "m1"
    assert result.validation_mae is not None and result.validation_mae < 1.0
