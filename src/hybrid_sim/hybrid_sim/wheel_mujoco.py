"""The same wheel in MuJoCo: MuJoCo integrates the wheel, the tire model supplies the contact wrench.

The wheel is a MuJoCo body with slide joints along x and z and a hinge about y (the planar wheel
of ``wheel_geometry``); its geom has ``contype = conaffinity = 0`` and there is no ground geom, so
MuJoCo's own contact never acts on that pair. Every step:

1. the contact of ``Wheel.contact`` (same parameters, same chart logic) is evaluated at MuJoCo's
   state and its wrench (force and torque about the wheel's centre of mass, world frame) is
   written to ``data.xfrc_applied``; the drive torque goes to ``data.qfrc_applied``;
2. ``mujoco.mj_step`` advances the wheel (semi-implicit Euler at ``timestep``);
3. the contact's own states (hinge coordinates, spring state, dissipated energy) advance by
   explicit Euler with the rates of step 1;
4. the chart's boundary functions are checked at the new state; a crossing applies the model's
   transition at the step (event times are resolved to one time step, not located). As in the
   hybrid engine, a boundary at or below zero on entering a chart is not armed until it has
   been positive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .wheel import FLIGHT, STATE_NAMES, Wheel, WheelParameters

#: How to get the optional dependency.
INSTALL_HINT = "pip install 'hybrid_sim[mujoco]' (or mujoco>=3.2)"

MJCF = """
<mujoco model="tire_wheel">
  <option timestep="{dt}" gravity="0 0 {gz}" integrator="Euler"/>
  <worldbody>
    <body name="wheel">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="phi" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 0" mass="{mass}" diaginertia="{inertia} {inertia} {inertia}"/>
      <geom type="cylinder" size="{radius} 0.02" euler="90 0 0" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"""


@dataclass(frozen=True)
class MujocoRun:
    """Samples of a MuJoCo run: times [s], full wheel states (``STATE_NAMES`` order), charts."""

    t: np.ndarray
    y: np.ndarray
    chart: np.ndarray
    transitions: int

    def state(self, name: str) -> np.ndarray:
        return self.y[STATE_NAMES.index(name)]


def run_mujoco(params: WheelParameters, x0: np.ndarray, final_time: float, timestep: float = 1e-4,
               record_period: float = 0.01) -> MujocoRun:
    """Simulate the wheel from full state ``x0`` (flight) in MuJoCo with the tire model's wrench.

    Raises:
        ImportError: MuJoCo is not installed (it is the optional ``mujoco`` extra).
    """
    try:
        import mujoco
    except ImportError as error:
        raise ImportError(f"the MuJoCo wheel needs MuJoCo: {INSTALL_HINT}") from error

    wheel = Wheel(params)
    model = mujoco.MjModel.from_xml_string(MJCF.format(dt=timestep, gz=-params.gravity, mass=params.mass,
                                                       inertia=params.axle_inertia, radius=params.radius))
    data = mujoco.MjData(model)
    body = model.body("wheel").id
    x = wheel.initial_chart(0.0, x0).state.copy()
    chart = FLIGHT
    data.qpos[:] = x[0:3]
    data.qvel[:] = x[3:6]
    armed = {b.index: True for b in wheel.boundaries(chart)}
    every = max(1, int(round(record_period / timestep)))
    steps = int(round(final_time / timestep))
    times, states, charts, transitions = [], [], [], 0
    for k in range(steps + 1):
        x[0:3], x[3:6] = data.qpos, data.qvel
        if k % every == 0:
            times.append(k * timestep)
            states.append(x.copy())
            charts.append(chart)
        if k == steps:
            break
        rates = np.zeros(10)
        data.xfrc_applied[body] = 0.0
        if chart != FLIGHT:
            contact = wheel.contact(x, chart)
            wrench = wheel.model.body_wrench(contact, np.array([x[0], 0.0, x[1]]))
            data.xfrc_applied[body, :3], data.xfrc_applied[body, 3:] = wrench[3:], wrench[:3]
            rates = np.concatenate((contact.hinge_rate, contact.spring_rate, [contact.dissipation]))
        data.qfrc_applied[2] = params.torque
        work_rate = params.torque * x[5]
        mujoco.mj_step(model, data)
        x[0:3], x[3:6] = data.qpos, data.qvel
        x[6:14] += timestep * rates[:8]
        x[14] += timestep * work_rate
        x[15] += timestep * rates[8]
        for b in wheel.boundaries(chart):
            value = wheel.boundary(k * timestep, x, chart, b.index)
            if armed[b.index] and value <= 0.0:
                new = wheel.transition((k + 1) * timestep, x, chart, b.index)
                x, chart, transitions = new.state.copy(), new.chart, transitions + 1
                armed = {c.index: wheel.boundary(0.0, x, chart, c.index) > 0.0 for c in wheel.boundaries(chart)}
                break
            armed[b.index] = armed[b.index] or value > 0.0
    return MujocoRun(np.array(times), np.array(states).T, np.array(charts), transitions)
