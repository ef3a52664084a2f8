"""The Dahl paper's Figures 5-11 (section 3: Fc = 1, rho = 1), redrawn from the simulated experiments.

Fig. 5 the steady-state loop from eqs. 35/36 with its centre of symmetry; Figs. 6/7 displacement
and force of the constant-velocity stage; Figs. 8/9 displacement and force of the periodic
stage (transient dotted, steady state solid from the fourth period); Fig. 10 the steady-state
force over one period against time; Fig. 11 against displacement, with the identified values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import numpy as np

from .dahl import steady_loading_force, steady_unloading_force
from .dahl_experiments import PaperExperiments
from .dahl_identification import Record, identify

#: The paper takes the fourth period as the steady state (section 3.2).
STEADY_PERIOD = 3


def draw_figures(out_dir: str, experiments: PaperExperiments = PaperExperiments()) -> List[Path]:
    """Write ``fig5.png`` .. ``fig11.png`` into ``out_dir`` (created); returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    e = experiments
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t1, x1, f1 = e.constant_velocity()
    t2, x2, f2 = e.periodic()
    result = identify(Record(t1, x1, f1, "stage 1"), Record(t2, x2, f2, "stage 2"))
    period = 2.0 * np.pi / e.omega
    steady = (t2 >= STEADY_PERIOD * period) & (t2 <= (STEADY_PERIOD + 1) * period)
    tau = t2[steady] - STEADY_PERIOD * period
    loading = tau <= 0.5 * period
    xs = np.linspace(-e.amplitude, e.amplitude, 400)
    label = {"xlabel": "displacement x [rad]", "ylabel": "force F [N m]"}
    paths: List[Path] = []

    def save(number: int, title: str, draw, axes: Dict[str, str]) -> None:
        fig, ax = plt.subplots(figsize=(6, 4))
        draw(ax)
        ax.set(title=f"Figure {number}: {title}", **axes)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path = out / f"fig{number}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)

    save(5, "steady-state loop (eqs. 35, 36)", lambda ax: (
        ax.plot(xs, steady_loading_force(xs, e.fc, e.rho, -e.amplitude, e.amplitude), "-", label="loading"),
        ax.plot(xs, steady_unloading_force(xs, e.fc, e.rho, -e.amplitude, e.amplitude), ":", label="unloading"),
        ax.plot([0.0], [0.0], "o", label="centre of symmetry"), ax.legend()), label)
    save(6, "displacement, stage 1", lambda ax: ax.plot(t1, x1), {"xlabel": "t [s]", "ylabel": "x [rad]"})
    save(7, f"force, stage 1 (Fc = {result.fc:.6g})", lambda ax: ax.plot(t1, f1),
         {"xlabel": "t [s]", "ylabel": "F [N m]"})
    save(8, "displacement, stage 2", lambda ax: ax.plot(t2, x2), {"xlabel": "t [s]", "ylabel": "x [rad]"})
    settled = t2 >= STEADY_PERIOD * period
    save(9, "force, stage 2", lambda ax: (
        ax.plot(t2[~settled], f2[~settled], ":", label="transient"),
        ax.plot(t2[settled], f2[settled], "-", label="steady state"), ax.legend()),
        {"xlabel": "t [s]", "ylabel": "F [N m]"})
    save(10, "steady-state force over one period", lambda ax: (
        ax.plot(tau[loading], f2[steady][loading], "-", label="loading"),
        ax.plot(tau[~loading], f2[steady][~loading], ":", label="unloading"), ax.legend()),
        {"xlabel": "tau [s]", "ylabel": "F [N m]"})
    h = result.hysteresis
    save(11, f"loop; rho by eqs. 39/40/41: {h.rho_xmin:.4f}/{h.rho_xmax:.4f}/{h.rho_mid:.4f}",
         lambda ax: (ax.plot(x2[steady][loading], f2[steady][loading], "-", label="loading"),
                     ax.plot(x2[steady][~loading], f2[steady][~loading], ":", label="unloading"), ax.legend()),
         label)
    return paths
