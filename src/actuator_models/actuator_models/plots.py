"""Figures as PNG files (headless matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence, Union

import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def mae_bars(
    labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    path: Union[str, Path],
    title: str = "",
    ylabel: str = "MAE [rad]",
) -> Path:
    """Grouped bar chart of MAE per model (paper Fig. 5 / 7 style); one bar colour per series.

    ``series`` maps a legend entry (e.g. ``"train"``, ``"validation"``) to one value per label.
    """
    plt = _pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    x = np.arange(len(labels))
    width = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(labels) + 2), 3.6), dpi=120)
    colours = plt.get_cmap("tab10").colors
    for k, (name, values) in enumerate(series.items()):
        offset = (k - (len(series) - 1) / 2) * width
        bars = ax.bar(x + offset, values, width, label=name, color=colours[k % 10], edgecolor="black", linewidth=0.5)
        ax.bar_label(bars, fmt="%.3f", fontsize=7, padding=2)
    ax.set_xticks(x, [label.upper() if len(label) == 2 else label for label in labels])
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.margins(y=0.15)
    if len(series) > 1:
        ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
