"""Issue 34.6: the demo's figures read at once: one-line titles true to the figure, and a wrapped
title never splits a word or a path."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from actuator_bench import demo_titles
from actuator_bench.demo_settings import demo_settings
from actuator_models.actuators import actuator
from actuator_models.logs import read_log
from actuator_models.plots import wrap_title
from actuator_models.trajectories import TRAJECTORIES

LOG = read_log(Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed" / "2026-01-15_10h28m17.json")


@pytest.mark.parametrize("name", sorted(demo_settings()))
def test_every_demo_trajectory_title_is_one_line_of_its_figure(name):
    """Before: the STS demo's title ran to six lines (an absolute path split mid-word)."""
    full, quick = demo_settings()[name]
    for trajectory in TRAJECTORIES:
        for kp in (*full.grid.kps, *quick.grid.kps):
            title = demo_titles.trajectory(actuator(full.actuator).title, full.reference,
                                           replace(LOG, trajectory=trajectory, kp=kp))
            assert wrap_title(title, 9.0) == title, title  # plot_trajectory's figure is 9 in wide
            assert Path(full.reference).stem in title and trajectory in title


def test_the_arm_caveat_names_m6_only_when_m6_is_on_the_bars():
    """Before: 'M6's advantage here is partly built in' under bars of M1 and M5."""
    assert demo_titles.arm_caveat("m5", same=False) is None
    assert demo_titles.arm_caveat("m6", same=True) is None  # the 'real' arm is the emulated truth
    assert "M6's advantage" in demo_titles.arm_caveat("m6", same=False)
    assert "\n" not in demo_titles.arm(("mx106/m6", "mx64/m6"))


def test_a_wrapped_title_never_splits_a_path():
    path = "/work/some/very/long/absolute/folder/name/demo-out/logs/processed/mx64_sin_sin_m1_l0.15_kp32.json"
    wrapped = wrap_title(f"data: validation log {path} (lift_and_drop, m=1 kg)", 5.0)
    assert path in wrapped.splitlines()
