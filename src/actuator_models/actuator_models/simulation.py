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
the logged temperature of each step (a log without one: 25 degC, with a warning); ``thermal``
carries the winding and case temperatures, started at the log's first ``temp`` reading (else its
``thermal_initial`` setting) and heated by the step's copper losses (:func:`rollout_temperatures`
also returns the register's case temperature); ``release`` scales ``J`` and the budget, torque off.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from .actuators import Actuator
from .additions import REFERENCE_TEMPERATURE
from .friction import FrictionModel, applied_friction
from .logs import Log
from .model import Model
from .parameters import ParamValues, Value, clip
from .addition_thermal import case_temperature
from .divergence import refuse_divergent
from .servo import Drive, Servo, ServoState, forces, heat, joint, motor_torque, output, settle, setpoint, start

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


def step(q: Value, v: Value, tm: Value, te: Value, budget: Value, inertia: Value, dt: Value,
         integrator: str = "bam") -> tuple:
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
    log without one; ``measured`` ``(L,)``: whether the log has a ``temp`` column.
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
    measured: np.ndarray

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

        def stack(columns: Sequence[Union[np.ndarray, Sequence[float]]]) -> np.ndarray:
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
            measured=np.array([len(log.extra.get("temp", ())) > 0 for log in logs]),
        )

    def first_temperature(self) -> np.ndarray:
        """Each log's first temperature reading [degC], NaN for a log without one, ``(L,)``."""
        return np.where(self.measured, self.temperature[:, 0], np.nan)

    @property
    def steps(self) -> int:
        return self.goal_position.shape[1]


def _batched(values: ParamValues) -> dict:
    """Parameter values as arrays with a trailing log axis: ``(P,) -> (P, 1)``."""
    return {name: np.asarray(value, dtype=float)[..., None] for name, value in values.items()}


def bench_step(servo: Servo, state: ServoState, q: Value, v: Value, bench: Pendulum, drive: Drive,
               p: ParamValues, integrator: str = "bam") -> Tuple[Value, Value, Torques]:
    """The servo step (:mod:`.servo`) on the pendulum bench: ``(q, v, torques)`` after ``drive.dt``
    from the drive at ``q`` [rad], ``v`` [rad/s] (updates ``state``). Floats for one bench (the
    scalar step), arrays for parameter sets x logs (the batched step)."""
    y = output(servo, state, q)
    target, enable = setpoint(servo, state, drive, y, p)
    control = servo.actuator.control(target, y, v, drive.kp, drive.vin)
    return torque_step(servo, state, (q, v, y), (control, enable), bench, drive, p, integrator)


def torque_step(servo: Servo, state: ServoState, drive_state: Tuple[Value, Value, Value],
                command: Tuple[Value, Value], bench: Pendulum, drive: Drive, p: ParamValues,
                integrator: str) -> Tuple[Value, Value, Torques]:
    """The rest of :func:`bench_step` from a control signal (V or A); ``drive_state`` is
    ``(q, v, y)``: drive position [rad], velocity [rad/s], what the encoder reads [rad];
    ``command`` is ``(control, enable)``: the control signal and the torque-enable flag."""
    q, v, y = drive_state
    control, enable = command
    te = bench.gravity_torque(y + p.get("q_offset", 0.0))
    tm = motor_torque(servo, control, enable, v, p, drive, state)
    heat(servo, state, tm, p, drive)
    external, budget = forces(servo, state, tm, te, v, p)
    values = joint(servo, p, enable)
    inertia = bench.inertia(values.armature)
    budget = budget * values.friction_scale
    q_next, v_next = step(q, v, tm, external, budget, inertia, drive.dt, integrator)
    settle(servo, state, (q, q_next, v, v_next), p, drive.dt)
    return q_next, v_next, Torques(control, tm, te, budget, inertia)


@dataclass(frozen=True)
class Torques:
    """A step's control signal (V or A), torques [N m] (motor, external: gravity, budget) and
    joint inertia ``J`` [kg m^2] (the armature of its torque enable: ``release``)."""

    control: Value
    motor: Value
    external: Value
    budget: Value
    inertia: Value


def rollout(
    actuator: Actuator,
    friction: FrictionModel,
    values: ParamValues,
    batch: LogBatch,
    integrator: str = "bam",
) -> np.ndarray:
    """Simulate every log of ``batch``; returns simulated positions [rad].

    ``values`` maps every parameter name to a float or to an array of shape ``(P,)``; the
    result has shape ``(L, T)``, or ``(P, L, T)`` for arrays. The additions are those ``values``
    carry.
    """
    return rollout_temperatures(actuator, friction, values, batch, integrator)[0]


def rollout_temperatures(
    actuator: Actuator,
    friction: FrictionModel,
    values: ParamValues,
    batch: LogBatch,
    integrator: str = "bam",
) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """:func:`rollout`'s positions [rad] and, for a model carrying ``thermal``, the case
    temperature [degC] before each step (what the ``temp`` register reads; else None)."""
    p = _batched(values)
    servo = Servo.carrying(actuator, friction, values)
    warn_unmeasured(servo, bool(batch.measured.all()))
    shape = np.broadcast_shapes(*(v.shape for v in p.values()), batch.kp.shape)
    q = np.broadcast_to(batch.position[:, 0], shape).copy()
    v = np.broadcast_to(batch.speed[:, 0], shape).copy()
    state = start(servo, q, p, batch.dt, {"temperature": batch.first_temperature()})
    thermal = [i for i, a in enumerate(servo.additions) if a.name == "thermal"]
    out = np.empty(shape + (batch.steps,))
    temperatures = np.empty(shape + (batch.steps,)) if thermal else None
    inputs = {name: getattr(batch, name) for name in servo.inputs}
    for k in range(batch.steps):
        out[..., k] = output(servo, state, q)
        if temperatures is not None:
            temperatures[..., k] = case_temperature(state.additions[thermal[0]])
        drive = Drive(batch.goal_position[:, k], batch.torque_enable[:, k], batch.kp, batch.vin, batch.dt,
                      {name: column[:, k] for name, column in inputs.items()})
        q, v, _ = bench_step(servo, state, q, v, batch.bench, drive, p, integrator)
    return out, temperatures


def warn_unmeasured(servo: Servo, measured: bool) -> None:
    """Warn when a model carrying ``heating`` (a replayed temperature) runs without one: it then
    runs at 25 degC, the ``R`` as identified, which is not what the logs it was fitted on read."""
    if not measured and any(a.name == "heating" for a in servo.additions):
        warnings.warn("the model carries 'heating' (a replayed temperature) but no temperature is given: simulated "
                      "at 25 degC; give the temperature (a log's temp column, the simulator's temperature setting) "
                      "or fit with thermal (fit --carry auto on logs that record it), which simulates it", stacklevel=3)


def mean_absolute_errors(simulated: np.ndarray, batch: LogBatch) -> np.ndarray:
    """MAE [rad] between simulated and logged positions, per log (shape ``(..., L)``)."""
    error = np.abs(simulated - batch.position) * batch.mask
    return error.sum(axis=-1) / batch.lengths


def temperature_errors(temperatures: np.ndarray, batch: LogBatch) -> np.ndarray:
    """MAE [K] between simulated case temperatures and the logged ``temp`` readings, per log
    (shape ``(..., L)``; 0 for a log without readings)."""
    error = np.abs(temperatures - batch.temperature) * (batch.mask & batch.measured[:, None])
    return error.sum(axis=-1) / batch.lengths


def simulate_logs(model: Model, logs: Sequence[Log], integrator: Optional[str] = None) -> np.ndarray:
    """Simulated positions ``(L, T)`` of a model on processed logs (the model's integrator by
    default); a rollout that diverged is refused (:class:`~.divergence.DivergentStep`)."""
    return _checked(model, logs, integrator)[1]


def log_maes(model: Model, logs: Sequence[Log], integrator: Optional[str] = None) -> np.ndarray:
    """MAE [rad] of a model on each processed log (refused as :func:`simulate_logs` refuses)."""
    batch, simulated = _checked(model, logs, integrator)
    return mean_absolute_errors(simulated, batch)


def _checked(model: Model, logs: Sequence[Log], integrator: Optional[str]) -> Tuple[LogBatch, np.ndarray]:
    """The logs' batch and the model's rollout on it [rad], refused when it diverged."""
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    simulated = rollout(model.actuator, model.friction, model.values, batch, integrator or model.integrator)
    refuse_divergent(replace(model, integrator=integrator or model.integrator), batch, simulated,
                     [log.source for log in logs], MAX_SPEED)
    return batch, simulated


class PendulumSimulator:
    """Step-by-step simulation of one pendulum bench driven by a servo model: the scalar servo
    step (:func:`bench_step` on floats), the same arithmetic as :func:`rollout`, for drivers of
    live systems (an emulated servo, a real-time node): set the command, call :meth:`step`, read
    the state.

    Attributes:
        q: joint (output) position [rad]. v: joint velocity [rad/s] (of the drive side, behind
        a ``backlash`` play; see :mod:`.additions`). drive: drive-side position [rad].
        control: last control signal (V or A). motor_torque, external_torque, friction_torque:
        last step's torques [N m]. temperature: the servo's temperature [degC] for a model
        carrying ``heating`` (settable; None = 25 degC, ``R`` as identified, with a warning), the
        start of both thermal nodes for one carrying ``thermal`` (None: its ``thermal_initial``);
        :attr:`temperatures` its winding and case temperatures.
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
        self.model, self.bench = model, bench
        self.vin = model.actuator.default_vin if vin is None else vin
        self.integrator = integrator or model.integrator
        self.servo = Servo.of(model)
        self.drive, self.v = float(q), float(v)
        self.control = self.motor_torque = self.external_torque = self.friction_torque = 0.0
        self._state: Optional[ServoState] = None  # started at the first step (the latency needs dt)
        #: the servo's temperature [degC] for a model carrying ``heating`` (None: 25 degC, R as identified)
        self.temperature = temperature
        warn_unmeasured(self.servo, temperature is not None)

    def _started(self, dt: float) -> ServoState:
        if self._state is None:
            self._state = start(self.servo, self.drive, self.model.values, dt, {"temperature": self.temperature})
        return self._state

    @property
    def temperatures(self) -> Optional[Tuple[float, float]]:
        """``(winding, case)`` [degC] of a model carrying ``thermal`` (None otherwise); before the
        first step both are at their start (``temperature``, else ``thermal_initial``)."""
        for i, a in enumerate(self.servo.additions):
            if a.name == "thermal":
                w, c = self._state.additions[i] if self._state is not None else a.initial(
                    self.drive, self.model.values, 0.0, {"temperature": self.temperature})
                return float(w), float(c)
        return None

    @property
    def q(self) -> float:
        """The output position [rad] (what the encoder reads)."""
        return self.drive if self._state is None else float(output(self.servo, self._state, self.drive))

    @property
    def firmware(self) -> float:
        """Firmware state (a speed-limited law's smoothed target [rad]), see Actuator.firmware."""
        return self.drive if self._state is None else float(self._state.firmware)

    @property
    def friction_state(self) -> Optional[float]:
        """State of dynamic friction (Dahl's ``w``), None for M1-M6."""
        dynamic = self.model.friction.state
        if dynamic is None:
            return None
        if self._state is None:
            return dynamic.initial
        assert self._state.friction is not None  # start() gives a model with dynamic friction its state
        return float(self._state.friction)

    def _drive(self, goal: float, enable: bool, kp: float, dt: float) -> Drive:
        return Drive(goal, bool(enable), kp, self.vin, dt, {"temperature": self.temperature})

    def step(self, goal: float, enable: bool, kp: float, dt: float) -> None:
        """Advance ``dt`` [s] with the firmware tracking ``goal`` [rad] at gain ``kp`` (commands
        reach it ``latency`` late when the model carries one; call with a constant ``dt``)."""
        state = self._started(dt)
        drive = self._drive(goal, enable, kp, dt)
        y = self.q
        target, enabled = setpoint(self.servo, state, drive, y, self.model.values)
        control = float(self.model.actuator.control(float(target), y, self.v, kp, self.vin))
        self._advance(state, control, bool(enabled), drive)

    def step_control(self, control: float, enable: bool, dt: float) -> None:
        """Advance ``dt`` [s] with a given control signal (V or A), for a control law computed
        outside the firmware (the eRob PD law runs on the EtherCAT master); applied now (a
        ``latency`` delays the commands of :meth:`step` only)."""
        self._advance(self._started(dt), float(control), bool(enable), self._drive(0.0, enable, 0.0, dt))

    def _advance(self, state: ServoState, control: float, enable: bool, drive: Drive) -> None:
        v0 = self.v
        q, v, torques = torque_step(self.servo, state, (self.drive, v0, self.q), (control, enable), self.bench,
                                    drive, self.model.values, self.integrator)
        tm, te = float(torques.motor), float(torques.external)
        self.friction_torque = float(torques.inertia * (v - v0) / drive.dt - tm - te)
        self.drive, self.v = float(q), float(v)
        self.control, self.motor_torque, self.external_torque = float(control), tm, te
