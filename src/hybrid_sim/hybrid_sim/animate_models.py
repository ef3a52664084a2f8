"""Drawings of the SLIP runner, the wheel and the hexapod for ``--animate`` (see ``animate``).

Each draws one recorded sample: the SLIP body and leg in the x-y plane (stance legs to the
foot, flight legs at the touchdown angle); the wheel's tread circle with three spokes turning
with its pitch, over its ground profile; the hexapod from the side (y-z, forward is -y) and from
above (x-y), body outline through the hips and each leg hip -> toe (stance legs solid).
"""

from __future__ import annotations

import numpy as np

from .animate import frame_indices, new_figure, write_animation
from .hexapod import F, N_LEGS, Q, R, Hexapod, contacts_of, rotation
from .result import HybridResult
from .slip import COMPRESSION, DECOMPRESSION, Slip
from .wheel import Wheel

SPOKES = np.arange(3) * 2.0 * np.pi / 3.0


def animate_slip(model: Slip, result: HybridResult, path: str, fps: float = 25.0) -> None:
    fig = new_figure()
    ax = fig.add_subplot(1, 1, 1)
    (ground,) = ax.plot([], [], "k-", lw=1.0)
    (leg,) = ax.plot([], [], "-", lw=2.0)
    (body,) = ax.plot([], [], "o", ms=14)
    ax.set(aspect="equal", xlabel="x [m]", ylabel="y [m]")
    s = {n: result.state(n) for n in ("x", "y", "foot_x", "foot_y", "theta")}
    q_rt = model.p.q_rt

    def draw(i: int) -> None:
        x, y, chart = s["x"][i], s["y"][i], int(result.chart[i])
        if chart in (COMPRESSION, DECOMPRESSION):
            foot = (s["foot_x"][i], s["foot_y"][i])
        else:
            foot = (x + q_rt * np.sin(s["theta"][i]), y - q_rt * np.cos(s["theta"][i]))
        ax.set_xlim(x - 1.5, x + 1.5)
        ax.set_ylim(-0.1, 1.6)
        ground.set_data([x - 2.0, x + 2.0], [0.0, 0.0])
        leg.set_data([x, foot[0]], [y, foot[1]])
        body.set_data([x], [y])
        ax.set_title(f"SLIP t = {result.t[i]:.2f} s  {result.chart_name(chart)}")

    write_animation(path, fig, draw, frame_indices(result, fps), fps)


def animate_wheel(model: Wheel, result: HybridResult, path: str, fps: float = 25.0) -> None:
    from matplotlib.patches import Circle

    p = model.params
    fig = new_figure()
    ax = fig.add_subplot(1, 1, 1)
    x_all, z_all, phi = result.state("x"), result.state("z"), result.state("phi")
    span = np.linspace(x_all.min() - 1.0, x_all.max() + 1.0, 400)
    ground = p.ground()
    ax.plot(span, [ground.height(u) for u in span], "k-", lw=1.0)
    tread = Circle((x_all[0], z_all[0]), p.radius, fill=False, lw=2.0)
    ax.add_patch(tread)
    spokes = [ax.plot([], [], "-", lw=1.0)[0] for _ in SPOKES]
    ax.set(aspect="equal", xlabel="x [m]", ylabel="z [m]")

    def draw(i: int) -> None:
        x, z = x_all[i], z_all[i]
        tread.center = (x, z)
        for line, a in zip(spokes, SPOKES):
            # wheel-frame direction (sin a, 0, cos a) turned by the pitch phi about +y
            line.set_data([x, x + p.radius * np.sin(phi[i] + a)], [z, z + p.radius * np.cos(phi[i] + a)])
        ax.set_xlim(x - 1.0, x + 1.0)
        ax.set_ylim(ground.height(x) - 0.2, ground.height(x) + 1.2)
        ax.set_title(f"wheel t = {result.t[i]:.2f} s  {result.chart_name(int(result.chart[i]))}")

    write_animation(path, fig, draw, frame_indices(result, fps), fps)


def animate_hexapod(model: Hexapod, result: HybridResult, path: str, fps: float = 25.0) -> None:
    fig = new_figure(9.0, 4.0)
    side, top = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    attach = np.array(model.p.attach)
    outline = [0, 1, 2, 5, 4, 3, 0]  # hips around the body
    views = ((side, (1, 2), "y [m] (forward is -y)", "z [m]"), (top, (0, 1), "x [m]", "y [m]"))
    artists = []
    for ax, _, xlabel, ylabel in views:
        (body,) = ax.plot([], [], "k-", lw=2.0)
        legs = [ax.plot([], [], "-", lw=1.5, color="C0" if leg % 2 == 0 else "C1")[0] for leg in range(N_LEGS)]
        ax.set(aspect="equal", xlabel=xlabel, ylabel=ylabel)
        artists.append((body, legs))
    from matplotlib.lines import Line2D

    top.legend(handles=[Line2D([], [], color="k", lw=2.0, label="body (hips)"),
                        Line2D([], [], color="C0", label="legs 0, 2, 4 in stance"),
                        Line2D([], [], color="C1", label="legs 1, 3, 5 in stance"),
                        Line2D([], [], color="grey", ls=":", label="dotted: leg in swing")], fontsize=7, loc="upper right")

    def draw(i: int) -> None:
        x = result.y[:, i]
        hips = x[R] + attach @ rotation(x[Q]).T
        toes = x[F].reshape(N_LEGS, 3)
        stance = contacts_of(int(result.chart[i]))
        for (ax, (a, b), _, _), (body, legs) in zip(views, artists):
            body.set_data(hips[outline, a], hips[outline, b])
            for leg, line in enumerate(legs):
                line.set_data([hips[leg, a], toes[leg, a]], [hips[leg, b], toes[leg, b]])
                line.set_linestyle("-" if stance[leg] else ":")
            centre = x[R]
            ax.set_xlim(centre[a] - 0.4, centre[a] + 0.4)
            ax.set_ylim((-0.05, 0.35) if b == 2 else (centre[b] - 0.4, centre[b] + 0.4))
        side.set_title(f"hexapod t = {result.t[i]:.2f} s, stance legs {np.flatnonzero(stance).tolist()}", fontsize=9)

    write_animation(path, fig, draw, frame_indices(result, fps), fps)
