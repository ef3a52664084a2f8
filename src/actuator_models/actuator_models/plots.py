"""Figures shared by identification reports and simulation tools, as PNG files (headless:
matplotlib ``Figure`` objects, no pyplot, no global state)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Mapping, Sequence, Union

import numpy as np
from matplotlib.figure import Figure

PathLike = Union[str, Path]
DPI = 120


def save_figure(fig: Figure, out: PathLike) -> Path:
    """Write ``fig`` as a PNG at :data:`DPI`, creating the folder."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI)
    return out


def wrap_title(title: str, width_inches: float) -> str:
    """``title`` with each line wrapped to fit a figure ``width_inches`` wide (about 8
    characters per inch at the default title size, with a margin)."""
    return "\n".join(textwrap.fill(line, max(20, int(8 * width_inches))) for line in title.splitlines())


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
            values = np.array([maes[g].get(model, np.nan) for g in groups], dtype=float)
            bars = ax.bar(x + (i - (len(models) - 1) / 2) * width, values, width, label=model)
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
