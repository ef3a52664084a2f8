"""Figures as PNG files (headless: matplotlib ``Figure`` objects, no pyplot, no global state).

Plain functions taking numpy data and an output path, shared with the identification report:

* :func:`plot_drive_backdrive` - drive/backdrive diagrams per model (paper Fig. 2 and 4);
* :func:`plot_trajectory` - simulated vs measured position and the error over time (Fig. 1);
* :func:`plot_mae_bars` - MAE bars per model (Fig. 5 and 7), from :mod:`actuator_models.plots`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Optional, Union

import numpy as np
from matplotlib.figure import Figure

from .drive_backdrive import DriveBackdrive

from actuator_models.plots import PathLike, plot_mae_bars, save_figure as _save, wrap_title

__all__ = ["plot_drive_backdrive", "plot_trajectory", "plot_mae_bars"]


def plot_drive_backdrive(panels: Mapping[str, DriveBackdrive], out: PathLike, title: str = "") -> Path:
    """One drive/backdrive diagram per entry of ``panels`` (title -> data), on a grid.

    Axes: motor torque ``tm`` [N m] horizontally, opposing load ``-te`` [N m] vertically. Blue:
    drive limit, red: backdrive limit, one line per velocity (lighter = faster); grey: the
    static area at rest; dashed: no friction needed (``tm = -te``).
    """
    if not panels:
        raise ValueError("no diagram to plot")
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig = Figure(figsize=(4.2 * cols, 3.9 * rows + (0.4 if title else 0)), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (name, data) in zip(axes, panels.items()):
        top = float(data.motor_torque[-1])
        for row, v in enumerate(data.velocities):
            alpha = float(np.exp(-row / 2))
            first = row == 0
            ax.plot(data.motor_torque, data.drive[row], color="tab:blue", alpha=alpha,
                    label=r"drive $\tau_{drive}$" if first else None)
            ax.plot(data.motor_torque, data.backdrive[row], color="tab:red", alpha=alpha,
                    label=r"backdrive $\tau_{backdrive}$" if first else None)
        ax.fill_between(data.motor_torque, np.nan_to_num(data.drive[0], nan=0.0),
                        np.nan_to_num(data.backdrive[0], nan=top), color="0.85", label="static at rest")
        ax.plot([0, top], [0, top], "k--", lw=1, label=r"$\tau_f = 0$")
        ax.set(xlim=(0, top), ylim=(0, top), xlabel=r"motor torque $\tau_m$ [N m]",
               ylabel=r"load $-\tau_e$ [N m]", title=name)
        ax.grid(alpha=0.3)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    velocities = ", ".join(f"{v:g}" for v in next(iter(panels.values())).velocities)
    axes[0].legend(loc="upper left", fontsize=8, title=f"v = {velocities} rad/s\n(lighter = faster)", title_fontsize=8)
    if title:
        fig.suptitle(wrap_title(title, fig.get_figwidth()))
    return _save(fig, out)


def plot_trajectory(
    time: np.ndarray,
    measured: np.ndarray,
    simulated: Mapping[str, np.ndarray],
    out: PathLike,
    goal: Optional[np.ndarray] = None,
    title: str = "",
) -> Path:
    """Measured vs simulated positions [rad] over ``time`` [s] (top) and the error (bottom).

    ``simulated`` maps a label (the params source, e.g. ``"m6.json"``) to positions of the same length as ``measured``;
    the legend gives each simulation's MAE.
    """
    fig = Figure(figsize=(9, 6), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    if goal is not None:
        top.plot(time, goal, color="0.6", ls=":", label="goal")
    top.plot(time, measured, color="black", lw=2, label="measured")
    for label, positions in simulated.items():
        error = np.asarray(positions) - np.asarray(measured)
        line, = top.plot(time, positions, lw=1.3, label=f"{label} (MAE {np.mean(np.abs(error)):.4f} rad)")
        bottom.plot(time, error, lw=1.1, color=line.get_color(), label=label)
    bottom.axhline(0.0, color="black", lw=0.8)
    top.set(ylabel="position [rad]", title=wrap_title(title, fig.get_figwidth()) or None)
    bottom.set(xlabel="time [s]", ylabel="simulated - measured [rad]")
    top.legend(fontsize=9)
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    return _save(fig, out)
