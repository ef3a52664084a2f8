"""``release``: with its torque off, the servo's joint shows less inertia and less friction than
driven (a model addition, :mod:`.addition`; issue 31, docs/FIDELITY.md sections 7.12 and 7.13).

On the shared XL330 logs the free swing after a torque release is 4-8 % faster than a fit's
model swings, and it decays more slowly: the driven phases ask a larger armature and friction than
the released servo shows (a loss in the gear train that follows the direction the power flows
through it, or something of the driven motor the fit puts in them; the logs do not say which).
With the torque off (the enable the firmware sees, after ``latency``) the joint's armature and the
friction budget are scaled down by two shares, each 0 by default (the driven values: the published
step, bit for bit)::

    armature_off = armature (1 - release_armature_share)
    budget_off   = budget   (1 - release_friction_share)

Both act through :meth:`Addition.on_joint`, the joint's values of a step (the armature the
integrator uses, the scale of the friction budget of M1-M6; a Dahl model's state torque is not
scaled). Identifiable only from logs that release the torque (``lift_and_drop``); fitted from
others, the prior holds both at 0; the fit's data rule counts them against the training logs that
release the torque (:data:`TORQUE_RELEASE`), and ``fit --carry auto`` carries it with ``thermal``
and ``supply`` when a training log releases the torque (nested leave-one-gain-out on the XL330
logs, docs/FIDELITY.md 7.13). Its compiled twin is the columns ``release_armature_share`` and
``release_friction_share`` of ``servo_kernel.c`` (no switch: 0 when not carried changes nothing).
MuJoCo (:class:`actuator_sim.joint_sim.JointSimulation`) and MuJoCo Warp write the step's armature
into the DoF's ``dof_armature`` (per world on Warp); the stick/slip reference runs its continuous
form (a pure function of the torque enable in force).
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np

from .addition import Addition, JointValues
from .addition_heating import records_temperature_span
from .parameters import Parameter, ParamValues, Value

RELEASE_ARMATURE_SHARE = Parameter("release_armature_share", 0.0, 0.0, 0.9, "1",
                                   "share of the armature the joint does not show with the torque off", "sa",
                                   domain="share")
RELEASE_FRICTION_SHARE = Parameter("release_friction_share", 0.0, 0.0, 0.9, "1",
                                   "share of the friction budget the joint does not show with the torque off", "sf",
                                   domain="share")


#: The data rule's evidence of the release's parameters (:mod:`.data_rule`): logs that release the torque.
TORQUE_RELEASE = "torque release"


def releases_torque(enable: Optional[np.ndarray]) -> bool:
    """Whether a log's torque enable column goes from on to off somewhere (its released stretch
    is what identifies the release's parameters)."""
    if enable is None or len(enable) < 2:
        return False
    on = np.asarray(enable, dtype=bool)
    return bool(np.any(on[:-1] & ~on[1:]))


def released(value: Value, share: Value, enable: Value) -> Value:
    """``value`` with the torque on (``enable`` 1), ``value (1 - share)`` with it off (0)."""
    return value * (1.0 - share * (1.0 - enable))


class Release(Addition):
    name = "release"
    title = "torque release"
    parameters = (RELEASE_ARMATURE_SHARE, RELEASE_FRICTION_SHARE)
    kernel_columns = ("release_armature_share", "release_friction_share")
    measured = (TORQUE_RELEASE,)

    def on_joint(self, joint: JointValues, p: ParamValues, enable: Value) -> JointValues:
        return JointValues(released(joint.armature, p["release_armature_share"], enable),
                           released(joint.friction_scale, p["release_friction_share"], enable))

    def carried_by_default(self, inputs: Mapping[str, Sequence[Optional[np.ndarray]]]) -> bool:
        """With ``thermal`` and ``supply`` (where the logs record the temperature over a span),
        when a training log releases the torque (per input name, one array or None per log: the
        torque ``enable`` columns): nested leave-one-gain-out on the XL330 logs supports it over
        the pair alone (docs/FIDELITY.md section 7.13); it was not measured without them."""
        return records_temperature_span(inputs) and any(releases_torque(e) for e in inputs.get("enable") or ())

    def describe(self, value: float) -> str:
        return f"release: armature share {value:.3g}"


RELEASE_ADDITION = Release()
