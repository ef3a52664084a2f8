"""The servo model's step: control law (firmware, actuator), friction model and additions, as
declared parts (in the manner of MuJoCo's actuator: transmission, gain and bias).

A :class:`Servo` is an :class:`~.actuators.Actuator` (firmware state, control law, motor), a
:class:`~.friction.FrictionModel` (budget, and for dynamic friction its state) and a tuple of
:class:`~.addition.Addition`. One step of it, around any integrator::

    goal, enable  <- each addition's on_command (state)          e.g. latency
    setpoint      <- actuator.firmware (state)                   e.g. the STS target-speed limit
    control       =  actuator.control(setpoint, y, v, kp, vin)   y: what the encoder reads
    p_motor       <- each addition's on_motor_state (state, inputs)  e.g. heating: R(T), thermal: R(T_winding)
    tm            =  actuator.torque(control, enable, v, p_motor, vin)
    state         <- each addition's on_current (current tm / kt)  e.g. thermal: copper losses heat the winding
    te, budget    =  external torque (plus the dynamic friction's), friction budget(tm, te, v)
    armature, scale <- each addition's on_joint (enable)         e.g. release: less of both, torque off
    -- the integrator moves the drive (q, v): the pendulum step of :mod:`.simulation`, MuJoCo --
    state         <- dynamic friction advance; each addition's on_output (state)  e.g. backlash
    y             =  the additions' output(q)

:class:`ServoState` carries every per-step state (firmware, dynamic friction, one per addition)
through the step: the same functions run one servo (floats: the scalar step of
:class:`~.simulation.PendulumSimulator`, MuJoCo, the stick/slip reference) and a batch of parameter
sets x logs (arrays: the batched rollout), so there is one step, written once; the compiled kernel
(:mod:`.kernel`) is its twin, checked against it to 1e-12.

Units: rad, rad/s, N m, V or A (control), s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Mapping, Optional, Sequence, Tuple, cast

import numpy as np

from .actuators import Actuator, gives_duty
from .addition import Addition, JointValues
from .additions import carried, parts
from .friction import FrictionModel
from .parameters import ParamValues, Value


@dataclass(frozen=True)
class Servo:
    """The declared parts of a servo model (module docstring)."""

    actuator: Actuator
    friction: FrictionModel
    additions: Tuple[Addition, ...] = ()

    @classmethod
    def carrying(cls, actuator: Actuator, friction: FrictionModel, values: Mapping[str, object]) -> "Servo":
        """The servo of parameter values: the additions are those ``values`` carry."""
        return cls(actuator, friction, parts(carried(values)))

    @classmethod
    def of(cls, model: Any) -> "Servo":
        """The servo of a :class:`~.model.Model`."""
        return cls(model.actuator, model.friction, parts(model.additions))

    @property
    def inputs(self) -> Tuple[str, ...]:
        """The per-step inputs the additions read (e.g. ``("temperature",)``)."""
        return tuple(dict.fromkeys(name for a in self.additions for name in a.inputs))


@dataclass
class ServoState:
    """Per-step state of a servo: the firmware's (a speed-limited law's smoothed target [rad]),
    the dynamic friction's (Dahl's ``w``; None for M1-M6) and one entry per addition."""

    firmware: Value
    friction: Optional[Value]
    additions: List[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Drive:
    """What drives a servo for one step: the commands sent (goal [rad], torque enable), the gain
    ``kp`` (firmware units), supply ``vin`` [V], step ``dt`` [s] and the additions' inputs of the
    step by name (e.g. ``temperature`` [degC]; None or absent: not measured)."""

    goal: Value
    enable: Value
    kp: Value
    vin: Value
    dt: Value
    inputs: Mapping[str, Optional[Value]] = field(default_factory=dict)


def start(servo: Servo, q: Value, p: ParamValues, dt: Value,
          inputs: Optional[Mapping[str, Optional[Value]]] = None) -> ServoState:
    """The state at the start of a simulation from the drive position ``q`` [rad] (floats or
    arrays of the batch's shape) and the first step's inputs by name (None: none measured)."""
    dynamic = servo.friction.state
    friction = None if dynamic is None else (dynamic.initial if isinstance(q, float) else np.full(np.shape(q), dynamic.initial))
    firmware = q if isinstance(q, float) else q.copy()
    return ServoState(firmware, friction, [a.initial(q, p, dt, inputs or {}) for a in servo.additions])


def output(servo: Servo, state: ServoState, q: Value) -> Value:
    """What the encoder reads [rad] with the drive at ``q`` [rad]."""
    y = q
    for a, s in zip(servo.additions, state.additions):
        y = a.output(s, y)
    return y


def setpoint(servo: Servo, state: ServoState, drive: Drive, y: Value, p: ParamValues) -> Tuple[Value, Value]:
    """``(setpoint [rad], enable)`` the control law tracks: the additions' command hooks, then the
    firmware (updates ``state``)."""
    goal, enable = drive.goal, drive.enable
    for i, a in enumerate(servo.additions):
        state.additions[i], goal, enable = a.on_command(state.additions[i], goal, enable, p, drive.dt)
    state.firmware, target = servo.actuator.firmware(state.firmware, goal, y, enable, drive.dt, p)
    return target, enable


def motor_values(servo: Servo, p: ParamValues, inputs: Mapping[str, Optional[Value]],
                 state: Optional[ServoState] = None) -> ParamValues:
    """The parameter values of the motor this step: the additions' motor hooks (``state``: the
    servo's, for additions whose motor values follow their state; None: their start)."""
    for i, a in enumerate(servo.additions):
        p = a.on_motor(p, inputs) if state is None else a.on_motor_state(state.additions[i], p, inputs)
    return p


def motor_torque(servo: Servo, control: Value, enable: Value, v: Value, p: ParamValues, drive: Drive,
                 state: Optional[ServoState] = None) -> Value:
    """Motor torque [N m] of a control signal (V or A) at drive velocity ``v`` [rad/s]; additions
    that read the duty (``supply``) get ``control / vin`` as the input ``"duty"`` from a voltage law
    (none from a current law: its control is a current)."""
    inputs = drive.inputs
    if gives_duty(servo.actuator) and any(a.reads_duty for a in servo.additions):
        inputs = {**inputs, "duty": control / drive.vin}
    return servo.actuator.torque(control, enable, v, motor_values(servo, p, inputs, state), drive.vin)


def heat(servo: Servo, state: ServoState, tm: Value, p: ParamValues, drive: Drive) -> None:
    """After the step's motor torque ``tm`` [N m]: each addition's current hook sees the motor
    current ``tm / kt`` [A] over ``drive.dt`` (updates ``state``; the motor's values are those the
    torque was computed with)."""
    if not any("on_current" in a.acts_on for a in servo.additions):
        return
    motor = motor_values(servo, p, drive.inputs, state)
    current = tm / motor["kt"]
    for i, a in enumerate(servo.additions):
        state.additions[i] = a.on_current(state.additions[i], current, motor, drive.dt)


def forces(servo: Servo, state: ServoState, tm: Value, te: Value, v: Value, p: ParamValues) -> Tuple[Value, Value]:
    """``(external torque with the dynamic friction's [N m], friction budget [N m])``: the budget
    sees the external torque ``te`` alone; the dynamic friction's torque acts like an external one."""
    budget = servo.friction.budget(tm, te, v, p)
    dynamic = servo.friction.state
    return (te if dynamic is None else te + dynamic.torque(cast(Value, state.friction), p)), budget


def joint(servo: Servo, p: ParamValues, enable: Value) -> JointValues:
    """The joint's armature [kg m^2] and friction-budget factor this step, given the torque
    ``enable`` the firmware sees (after the command hooks): the additions' joint hooks."""
    values = JointValues(p["armature"])
    for a in servo.additions:
        values = a.on_joint(values, p, enable)
    return values


def settle(servo: Servo, state: ServoState, moved: Sequence[Value], p: ParamValues, dt: Value) -> None:
    """After the integrator moved the drive ``moved = (q0, q1, v0, v1)`` [rad, rad/s]: the dynamic
    friction's state follows the displacement, the additions' output hooks the new position."""
    q0, q1, v0, v1 = moved
    dynamic = servo.friction.state
    if dynamic is not None:
        state.friction = dynamic.advance(cast(Value, state.friction), q1 - q0, v0, v1, dt, p)
    for i, a in enumerate(servo.additions):
        state.additions[i] = a.on_output(state.additions[i], q1, p)
