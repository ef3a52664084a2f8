"""The Warp twin's per-servo rows are built from the additions' declarations
(:data:`actuator_sim.warp_kernels.ADDITION_TWINS`): each twinned addition's ``kernel_columns``
from the model's values, its flag from the additions the model carries, its twin's derived
columns (latency's delay split, checked against its closed form) only when carried."""

from __future__ import annotations

from dataclasses import replace

import pytest

from actuator_models.additions import ADDITIONS
from actuator_models.model import new_model

pytest.importorskip("warp", reason="the warp extra (make install installs it)")
from actuator_sim import warp_kernels as kernels  # noqa: E402
from actuator_sim.joint_sim import Servo  # noqa: E402
from actuator_sim.warp_servo import servo_row  # noqa: E402


def row(additions: tuple, **values: float) -> tuple:
    model = new_model("xl330", "m6", additions=additions)
    model = replace(model, values={**model.values, **values})
    floats, ints = servo_row(Servo("joint", model, kp=8.0), 0.004)
    return dict(zip(kernels.COLUMNS, floats)), ints


def test_every_twinned_addition_has_its_declared_columns_and_a_flag():
    for name, twin in kernels.ADDITION_TWINS.items():
        assert set(ADDITIONS[name].kernel_columns) <= set(kernels.COLUMNS), name
        assert {name, *twin.ints} <= set(kernels.INT_COLUMNS), name
        assert set(twin.floats) <= set(kernels.COLUMNS), name


def test_latency_split_into_whole_steps_fraction_and_held_steps_when_carried():
    floats, ints = row(("latency", "backlash"), latency=0.011, backlash=0.02)  # 2.75 steps of 4 ms
    assert ints["latency"] == 1 and ints["backlash"] == 1 and ints["heating"] == 0 and ints["thermal"] == 0
    assert ints["delay_whole"] == 2 and ints["delay_held"] == 3
    assert floats["delay_fraction"] == pytest.approx(0.75, abs=1e-12)
    assert floats["backlash"] == 0.02 and floats["latency"] == 0.011


def test_a_model_without_the_additions_has_them_off_and_their_derived_columns_zero():
    floats, ints = row(())
    assert all(ints[name] == 0 for name in kernels.ADDITION_TWINS)
    assert ints["delay_whole"] == 0 and ints["delay_held"] == 0 and floats["delay_fraction"] == 0.0
