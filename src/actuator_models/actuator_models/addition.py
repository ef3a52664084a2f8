"""A model addition: a small declared part of the servo model, next to its control law and
friction model (what real servos do and M1-M6 leave out).

An addition is one class that declares, as MuJoCo's actuator declares its transmission, gain and
bias, everything the simulators, the compiled kernel and the fit need to know about it:

- ``parameters``: its identifiable parameters (name, unit, bounds, prior centre = default);
- ``inputs``: the per-step inputs it reads besides the state (``"temperature"`` [degC]: a log's
  ``temp`` column, a step-by-step simulator's temperature setting);
- its per-step state (:meth:`start`, or :meth:`initial` when it needs the first inputs), carried through every step by the servo step
  (:mod:`.servo`) exactly like the firmware's and the dynamic friction's state;
- the hooks where it acts, each the identity unless overridden: :meth:`on_command` (the goal and
  torque enable before the firmware), :meth:`on_motor` (the motor's parameter values before the
  torque; :meth:`on_motor_state` when they depend on the state), :meth:`on_current` (its state
  after the step's motor current, e.g. a thermal state heated by the copper losses),
  :meth:`on_joint` (the joint's armature and friction-budget scale given the step's torque enable),
  :meth:`output` / :meth:`on_output` (what the encoder reads, and its state after a step);
- :meth:`settings`: values it fixes from the training logs instead of searching them (e.g. the
  ambient temperature), written to params files with the rest;
- ``kernel_columns``: the parameters its compiled twin in ``servo_kernel.c`` reads (empty: no
  twin; :mod:`.kernel` then refuses a model carrying it, naming it, and the fit runs the numpy
  step and says so);
- ``prior_weight``: a hint for the fit's default prior weight (None: no opinion);
- :meth:`carried_by_default`: whether ``fit --carry auto`` carries it for these logs;
- :meth:`remark`: what the report says of its fitted values (e.g. far from the physics' value);
- ``measured``: the evidence its parameters are counted against by the fit's data rule
  (:mod:`.data_rule`), not the positions of every log: the inputs they are also fitted against as
  measurements (``thermal``: ``"temperature"``, the register its case node predicts), or the logs
  that alone identify them (``release``: ``"torque release"``, the logs releasing the torque);
- ``continuous_hooks``: the hooks whose ``dt -> 0`` limit the exact stick/slip reference
  (:mod:`hybrid_sim.pendulum`) runs (:attr:`Addition.continuous_hooks`); it refuses, naming the
  addition, one acting through any other hook.

Hooks are pure and shape-polymorphic: floats (one servo, the scalar step) or numpy arrays
(parameter sets x logs, the batched step). Units: rad, rad/s, s, degC.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from .parameters import Parameter, ParamValues, Value

#: The hooks an addition may act through (see :attr:`Addition.acts_on`).
HOOKS = ("on_command", "on_motor", "on_motor_state", "on_current", "on_joint", "on_output")


@dataclass(frozen=True)
class JointValues:
    """What the integrator uses of the joint in a step: the armature [kg m^2] and the factor of
    the friction model's budget (1: as the friction model gives it)."""

    armature: Value
    friction_scale: Value = 1.0


class Addition:
    """Base class of model additions (module docstring); subclasses set the class attributes
    and override the hooks they act through."""

    name: str = ""
    title: str = ""
    parameters: Tuple[Parameter, ...] = ()
    inputs: Tuple[str, ...] = ()
    measured: Tuple[str, ...] = ()
    kernel_columns: Tuple[str, ...] = ()
    prior_weight: Optional[float] = None
    #: Whether its motor hooks read the step's duty (``inputs["duty"]``: control / supply, given
    #: by :func:`.servo.motor_torque` to voltage laws' motors; absent elsewhere).
    reads_duty: bool = False
    #: Additions it cannot be carried with (each refuses the other: :func:`.additions.check_carried`).
    excludes: Tuple[str, ...] = ()
    #: Hooks with a continuous-time form: ``on_motor`` and ``on_joint`` always (pure functions of
    #: the step's values and torque enable); ``on_command`` where :meth:`command_delay` is the
    #: hook's ``dt -> 0`` limit (a transport delay); ``on_output`` where the hook is rate-independent (a hysteresis: one call
    #: for a monotone move of the drive equals any sequence of calls along it) and its state is
    #: one float.
    continuous_hooks: Tuple[str, ...] = ("on_motor", "on_joint")

    def start(self, q: Value, p: ParamValues, dt: Value) -> Any:
        """The state at the start of a simulation from the first position ``q`` [rad] at step
        ``dt`` [s] (None: stateless)."""
        return None

    def initial(self, q: Value, p: ParamValues, dt: Value, inputs: Mapping[str, Optional[Value]]) -> Any:
        """The state at the start from ``q`` [rad] and the first step's inputs by name (None: not
        measured); :meth:`start` unless overridden."""
        return self.start(q, p, dt)

    def on_command(self, state: Any, goal: Value, enable: Value, p: ParamValues, dt: Value
                   ) -> Tuple[Any, Value, Value]:
        """``(state, goal [rad], enable)`` the firmware sees, from the commands sent this step."""
        return state, goal, enable

    def on_motor(self, p: ParamValues, inputs: Mapping[str, Optional[Value]]) -> ParamValues:
        """The parameter values the motor's torque is computed with, given this step's inputs."""
        return p

    def on_motor_state(self, state: Any, p: ParamValues, inputs: Mapping[str, Optional[Value]]) -> ParamValues:
        """The motor's parameter values given this step's state and inputs (:meth:`on_motor`
        unless overridden)."""
        return self.on_motor(p, inputs)

    def on_current(self, state: Any, current: Value, p: ParamValues, dt: Value) -> Any:
        """The state after a step of ``dt`` [s] with motor current ``current`` [A] (``p``: the
        motor's values of the step, :meth:`on_motor_state`)."""
        return state

    def on_joint(self, joint: JointValues, p: ParamValues, enable: Value) -> JointValues:
        """The joint's values this step given the torque ``enable`` (0/1) the firmware sees."""
        return joint

    def settings(self, inputs: Mapping[str, Sequence[Optional[np.ndarray]]]) -> Dict[str, float]:
        """Parameter values fixed from the training logs' inputs (per input name, one array or None
        per log) rather than searched: none unless overridden."""
        return {}

    def command_delay(self, p: ParamValues) -> float:
        """The delay [s] the :meth:`on_command` hook puts on the commands as the step ``dt -> 0``
        (its continuous form, declared by listing ``on_command`` in ``continuous_hooks``)."""
        return 0.0

    def rate(self, state: Any, current: Value, p: ParamValues) -> Any:
        """The time derivative of the state at motor ``current`` [A] as the step ``dt -> 0`` (the
        continuous form of :meth:`on_current`, declared by listing ``on_current`` in
        ``continuous_hooks``; a tuple of the state's entries' derivatives)."""
        raise NotImplementedError(f"addition {self.name!r} declares no continuous form of on_current")

    def output(self, state: Any, q: Value) -> Value:
        """What the encoder reads [rad] when the drive is at ``q`` [rad]."""
        return q

    def on_output(self, state: Any, q: Value, p: ParamValues) -> Any:
        """The state after a step that moved the drive to ``q`` [rad]."""
        return state

    def carried_by_default(self, inputs: Mapping[str, Sequence[Optional[np.ndarray]]]) -> bool:
        """Whether ``fit --carry auto`` carries it, from the training logs' inputs (per input name,
        one array or None per log)."""
        return False

    def describe(self, value: float) -> str:
        """``"latency 4.2 ms"``: its value for people (one-parameter additions)."""
        p = self.parameters[0]
        return f"{self.name} {value:.3g} {p.unit}"

    def remark(self, values: Mapping[str, float]) -> Optional[str]:
        """What the report says of its fitted ``values`` (its parameters by name), when they
        depart from what its physics expects; None: nothing to say."""
        return None

    @property
    def acts_on(self) -> Tuple[str, ...]:
        """The hooks this addition overrides (a subset of :data:`HOOKS`)."""
        return tuple(h for h in HOOKS if getattr(type(self), h) is not getattr(Addition, h))

    @property
    def parameter_names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def __repr__(self) -> str:
        return f"<addition {self.name}>"
