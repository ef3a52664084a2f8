"""Figures of a residual analysis (:mod:`.residuals`), as PNG files."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Sequence

import numpy as np
from matplotlib.figure import Figure

from .logs import Log
from .plots import PathLike, plot_mae_bars, save_figure
from .residuals import LOAD_BINS, PHASES, SPEED_BINS, LogResiduals, by_group, phase_labels

PHASE_COLOURS = {"torque release": "C2", "reversal": "C3", "hold under load": "C1", "high speed": "C4", "other": "none"}


def plot_phases(residuals: Sequence[LogResiduals], out: PathLike, title: str) -> Path:
    """MAE by phase, one bar per gain."""
    groups = by_group(residuals, "kp")
    maes = {p: {g: groups[g][p] for g in groups if p in groups[g]} for p in PHASES}
    return plot_mae_bars({p: m for p, m in maes.items() if m}, out, title=title)


def plot_bins(residuals: Sequence[LogResiduals], out: PathLike, title: str) -> Path:
    """MAE against |measured speed| and against gravity load, one line per gain."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, attribute, edges, label in ((axes[0], "by_speed", SPEED_BINS, "|measured speed| [rad/s]"),
                                        (axes[1], "by_load", LOAD_BINS, "gravity load [fraction of largest]")):
        names = [f"{lo:g}-{hi:g}" if np.isfinite(hi) else f">{lo:g}" for lo, hi in zip(edges[:-1], edges[1:])]
        for i, kp in enumerate(sorted({r.kp for r in residuals})):
            rows = np.array([getattr(r, attribute) for r in residuals if r.kp == kp], dtype=float)
            with warnings.catch_warnings():  # an empty bin is NaN, said by a gap in the line
                warnings.simplefilter("ignore", RuntimeWarning)
                ax.plot(names, np.nanmean(rows, axis=0), "o-", color=f"C{i}", label=f"kp {kp:g}")
        ax.set(xlabel=label, ylabel="MAE [rad]")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    return save_figure(fig, out)


def plot_log(log: Log, simulated: np.ndarray, out: PathLike, title: str) -> Path:
    """One log: goal, measured and simulated position, the error, phases shaded."""
    n = len(log)
    t = np.arange(n) * log.period
    labels = phase_labels(log)
    fig = Figure(figsize=(11, 6), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(2, 1))
    top.plot(t, np.asarray(log.goal_position)[:n], "k:", lw=0.8, label="goal")
    top.plot(t, np.asarray(log.position)[:n], "k", label="measured")
    top.plot(t, simulated[:n], "C0", lw=1, label="simulated")
    bottom.plot(t, simulated[:n] - np.asarray(log.position)[:n], "C0", lw=1)
    for ax in (top, bottom):
        for i, phase in enumerate(PHASES):
            if PHASE_COLOURS[phase] == "none":
                continue
            inside = labels == i
            ax.fill_between(t, 0, 1, where=inside, color=PHASE_COLOURS[phase], alpha=0.15,
                            transform=ax.get_xaxis_transform(), label=phase if ax is top and inside.any() else None)
        ax.grid(alpha=0.3)
    top.set(ylabel="position [rad]", title=title)
    bottom.set(xlabel="time [s]", ylabel="simulated - measured [rad]")
    top.legend(fontsize=8, ncol=4)
    return save_figure(fig, out)
