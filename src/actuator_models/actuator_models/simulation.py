"""The pendulum test bench and its simulation step ("Algorithm 1" of the paper), batched.

One step, in the published order (kept bit-for-bit for the ``bam`` integrator)::

    te    = -(m + m_arm / 2) g l sin(q + q_offset)
    tm    = actuator torque(control, torque_enable, v)
    tfm   = friction budget(tm, te, v)
    J     = m l^2 + m_arm l^2 / 3 + armature
    tstop = J v / dt + tm + te
    tf    = -sign(tstop) min(|tstop|, tfm)
    a     = (tm + te + tf) / J
    v     = clip(v + a dt, -100, 100)
    q     = q + v dt + 0.5 a dt^2          (bam)   |   q = q + v dt   (semi-implicit, as MuJoCo)

A rollout replays logs: it starts at the first entry's position and speed, records q before
each step, and recomputes the control each step from the simulated state and the logged goal
position and torque enable. :func:`rollout` simulates many logs at once (shape ``(L, T)``) and,
when parameter values are arrays of shape ``(P,)``, many parameter sets at once
(shape ``(P, L, T)``).

Dynamic friction (Dahl, ``friction.state`` not None) carries a state per parameter set and log,
starting at ``state.initial``: its torque enters the step with the external torque (so the
budget's clipped stopping torque accounts for it), and the state then advances over the step's
displacement.

Additions (:mod:`.additions`), when the parameter values carry them: ``latency`` delays the
logged goal and torque enable; ``backlash`` puts the output (recorded position, control law,
gravity) behind a play of the drive state ``(q, v)``; ``heating`` sets the motor's ``R`` from
the logged temperature of each step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from .actuators import Actuator
from .additions import REFERENCE_TEMPERATURE, CommandDelay, delay_steps, delayed_commands, heated, play
from .friction import FrictionModel, applied_friction
from .logs import Log
from .model import Model
from .parameters import ParamValues, Value, clip

GRAVITY = 9.80665  # m/s^2
MAX_SPEED = 100.0  # rad/s, velocity clip of the published step


#: Physics step of a simulated bench [s] (the emulators' pendulum, MuJoCo's bench, the bench
#: parameters' default): that of the processed logs, so a log replays step for step.
BENCH_DT = 0.005


@dataclass(frozen=True)
class Pendulum:
    """A pendulum test bench: a point ``mass`` [kg] at ``length`` [m] on an arm of ``arm_mass``
    [kg] (a uniform rod). Fields may be arrays (one bench per log)."""

    mass: Value
    length: Value
    arm_mass: Value = 0.0

    def inertia(self, armature: Value) -> Value:
        """Joint inertia [kg m^2]: ``m l^2 + m_arm l^2 / 3 + armature``."""
        return self.mass * self.length**2 + self.arm_mass * self.length**2 / 3 + armature

    def gravity_torque(self, q: Value) -> Value:
        """Gravity torque [N m] at angle ``q`` [rad] from the hanging position."""
        return -(self.mass + self.arm_mass / 2) * GRAVITY * self.length * np.sin(q)


def step(
    q: Value,
    v: Value,
    tm: Value,
    te: Value,
    budget: Value,
    inertia: Value,
    dt: Value,
    integrator: str = "bam",
) -> tuple:
    """One integration step from torques [N m]; returns ``(q, v)`` [rad, rad/s]."""
    stopping = inertia * v / dt + tm + te
    tf = applied_friction(stopping, budget)
    a = (tm + te + tf) / inertia
    v = clip(v + a * dt, -MAX_SPEED, MAX_SPEED)
    if integrator == "bam":
        q = q + v * dt + 0.5 * a * dt**2
    else:
        q = q + v * dt
    return q, v


@dataclass
class LogBatch:
    """Processed logs stacked for a batched rollout; arrays are ``(L,)`` or ``(L, T)``.

    Shorter logs are padded with their last entry; ``mask`` marks real entries. ``temperature``
    [degC]: the logged ``temp`` column, 25 degC (:data:`.additions.REFERENCE_TEMPERATURE`) for a
    log without one.
    """

    bench: Pendulum
    kp: np.ndarray
    vin: np.ndarray
    dt: np.ndarray
    goal_position: np.ndarray
    torque_enable: np.ndarray
    position: np.ndarray
    speed: np.ndarray
    mask: np.ndarray
    lengths: np.ndarray
    temperature: np.ndarray

    @classmethod
    def from_logs(cls, logs: Sequence[Log], default_vin: float = 12.0) -> "LogBatch":
        """Stack processed logs (each needs a ``dt``)."""
        if not logs:
            raise ValueError("no logs to simulate")
        for log in logs:
            if log.dt is None:
                raise ValueError(f"{log.source}: raw log (no 'dt'); process it first")
        lengths = np.array([len(log) for log in logs])
        steps = int(lengths.max())

        def stack(columns: Sequence[Sequence[float]]) -> np.ndarray:
            """One column per log (shape ``(L, steps)``), each padded with its last value."""
            out = np.empty((len(logs), steps))
            for row, values in enumerate(columns):
                out[row, : len(values)] = values
                out[row, len(values) :] = values[-1]
            return out

        return cls(
            bench=Pendulum(
                mass=np.array([log.mass for log in logs]),
                length=np.array([log.length for log in logs]),
                arm_mass=np.array([log.arm_mass for log in logs]),
            ),
            kp=np.array([log.kp for log in logs], dtype=float),
            vin=np.array([default_vin if log.vin is None else log.vin for log in logs], dtype=float),
            dt=np.array([log.dt for log in logs], dtype=float),
            goal_position=stack([log.goal_position for log in logs]),
            torque_enable=stack([log.torque_enable for log in logs]) > 0.5,
            position=stack([log.position for log in logs]),
            speed=stack([log.speed for log in logs]),
            mask=np.arange(steps)[None, :] < lengths[:, None],
            lengths=lengths,
            temperature=stack([log.extra.get("temp", [REFERENCE_TEMPERATURE]) for log in logs]),
        )

    @property
    def steps(self) -> int:
        return self.goal_position.shape[1]


def _batched(values: ParamValues) -> dict:
    """Parameter values as arrays with a trailing log axis: ``(P,) -> (P, 1)``."""
    return {name: np.asarray(value, dtype=float)[..., None] for name, value in values.items()}


def rollout(
    actuator: Actuator,
    friction: FrictionModel,
    values: ParamValues,
    batch: LogBatch,
    integrator: str = "bam",
) -> np.ndarray:
    """Simulate every log of ``batch``; returns simulated positions [rad].

    ``values`` maps every parameter name to a float or to an array of shape ``(P,)``; the
    result has shape ``(L, T)``, or ``(P, L, T)`` for arrays.
    """
    p = _batched(values)
    inertia = batch.bench.inertia(p["armature"])
    offset = p.get("q_offset", 0.0)
    shape = np.broadcast_shapes(*(v.shape for v in p.values()), batch.kp.shape)
    q = np.broadcast_to(batch.position[:, 0], shape).copy()
    v = np.broadcast_to(batch.speed[:, 0], shape).copy()
    dynamic = friction.state
    w = None if dynamic is None else np.full(shape, dynamic.initial)
    out = np.empty(shape + (batch.steps,))
    firmware = q.copy()  # firmware state (a speed-limited law's smoothed target), see Actuator.firmware
    # additions (absent: exactly the published step): command latency, output behind a gear play
    delay = None if "latency" not in p else delay_steps(p["latency"], batch.dt)
    q_out = None if "backlash" not in p else q.copy()
    for k in range(batch.steps):
        y = q if q_out is None else q_out  # what the encoder reads (the output)
        out[..., k] = y
        if delay is None:
            goal_k, enable_k = batch.goal_position[:, k], batch.torque_enable[:, k]
        else:
            goal_k, enable_k = delayed_commands(batch.goal_position, batch.torque_enable, k, delay)
        firmware, goal = actuator.firmware(firmware, goal_k, y, enable_k, batch.dt, p)
        control = actuator.control(goal, y, v, batch.kp, batch.vin)
        te = batch.bench.gravity_torque(y + offset)
        tm = actuator.torque(control, enable_k, v, heated(p, batch.temperature[:, k]), batch.vin)
        budget = friction.budget(tm, te, v, p)
        if w is None:
            q, v = step(q, v, tm, te, budget, inertia, batch.dt, integrator)
        else:  # dynamic friction: its torque acts like an external one; its state follows q
            q_next, v_next = step(q, v, tm, te + dynamic.torque(w, p), budget, inertia, batch.dt, integrator)
            w = dynamic.advance(w, q_next - q, v, v_next, batch.dt, p)
            q, v = q_next, v_next
        if q_out is not None:
            q_out = play(q_out, q, p["backlash"])
    return out


def mean_absolute_errors(simulated: np.ndarray, batch: LogBatch) -> np.ndarray:
    """MAE [rad] between simulated and logged positions, per log (shape ``(..., L)``)."""
    error = np.abs(simulated - batch.position) * batch.mask
    return error.sum(axis=-1) / batch.lengths


def simulate_logs(model: Model, logs: Sequence[Log], integrator: Optional[str] = None) -> np.ndarray:
    """Simulated positions ``(L, T)`` of a model on processed logs (the model's integrator by default)."""
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    return rollout(model.actuator, model.friction, model.values, batch, integrator or model.integrator)


def log_maes(model: Model, logs: Sequence[Log], integrator: Optional[str] = None) -> np.ndarray:
    """MAE [rad] of a model on each processed log."""
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    simulated = rollout(model.actuator, model.friction, model.values, batch, integrator or model.integrator)
    return mean_absolute_errors(simulated, batch)


class PendulumSimulator:
    """Step-by-step simulation of one pendulum bench driven by a servo model.

    The same physics as :func:`rollout`, for drivers of live systems (an emulated servo, a
    real-time node): set the command, call :meth:`step`, read the state.

    Attributes:
        q: joint (output) position [rad]. v: joint velocity [rad/s] (of the drive side, behind
        a ``backlash`` play; see :mod:`.additions`). control: last control signal (V or
        A). motor_torque, external_torque, friction_torque: last step's torques [N m].
        temperature: the servo's temperature [degC] for a model carrying ``heating`` (settable;
        None = 25 degC, ``R`` as identified).
    """

    def __init__(
        self,
        model: Model,
        bench: Pendulum,
        vin: Optional[float] = None,
        q: float = 0.0,
        v: float = 0.0,
        integrator: Optional[str] = None,
        temperature: Optional[float] = None,
    ) -> None:
        self.model = model
        self.bench = bench
        self.vin = model.actuator.default_vin if vin is None else vin
        self.integrator = integrator or model.integrator
        self.q, self.v = float(q), float(v)
        self.control = self.motor_torque = self.external_torque = self.friction_torque = 0.0
        self._inertia = float(bench.inertia(model.values["armature"]))
        #: firmware state (a speed-limited law's smoothed target [rad]), see Actuator.firmware
        self.firmware = self.q
        dynamic = model.friction.state
        #: state of dynamic friction (Dahl's w), None for M1-M6
        self.friction_state: Optional[float] = None if dynamic is None else dynamic.initial
        values = model.values
        self._delay = CommandDelay(values["latency"]) if "latency" in values else None
        self._backlash: Optional[float] = values.get("backlash")
        #: the servo's temperature [degC] for a model carrying ``heating`` (None: 25 degC, R as identified)
        self.temperature = temperature
        #: drive-side position [rad]: ``q`` is the output, behind the play with ``backlash``
        self.drive = self.q

    def step(self, goal: float, enable: bool, kp: float, dt: float) -> None:
        """Advance ``dt`` [s] with the firmware tracking ``goal`` [rad] at gain ``kp`` (commands
        reach it ``latency`` late when the model carries one; call with a constant ``dt``)."""
        if self._delay is not None:
            goal, enable = self._delay.push(goal, enable, dt)
        act = self.model.actuator
        state, target = act.firmware(self.firmware, goal, self.q, bool(enable), dt, self.model.values)
        self.firmware = float(state)
        control = float(act.control(float(target), self.q, self.v, kp, self.vin))
        self.step_control(control, enable, dt)

    def step_control(self, control: float, enable: bool, dt: float) -> None:
        """Advance ``dt`` [s] with a given control signal (V or A), for a control law computed
        outside the firmware (the eRob PD law runs on the EtherCAT master); applied now (a
        ``latency`` delays the commands of :meth:`step` only)."""
        p = self.model.values
        act = self.model.actuator
        self.control = float(control)
        te = float(self.bench.gravity_torque(self.q + p.get("q_offset", 0.0)))
        tm = float(act.torque(self.control, bool(enable), self.v, heated(p, self.temperature), self.vin))
        budget = self.model.friction.budget(tm, te, self.v, p)
        dynamic = self.model.friction.state
        extra = 0.0 if dynamic is None else float(dynamic.torque(self.friction_state, p))
        drive = self.q if self._backlash is None else self.drive
        q, v = step(drive, self.v, tm, te + extra, budget, self._inertia, dt, self.integrator)
        if dynamic is not None:
            self.friction_state = float(dynamic.advance(self.friction_state, q - drive, self.v, v, dt, p))
        self.friction_torque = float(self._inertia * (v - self.v) / dt - tm - te)
        self.drive, self.v = float(q), float(v)
        self.q = self.drive if self._backlash is None else float(play(self.q, self.drive, self._backlash))
        self.motor_torque, self.external_torque = tm, te
