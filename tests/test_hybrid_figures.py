"""Issue 34: figures a person reads at once. ``slip.png`` had no units on its axes, ``hexapod.png``
no legend for its stance colours. The figures are read back from the matplotlib objects."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from hybrid_sim import RunSettings, simulate  # noqa: E402
from hybrid_sim.cli import main  # noqa: E402
from hybrid_sim.hexapod import N_LEGS, Hexapod, contacts_of  # noqa: E402
from hybrid_sim.hexapod_cli import hexapod_figure  # noqa: E402
from hybrid_sim.plot import run_figure  # noqa: E402
from hybrid_sim.slip import ASCENT, DESCENT, Slip, initial_state  # noqa: E402


def test_slip_figure_labels_every_axis_with_its_unit(tmp_path):
    model = Slip()
    result = simulate(model, initial_state({"y": 1.2, "theta": 0.2}), RunSettings(final_time=2.0, record_period=0.005))
    fig = run_figure(result, ("x", "y", "xd", "yd"), units=model.state_units)
    try:
        axes = fig.axes
        assert [ax.get_ylabel() for ax in axes] == ["x [m]", "y [m]", "xd [m/s]", "yd [m/s]", "chart"]
        assert axes[-1].get_xlabel() == "t [s]"
        # the labels belong to the curves: in flight xd [m/s] is the slope of x [m] over t [s]
        t, x = axes[0].lines[0].get_data()
        xd = axes[2].lines[0].get_data()[1]
        flight = np.isin(result.chart, (ASCENT, DESCENT))[1:-1]
        slope = np.gradient(x, t)[1:-1]
        assert np.median(np.abs(slope - xd[1:-1])[flight]) < 1e-3
    finally:
        plt.close(fig)
    path = tmp_path / "slip.png"  # the command draws the same figure (units from the model)
    assert main(["slip", "--final-time", "0.5", "--plot", str(path)]) == 0
    assert path.stat().st_size > 0


def test_hexapod_figure_has_a_legend_for_its_stance_colours():
    model = Hexapod()
    result = simulate(model, model.standing_state(), RunSettings(final_time=1.2, record_period=0.01))
    fig = hexapod_figure(model, result)
    try:
        forward, height, angles, gait = fig.axes
        assert [forward.get_ylabel(), height.get_ylabel(), angles.get_ylabel()] == [
            "forward (-y) [m]", "height z [m]", "angle [rad]"]
        legend = gait.get_legend()
        assert legend is not None
        colour = {text.get_text(): patch.get_facecolor() for text, patch in zip(legend.get_texts(), legend.get_patches())}
        assert sorted(colour) == ["legs 0, 2, 4 in stance", "legs 1, 3, 5 in stance"]
        assert colour["legs 0, 2, 4 in stance"] != colour["legs 1, 3, 5 in stance"]
        # each leg's stance band is drawn in its legend entry's colour, where that leg is in stance
        stance = np.array([contacts_of(int(c)) for c in result.chart])
        bands = gait.collections
        assert len(bands) == N_LEGS
        for band in bands:
            vertices = np.concatenate([p.vertices for p in band.get_paths()])
            leg = int(round(vertices[:, 1].mean()))
            entry = "legs 0, 2, 4 in stance" if leg % 2 == 0 else "legs 1, 3, 5 in stance"
            assert to_rgba(band.get_facecolor()[0]) == to_rgba(colour[entry])
            covered = vertices[:, 0].max() - vertices[:, 0].min()
            first, last = result.t[stance[:, leg]][[0, -1]]
            assert covered >= last - first  # the band spans the leg's stance times
    finally:
        plt.close(fig)
