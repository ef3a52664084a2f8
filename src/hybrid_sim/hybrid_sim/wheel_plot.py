"""PNG of a wheel run: position, slip, spring energy and contact force against time (MuJoCo overlaid)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from .result import HybridResult
from .wheel_mujoco import MujocoRun


def plot_wheel(result: HybridResult, path: Union[str, Path], mujoco: Optional[MujocoRun] = None,
               title: str = "") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    aux = dict(zip(result.aux_names, result.aux))
    t = result.t
    fig, axes = plt.subplots(5, 1, sharex=True, figsize=(8, 10))
    panels = (
        ("x [m]", [("x", "x hybrid")]),
        ("z [m]", [("z", "z hybrid")]),
        ("slip [m/s]", [("slip_velocity", "|v_t| at p_c")]),
        ("spring energy [J]", [("spring_energy", "V total"), ("tangential_energy", "V tangential")]),
        ("contact force [N]", [("f_n", "f_z (normal)"), ("f_t", "|f_t| (tangential)")]),
    )
    for ax, (label, curves) in zip(axes, panels):
        for key, name in curves:
            ax.plot(t, aux[key], lw=1.0, label=name)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    if mujoco is not None:
        axes[0].plot(mujoco.t, mujoco.state("x"), "--", lw=1.0, label="x MuJoCo")
        axes[1].plot(mujoco.t, mujoco.state("z"), "--", lw=1.0, label="z MuJoCo")
    for ax in axes:
        ax.legend(fontsize=7, loc="best")
        for start, end in _contact_spans(result):
            ax.axvspan(start, end, color="0.9", lw=0)
    axes[-1].set_xlabel("t [s] (shaded: tire on the ground)")
    fig.suptitle(title or f"wheel: {len(result.events)} transitions; {result.message}", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _contact_spans(result: HybridResult):
    """(start, end) of the recorded stretches outside the FLIGHT chart (chart 0)."""
    spans, start = [], None
    for t, c in zip(result.t, result.chart):
        if c != 0 and start is None:
            start = t
        if c == 0 and start is not None:
            spans.append((start, t))
            start = None
    if start is not None:
        spans.append((start, result.t[-1]))
    return spans
