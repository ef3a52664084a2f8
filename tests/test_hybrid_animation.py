"""``--animate FILE`` of SLIP, hexapod and wheel: GIF frames drawn from the recorded trajectory."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageSequence

from hybrid_sim import RunSettings, simulate
from hybrid_sim.animate import frame_indices
from hybrid_sim.cli import main
from hybrid_sim.slip import Slip, initial_state


def gif_frames(path) -> list:
    with Image.open(path) as image:
        return [np.asarray(frame.convert("L"), dtype=float) for frame in ImageSequence.Iterator(image)]


@pytest.mark.parametrize("command, final_time", [("slip", 0.6), ("wheel", 0.2), ("hexapod", 0.2)])
def test_animate_writes_one_gif_frame_per_25th_of_a_second(tmp_path, capsys, command, final_time):
    path = tmp_path / f"{command}.gif"
    assert main([command, "--final-time", str(final_time), "--animate", str(path)]) == 0
    frames = gif_frames(path)
    assert len(frames) == round(final_time * 25) + 1
    # the system moves: the first and last frames differ, and each frame has a drawing on it
    assert np.abs(frames[0] - frames[-1]).mean() > 0.1
    assert all(frame.min() < 128 for frame in frames)
    assert main([command, "--final-time", str(final_time), "--animate", str(path)]) == 2  # no --force
    assert "exists" in capsys.readouterr().err


def test_frames_are_recorded_samples():
    result = simulate(Slip(), initial_state({}), RunSettings(final_time=1.0, record_period=0.01))
    indices = frame_indices(result, 25.0)
    assert len(indices) == 26
    np.testing.assert_allclose(result.t[indices], np.arange(26) * 0.04, atol=1e-12)
    # every-step recording: the last sample at or before each frame time
    coarse = simulate(Slip(), initial_state({}), RunSettings(final_time=1.0))
    shown = coarse.t[frame_indices(coarse, 10.0)]
    for k, t in enumerate(shown):
        assert t <= k * 0.1 + 1e-12 and not np.any((coarse.t > t) & (coarse.t <= k * 0.1))


def test_animate_refuses_what_it_cannot_write(tmp_path, capsys):
    assert main(["slip", "--final-time", "0.1", "--animate", str(tmp_path / "a.avi")]) == 2
    assert "must end in .gif or .mp4" in capsys.readouterr().err
    from matplotlib import animation

    if not animation.writers.is_available("ffmpeg"):
        assert main(["wheel", "--final-time", "0.1", "--animate", str(tmp_path / "a.mp4")]) == 2
        assert "MP4 needs ffmpeg" in capsys.readouterr().err
    assert not (tmp_path / "a.mp4").exists() and not (tmp_path / "a.avi").exists()
