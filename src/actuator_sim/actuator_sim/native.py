"""Native MuJoCo export: a servo model as MJCF that plain MuJoCo runs with no Python in the loop.

The exact servo model (firmware law, motor, friction budget M1-M6 re-computed every step,
additions) needs a step callback (:mod:`actuator_sim.joint_sim`). What MuJoCo's own elements
can carry of it, per actuated joint:

- a voltage (PWM) law as MuJoCo's ``<dcmotor>`` whose control is the goal position [rad]
  (``input="pos"``, :class:`DCMotor`): its controller drives the voltage
  ``clip(vin g (goal - q), +-vin max_duty)`` (``g = kp error_gain``, times ``error_gain_ratio`` for
  the Feetech law), the motor gives ``kt (V - kt qdot) / R``: the servo's law, the duty clipped
  before the back-EMF as the firmware clips it. With ``thermal``, the dcmotor's own thermal state
  carries the winding node: ``R`` rises with the winding's temperature as it heats by ``R i^2``
  during a run, towards the case, held at the start temperature (MuJoCo's ``ambient``; the case
  node's time constant, ~4 min on the XL330 fits, is what is lost). With ``supply``, the voltage
  limit is lowered to give the sagging supply's stall torque.
- a current law as one ``<general>`` actuator: ``force = K ctrl - K q - D qdot`` (``gaintype
  fixed``, ``biastype affine``), clipped to ``+-limit`` (``forcerange``): for the current PD law
  ``K = kt kp``, ``D = kt damping sqrt(kp)``, ``limit = kt max_current``; for the generic current
  law ``K = kt kp``, ``D = 0``, ``limit = kt min(max_current, vin / R)``.
- ``armature`` of the joint: the model's ``armature``.
- friction: ``frictionloss`` = the Coulomb level ``friction_base`` (Kc) and ``damping`` = the
  viscous ``friction_viscous`` (Kv, 0 for pure Dahl): the Coulomb-viscous part (M1) that every
  model nests. The friction-loss constraint is made nearly hard as in
  :class:`~actuator_sim.joint_sim.JointSimulation` (``solreffriction`` ``2 timestep``,
  ``solimpfriction`` :data:`~actuator_sim.joint_sim.HARD_FRICTION_SOLIMP`).

Lost: the Stribeck and load-dependent terms of M2-M6, Dahl's state, the Feetech firmware's
speed-limited target, the additions ``latency``, ``backlash`` and ``release`` (the driven armature
and friction with the torque off too), ``heating``'s replayed temperature (``R`` at one constant
temperature, 25 degC unless given), ``thermal``'s case node (above) and its cooling while the torque
is off (MuJoCo integrates no actuator state with actuation disabled), ``supply``'s sag below full
duty; torque enable (a user disables actuation with MuJoCo's ``mjDSBL_ACTUATION`` flag, as
:func:`native_positions` does for logged torque-off entries). :func:`approximation_loss` measures
what that costs on logs.

MJCF stores numbers with 6 significant digits (MuJoCo's writer): the exported values carry that
rounding. Units: rad, rad/s, N m, V, A, ohm, s, K, degC.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import mujoco
import numpy as np

from actuator_models.actuators import CurrentControlled, CurrentPD, VoltageControlled, gives_duty
from actuator_models.addition_heating import REFERENCE_TEMPERATURE
from actuator_models.addition_supply import DUTY
from actuator_models.addition_thermal import ALPHA, INITIAL, WINDING_CAPACITY, WINDING_RESISTANCE, step_problem
from actuator_models.divergence import DivergentStep, suspects
from actuator_models.logs import Log
from actuator_models.model import Model
from actuator_models.servo import Servo, ServoState, motor_values

from .joint_sim import HARD_FRICTION_SOLIMP
from .pendulum import pendulum_mjcf
from .replay import JOINT, bench_of, first_temperature, mae, reference_positions
from .stability import UNSTABLE


@dataclass(frozen=True)
class DCMotor:
    """MuJoCo's ``<dcmotor>`` of a voltage (PWM) law, its control the goal position [rad].

    MuJoCo's controller drives ``V = clip((R/K) (kp (goal - q) - kd qdot) + K qdot, +-voltage_limit)``
    and its motor gives ``K (V - K qdot) / R(T)``; with ``kp = K vin g / R`` and ``kd = K^2 / R``
    the voltage is the servo's ``vin g (goal - q)`` whatever ``R``.

    Attributes:
        motor_constant: ``K`` = the model's ``kt`` [N m/A]. resistance: ``R`` [ohm], at
        :data:`~actuator_models.addition_heating.REFERENCE_TEMPERATURE` with ``thermal``, else at
        the export's temperature. gain: ``vin g`` [V/rad], the voltage per rad of goal error.
        voltage_limit: ``vin max_duty`` [V] (lowered by a ``supply`` sag at full duty).
        thermal: None, or MuJoCo's ``thermal`` attribute: the winding's thermal resistance [K/W]
        and capacity [J/K], 0 (no separate time constant), ``thermal_alpha`` [1/K], the reference
        temperature [degC] and the ambient [degC], here the case, held at the start temperature.
    """

    motor_constant: float
    resistance: float
    gain: float
    voltage_limit: float
    thermal: Optional[Tuple[float, float, float, float, float, float]] = None

    def controller(self) -> List[float]:
        """MuJoCo's ``controller`` attribute: ``kp ki kd slewmax Imax Vmax`` (torque-space gains)."""
        k, r = self.motor_constant, self.resistance
        return [k * self.gain / r, 0.0, k * k / r, 0.0, 0.0, self.voltage_limit]


@dataclass(frozen=True)
class NativeServo:
    """What MuJoCo's elements carry of a servo model at one gain and supply voltage.

    Attributes:
        stiffness: ``K`` [N m/rad], torque per rad of goal error at the start temperature.
        damping_gain: ``D`` [N m s/rad], torque per rad/s of joint speed (back-EMF or the law's D
        term). force_limit [N m]: the stall torque. armature [kg m^2]. frictionloss [N m].
        damping [N m s/rad]: the joint's viscous friction. resistance: the winding's ``R`` [ohm]
        at the start temperature (:func:`motor_at`, at small duty). motor: the ``<dcmotor>`` of a
        voltage law, None for a current law (a ``<general>`` actuator of the three first values).
    """

    stiffness: float
    damping_gain: float
    force_limit: float
    armature: float
    frictionloss: float
    damping: float
    resistance: float
    motor: Optional[DCMotor] = None


def native_servo(model: Model, kp: float, vin: Optional[float] = None,
                 temperature: Optional[float] = None) -> NativeServo:
    """The native approximation of ``model`` at firmware gain ``kp``, supply ``vin`` [V] (None:
    the actuator's default) and a start ``temperature`` [degC] of the servo (None: where the
    model's simulations start without a reading, :func:`motor_at`); see the module docstring."""
    act, p = model.actuator, model.values
    vin = act.default_vin if vin is None else float(vin)
    motor = motor_at(model, temperature)
    kt, resistance = float(motor["kt"]), float(motor["R"])
    dc_motor = None
    if isinstance(act, VoltageControlled):  # also the Feetech SpeedLimitedVoltage
        gain = kp * act.error_gain * float(p.get("error_gain_ratio", 1.0))
        full = motor_at(model, temperature, act.max_duty)  # a sagging supply (``supply``) weakens the stall alone
        law = (kt * vin * gain / resistance, kt**2 / resistance, full["kt"] * vin * act.max_duty / full["R"])
        dc_motor = dc_motor_of(model, motor, vin * gain, vin * act.max_duty * resistance / full["R"], temperature)
    elif isinstance(act, CurrentPD):
        law = (kt * kp, kt * act.damping * math.sqrt(kp), kt * act.max_current)
    elif isinstance(act, CurrentControlled):
        law = (kt * kp, 0.0, kt * min(act.max_current, vin / resistance))
    else:
        raise ValueError(f"actuator {act.name!r} ({type(act).__name__}): no native MuJoCo form of its control law")
    return NativeServo(*law, armature=float(p["armature"]), frictionloss=float(p.get("friction_base", 0.0)),
                       damping=float(p.get("friction_viscous", 0.0)), resistance=resistance, motor=dc_motor)


def carries_heating(model: Model) -> bool:
    """Whether the export heats ``model``'s winding during a run: a ``thermal`` model of a voltage
    law, whose ``<dcmotor>`` carries the winding node (:func:`dc_motor_of`)."""
    return "thermal" in model.additions and isinstance(model.actuator, VoltageControlled)


def dc_motor_of(model: Model, start: Mapping[str, float], gain: float, voltage_limit: float,
                temperature: Optional[float]) -> DCMotor:
    """The ``<dcmotor>`` of ``model``'s voltage law at ``gain`` [V/rad] and ``voltage_limit`` [V],
    starting at ``temperature`` [degC] (None: the model's start), whose motor values there are
    ``start`` (:func:`motor_at`): with ``thermal``, ``R`` at the reference temperature and the
    winding node as MuJoCo's thermal state towards the case at the start temperature; otherwise
    ``R`` constant at the start temperature."""
    p = model.values
    if not carries_heating(model):
        return DCMotor(float(start["kt"]), float(start["R"]), gain, voltage_limit)
    motor = motor_at(model, REFERENCE_TEMPERATURE)
    ambient = float(p[INITIAL.name] if temperature is None else temperature)  # the case, held at the start
    thermal = (float(p[WINDING_RESISTANCE.name]), float(p[WINDING_CAPACITY.name]), 0.0, float(p[ALPHA.name]),
               REFERENCE_TEMPERATURE, ambient)
    return DCMotor(float(motor["kt"]), float(motor["R"]), gain, voltage_limit, thermal)


def motor_at(model: Model, temperature: Optional[float] = None, duty: Optional[float] = None) -> Dict[str, float]:
    """The model's values the motor torque is computed with at the start of a simulation whose
    servo reads ``temperature`` [degC] (None: no reading; ``thermal`` starts at its
    ``thermal_initial``, ``heating`` is at 25 degC), at ``duty`` (a voltage law's control over its
    supply, in [-1, 1]; None: small, no supply sag): the additions' motor hooks of the servo step
    (:func:`actuator_models.servo.motor_values`)."""
    servo = Servo.of(model)
    inputs: Dict[str, Optional[float]] = {} if temperature is None else {"temperature": float(temperature)}
    if duty is not None and gives_duty(model.actuator):
        inputs[DUTY] = duty
    starts = [a.initial(0.0, model.values, 0.0, inputs) if "on_motor_state" in a.acts_on else None
              for a in servo.additions]  # only the motor's: a latency's start needs a step
    state = ServoState(0.0, None, starts)
    return {name: float(value) for name, value in motor_values(servo, model.values, inputs, state).items()}


def servo_temperature(model: Model, temperature: Optional[float] = None) -> str:
    """In words, the temperature the export takes ``R`` at (:func:`motor_at`) and whether it heats."""
    if "temperature" not in Servo.of(model).inputs:
        return "as identified (the model does not follow a temperature)"
    run = "; the winding heats during a run, the case does not" if carries_heating(model) else "; no heating in a run"
    if temperature is not None:
        return f"at {temperature:g} degC (--temperature){run}"
    if "thermal" in model.additions:
        return f"at {float(model.values['thermal_initial']):.4g} degC (the model's thermal_initial){run}"
    return "at 25 degC (R as identified: give --temperature for a heating model)"


@dataclass(frozen=True)
class NativeJoint:
    """A servo on a named MJCF joint for the export: model, firmware gain ``kp``, supply ``vin``
    [V], constant servo ``temperature`` [degC] (None: the model's start, :func:`motor_at`)."""

    joint: str
    model: Model
    kp: float
    vin: Optional[float] = None
    temperature: Optional[float] = None


def export_mjcf(xml: str, joints: Sequence[NativeJoint]) -> str:
    """``xml`` with each joint's servo as MuJoCo elements: the joint's actuator (its ``<motor>``,
    or a new one named after the joint) becomes the servo's law of :func:`native_servo` (control:
    goal position [rad]), a ``<dcmotor>`` for a voltage law, a ``<general>`` one for a current law;
    armature, frictionloss, damping and hard friction-loss solver settings on the joint. A thermal
    network MuJoCo's timestep cannot integrate (:func:`~actuator_models.addition_thermal.step_problem`)
    raises :class:`~actuator_models.divergence.DivergentStep`."""
    spec = mujoco.MjSpec.from_string(xml)
    dt = spec.option.timestep
    targets = {a.target: a for a in spec.actuators if a.trntype == mujoco.mjtTrn.mjTRN_JOINT}
    for item in joints:
        joint = spec.joint(item.joint)
        if joint is None:
            raise ValueError(f"no joint {item.joint!r} in the MJCF")
        servo = native_servo(item.model, item.kp, item.vin, item.temperature)
        problem = step_problem(item.model.values, dt) if servo.motor is not None and servo.motor.thermal else None
        if problem:  # MuJoCo integrates the winding node by explicit Euler too: refused as the exact step is
            raise DivergentStep(f"{item.model.name} on joint {item.joint!r}: {problem}")
        joint.armature, joint.frictionloss = servo.armature, servo.frictionloss
        joint.damping[0] = servo.damping  # a 3-vector in MuJoCo 4.0; [0] is the dof_damping
        joint.solref_friction = [2.0 * dt, 1.0]
        joint.solimp_friction = list(HARD_FRICTION_SOLIMP)
        act = targets.get(item.joint)
        if act is None:
            act = spec.add_actuator(name=item.joint, target=item.joint, trntype=mujoco.mjtTrn.mjTRN_JOINT)
        act.gear[0] = 1.0
        act.ctrllimited = mujoco.mjtLimited.mjLIMITED_FALSE
        if servo.motor is not None:
            motor = servo.motor
            act.forcelimited = mujoco.mjtLimited.mjLIMITED_FALSE  # the controller's voltage limit is the limit
            act.set_to_dcmotor([motor.motor_constant, motor.motor_constant], motor.resistance,
                               controller=motor.controller(), thermal=list(motor.thermal or (0.0,) * 6),
                               ctrlspec=int(mujoco.mjtCtrlInput.mjINPUT_POS))
            continue
        act.gaintype, act.biastype = mujoco.mjtGain.mjGAIN_FIXED, mujoco.mjtBias.mjBIAS_AFFINE
        act.gainprm[:3] = [servo.stiffness, 0.0, 0.0]
        act.biasprm[:3] = [0.0, -servo.stiffness, -servo.damping_gain]
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        act.forcerange = [-servo.force_limit, servo.force_limit]
    return spec.to_xml()


def pendulum_export(model: Model, log: Log) -> str:
    """The native MJCF of a log's pendulum bench driven by ``model`` at the log's gain, voltage
    and first temperature reading (where the exact simulation starts)."""
    return export_mjcf(pendulum_mjcf(bench_of(log, model)),
                       [NativeJoint(JOINT, model, log.kp, log.vin, first_temperature(log))])


def native_positions(xml: str, log: Log, joint: str = JOINT) -> np.ndarray:
    """Positions [rad] of plain MuJoCo replaying ``log`` on a native MJCF: start at the first
    entry's position and speed, record before each step, ``ctrl`` = the logged goal, actuation
    off (``mjDSBL_ACTUATION``) while the log's torque enable is off. A replay MuJoCo found unstable
    (:data:`~actuator_sim.stability.UNSTABLE`: it then resets the state and goes on, to a finite
    but meaningless MAE) raises :class:`~actuator_models.divergence.DivergentStep`."""
    mj = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(mj)
    qpos, dof = mj.joint(joint).qposadr[0], mj.joint(joint).dofadr[0]
    act = next(a for a in range(mj.nu) if mj.actuator_trnid[a, 0] == mj.joint(joint).id)
    data.qpos[qpos], data.qvel[dof] = log.position[0], log.speed[0]
    off = int(mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    warnings, unstable = data.warning.number, np.array([int(w) for w in UNSTABLE])  # a live view of the counts
    out = np.empty(len(log))
    for k in range(len(log)):
        out[k] = data.qpos[qpos]
        data.ctrl[act] = log.goal_position[k]
        enabled = log.torque_enable[k] > 0.5
        mj.opt.disableflags = (mj.opt.disableflags & ~off) if enabled else (mj.opt.disableflags | off)
        mujoco.mj_step(mj, data)
        if warnings[unstable].any():
            raise DivergentStep(f"{Path(str(log.source)).name}: plain MuJoCo's replay of the native export diverged at "
                                f"t = {k * mj.opt.timestep:.3f} s (MuJoCo's warning of an unstable simulation)")
    return out


def native_replay(model: Model, log: Log) -> np.ndarray:
    """Positions [rad] of plain MuJoCo replaying ``log`` on ``model``'s native export at the log's
    bench (:func:`pendulum_export`, :func:`native_positions`); a replay that diverged names the
    values most likely to blame."""
    try:
        return native_positions(pendulum_export(model, log), log)
    except DivergentStep as error:
        raise DivergentStep(f"{model.name}: {error}; {suspects(model.parameters, model.values)}") from None


def log_maes(model: Model, logs: Sequence[Log]) -> np.ndarray:
    """MAE [rad] of ``model``'s native export on each processed log, replayed by plain MuJoCo
    (:func:`native_replay`), shape ``(L,)``: the ``mujoco-native`` backend of ``actuator-models
    evaluate``, what a user of the exported MJCF gets."""
    return np.array([mae(native_replay(model, log), log.position) for log in logs])


@dataclass(frozen=True)
class ApproximationLoss:
    """MAEs [rad] on logs, per log file name: the exact model (the core simulator, semi-implicit,
    MuJoCo's integrator) and the native MJCF, against the log and against each other."""

    exact: Dict[str, float]
    native: Dict[str, float]
    native_vs_exact: Dict[str, float]

    def means(self) -> Dict[str, float]:
        """Means over the logs; ``loss`` = native MAE minus exact MAE (what the export loses)."""
        exact, native = float(np.mean(list(self.exact.values()))), float(np.mean(list(self.native.values())))
        return {"mae_exact": exact, "mae_native": native, "loss": native - exact,
                "mae_native_vs_exact": float(np.mean(list(self.native_vs_exact.values())))}


def approximation_loss(model: Model, logs: Sequence[Log]) -> ApproximationLoss:
    """What the native export of ``model`` loses against the exact model on processed pendulum logs."""
    references = reference_positions(model, logs)
    exact: Dict[str, float] = {}
    native: Dict[str, float] = {}
    between: Dict[str, float] = {}
    for log, reference in zip(logs, references):
        name = str(log.source).rsplit("/", 1)[-1]
        positions = native_replay(model, log)
        exact[name], native[name] = mae(reference, log.position), mae(positions, log.position)
        between[name] = mae(positions, reference)
    return ApproximationLoss(exact, native, between)


#: The friction parameters MuJoCo's joint elements carry: ``frictionloss`` and ``damping``.
CARRIED_FRICTION = ("friction_base", "friction_viscous")
#: Additions the export carries in part: ``R`` at one start temperature (:func:`motor_at`), the
#: winding's heating (:func:`dc_motor_of`), the supply's sag at full duty.
PARTLY_CARRIED = ("heating", "thermal", "supply")


def lost_friction(model: Model) -> List[str]:
    """The friction model's parts MuJoCo's elements do not carry: its parameters besides
    :data:`CARRIED_FRICTION` and a dynamic friction's state."""
    lost = [name for name in model.friction.parameter_names if name not in CARRIED_FRICTION]
    return lost + ([f"{model.friction.name}'s friction state"] if model.friction.state is not None else [])


def lost_additions(model: Model) -> List[str]:
    """The additions MuJoCo's elements do not carry (those of :data:`PARTLY_CARRIED` are not listed)."""
    return [name for name in model.additions if name not in PARTLY_CARRIED]


def describe(servo: NativeServo) -> List[str]:
    """Lines describing a native servo, for the command's output."""
    motor = servo.motor
    if motor is None:
        law = (f"  actuator <general>: K {servo.stiffness:.4g} N m/rad, D {servo.damping_gain:.4g} N m s/rad, "
               f"force limit {servo.force_limit:.4g} N m")
    else:
        law = (f"  actuator <dcmotor> (input pos): {motor.gain:.4g} V per rad of goal error, clipped to "
               f"+-{motor.voltage_limit:.4g} V; motor constant {motor.motor_constant:.4g} N m/A, R "
               f"{motor.resistance:.4g} ohm" + (f" at {motor.thermal[4]:g} degC" if motor.thermal else "")
               + f" (K {servo.stiffness:.4g} N m/rad, D {servo.damping_gain:.4g} N m s/rad, stall torque "
               f"{servo.force_limit:.4g} N m at the start)")
    lines = [law]
    if motor is not None and motor.thermal:
        resistance, capacity, _, alpha, _, ambient = motor.thermal
        lines.append(f"  winding heating: {resistance:.4g} K/W, {capacity:.4g} J/K to the case held at {ambient:.4g} "
                     f"degC, R {alpha:.4g} /K")
    return lines + [f"  joint: armature {servo.armature:.4g} kg m^2, frictionloss {servo.frictionloss:.4g} N m, "
                    f"damping {servo.damping:.4g} N m s/rad"]
