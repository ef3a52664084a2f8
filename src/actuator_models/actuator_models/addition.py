"""A model addition: a small declared part of the servo model, next to its control law and
friction model (what real servos do and M1-M6 leave out).

An addition is one class that declares, as MuJoCo's actuator declares its transmission, gain and
bias, everything the simulators, the compiled kernel and the fit need to know about it:

- ``parameters``: its identifiable parameters (name, unit, bounds, prior centre = default);
- ``inputs``: the per-step inputs it reads besides the state (``"temperature"`` [degC]: a log's
  ``temp`` column, a step-by-step simulator's temperature setting);
- its per-step state (:meth:`start`), carried through every step by the servo step
  (:mod:`.servo`) exactly like the firmware's and the dynamic friction's state;
- the hooks where it acts, each the identity unless overridden: :meth:`on_command` (the goal and
  torque enable before the firmware), :meth:`on_motor` (the motor's parameter values before the
  torque), :meth:`output` / :meth:`on_output` (what the encoder reads, and its state after a step);
- ``kernel_columns``: the parameters its compiled twin in :mod:`.kernel_numba` reads (empty: no
  twin; :mod:`.kernel` then refuses a model carrying it, naming it, and the fit runs the numpy
  step and says so);
- ``prior_weight``: a hint for the fit's default prior weight (None: no opinion);
- :meth:`carried_by_default`: whether ``fit --carry auto`` carries it for these logs;
- ``continuous_hooks``: the hooks whose ``dt -> 0`` limit the exact stick/slip reference
  (:mod:`hybrid_sim.pendulum`) runs (:attr:`Addition.continuous_hooks`); it refuses, naming the
  addition, one acting through any other hook.

Hooks are pure and shape-polymorphic: floats (one servo, the scalar step) or numpy arrays
(parameter sets x logs, the batched step). Units: rad, rad/s, s, degC.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Tuple

import numpy as np

from .parameters import Parameter, ParamValues, Value

#: The hooks an addition may act through (see :attr:`Addition.acts_on`).
HOOKS = ("on_command", "on_motor", "on_output")


class Addition:
    """Base class of model additions (module docstring); subclasses set the class attributes
    and override the hooks they act through."""

    name: str = ""
    title: str = ""
    parameters: Tuple[Parameter, ...] = ()
    inputs: Tuple[str, ...] = ()
    kernel_columns: Tuple[str, ...] = ()
    prior_weight: Optional[float] = None
    #: Hooks with a continuous-time form: ``on_motor`` always (a pure function of the step's
    #: values); ``on_command`` where :meth:`command_delay` is the hook's ``dt -> 0`` limit (a
    #: transport delay); ``on_output`` where the hook is rate-independent (a hysteresis: one call
    #: for a monotone move of the drive equals any sequence of calls along it) and its state is
    #: one float.
    continuous_hooks: Tuple[str, ...] = ("on_motor",)

    def start(self, q: Value, p: ParamValues, dt: Value) -> Any:
        """The state at the start of a simulation from the first position ``q`` [rad] at step
        ``dt`` [s] (None: stateless)."""
        return None

    def on_command(self, state: Any, goal: Value, enable: Value, p: ParamValues, dt: Value
                   ) -> Tuple[Any, Value, Value]:
        """``(state, goal [rad], enable)`` the firmware sees, from the commands sent this step."""
        return state, goal, enable

    def on_motor(self, p: ParamValues, inputs: Mapping[str, Optional[Value]]) -> ParamValues:
        """The parameter values the motor's torque is computed with, given this step's inputs."""
        return p

    def command_delay(self, p: ParamValues) -> float:
        """The delay [s] the :meth:`on_command` hook puts on the commands as the step ``dt -> 0``
        (its continuous form, declared by listing ``on_command`` in ``continuous_hooks``)."""
        return 0.0

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

    @property
    def acts_on(self) -> Tuple[str, ...]:
        """The hooks this addition overrides (a subset of :data:`HOOKS`)."""
        return tuple(h for h in HOOKS if getattr(type(self), h) is not getattr(Addition, h))

    @property
    def parameter_names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def __repr__(self) -> str:
        return f"<addition {self.name}>"
