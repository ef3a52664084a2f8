"""Identified servos on MuJoCo Warp: the servo step for a batch of worlds (``nworld``).

The same step as :class:`actuator_sim.joint_sim.JointSimulation` (the CPU MuJoCo one), run
by Warp kernels (:mod:`actuator_sim.warp_kernels`) on every world at once: each physics step,
per servo, the commands (through ``latency``), the firmware, the control law and the motor
torque (``R`` at the servo's temperature with ``heating``) go into ``qfrc_applied``; the
friction budget of M1-M6, from the motor torque, the external torque of the previous step and
the speed, goes into the world's own ``dof_frictionloss`` (MuJoCo Warp's friction-loss
constraint applies it, nearly hard as on the CPU); after the step the output follows the drive
behind the ``backlash`` play. A Dahl servo (``dahl``, ``dahl+viscous``) adds its torque ``-Fc w``
to ``qfrc_applied`` (its budget, 0 or ``Kv |v|``, is the ``dof_frictionloss``) and advances ``w``
over the step's displacement after it (the exact update, eq. 18); ``thermal`` heats its winding
and case nodes by the copper losses of each step's current, ``R`` following the winding;
``supply`` adds the sagging supply's ``Rs d^2`` to the voltage laws' ``R``; ``release`` scales the
world's own ``dof_armature`` and the budget by the torque enable. State
(firmware target, output, command history, Dahl's ``w``, the thermal nodes) is per world.

Use (``mjm`` a ``mujoco.MjModel``)::

    servos = [Servo("shoulder", load_model("sts3215/m1"), kp=8.0), ...]
    prepare_model(mjm, servos)                        # armature, hard friction: before put_model
    m = mjw.put_model(mjm); d = mjw.make_data(mjm, nworld=64)
    sim = WarpServos(mjm, m, d, servos)               # m.dof_frictionloss, dof_armature become per world
    sim.reset(position)                               # (nworld, nservo) [rad]
    for k in range(steps):
        sim.set_goal(goals[k])                        # (nworld, nservo) [rad]
        sim.step()                                    # = sim.before_step(); mjw.step(m, d); sim.after_step()

MuJoCo integrates semi-implicitly (``v' = v + a dt; q += v' dt``). ``integrator="bam"`` adds the
published step's ``a dt^2 / 2`` to each servo joint's position after every step, so a model fitted
with ``bam`` (the default of ``fit``) runs as it was fitted; other joints keep MuJoCo's update.

Warp runs float32: against the float64 CPU step this costs a relative 1e-7 per operation, which
:func:`tests.test_warp_servo` bounds on whole rollouts. A servo the kernels cannot run (a
friction model, addition or control law they do not know) is an error naming it, never
dropped. Writing ``qfrc_applied`` of the servo DoFs is the kernels' job; leave the servo
joints' own ``<motor>`` controls at 0.
"""

from __future__ import annotations

import math
from typing import Dict, Optional, Sequence, Tuple

import mujoco
import numpy as np
import warp as wp

from actuator_models.actuators import CurrentControlled, CurrentPD, SpeedLimitedVoltage, VoltageControlled
from actuator_models.additions import ADDITIONS
from actuator_models.friction import DYNAMIC_FRICTION_MODELS, FRICTION_MODELS, embed
from actuator_models.model import INTEGRATORS, Model

from . import warp_kernels as kernels
from .joint_sim import HARD_FRICTION_SOLIMP, Servo

#: What the kernels run: friction models (M1-M6 through M6's budget, Dahl's as its state plus
#: M6's budget with the viscous term alone), additions, and control laws (the exact classes:
#: a subclass may change the law).
WARP_FRICTION_MODELS = {**FRICTION_MODELS, **DYNAMIC_FRICTION_MODELS}
WARP_ADDITIONS = tuple(kernels.ADDITION_TWINS)
WARP_LAWS = {VoltageControlled: kernels.VOLTAGE, SpeedLimitedVoltage: kernels.SPEED_LIMITED_VOLTAGE,
             CurrentPD: kernels.CURRENT_PD, CurrentControlled: kernels.CURRENT}


def _law(model: Model) -> int:
    act = model.actuator
    if type(act) not in WARP_LAWS:
        raise ValueError(f"actuator {act.name!r} ({type(act).__name__}): its control law has no Warp kernel "
                         f"(the Warp step runs {', '.join(law.__name__ for law in WARP_LAWS)})")
    return WARP_LAWS[type(act)]


def check_supported(model: Model) -> None:
    """Raise ValueError naming what of ``model`` the Warp step does not run."""
    if WARP_FRICTION_MODELS.get(model.friction.name) is not model.friction:
        raise ValueError(f"friction model {model.friction.name!r} of {model.name} has no Warp kernel "
                         f"(the Warp step runs {', '.join(WARP_FRICTION_MODELS)})")
    unknown = [name for name in model.additions if name not in WARP_ADDITIONS]
    unknown += [name for name in model.values if name in ADDITIONS and name not in WARP_ADDITIONS]
    if unknown:
        raise ValueError(f"addition(s) {', '.join(sorted(set(unknown)))} of {model.name} have no Warp kernel "
                         f"(the Warp step runs {', '.join(WARP_ADDITIONS)})")
    _law(model)


def friction_columns(model: Model) -> Dict[str, float]:
    """The friction columns of ``model``: M6's budget parameters reproducing its budget, and
    Dahl's level ``dahl_fc`` [N m] and ``dahl_rho`` [1/rad] (0 for M1-M6). A Dahl model's budget
    (``dahl``: none, ``dahl+viscous``: ``Kv |v|``) is M1's with ``Kc = 0``: its ``friction_base``
    is the Dahl level ``Fc``, not a budget."""
    values, friction = model.values, model.friction
    if friction.state is None:
        return {k: float(v) for k, v in embed(values, friction, FRICTION_MODELS["m6"]).items()}
    m1 = FRICTION_MODELS["m1"]
    kv = float(values["friction_viscous"]) if "friction_viscous" in friction.parameter_names else 0.0
    budget = embed({"friction_base": 0.0, "friction_viscous": kv}, m1, FRICTION_MODELS["m6"])
    return {**{k: float(v) for k, v in budget.items()},
            "dahl_fc": float(values["friction_base"]), "dahl_rho": float(values["dahl_rho"])}


def servo_row(servo: Servo, dt: float) -> Tuple[Tuple[float, ...], Dict[str, int]]:
    """``(float row, int row by name without the addresses qpos, dof)`` of one servo for the
    kernels (columns :data:`~actuator_sim.warp_kernels.COLUMNS`,
    :data:`~actuator_sim.warp_kernels.INT_COLUMNS`): each twinned addition's declared
    ``kernel_columns`` from the model's values (0 where absent), its flag from the additions the
    model carries, its twin's derived columns at the step ``dt`` [s] (0 when not carried)."""
    model = servo.model
    check_supported(model)
    act, values = model.actuator, model.values
    row: Dict[str, float] = {
        "kt": values["kt"], "R": values["R"],
        "vin": act.default_vin if servo.vin is None else servo.vin,
        "error_gain": getattr(act, "error_gain", 0.0), "max_duty": getattr(act, "max_duty", 0.0),
        "law_damping": getattr(act, "damping", 0.0), "max_current": getattr(act, "max_current", 0.0),
        "bus_voltage": getattr(act, "bus_voltage", 0.0),
        "error_gain_ratio": values.get("error_gain_ratio", 1.0),
        "target_speed_limit": values.get("target_speed_limit", 0.0),
        "dahl_fc": 0.0, "dahl_rho": 0.0, **friction_columns(model),
    }
    ints = {"law": _law(model), "dahl": int(model.friction.state is not None)}
    for name, twin in kernels.ADDITION_TWINS.items():
        row.update({c: values.get(c, 0.0) for c in ADDITIONS[name].kernel_columns})
        on = name in model.additions
        derived = twin.derive(values, dt) if on and twin.derive is not None else {}
        row.update({c: derived.get(c, 0.0) for c in twin.floats})
        ints.update({name: int(on), **{c: int(derived.get(c, 0)) for c in twin.ints}})
    return tuple(float(row[name]) for name in kernels.COLUMNS), ints


def _dofs(mjm: mujoco.MjModel, servos: Sequence[Servo]) -> np.ndarray:
    out = []
    for servo in servos:
        joint = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_JOINT, servo.joint)
        if joint < 0:
            raise ValueError(f"no joint {servo.joint!r} in the MJCF")
        if int(mjm.jnt_type[joint]) not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            raise ValueError(f"joint {servo.joint!r} is not a hinge or slide joint")
        out.append(joint)
    return np.array(out, dtype=int)


def prepare_model(mjm: mujoco.MjModel, servos: Sequence[Servo]) -> None:
    """Set the servo DoFs of ``mjm`` as :class:`JointSimulation` does (armature from the models,
    no joint damping, nearly hard friction loss with ``solref`` ``2 timestep``); call before
    ``mujoco_warp.put_model``."""
    for servo in servos:
        check_supported(servo.model)
    dofs = mjm.jnt_dofadr[_dofs(mjm, servos)]
    mjm.dof_armature[dofs] = [s.model.values["armature"] for s in servos]
    mjm.dof_damping[dofs] = 0.0
    mjm.dof_solimp[dofs] = HARD_FRICTION_SOLIMP
    mjm.dof_solref[dofs] = (2.0 * mjm.opt.timestep, 1.0)
    mujoco.mj_setConst(mjm, mujoco.MjData(mjm))


class WarpServos:
    """Servo models driving named joints of every world of a MuJoCo Warp model.

    Commands are ``(nworld, nservo)`` arrays (or anything broadcasting to that shape), in servo
    order: :meth:`set_goal` [rad], :meth:`set_torque_enable`, :meth:`set_kp` (firmware units),
    :meth:`set_temperature` [degC, NaN: 25 degC] for ``heating``, and the start of the
    ``thermal`` nodes at :meth:`reset` (NaN: the model's ``thermal_initial``). :attr:`position`
    reads the outputs [rad] (behind a backlash play), :attr:`velocity` [rad/s],
    :attr:`friction_state` Dahl's ``w``, :attr:`temperatures` the thermal nodes [degC].
    """

    def __init__(self, mjm: mujoco.MjModel, m: object, d: object, servos: Sequence[Servo],
                 integrator: str = "semi-implicit") -> None:
        import mujoco_warp as mjw  # the optional extra

        if not servos:
            raise ValueError("no servo to simulate")
        if integrator not in INTEGRATORS:
            raise ValueError(f"integrator {integrator!r}: not one of {', '.join(INTEGRATORS)}")
        self.integrator = integrator
        self._mjw, self.m, self.d, self.servos = mjw, m, d, tuple(servos)
        joints = _dofs(mjm, servos)
        armature = np.asarray(m.dof_armature.numpy()).reshape(-1, mjm.nv)[0]  # type: ignore[attr-defined]
        dofs = mjm.jnt_dofadr[joints]
        wanted = np.array([s.model.values["armature"] for s in servos])
        if not np.allclose(armature[dofs], wanted, rtol=1e-6):
            raise ValueError("the MuJoCo Warp model lacks the servos' armature: call prepare_model(mjm, servos) "
                             "before mujoco_warp.put_model")
        self.nworld, n = int(d.nworld), len(servos)  # type: ignore[attr-defined]
        dt = float(mjm.opt.timestep)
        self.dt = dt
        rows = [servo_row(s, dt) for s in servos]
        ints = [[{**r[1], "qpos": mjm.jnt_qposadr[j], "dof": mjm.jnt_dofadr[j]}[c] for c in kernels.INT_COLUMNS]
                for r, j in zip(rows, joints)]
        self._rows = np.array([r[0] for r in rows])
        self._params: wp.array = wp.array(self._rows, dtype=float)
        self._int_rows = np.array(ints)
        self._ints: wp.array = wp.array(self._int_rows, dtype=int)
        self._qpos, self._dof = mjm.jnt_qposadr[joints], dofs
        history = max(r[1]["delay_whole"] for r in rows) + 2
        shape = (self.nworld, n)
        zeros = np.zeros(shape)
        frictionloss = np.broadcast_to(np.asarray(m.dof_frictionloss.numpy()).reshape(-1, mjm.nv)[:1],  # type: ignore[attr-defined]
                                       (self.nworld, mjm.nv))
        m.dof_frictionloss = wp.array(np.ascontiguousarray(frictionloss), dtype=float)  # type: ignore[attr-defined]
        armatures = np.broadcast_to(armature[None, :], (self.nworld, mjm.nv))  # release writes it per world
        m.dof_armature = wp.array(np.ascontiguousarray(armatures), dtype=float)  # type: ignore[attr-defined]
        self._kp: wp.array = wp.array(np.broadcast_to([s.kp for s in servos], shape).copy(), dtype=float)
        self._temperature: wp.array = wp.array(
            np.broadcast_to([math.nan if s.temperature is None else s.temperature for s in servos], shape).copy(),
            dtype=float)
        self._goal: wp.array = wp.array(zeros, dtype=float)
        self._firmware: wp.array = wp.array(zeros, dtype=float)
        self._output: wp.array = wp.array(zeros, dtype=float)
        self._friction_loss: wp.array = wp.array(zeros, dtype=float)
        self._enable: wp.array = wp.array(np.ones(shape, dtype=np.int32), dtype=int)
        self._history_goal = wp.zeros((self.nworld, n, history), dtype=float)
        self._history_enable = wp.zeros((self.nworld, n, history), dtype=int)
        self._pushes = wp.zeros(shape, dtype=int)
        self.motor_torque, self.external_torque, self.budget = (wp.zeros(shape, dtype=float) for _ in range(3))
        self._drive_before, self._velocity_before = wp.zeros(shape, dtype=float), wp.zeros(shape, dtype=float)
        self._dahl, self._winding, self._case = (wp.zeros(shape, dtype=float) for _ in range(3))
        self._has_dahl = any(s.model.friction.state is not None for s in servos)
        self.reset()

    # ------------------------------------------------------------------ commands
    def _set(self, target: wp.array, values: object, dtype: type = np.float32) -> None:
        target.assign(np.broadcast_to(np.asarray(values, dtype=dtype), target.shape).copy())

    def set_goal(self, goal: object) -> None:
        """Goal positions [rad], ``(nworld, nservo)`` or broadcasting to it."""
        self._set(self._goal, goal)

    def set_torque_enable(self, enable: object) -> None:
        """Torque enable (False: H-bridge released / zero current)."""
        self._set(self._enable, np.asarray(enable, dtype=bool), np.int32)

    def set_kp(self, kp: object) -> None:
        """Firmware proportional gains (actuator units)."""
        self._set(self._kp, kp)

    def set_temperature(self, temperature: object) -> None:
        """Servo temperatures [degC] for models carrying ``heating`` (NaN: 25 degC); for
        ``thermal``, where its nodes start at the next :meth:`reset` (NaN: ``thermal_initial``)."""
        self._set(self._temperature, temperature)

    # ------------------------------------------------------------------ simulation
    def reset(self, position: Optional[object] = None, velocity: Optional[object] = None) -> None:
        """MuJoCo Warp's state reset; servo joints to ``position`` [rad] and ``velocity`` [rad/s]
        (``(nworld, nservo)`` or broadcasting); goals and firmware targets at the positions, Dahl's
        ``w`` at 0, both ``thermal`` nodes at the temperature setting (NaN: ``thermal_initial``)."""
        self._mjw.reset_data(self.m, self.d)
        shape = self._goal.shape
        q = np.broadcast_to(np.asarray(0.0 if position is None else position, dtype=np.float32), shape)
        v = np.broadcast_to(np.asarray(0.0 if velocity is None else velocity, dtype=np.float32), shape)
        qpos, qvel = self.d.qpos.numpy(), self.d.qvel.numpy()  # type: ignore[attr-defined]
        qpos[:, self._qpos], qvel[:, self._dof] = q, v
        self.d.qpos.assign(qpos)  # type: ignore[attr-defined]
        self.d.qvel.assign(qvel)  # type: ignore[attr-defined]
        for array in (self._goal, self._firmware, self._output):
            array.assign(q.copy())
        self._pushes.zero_()
        self._dahl.zero_()
        initial = self._rows[:, kernels.COLUMNS.index("thermal_initial")]
        setting = self._temperature.numpy()
        start = np.where(np.isnan(setting), initial, setting)
        self._winding.assign(start)
        self._case.assign(start)
        self._mjw.forward(self.m, self.d)
        self._after()

    def before_step(self) -> None:
        """The servo step before ``mujoco_warp.step``: torques and friction budgets written."""
        d = self.d
        wp.launch(kernels.servo_before_step, dim=self._goal.shape, inputs=[
            self._params, self._ints, self.dt, d.qpos, d.qvel, d.qfrc_bias, d.qfrc_constraint,  # type: ignore[attr-defined]
            self._friction_loss, self._goal, self._enable, self._kp, self._temperature, self._firmware,
            self._output, self._history_goal, self._history_enable, self._pushes,
            self._dahl, self._winding, self._case, self._drive_before, self._velocity_before,
            d.qfrc_applied, self.m.dof_frictionloss, self.m.dof_armature,  # type: ignore[attr-defined]
            self.motor_torque, self.external_torque, self.budget])

    def _after(self) -> None:
        d = self.d
        wp.launch(kernels.servo_after_step, dim=self._goal.shape, inputs=[
            self._params, self._ints, d.qpos, d.dof_frictionadr, d.efc.force,  # type: ignore[attr-defined]
            self._output, self._friction_loss])

    def after_step(self) -> None:
        """The servo step after ``mujoco_warp.step``: the ``bam`` position update if asked,
        Dahl's ``w`` advanced over the step's displacement, friction-loss forces read, outputs moved."""
        if self.integrator == "bam":
            wp.launch(kernels.servo_bam_position, dim=self._goal.shape, inputs=[
                self._ints, self.dt, self.d.qvel, self._velocity_before, self.d.qpos])  # type: ignore[attr-defined]
        if self._has_dahl:
            wp.launch(kernels.servo_dahl_advance, dim=self._goal.shape, inputs=[
                self._params, self._ints, self.dt, self.d.qpos, self.d.qvel,  # type: ignore[attr-defined]
                self._drive_before, self._velocity_before, self._dahl])
        self._after()

    def step(self, n: int = 1) -> None:
        """``n`` physics steps with the current commands."""
        for _ in range(n):
            self.before_step()
            self._mjw.step(self.m, self.d)
            self.after_step()

    # ------------------------------------------------------------------ state
    def _flag(self, addition: str) -> np.ndarray:
        """Per servo, whether the kernels run ``addition`` (its flag column)."""
        return self._int_rows[:, kernels.INT_COLUMNS.index(addition)] == 1

    @property
    def position(self) -> np.ndarray:
        """Servo outputs [rad], ``(nworld, nservo)`` float64 copies (behind a backlash play)."""
        drive = self.d.qpos.numpy()[:, self._qpos]  # type: ignore[attr-defined]
        played = self._flag("backlash")
        return np.where(played, self._output.numpy(), drive).astype(float)

    @property
    def velocity(self) -> np.ndarray:
        """Servo joint (drive) velocities [rad/s], ``(nworld, nservo)``."""
        return self.d.qvel.numpy()[:, self._dof].astype(float)  # type: ignore[attr-defined]

    @property
    def friction_state(self) -> np.ndarray:
        """Dahl's ``w`` per world and servo, ``(nworld, nservo)`` (0 for M1-M6 servos)."""
        return self._dahl.numpy().astype(float)

    @property
    def temperatures(self) -> np.ndarray:
        """The ``thermal`` nodes [degC], ``(nworld, nservo, 2)``: winding, case (what the servo's
        ``temp`` register reads); NaN for servos not carrying ``thermal``."""
        nodes = np.stack([self._winding.numpy(), self._case.numpy()], axis=-1).astype(float)
        carried = self._flag("thermal")
        return np.where(carried[None, :, None], nodes, np.nan)
