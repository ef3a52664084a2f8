"""``--animate FILE``: a recorded hybrid run as an animation (the manual's second mode of use, its
Geomview window, as a file): GIF through matplotlib's PillowWriter, MP4 through ffmpeg where it
is installed.

Frames are drawn from the recorded trajectory itself, not a re-run: frame ``k`` at time
``k / fps`` shows the last recorded sample at or before it (with the usual record period of
10 ms and 25 frames per second every frame is a recorded sample).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import numpy as np

from actuator_models.outputs import check_writable

from .result import HybridResult
from .symbols import refuse_overwrite

SUFFIXES = (".gif", ".mp4")


def check_animation_path(path: Optional[str], force: bool) -> None:
    """Refuse, before the run, a file that cannot be written (a disk fault) or exists (without
    ``--force``), an unknown suffix, or MP4 without ffmpeg."""
    if not path:
        return
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"--animate: {path}: the file name must end in .gif or .mp4")
    if suffix == ".mp4":
        from matplotlib import animation

        if not animation.writers.is_available("ffmpeg"):
            raise ValueError(f"--animate: {path}: MP4 needs ffmpeg, which is not installed here; write a .gif")
    check_writable(path, "--animate")
    refuse_overwrite(path, force)


def frame_indices(result: HybridResult, fps: float) -> np.ndarray:
    """Sample index shown by each frame: the last recorded sample at or before ``k / fps``."""
    if not fps > 0.0:
        raise ValueError(f"--animate-fps: must be > 0, got {fps!r}")
    if result.t.size == 0:
        return np.array([], dtype=int)
    times = result.t[0] + np.arange(int(np.floor((result.t[-1] - result.t[0]) * fps + 1e-9)) + 1) / fps
    return np.clip(np.searchsorted(result.t, times + 1e-12, side="right") - 1, 0, result.t.size - 1)


def write_animation(path: str, fig, draw: Callable[[int], None], indices: np.ndarray, fps: float) -> Path:
    """Save ``draw(sample_index)`` for each frame of ``indices`` into ``path`` (GIF or MP4), close ``fig``."""
    import matplotlib.pyplot as plt
    from matplotlib import animation

    anim = animation.FuncAnimation(fig, lambda k: draw(int(indices[k])), frames=len(indices), blit=False)
    # matplotlib's stubs say fps: int; its writers take any positive rate (--animate-fps 12.5: 80 ms frames)
    writer: animation.AbstractMovieWriter
    if Path(path).suffix.lower() == ".mp4":
        writer = animation.FFMpegWriter(fps=fps)  # type: ignore[arg-type]
    else:
        writer = animation.PillowWriter(fps=fps)  # type: ignore[arg-type]
    anim.save(path, writer=writer)
    plt.close(fig)
    return Path(path)


def new_figure(width: float = 6.0, height: float = 4.0):
    """A figure on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.figure(figsize=(width, height), dpi=80)
