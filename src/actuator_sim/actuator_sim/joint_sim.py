"""ROS-free MuJoCo simulation of servo-driven joints with the extended friction models M1-M6.

Each actuated joint (hinge or slide) gets a servo: an ``actuator_models.Model`` (firmware law,
motor, friction model, values) and a gain ``kp``. Every step, per servo (paper section IV-E):

1. ``control = control_law(goal, q, v, kp, vin)`` and ``tm = motor_torque(control, enable, v)``
   (the real drivers' semantics: goal position [rad], torque enable, gain in firmware units);
2. ``te`` = external torque of the *previous* step: ``-qfrc_bias + qfrc_constraint`` minus the
   joint's friction-loss force (MuJoCo solves friction with the rest: no current ``te`` yet);
3. ``tau_fm = budget(tm, te, v)`` of the friction model, written into the DoF's
   ``frictionloss`` (and ``damping``, see :mod:`actuator_sim.friction_split`);
4. ``tm`` goes through the joint's MJCF ``<motor>`` (``ctrl = tm / gear``) or ``qfrc_applied``;
5. ``mj_step``.

A servo with dynamic friction (``dahl``, ``dahl+viscous``) carries its state (Dahl's ``w``):
its torque ``-Fc w`` goes into ``qfrc_applied`` before the step (the DoF's ``frictionloss`` is
then the rest of the budget: 0, or the viscous part ``Kv |v|``), and the state advances over
the step's displacement after it (:func:`actuator_models.dahl.dahl_step`).

The servo's half step is the one of :mod:`actuator_models.servo` (firmware, control law, motor,
budget, dynamic friction, additions' hooks and states): this module keeps only the integrator
(MuJoCo's). Additions (:mod:`actuator_models.additions`) act through their declared hooks, as in
the reference rollout: ``latency`` delays goal and torque enable (in the ``timestep`` base);
``backlash``: the joint is the drive, the control law and :attr:`JointSimulation.position` see the
output behind the play (gravity acts at the joint, up to ``backlash / 2`` away); ``heating``: ``R``
at the servo's ``temperature`` setting; ``thermal``: the winding and case temperatures as state,
started at the servo's ``temperature`` setting (None: the model's ``thermal_initial``), heated by
the motor current of each step (:attr:`JointSimulation.temperatures`); ``release``: each step
writes the DoF's ``dof_armature`` and scales the friction budget by the step's torque enable (the
constraint's regularisation keeps the driven armature's, computed once by ``mj_setConst``).

The armature of each actuated DoF is set from the model (``armature``). The friction-loss
constraint of an actuated DoF is made (nearly) hard by default: ``solimpfriction`` 0.9999 and
``solreffriction`` time constant ``2 timestep``, so the friction force is the stopping torque
``J v / dt + tm + te`` clipped to the budget, as in the reference simulator (Algorithm 1).
The params' ``q_offset`` is not used here: the pendulum MJCF carries it as the joint's ``ref``.

Units and frames: the joint's ``qpos`` [rad] (or m), ``qvel`` [rad/s], torques about the joint
axis [N m], positive in its positive direction. Use an MJCF with ``integrator="Euler"``
(semi-implicit Euler) to reproduce the reference simulator.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Union

import mujoco
import numpy as np

from actuator_models.addition_thermal import register_temperature
from actuator_models.model import Model
from actuator_models.simulation import warn_unmeasured
from actuator_models.servo import (Drive, Servo as ServoParts, forces, heat, joint, motor_torque, output, settle, setpoint,
                                   start)

from .dof_torques import external_torque, friction_loss_torque, motor_actuator
from .friction_split import VISCOUS_MODES, ViscousMode, split_budget

#: ``solimpfriction`` of actuated DoFs: impedance 0.9999 (the maximum) = a nearly hard constraint.
HARD_FRICTION_SOLIMP = (0.9999, 0.9999, 0.001, 0.5, 2.0)

PerJoint = Union[float, Sequence[float], Mapping[str, float], np.ndarray]


@dataclass(frozen=True)
class Servo:
    """A servo on a named MJCF joint.

    Attributes:
        joint: MJCF joint name (hinge or slide).
        model: actuator + friction model + parameter values.
        kp: firmware proportional gain, in the actuator's own units.
        vin: supply voltage [V]; None = the actuator's default. temperature [degC]: for a model
        carrying ``heating`` (None: 25 degC, ``R`` as identified), the start of a ``thermal``
        model's nodes (None: its ``thermal_initial``).
    """

    joint: str
    model: Model
    kp: float
    vin: Optional[float] = None
    temperature: Optional[float] = None


@dataclass(frozen=True)
class JointState:
    """The actuated joints after a step; arrays in servo order.

    Attributes:
        time: simulation time [s]. position [rad], velocity [rad/s]. control: firmware output
        (V or A). motor_torque, external_torque (the estimate the budget used), friction_torque
        (friction-loss constraint force plus damping force of the step), friction_budget: [N m].
        goal_position [rad], torque_enable, kp: the commands in force.
    """

    time: float
    position: np.ndarray
    velocity: np.ndarray
    control: np.ndarray
    motor_torque: np.ndarray
    external_torque: np.ndarray
    friction_torque: np.ndarray
    friction_budget: np.ndarray
    goal_position: np.ndarray
    torque_enable: np.ndarray
    kp: np.ndarray


class JointSimulation:
    """A MuJoCo model whose named joints are driven by servo models with extended friction.

    Commands (same semantics as the real drivers): :meth:`set_goal` [rad],
    :meth:`set_torque_enable`, :meth:`set_kp`, and the drivers' :meth:`command` and
    :meth:`release`; each takes one value for all servos, a sequence in servo order or a
    mapping by joint name. :meth:`step` advances one
    ``timestep``; :attr:`state` reads the joints.

    Args:
        model: compiled MuJoCo model; the simulation works on its own copy (whose
            ``dof_armature``, ``dof_frictionloss``, ``dof_damping``, friction ``solref``/``solimp``
            of actuated DoFs and timestep it sets), the caller's is left as it was.
        servos: the actuated joints.
        viscous: where the viscous part of the budget goes (:mod:`actuator_sim.friction_split`).
        update_friction: False sets frictionloss/damping once from the budget at rest
            (``tm = te = v = 0``) and keeps them: the plain Coulomb-viscous baseline.
        hard_friction: make the friction-loss constraints of actuated DoFs nearly hard.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        servos: Sequence[Servo],
        viscous: ViscousMode = "frictionloss",
        update_friction: bool = True,
        hard_friction: bool = True,
    ) -> None:
        if viscous not in VISCOUS_MODES:
            raise ValueError(f"unknown viscous mode {viscous!r}; expected one of {', '.join(VISCOUS_MODES)}")
        if not servos:
            raise ValueError("no servo to simulate")
        model = copy.copy(model)  # MjModel's copy is a deep one (mj_copyModel)
        self.model = model
        self.data = mujoco.MjData(model)
        self.servos = tuple(servos)
        self.viscous = viscous
        self.update_friction = update_friction
        self.hard_friction = hard_friction
        joint_ids = [self._joint_id(s.joint) for s in self.servos]
        self._qpos = np.array([model.jnt_qposadr[j] for j in joint_ids])
        self._dofs = np.array([model.jnt_dofadr[j] for j in joint_ids])
        self._actuators = [motor_actuator(model, j) for j in joint_ids]
        self._vin = np.array([s.model.actuator.default_vin if s.vin is None else s.vin for s in self.servos])
        self._kv = np.array([s.model.values.get("friction_viscous", 0.0) for s in self.servos])
        model.dof_armature[self._dofs] = [s.model.values["armature"] for s in self.servos]
        mujoco.mj_setConst(model, self.data)
        self.timestep = model.opt.timestep  # sets the friction solref
        if hard_friction:
            model.dof_solimp[self._dofs] = HARD_FRICTION_SOLIMP
        n = len(self.servos)
        self.goal_position = np.zeros(n)
        self.torque_enable = np.ones(n, dtype=bool)
        self.kp = np.array([s.kp for s in self.servos], dtype=float)
        #: servo temperatures [degC] for models carrying ``heating`` (NaN: 25 degC, R as identified)
        self.temperature = np.array([np.nan if s.temperature is None else s.temperature for s in self.servos])
        self._unwarned = set(range(n))  # servos not yet warned of heating without a temperature
        self._control = np.zeros(n)
        self._motor_torque = np.zeros(n)
        self._external_torque = np.zeros(n)
        self._budget = np.zeros(n)
        self._friction_torque = np.zeros(n)
        self._parts = [ServoParts.of(s.model) for s in self.servos]
        self._joint_hooks = any("on_joint" in a.acts_on for part in self._parts for a in part.additions)
        self._states: list = []  # one ServoState per servo, set by reset()
        self._dynamic_torque = np.zeros(n)
        if not update_friction:
            zeros = np.zeros(n)
            self._budget = self._budgets(zeros, zeros, zeros)
            self._write_friction(zeros)
        self.reset()

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def from_xml(cls, xml: str, servos: Sequence[Servo], **options: object) -> "JointSimulation":
        """Build from an MJCF string (``options`` as for the constructor)."""
        return cls(mujoco.MjModel.from_xml_string(xml), servos, **options)  # type: ignore[arg-type]

    def _joint_id(self, name: str) -> int:
        joint = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name)
        if joint < 0:
            names = [mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(self.model.njnt)]
            raise ValueError(f"no joint {name!r} in the MJCF (joints: {', '.join(map(str, names))})")
        if int(self.model.jnt_type[joint]) not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            raise ValueError(f"joint {name!r} is not a hinge or slide joint")
        return joint

    # ------------------------------------------------------------------ commands
    @property
    def joint_names(self) -> tuple:
        return tuple(s.joint for s in self.servos)

    def _per_joint(self, values: PerJoint, current: np.ndarray) -> np.ndarray:
        out = current.copy()
        if np.isscalar(values):
            out[:] = values
            return out
        if isinstance(values, Mapping):
            for name, value in values.items():
                if name not in self.joint_names:
                    raise ValueError(f"no servo on joint {name!r} (servos: {', '.join(self.joint_names)})")
                out[self.joint_names.index(name)] = value
            return out
        out[:] = np.broadcast_to(np.asarray(values, dtype=out.dtype), out.shape)
        return out

    def set_goal(self, goal: PerJoint) -> None:
        """Goal positions [rad]."""
        self.goal_position = self._per_joint(goal, self.goal_position)

    def set_torque_enable(self, enable: Union[bool, Sequence[bool], Mapping[str, bool]]) -> None:
        """Torque enable; disabled = H-bridge released / zero current, as the real servos."""
        self.torque_enable = self._per_joint(enable, self.torque_enable)

    def set_kp(self, kp: PerJoint) -> None:
        """Firmware proportional gains (actuator units), as the drivers' ``set_kp``."""
        self.kp = self._per_joint(kp, self.kp)

    def set_temperature(self, temperature: PerJoint) -> None:
        """Servo temperatures [degC], for models carrying the ``heating`` addition."""
        self.temperature = self._per_joint(temperature, self.temperature)

    def command(self, goals: PerJoint, torque_enable: Optional[Union[bool, Sequence[bool], Mapping[str, bool]]] = None) -> None:
        """Goal positions [rad] and, when given, torque enable, as the drivers' ``command``."""
        self.set_goal(goals)
        if torque_enable is not None:
            self.set_torque_enable(torque_enable)

    def release(self) -> None:
        """Torque off on every servo, as the drivers' ``release``."""
        self.set_torque_enable(False)

    @property
    def timestep(self) -> float:
        """Physics step [s]."""
        return float(self.model.opt.timestep)

    @timestep.setter
    def timestep(self, dt: float) -> None:
        self.model.opt.timestep = dt
        if self.hard_friction:
            self.model.dof_solref[self._dofs] = (2.0 * dt, 1.0)

    # ------------------------------------------------------------------ simulation
    def reset(self, position: Optional[PerJoint] = None, velocity: Optional[PerJoint] = None) -> None:
        """Reset MuJoCo's state; actuated joints to ``position`` [rad], ``velocity`` [rad/s].

        The goals are set to the positions, so the servos start holding still.
        """
        mujoco.mj_resetData(self.model, self.data)
        q = self._per_joint(0.0 if position is None else position, self.data.qpos[self._qpos].copy())
        v = self._per_joint(0.0 if velocity is None else velocity, np.zeros(len(self.servos)))
        self.data.qpos[self._qpos] = q
        self.data.qvel[self._dofs] = v
        self.goal_position = q.copy()
        self._states = [start(part, float(q[i]), s.model.values, self.timestep, {"temperature": s.temperature})
                        for i, (part, s) in enumerate(zip(self._parts, self.servos))]
        mujoco.mj_forward(self.model, self.data)
        self._friction_loss = friction_loss_torque(self.data, self.model.nv)

    @property
    def temperatures(self) -> list:
        """Per servo, ``(winding, case)`` temperatures [degC] of a model carrying ``thermal``, else None."""
        out = []
        for part, state in zip(self._parts, self._states):
            names = [a.name for a in part.additions]
            out.append(tuple(float(t) for t in state.additions[names.index("thermal")]) if "thermal" in names else None)
        return out

    @property
    def temperature_readings(self) -> np.ndarray:
        """Per servo, what its temperature register reads [degC]
        (:func:`~actuator_models.addition_thermal.register_temperature`)."""
        return np.array([register_temperature(nodes, None if np.isnan(setting) else float(setting))
                         for nodes, setting in zip(self.temperatures, self.temperature)])

    def _budgets(self, tm: np.ndarray, te: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.array(
            [float(s.model.friction.budget(tm[i], te[i], v[i], s.model.values)) for i, s in enumerate(self.servos)]
        )

    def _write_friction(self, v: np.ndarray) -> None:
        frictionloss, damping = split_budget(self._budget, self._kv, v, self.viscous)
        self.model.dof_frictionloss[self._dofs] = frictionloss
        self.model.dof_damping[self._dofs] = damping

    def _apply(self, torque: np.ndarray) -> None:
        for i, act in enumerate(self._actuators):
            if act is None:
                self.data.qfrc_applied[self._dofs[i]] = torque[i]
            else:
                self.data.ctrl[act] = torque[i] / self.model.actuator_gear[act, 0]

    def step(self, n: int = 1) -> None:
        """Advance ``n`` physics steps of :attr:`timestep` with the current commands."""
        for _ in range(n):
            self._step_once()

    def _step_once(self) -> None:
        q = self.data.qpos[self._qpos].copy()
        v = self.data.qvel[self._dofs].copy()
        y = self.position  # what the encoders read
        drives, joints = [], []
        for i, servo in enumerate(self.servos):
            temperature = None if np.isnan(self.temperature[i]) else float(self.temperature[i])
            if temperature is None and i in self._unwarned:
                self._unwarned.discard(i)
                warn_unmeasured(self._parts[i], False)
            drive = Drive(self.goal_position[i], bool(self.torque_enable[i]), self.kp[i], self._vin[i], self.timestep,
                          {"temperature": temperature})
            target, enable = setpoint(self._parts[i], self._states[i], drive, y[i], servo.model.values)
            self._control[i] = servo.model.actuator.control(target, y[i], v[i], self.kp[i], self._vin[i])
            self._motor_torque[i] = motor_torque(self._parts[i], self._control[i], enable, v[i], servo.model.values, drive,
                                                 self._states[i])
            heat(self._parts[i], self._states[i], self._motor_torque[i], servo.model.values, drive)
            joints.append(joint(self._parts[i], servo.model.values, enable))
            drives.append(drive)
        self._external_torque = external_torque(self.data, self._friction_loss)[self._dofs]
        if self._joint_hooks:  # release: the armature and friction of the step's torque enable
            self.model.dof_armature[self._dofs] = [j.armature for j in joints]
        if self.update_friction:
            self._budget = self._budgets(self._motor_torque, self._external_torque, v) * [j.friction_scale for j in joints]
            self._write_friction(v)
        self._apply(self._motor_torque)
        self._apply_dynamic_friction()
        mujoco.mj_step(self.model, self.data)
        q_next, v_next = self.data.qpos[self._qpos], self.data.qvel[self._dofs]
        for i, servo in enumerate(self.servos):
            settle(self._parts[i], self._states[i], (q[i], q_next[i], v[i], v_next[i]), servo.model.values, self.timestep)
        self._friction_loss = friction_loss_torque(self.data, self.model.nv)
        self._friction_torque = self._friction_loss[self._dofs] + self.data.qfrc_damper[self._dofs] + self._dynamic_torque

    def _apply_dynamic_friction(self) -> None:
        """Dynamic friction (Dahl) as a joint force in ``qfrc_applied``, next to the motor torque
        (its budget, 0 or the viscous part, is the DoF's ``frictionloss``)."""
        for i, servo in enumerate(self.servos):
            if servo.model.friction.state is None:
                continue
            with_dynamic, _ = forces(self._parts[i], self._states[i], 0.0, 0.0, 0.0, servo.model.values)
            self._dynamic_torque[i] = with_dynamic
            base = self._motor_torque[i] if self._actuators[i] is None else 0.0
            self.data.qfrc_applied[self._dofs[i]] = base + self._dynamic_torque[i]

    @property
    def friction_state(self) -> np.ndarray:
        """States of dynamic friction (Dahl's ``w``) in servo order; 0 for M1-M6 servos."""
        return np.array([0.0 if st.friction is None else float(st.friction) for st in self._states])

    # ------------------------------------------------------------------ state
    @property
    def position(self) -> np.ndarray:
        """Joint positions [rad] in servo order (a servo's output, behind its backlash play)."""
        q = self.data.qpos[self._qpos]
        return np.array([output(part, state, float(q[i])) for i, (part, state) in enumerate(zip(self._parts, self._states))])

    @property
    def velocity(self) -> np.ndarray:
        """Joint velocities [rad/s] in servo order."""
        return self.data.qvel[self._dofs].copy()

    @property
    def state(self) -> JointState:
        """A snapshot of the actuated joints (the torques are those of the last step)."""
        return JointState(
            time=float(self.data.time),
            position=self.position,
            velocity=self.velocity,
            control=self._control.copy(),
            motor_torque=self._motor_torque.copy(),
            external_torque=self._external_torque.copy(),
            friction_torque=self._friction_torque.copy(),
            friction_budget=self._budget.copy(),
            goal_position=self.goal_position.copy(),
            torque_enable=self.torque_enable.copy(),
            kp=self.kp.copy(),
        )
