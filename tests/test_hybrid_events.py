"""Event detection that never misses silently (issue 35, findings 1 and 2), against closed forms and an
independent scipy integration: a boundary outside its patch on entry fires at once or is reported, and a
boundary that dips below zero for less than one step is found by its derivative."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from hybrid_sim import Boundary, HybridModel, RunSettings, Side, Transition, simulate
from hybrid_sim.slip import DECOMPRESSION, Slip, SlipParameters
from hybrid_sim.slip_cli import FIGURE1

G = 9.81


class Ceiling(HybridModel):
    """A ball thrown up under a ceiling at height H: y'' = -g; chart FLIGHT ends where y reaches H."""

    state_names = ("y", "v")
    n_continuous = 2
    chart_names = ("FLIGHT", "HIT")

    def __init__(self, height: float) -> None:
        self.height = height

    def vector_field(self, t, x, chart):
        return np.array([x[1], -G]) if chart == 0 else np.zeros(2)

    def boundaries(self, chart):
        return [Boundary(0, Side.RIGHT)] if chart == 0 else []

    def boundary(self, t, x, chart, index):
        return self.height - x[0]

    def transition(self, t, x, chart, index):
        return Transition(1, x.copy())


@pytest.mark.parametrize("dip, max_step", [(2e-3, 0.01), (20e-3, 0.1)])
def test_a_boundary_dipping_below_zero_for_less_than_a_step_is_found(dip, max_step):
    # the ball's apex rises delta above the ceiling: it is above it for 2 sqrt(2 delta / g) = dip
    # seconds; both step ends around the apex are below the ceiling (until issue 35: no event, status 0)
    delta = G * (dip / 2.0) ** 2 / 2.0
    v0 = math.sqrt(2.0 * G * (1.0 + delta))
    hit = (v0 - math.sqrt(2.0 * G * delta)) / G  # closed form: y(t) = v0 t - g t^2 / 2 = 1
    settings = RunSettings(final_time=1.0, max_time_step=max_step, tolerance=1e-10, stop_precision=1e-12)
    result = simulate(Ceiling(1.0), [0.0, v0], settings)
    assert result.success, result.message
    assert len(result.events) == 1 and result.events[0].chart_to == 1
    assert result.events[0].t == pytest.approx(hit, abs=1e-8)
    # and with the apex below the ceiling nothing fires
    below = simulate(Ceiling(1.0 + 2.0 * delta), [0.0, v0], settings)
    assert below.success and not below.events


class Ball(HybridModel):
    state_names = ("y", "v")
    n_continuous = 2
    chart_names = ("FLIGHT",)

    def vector_field(self, t, x, chart):
        return np.array([x[1], -G])

    def boundaries(self, chart):
        return [Boundary(0, Side.RIGHT)]

    def boundary(self, t, x, chart, index):
        return x[0]

    def transition(self, t, x, chart, index):
        return Transition(0, np.array([x[0], -0.8 * x[1]]))


def test_a_ball_started_below_the_floor_is_reported_not_dropped():
    # until issue 35: the floor boundary, -0.5 on entry, was never armed; the ball fell to
    # y = -20 m (y = -0.5 - g t^2 / 2 at 2 s) and the run said "reached final time"
    result = simulate(Ball(), [-0.5, 0.0], RunSettings(final_time=2.0))
    assert result.status != 0
    assert "-0.5 on entry" in result.message
    assert result.state("y").min() >= -0.5


def slip_reference(params: SlipParameters, x0, strides: int):
    """Independent SLIP integration: stance in Cartesian coordinates about a fixed foot until the
    leg reaches q_rl lengthening; the flight's touchdown in closed form (projectile, toe at q_rt
    along the liftoff angle). Returns [(liftoff time, touchdown time)] per stride."""
    m, k, q0 = params.body_mass, params.k, params.q_0
    t, s = 0.0, np.array(x0[:4], dtype=float)
    foot = np.array([x0[0] + x0[1] * math.tan(x0[6]), 0.0])
    out = []
    for _ in range(strides):
        def stance(_t, z, foot=foot):
            leg = z[:2] - foot
            rho = math.hypot(*leg)
            force = k * (q0 - rho)  # the linear leg spring (i, j) = (2, 1)
            return [z[2], z[3], force * leg[0] / rho / m, force * leg[1] / rho / m - params.g_stance]

        def liftoff(_t, z, foot=foot):
            return math.hypot(*(z[:2] - foot)) - params.q_rl
        liftoff.terminal, liftoff.direction = True, 1.0
        # the leg starts at or below q_rl: skip the first instant so a start at q_rl is not an event
        sol = solve_ivp(stance, (t, t + 2.0), s, rtol=1e-12, atol=1e-12, events=liftoff, first_step=1e-9)
        t_lo, s = float(sol.t_events[0][0]), sol.y_events[0][0]
        leg = s[:2] - foot
        theta = math.atan2(leg[0], leg[1])
        # flight: toe height h(t) = y(t) - q_rt cos theta, zero at liftoff; the next zero of
        # yd tau - g tau^2 / 2 + h0 with h0 = y - q_rt cos theta
        h0 = s[1] - params.q_rt * math.cos(theta)
        if s[3] < 0.0:
            tau = 0.0  # falling at liftoff: the toe is at the ground and going down: touchdown at once
        else:
            tau = (s[3] + math.sqrt(s[3] ** 2 + 2.0 * params.g_flight * h0)) / params.g_flight
        out.append((t_lo, t_lo + tau, s[3]))
        s = np.array([s[0] + s[2] * tau, s[1] + s[3] * tau - params.g_flight * tau ** 2 / 2, s[2],
                      s[3] - params.g_flight * tau])
        foot = s[:2] + params.q_rt * np.array([math.sin(theta), -math.cos(theta)])
        t = t_lo + tau
    return out


def test_slip_lifting_off_while_falling_touches_down_at_once_as_an_independent_integration():
    # until issue 35: liftoff with yd = -0.0023 m/s entered ASCENT with its apex boundary (yd)
    # already negative, never armed: the body stayed in ASCENT and "toppled over" at 0.82 s
    params = SlipParameters(spri=2.0, sprj=1.0, k=2e4)
    x0 = [0.0, 0.95, 2.0, 0.0, 0.0, 0.0, 0.1]
    ref = slip_reference(params, x0, 3)
    assert ref[1][2] < 0.0  # the second liftoff is falling (the case)
    result = simulate(Slip(params), x0, replace(FIGURE1, final_time=ref[2][0] + 0.01))
    assert result.status == 0, result.message
    liftoffs = [e.t for e in result.events if e.chart_from == DECOMPRESSION]
    touchdowns = [e.t for e in result.events if e.chart_to == 2]  # COMPRESSION
    np.testing.assert_allclose(liftoffs[:3], [r[0] for r in ref], atol=1e-6)
    np.testing.assert_allclose(touchdowns[:2], [r[1] for r in ref[:2]], atol=1e-6)
