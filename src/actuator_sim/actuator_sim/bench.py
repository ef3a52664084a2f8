"""A MuJoCo simulation as a bench (ROS-free core of the bench node's ``mujoco`` backend).

Wraps :class:`actuator_sim.joint_sim.JointSimulation` with the semantics of the real driver
(a :class:`actuator_models.bench.Bench`): commands by joint name (goal [rad], torque enable,
firmware gain), torque off at start and when no command came for ``command_timeout`` seconds of
simulated time. That watchdog is the host's, as a servo driver's: it is judged when the host
looks (each :meth:`SimBench.advance` starts with it), not between; physics stepped in one go
(a simulation paced by the wall clock catching up after a stall of its host) hold the last
command, as a servo does while its host does not run (judged at each step: in a run here of the
CI's ROS tests on a busy host, a MuJoCo control node stalled 1.2 s in the middle of a lift, and
its simulated servo let go 0.5 s into the stall). Its clock is either the wall clock times
``time_scale`` (``realtime``: each :meth:`SimBench.sample` first steps the physics up to the
clock, like a servo that moved while nobody looked) or the simulated time itself
(:class:`SimClock`: sleeping steps the physics, as fast as the host allows, for runs without ROS).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Mapping, Optional, Tuple

import numpy as np
from actuator_models.model import load_model
from actuator_models.parameters import temperature_problem
from actuator_models.simulation import BENCH_DT

from actuator_models.bench import Backend, BenchParams, Clock, Command, JointSample, WallClock, goal_problem, option

if TYPE_CHECKING:
    from actuator_sim.joint_sim import JointSimulation

#: Most physics steps one :meth:`SimBench.advance` takes (a slow host drops behind instead of
#: stalling the caller).
MAX_STEPS_PER_ADVANCE = 1000


@dataclass(frozen=True)
class SimSettings:
    """The ``mujoco`` backend's settings: the simulated model ``mjcf``, the generated pendulum's
    physics ``timestep`` [s] and the servos' ``temperature`` at the start [degC] (NaN: none given)."""

    mjcf: str = field(default="pendulum", metadata=option(
        "Simulated model: pendulum (from mass, length, arm_mass), a shipped MJCF such as arm_mx.xml, or a path"))
    timestep: float = field(default=BENCH_DT, metadata=option("Physics step of the generated pendulum [s]"))
    temperature: float = field(default=math.nan, metadata=option(
        "Servo temperature at the start [degC], every joint: a thermal model's winding and case start there, a "
        "heating model holds it; nan: each model's thermal_initial (thermal), 25 degC (heating, warned)"))

    def __post_init__(self) -> None:
        problem = None if math.isnan(self.temperature) else temperature_problem(self.temperature)
        if problem:
            raise ValueError(f"temperature {self.temperature!r}: {problem} (or nan: each model's own start)")


def mjcf_text(params: BenchParams, q_offset: float = 0.0) -> str:
    """The MJCF of the settings' ``mjcf``: ``pendulum`` (the pendulum bench generated from mass,
    length, arm mass, the model's ``q_offset`` [rad] and ``timestep``), a shipped model file
    (``arm_mx.xml``, ``arm_erob.xml``) or a path."""
    from actuator_sim.models import models_dir, read_model  # MuJoCo: only when a bench opens
    from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

    settings = params.settings_as(SimSettings)
    if settings.mjcf == "pendulum":
        return pendulum_mjcf(PendulumBench(params.mass, params.length, params.arm_mass, q_offset, settings.timestep))
    if (models_dir() / settings.mjcf).is_file():
        return read_model(settings.mjcf)
    return Path(settings.mjcf).read_text()


class SimBench:
    """Simulated servos addressed by joint name: a :class:`actuator_models.bench.Bench`.

    Args:
        sim: the simulation. command_timeout: watchdog [s of simulated time], judged as each
            :meth:`advance` starts. clock: the time base; None: simulated time
            (:class:`SimClock`). limits: (min, max) goal [rad] of each joint, refused outside as
            the servo drivers do (None: any finite goal).
    """

    def __init__(self, sim: "JointSimulation", command_timeout: float = 0.5, clock: Optional[Clock] = None,
                 limits: Optional[Mapping[str, Tuple[float, float]]] = None) -> None:
        if not command_timeout > 0:
            raise ValueError(f"command_timeout {command_timeout!r}: must be positive seconds")
        self.sim = sim
        self.joints: Tuple[str, ...] = sim.joint_names
        self.limits: Dict[str, Tuple[float, float]] = dict(limits or {})
        self.command_timeout = command_timeout
        self.vin = np.array([s.model.actuator.default_vin if s.vin is None else s.vin for s in sim.servos])
        self._last_command = -math.inf
        self.clock: Clock = clock or SimClock(self)
        sim.release()

    @classmethod
    def open(cls, params: BenchParams, realtime: bool = False) -> "SimBench":
        """The simulated bench of ``params`` (joints, models, kp, vin, mjcf, pendulum, timestep,
        command timeout); its clock is the wall clock times ``params.time_scale`` when
        ``realtime``, else the simulated time. Values its step cannot integrate are refused
        (:func:`actuator_sim.stability.probe`: DivergentStep, a ValueError)."""
        import mujoco

        from actuator_sim.joint_sim import JointSimulation, Servo  # MuJoCo: only when a bench opens
        from actuator_sim.stability import probe

        models = [load_model(m) for m in params.models]
        start = params.settings_as(SimSettings).temperature
        temperature = None if math.isnan(start) else start
        servos = [Servo(j, m, k, v or None, temperature) for j, m, k, v in zip(params.joints, models, params.kp, params.vin)]
        model = mujoco.MjModel.from_xml_string(mjcf_text(params, models[0].values.get("q_offset", 0.0)))
        probe(JointSimulation(model, servos), params.models)  # each simulation works on its own copy
        sim = JointSimulation(model, servos)
        limits = {j: (low, high) for j, low, high in zip(params.joints, params.min_position, params.max_position)}
        return cls(sim, params.command_timeout, WallClock(params.time_scale or 1.0) if realtime else None, limits)

    @property
    def time(self) -> float:
        """Simulated time [s]."""
        return float(self.sim.data.time)

    def apply(self, command: Command) -> None:
        """Apply a command from now on; unknown joints, and goals outside a joint's limits (the
        bench contract: as the servo drivers), raise ValueError before anything is applied."""
        unknown = [j for j in command.name if j not in self.joints]
        if unknown:
            raise ValueError(f"command for unknown joint(s) {unknown}; this bench has {list(self.joints)}")
        for joint, goal in zip(command.name, command.goal_position):
            problem = goal_problem(goal, *self.limits.get(joint, (-math.inf, math.inf)))
            if problem:
                raise ValueError(f"joint {joint!r}: {problem}")
        if command.kp:
            self.sim.set_kp(dict(zip(command.name, command.kp)))
        self.sim.command(dict(zip(command.name, command.goal_position)),
                         dict(zip(command.name, command.torque_enable)) if command.torque_enable else None)
        self._last_command = self.time

    def advance(self, until: float) -> JointSample:
        """Step until simulated time ``until`` [s] (at most :data:`MAX_STEPS_PER_ADVANCE` steps).
        A simulation that diverged (:func:`actuator_sim.stability.check`: a gain its step cannot
        integrate) is released and reset to its start position (its time goes on), never
        sampled: DivergentStep."""
        from actuator_sim.stability import check, resets

        steps = min(max(int(math.floor((until - self.time) / self.sim.timestep + 1e-9)), 0), MAX_STEPS_PER_ADVANCE)
        before, end = resets(self.sim), self.time + steps * self.sim.timestep
        if self.time - self._last_command > self.command_timeout and self.sim.torque_enable.any():
            self.sim.release()  # the host's watchdog, judged as it looks (module docstring)
        for _ in range(steps):
            self.sim.step()
        try:
            check(self.sim, before)
        except ValueError:
            self.sim.reset()
            self.sim.data.time = end  # the bench's clock goes on (MuJoCo's own reset zeroes it)
            self.sim.release()
            raise
        return self._state()

    def sample(self) -> JointSample:
        """The joints at the clock's time (the physics stepped up to it first)."""
        self.advance(self.clock.now())
        return self._state()

    def _state(self) -> JointSample:
        state = self.sim.state
        n = len(self.joints)
        return JointSample(
            time=state.time,
            name=self.joints,
            position=tuple(map(float, state.position)),
            velocity=tuple(map(float, state.velocity)),
            motor_torque=tuple(map(float, state.motor_torque)),
            control=tuple(map(float, state.control)),
            input_voltage=tuple(map(float, self.vin)),
            temperature=tuple(map(float, self.sim.temperature_readings)),
            torque_enable=tuple(map(bool, state.torque_enable)),
            comm_errors=(0,) * n,
        )

    def release(self) -> None:
        """Torque off on every joint."""
        self.sim.release()

    def close(self) -> None:
        """Torque off (the simulation holds no other resource)."""
        self.release()


@dataclass
class SimClock:
    """Simulated time of a :class:`SimBench` as a clock: sleeping steps the physics (for
    :class:`~actuator_bench.loop.BenchLoop` without ROS, as fast as the host allows)."""

    bench: SimBench

    def now(self) -> float:
        return self.bench.time

    def sleep_until(self, t: float) -> None:
        self.bench.advance(t)


def open_realtime(params: BenchParams) -> SimBench:
    """The simulated bench paced by the wall clock (times ``time_scale``), like hardware."""
    return SimBench.open(params, realtime=True)


#: The ``mujoco`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("mujoco", "MuJoCo simulation", open_realtime, settings=SimSettings)
