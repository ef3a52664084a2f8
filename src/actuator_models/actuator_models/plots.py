"""Every figure of the project's actuator tools, in one place, as PNG files (headless:
matplotlib ``Figure`` objects, no pyplot, no global state). Plain functions taking numpy data and
an output path, used by the identification report, ``actuator-sim`` and the demo:

* :func:`plot_mae_bars` - MAE bars per model (paper Fig. 5 and 7);
* :func:`plot_drive_backdrive` - drive/backdrive diagrams per model (Fig. 2 and 4; the data from
  ``actuator_sim.drive_backdrive``);
* :func:`plot_trajectory` - simulated vs measured position and the error over time (Fig. 1).
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import List, Mapping, Optional, Protocol, Sequence, Union

import numpy as np
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.figure import Figure

PathLike = Union[str, Path]
DPI = 120


class DriveBackdriveData(Protocol):
    """Drive/backdrive limits on a grid (``actuator_sim.drive_backdrive.DriveBackdrive``):
    motor_torque ``(N,)`` [N m], velocities ``(V,)`` [rad/s], drive and backdrive ``(V, N)``
    loads ``-te`` [N m] (NaN where the grid has none)."""

    @property
    def motor_torque(self) -> np.ndarray: ...  # noqa: E704

    @property
    def velocities(self) -> np.ndarray: ...  # noqa: E704

    @property
    def drive(self) -> np.ndarray: ...  # noqa: E704

    @property
    def backdrive(self) -> np.ndarray: ...  # noqa: E704


def check_figure_path(path: PathLike, option: str) -> None:
    """Before any work: a ValueError naming ``option`` when ``path``'s extension is no format
    matplotlib writes (``--out fig.xyz`` failed only after the figure's computation)."""
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise ValueError(f"{option} {path}: {'.' + suffix if suffix else 'no extension'} is not a figure format "
                         f"({', '.join(sorted(formats))})")


def save_figure(fig: Figure, out: PathLike) -> Path:
    """Write ``fig`` as a PNG at :data:`DPI`, creating the folder."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI)
    return out


def wrap_title(title: str, width_inches: float) -> str:
    """``title`` with each line wrapped to fit a figure ``width_inches`` wide (about 8
    characters per inch at the default title size, with a margin), between words only: a path
    or a name is never split."""
    return "\n".join(textwrap.fill(line, max(20, int(8 * width_inches)), break_long_words=False,
                                    break_on_hyphens=False) for line in title.splitlines())


def plot_mae_bars(
    maes: Mapping[str, Mapping[str, float]],
    out: PathLike,
    title: str = "",
    ylabel: str = "MAE [rad]",
) -> Path:
    """Grouped bars: one group per key of ``maes`` (a configuration, e.g. ``"circle, low gain"``),
    one bar per model inside it (``{group: {model: mae}}``); values written above the bars."""
    if not maes:
        raise ValueError("no MAE to plot")
    groups = list(maes)
    models = list(dict.fromkeys(m for g in groups for m in maes[g]))
    title_width = min(12.0, max((len(line) for line in title.splitlines()), default=0) / 8)  # see wrap_title
    if len(groups) == 1:  # one configuration: the models are the categories
        fig = Figure(figsize=(max(5.0, 1.5 + 0.9 * len(models), title_width), 4.5), layout="constrained")
        ax = fig.subplots()
        values = [maes[groups[0]][m] for m in models]
        bars = ax.bar(models, values, color=[f"C{i}" for i in range(len(models))])
        ax.bar_label(bars, fmt="%.4g", fontsize=8, padding=2)
        ax.set_xlabel(groups[0])
        ax.tick_params(axis="x", labelrotation=20 if len(models) > 5 else 0)
    else:
        width = 0.8 / len(models)
        size = min(15.0, max(6.0, 2.0 + len(groups) * (0.35 + 0.18 * len(models)), title_width))
        fig = Figure(figsize=(size, 4.8), layout="constrained")
        ax = fig.subplots()
        x = np.arange(len(groups))
        for i, model in enumerate(models):
            heights = np.array([maes[g].get(model, np.nan) for g in groups], dtype=float)
            bars = ax.bar(x + (i - (len(models) - 1) / 2) * width, heights, width, label=model)
            if len(groups) * len(models) <= 24:
                ax.bar_label(bars, fmt="%.3g", fontsize=7, rotation=90, padding=2)
        rotate = len(groups) > 4
        ax.set_xticks(x, groups, rotation=25 if rotate else 0, ha="right" if rotate else "center")
        ax.legend(fontsize=9, ncol=min(len(models), 6))
    ax.set(ylabel=ylabel, title=wrap_title(title, fig.get_figwidth()) or None)
    ax.margins(y=0.15 if len(groups) == 1 else 0.25)  # room for the labels under the legend
    ax.grid(axis="y", alpha=0.3)
    return save_figure(fig, out)


def source_labels(sources: Sequence[PathLike]) -> List[str]:
    """Legend label of each params source, so that no two sources share a curve: a library
    name (``mx64/m6``) as is, a file by its name (``m6.json``), or by its path as given when
    two files share a name. The same source given twice is a :class:`ValueError`."""
    given = [str(s) for s in sources]
    repeated = sorted({s for s in given if given.count(s) > 1})
    if repeated:
        raise ValueError(f"params {repeated[0]!r} given twice; each source is one curve")
    names = [Path(s).name if Path(s).suffix == ".json" else s for s in given]
    return [name if names.count(name) == 1 else full for name, full in zip(names, given)]


def plot_drive_backdrive(panels: Mapping[str, "DriveBackdriveData"], out: PathLike, title: str = "") -> Path:
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
    return save_figure(fig, out)


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
    return save_figure(fig, out)
