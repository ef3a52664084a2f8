"""URDF for RViz from a compiled MJCF, so that both descriptions always agree.

Supported: a tree of bodies, each with at most one hinge joint placed at the body origin
(revolute if the MJCF limits it, else continuous), box / sphere / cylinder / capsule geoms
(capsules drawn as cylinders) and sites (fixed child links, e.g. ``end_effector`` for tf).
Links are named after bodies (the world body is ``base_link``), joints after MJCF joints.
Inertials come from the compiled model, so inertias MuJoCo computed from geoms are written out.
A limited joint's ``effort`` [N m] and ``velocity`` [rad/s] limits are its servo's ratings when
given (:func:`actuator_models.ratings.ratings`: stall torque, no-load speed), else
:data:`UNRATED`.
A hinge's ``ref`` becomes a rotation of the joint origin: the URDF angle equals MuJoCo's ``qpos``.
"""

from __future__ import annotations

import math
from typing import List, Mapping, Optional, Sequence, Union
from xml.sax.saxutils import escape

import mujoco
import numpy as np
from actuator_models.ratings import Ratings

BASE_LINK = "base_link"
#: (effort [N m], velocity [rad/s]) written for a limited joint whose servo is not given.
UNRATED = Ratings(100.0, 20.0)


def _num(x: float) -> str:
    text = f"{float(x):.9g}"
    return "0" if text in ("-0", "0") else text


def _vec(values: Union[Sequence[float], np.ndarray]) -> str:
    return " ".join(_num(v) for v in values)


def _rgba(values: Sequence[float]) -> str:
    return " ".join(f"{float(c):.3g}" for c in values)


def quat_to_rpy(quat: Union[Sequence[float], np.ndarray]) -> np.ndarray:
    """URDF roll-pitch-yaw [rad] (``R = Rz(yaw) Ry(pitch) Rx(roll)``) of a MuJoCo quaternion (w, x, y, z)."""
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, np.asarray(quat, dtype=float))
    r = mat.reshape(3, 3)
    pitch = math.asin(max(-1.0, min(1.0, -r[2, 0])))
    return np.array([math.atan2(r[2, 1], r[2, 2]), pitch, math.atan2(r[1, 0], r[0, 0])])


def _origin(pos: Union[Sequence[float], np.ndarray], quat: Union[Sequence[float], np.ndarray]) -> str:
    return f'<origin xyz="{_vec(pos)}" rpy="{_vec(quat_to_rpy(quat))}"/>'


def _name(model: mujoco.MjModel, kind: mujoco.mjtObj, index: int, fallback: str) -> str:
    return mujoco.mj_id2name(model, kind, index) or fallback


def _geometry(model: mujoco.MjModel, geom: int) -> str:
    kind, size = int(model.geom_type[geom]), model.geom_size[geom]
    if kind == int(mujoco.mjtGeom.mjGEOM_BOX):
        return f'<box size="{_vec(2 * size)}"/>'
    if kind == int(mujoco.mjtGeom.mjGEOM_SPHERE):
        return f'<sphere radius="{_num(size[0])}"/>'
    if kind in (int(mujoco.mjtGeom.mjGEOM_CYLINDER), int(mujoco.mjtGeom.mjGEOM_CAPSULE)):
        return f'<cylinder radius="{_num(size[0])}" length="{_num(2 * size[1])}"/>'
    raise ValueError(f"geom {geom}: type {kind} has no URDF counterpart (box, sphere, cylinder, capsule)")


def _link(model: mujoco.MjModel, body: int, name: str) -> List[str]:
    lines = [f'  <link name="{escape(name)}">']
    if body > 0 and model.body_mass[body] > 0:
        inertia = model.body_inertia[body]
        lines += [
            "    <inertial>",
            f"      {_origin(model.body_ipos[body], model.body_iquat[body])}",
            f'      <mass value="{_num(model.body_mass[body])}"/>',
            f'      <inertia ixx="{_num(inertia[0])}" ixy="0" ixz="0" iyy="{_num(inertia[1])}" iyz="0" '
            f'izz="{_num(inertia[2])}"/>',
            "    </inertial>",
        ]
    for geom in np.flatnonzero(model.geom_bodyid == body).tolist():
        geom_name = _name(model, mujoco.mjtObj.mjOBJ_GEOM, geom, f"{name}_geom{geom}")
        lines += [
            "    <visual>",
            f"      {_origin(model.geom_pos[geom], model.geom_quat[geom])}",
            f"      <geometry>{_geometry(model, geom)}</geometry>",
            f'      <material name="{escape(geom_name)}"><color rgba="{_rgba(model.geom_rgba[geom])}"/></material>',
            "    </visual>",
        ]
    lines.append("  </link>")
    return lines


def _joint_origin_quat(model: mujoco.MjModel, body: int, joint: int) -> np.ndarray:
    """Body orientation composed with ``Rot(axis, -qpos0)`` so that URDF angle = qpos."""
    ref = np.zeros(4)
    mujoco.mju_axisAngle2Quat(ref, model.jnt_axis[joint].astype(float), -float(model.qpos0[model.jnt_qposadr[joint]]))
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, model.body_quat[body].astype(float), ref)
    return out


def _joint(model: mujoco.MjModel, body: int, parent: str, child: str, ratings: Mapping[str, Ratings]) -> List[str]:
    joints = np.flatnonzero(model.jnt_bodyid == body)
    if len(joints) > 1:
        raise ValueError(f"body {child!r} has {len(joints)} joints; URDF needs one per link")
    if len(joints) == 0:
        head = f'  <joint name="{escape(child)}_fixed" type="fixed">'
        body_lines = [f"    {_origin(model.body_pos[body], model.body_quat[body])}"]
    else:
        joint = int(joints[0])
        if int(model.jnt_type[joint]) != int(mujoco.mjtJoint.mjJNT_HINGE) or np.any(model.jnt_pos[joint] != 0):
            raise ValueError(f"body {child!r}: only hinge joints at the body origin are supported")
        limited = bool(model.jnt_limited[joint])
        name = _name(model, mujoco.mjtObj.mjOBJ_JOINT, joint, f"{child}_joint")
        head = f'  <joint name="{escape(name)}" type="{"revolute" if limited else "continuous"}">'
        body_lines = [
            f"    {_origin(model.body_pos[body], _joint_origin_quat(model, body, joint))}",
            f'    <axis xyz="{_vec(model.jnt_axis[joint])}"/>',
        ]
        if limited:
            low, high = model.jnt_range[joint]
            rated = ratings.get(name, UNRATED)
            body_lines.append(f'    <limit lower="{_num(low)}" upper="{_num(high)}" '
                              f'effort="{rated.stall_torque:.3g}" velocity="{rated.no_load_speed:.3g}"/>')
    return [head, f'    <parent link="{escape(parent)}"/>', f'    <child link="{escape(child)}"/>', *body_lines, "  </joint>"]


def _sites(model: mujoco.MjModel, body: int, parent: str) -> List[str]:
    lines: List[str] = []
    for site in np.flatnonzero(model.site_bodyid == body).tolist():
        name = _name(model, mujoco.mjtObj.mjOBJ_SITE, site, f"{parent}_site{site}")
        lines += [
            f'  <link name="{escape(name)}"/>',
            f'  <joint name="{escape(name)}_fixed" type="fixed">',
            f'    <parent link="{escape(parent)}"/>',
            f'    <child link="{escape(name)}"/>',
            f"    {_origin(model.site_pos[site], model.site_quat[site])}",
            "  </joint>",
        ]
    return lines


def mjcf_to_urdf(model: mujoco.MjModel, robot: str, comment: str = "",
                 ratings: Optional[Mapping[str, Ratings]] = None) -> str:
    """URDF text of a compiled MuJoCo model (see the module docstring for what is supported);
    ``ratings``: the servo ratings of joints by name (effort and velocity limits)."""
    names = [BASE_LINK] + [
        _name(model, mujoco.mjtObj.mjOBJ_BODY, b, f"body{b}") for b in range(1, model.nbody)
    ]
    lines = ['<?xml version="1.0"?>']
    if comment:
        lines.append(f"<!-- {comment} -->")
    lines.append(f'<robot name="{escape(robot)}">')
    for body in range(model.nbody):
        lines += _link(model, body, names[body])
        if body > 0:
            lines += _joint(model, body, names[model.body_parentid[body]], names[body], ratings or {})
        lines += _sites(model, body, names[body])
    lines.append("</robot>")
    return "\n".join(lines) + "\n"
