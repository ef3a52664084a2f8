"""A PNG of a hybrid run: chosen states against time, epochs shaded by chart, events marked."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional, Sequence, Union


from .result import HybridResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_run(result: HybridResult, path: Union[str, Path], states: Optional[Sequence[str]] = None,
             title: str = "", units: Optional[Mapping[str, str]] = None) -> Path:
    """Write a PNG with one panel per state (default: every state) and the chart sequence
    (:func:`run_figure`)."""
    import matplotlib.pyplot as plt

    fig = run_figure(result, states, title, units)
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_figure(result: HybridResult, states: Optional[Sequence[str]] = None, title: str = "",
               units: Optional[Mapping[str, str]] = None) -> "Figure":
    """The figure of :func:`plot_run`: each state's panel labelled ``name [unit]`` (``units``: the
    model's :attr:`~.model.HybridModel.state_units`; a state without one keeps its bare name)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(states) if states else list(result.state_names)
    units = units or {}
    fig, axes = plt.subplots(len(names) + 1, 1, sharex=True, figsize=(8, 1.6 * (len(names) + 1)),
                             squeeze=False)
    axes = axes[:, 0]
    for ax, name in zip(axes, names):
        ax.plot(result.t, result.state(name), lw=1.0)
        ax.set_ylabel(f"{name} [{units[name]}]" if name in units else name)
        ax.grid(alpha=0.3)
    chart_ax = axes[-1]
    chart_ax.step(result.t, result.chart, where="post", lw=1.0, color="k")
    used = sorted(set(int(c) for c in result.chart))
    chart_ax.set_yticks(used)
    chart_ax.set_yticklabels([result.chart_name(c) for c in used], fontsize=7)
    chart_ax.set_ylabel("chart")
    chart_ax.set_xlabel("t [s]")
    if len(result.events) <= 200:
        for ax in axes:
            for e in result.events:
                ax.axvline(e.t, color="r", lw=0.4, alpha=0.4)
    fig.suptitle(title or f"{len(result.events)} transitions; {result.message}", fontsize=9)
    fig.tight_layout()
    return fig
