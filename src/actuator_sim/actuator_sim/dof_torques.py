"""Torques of a MuJoCo step per DoF, as a servo simulation reads and applies them.

Read after a step: the friction-loss constraint force of each DoF (:func:`friction_loss_torque`)
and the external torque (:func:`external_torque`: gravity, Coriolis and constraint forces without
the DoF's own friction). Applied: through the joint's plain MJCF ``<motor>`` when it has one
(:func:`motor_actuator`). Torques [N m] about the joint axis (N for a slide joint), positive in
its positive direction.
"""

from __future__ import annotations

from typing import Optional

import mujoco
import numpy as np

_FRICTION_DOF = int(mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF)


def friction_loss_torque(data: mujoco.MjData, nv: int) -> np.ndarray:
    """Force [N m] of the friction-loss constraint rows of the last step, per DoF (shape ``(nv,)``)."""
    rows = np.asarray(data.efc_type) == _FRICTION_DOF
    return np.bincount(np.asarray(data.efc_id)[rows], np.asarray(data.efc_force)[rows], minlength=nv)


def external_torque(data: mujoco.MjData, friction_loss: np.ndarray) -> np.ndarray:
    """External torque [N m] per DoF from the last step: ``-bias + constraint - friction_loss``.

    Gravity, Coriolis and centrifugal torques and constraint forces (limits, contacts,
    equalities), without the DoFs' own friction (``friction_loss``, from
    :func:`friction_loss_torque`).
    """
    return np.asarray(data.qfrc_constraint) - np.asarray(data.qfrc_bias) - friction_loss


def motor_actuator(model: mujoco.MjModel, joint_id: int) -> Optional[int]:
    """Id of the first plain motor actuator driving ``joint_id``, or None."""
    for act in range(model.nu):
        if int(model.actuator_trntype[act]) != int(mujoco.mjtTrn.mjTRN_JOINT) or model.actuator_trnid[act, 0] != joint_id:
            continue
        plain = (
            int(model.actuator_dyntype[act]) == int(mujoco.mjtDyn.mjDYN_NONE)
            and int(model.actuator_gaintype[act]) == int(mujoco.mjtGain.mjGAIN_FIXED)
            and int(model.actuator_biastype[act]) == int(mujoco.mjtBias.mjBIAS_NONE)
            and model.actuator_gainprm[act, 0] == 1.0
            and not model.actuator_ctrllimited[act]
        )
        if not plain:
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, act)
            raise ValueError(
                f"actuator {name!r} drives a servo joint but is not a plain unlimited <motor>; "
                "the servo model computes the torque itself"
            )
        return act
    return None
