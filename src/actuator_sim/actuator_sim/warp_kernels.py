"""Warp kernels of the servo step on MuJoCo Warp, one thread per (world, servo).

The arithmetic is that of :mod:`actuator_models` (firmware, control laws, motor, friction
budget, additions) as :class:`actuator_sim.joint_sim.JointSimulation` runs it around MuJoCo's
CPU step, in Warp's float32. Every friction model M1-M6 runs as M6's budget with the
parameters :func:`actuator_models.friction.embed` gives it (M6 nests M1-M5 exactly), so there
is one budget function; a Dahl model's budget (none, or ``dahl+viscous``'s ``Kv |v|``) is M6's
with those terms alone, and its torque ``-Fc w`` joins the motor torque in ``qfrc_applied`` as
the CPU twin applies it. Per-servo constants come as one row of ``params`` (columns
:data:`COLUMNS`, named by the declarations: an addition's ``kernel_columns`` and its
:class:`Twin`'s derived ones), its integer row the law, addresses and flags (:data:`INT_COLUMNS`);
``release`` writes the step's armature into the world's own ``dof_armature``; the state per world
and servo (firmware target, output behind the backlash
play, command history of the latency, last friction-loss force, Dahl's ``w``, the ``thermal``
winding and case temperatures) lives in arrays the caller owns.

Units: rad, rad/s, N m, V, A, s, degC.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Mapping, Optional, Tuple

import warp as wp

from actuator_models.additions import ADDITIONS, delay_steps


@dataclass(frozen=True)
class Twin:
    """The Warp twin of an addition (its code is in the kernels below): the columns it reads
    besides its addition's declared ``kernel_columns`` and its on/off flag (the integer column
    named after the addition), derived from the model's values at the step ``dt`` [s] by
    ``derive`` (all 0 when the model does not carry the addition)."""

    floats: Tuple[str, ...] = ()
    ints: Tuple[str, ...] = ()
    derive: Optional[Callable[[Mapping[str, float], float], Dict[str, float]]] = None


def _delay_split(values: Mapping[str, float], dt: float) -> Dict[str, float]:
    """latency's delay in whole steps, the fraction of the next, and the steps the torque enable
    is held (additions.delay_steps)."""
    whole, fraction, held = delay_steps(values["latency"], dt)
    return {"delay_whole": int(whole), "delay_fraction": float(fraction), "delay_held": int(held)}


def _armature(values: Mapping[str, float], dt: float) -> Dict[str, float]:
    """release's driven armature [kg m^2], which its twin scales in the world's ``dof_armature``."""
    return {"armature": float(values["armature"])}


#: The additions the kernels run, by name, with what their twins read besides the declarations.
ADDITION_TWINS: Dict[str, Twin] = {
    "latency": Twin(floats=("delay_fraction",), ints=("delay_whole", "delay_held"), derive=_delay_split),
    "backlash": Twin(), "heating": Twin(), "thermal": Twin(), "supply": Twin(),
    "release": Twin(floats=("armature",), derive=_armature),
}
#: Columns of the per-servo parameter rows, in order: the control laws', M6's budget, Dahl's,
#: then each twinned addition's ``kernel_columns`` and its twin's derived float columns.
COLUMNS: Tuple[str, ...] = tuple(dict.fromkeys([
    "kt", "R", "vin", "error_gain", "max_duty", "law_damping", "max_current", "bus_voltage",
    "error_gain_ratio", "target_speed_limit",
    "friction_base", "friction_viscous", "friction_stribeck", "dtheta_stribeck", "alpha",
    "load_friction_motor", "load_friction_external", "load_friction_motor_stribeck",
    "load_friction_external_stribeck", "load_friction_motor_quad", "load_friction_external_quad",
    "dahl_fc", "dahl_rho",
    *(c for name, twin in ADDITION_TWINS.items() for c in (*ADDITIONS[name].kernel_columns, *twin.floats)),
]))
_C = {name: i for i, name in enumerate(COLUMNS)}  # read in kernels through wp.static
#: Control laws (``law`` column of the integer rows): actuator_models.actuators classes.
VOLTAGE, SPEED_LIMITED_VOLTAGE, CURRENT_PD, CURRENT = 0, 1, 2, 3
#: Integer columns: law, qpos address, dof address, has Dahl friction (0/1), each twinned
#: addition's flag (0/1, named after it), then the twins' derived integer columns.
INT_COLUMNS: Tuple[str, ...] = ("law", "qpos", "dof", "dahl", *ADDITION_TWINS,
                                *(c for twin in ADDITION_TWINS.values() for c in twin.ints))
_I = {name: i for i, name in enumerate(INT_COLUMNS)}
REFERENCE_TEMPERATURE = 25.0  # degC, actuator_models.additions.REFERENCE_TEMPERATURE


@wp.func
def _clip(x: float, low: float, high: float) -> float:
    return wp.min(wp.max(x, low), high)


@wp.func
def _budget(p: wp.array2d[float], s: int, tm: float, te: float, v: float) -> float:
    """M6 friction budget [N m] (actuator_models.friction.m6)."""
    stribeck = wp.exp(-wp.pow(wp.abs(v / p[s, wp.static(_C["dtheta_stribeck"])]), p[s, wp.static(_C["alpha"])]))
    quad = float(0.0)
    if tm * te < 0.0:
        if wp.abs(tm) > wp.abs(te):
            quad = p[s, wp.static(_C["load_friction_external_quad"])] * te * te
        else:
            quad = p[s, wp.static(_C["load_friction_motor_quad"])] * tm * tm
    base = (p[s, wp.static(_C["friction_viscous"])] * wp.abs(v) + p[s, wp.static(_C["friction_base"])]
            + wp.abs(p[s, wp.static(_C["load_friction_motor"])] * tm - p[s, wp.static(_C["load_friction_external"])] * te))
    rest = (p[s, wp.static(_C["friction_stribeck"])]
            + wp.abs(p[s, wp.static(_C["load_friction_motor_stribeck"])] * tm - p[s, wp.static(_C["load_friction_external_stribeck"])] * te)
            + quad)
    return base + stribeck * rest


@wp.func
def _motor_torque(p: wp.array2d[float], s: int, law: int, setpoint: float, y: float, v: float, kp: float,
                  enable: int, resistance: float) -> float:
    """Control law and motor torque [N m] (actuator_models.actuators: control then torque)."""
    kt = p[s, wp.static(_C["kt"])]
    vin = p[s, wp.static(_C["vin"])]
    on = float(enable)
    if law == 2:  # CurrentPD
        current = _clip(kp * (setpoint - y) - p[s, wp.static(_C["law_damping"])] * wp.sqrt(kp) * v,
                        -p[s, wp.static(_C["max_current"])], p[s, wp.static(_C["max_current"])])
        limit = kt / resistance * p[s, wp.static(_C["bus_voltage"])]
        emf = kt * kt * v / resistance
        return _clip(kt * current * on, -limit - emf, limit - emf)
    if law == 3:  # CurrentControlled
        current = _clip(kp * (setpoint - y), -p[s, wp.static(_C["max_current"])], p[s, wp.static(_C["max_current"])])
        return kt * _clip(current, (-vin - kt * v) / resistance, (vin - kt * v) / resistance) * on
    duty = _clip(kp * p[s, wp.static(_C["error_gain"])] * (setpoint - y), -p[s, wp.static(_C["max_duty"])], p[s, wp.static(_C["max_duty"])])
    # supply: the winding's R seen from the sagging supply, R + Rs d^2 (addition_supply.sagged_resistance;
    # its column is 0 for a servo not carrying it, which leaves R as it is)
    sagged = resistance + p[s, wp.static(_C["supply_resistance"])] * duty * duty
    return on * (kt * vin * duty / sagged - kt * kt * v / sagged)


@wp.kernel
def servo_before_step(
    p: wp.array2d[float], ints: wp.array2d[int], dt: float,
    qpos: wp.array2d[float], qvel: wp.array2d[float], qfrc_bias: wp.array2d[float],
    qfrc_constraint: wp.array2d[float], friction_loss: wp.array2d[float],
    goal: wp.array2d[float], enable: wp.array2d[int], kp: wp.array2d[float], temperature: wp.array2d[float],
    firmware: wp.array2d[float], output: wp.array2d[float],
    history_goal: wp.array3d[float], history_enable: wp.array3d[int], pushes: wp.array2d[int],
    dahl: wp.array2d[float], winding: wp.array2d[float], case_node: wp.array2d[float],
    drive_before: wp.array2d[float], velocity_before: wp.array2d[float],
    qfrc_applied: wp.array2d[float], dof_frictionloss: wp.array2d[float], dof_armature: wp.array2d[float],
    motor_torque: wp.array2d[float], external_torque: wp.array2d[float], budget: wp.array2d[float],
):
    """Commands through the latency, firmware, control law, motor torque (and Dahl's ``-Fc w``)
    into ``qfrc_applied``, the ``thermal`` nodes heated by the step's current, friction budget
    into the world's ``dof_frictionloss`` and, with ``release``, the armature of the step's torque
    enable into its ``dof_armature`` (JointSimulation._step_once before mj_step)."""
    w, s = wp.tid()
    law = ints[s, wp.static(_I["law"])]
    dof = ints[s, wp.static(_I["dof"])]
    q = qpos[w, ints[s, wp.static(_I["qpos"])]]
    v = qvel[w, dof]
    y = q
    if ints[s, wp.static(_I["backlash"])] == 1:
        y = output[w, s]
    g = goal[w, s]
    on = enable[w, s]
    whole = ints[s, wp.static(_I["delay_whole"])]
    if whole > 0 or ints[s, wp.static(_I["delay_held"])] > 0:  # latency: additions.CommandDelay
        size = history_goal.shape[2]
        slot = pushes[w, s] % size
        history_goal[w, s, slot] = g
        history_enable[w, s, slot] = on
        last = pushes[w, s]
        pushes[w, s] = last + 1
        g0 = history_goal[w, s, wp.max(last - whole, 0) % size]
        g1 = history_goal[w, s, wp.max(last - whole - 1, 0) % size]
        g = g0 + p[s, wp.static(_C["delay_fraction"])] * (g1 - g0)
        on = history_enable[w, s, wp.max(last - ints[s, wp.static(_I["delay_held"])], 0) % size]
    setpoint = g
    if law == 1:  # SpeedLimitedVoltage.firmware
        step = p[s, wp.static(_C["target_speed_limit"])] * dt
        target = y
        if on != 0:
            target = firmware[w, s] + _clip(g - firmware[w, s], -step, step)
        firmware[w, s] = target
        setpoint = y + p[s, wp.static(_C["error_gain_ratio"])] * (target - y)
    resistance = p[s, wp.static(_C["R"])]
    t = temperature[w, s]
    if ints[s, wp.static(_I["heating"])] == 1 and not wp.isnan(t):
        resistance = resistance * (1.0 + p[s, wp.static(_C["heating"])] * (t - REFERENCE_TEMPERATURE))
    thermal = ints[s, wp.static(_I["thermal"])] == 1
    if thermal:  # addition_thermal.Thermal.on_motor_state: R at the winding's temperature
        resistance = resistance * (1.0 + p[s, wp.static(_C["thermal_alpha"])] * (winding[w, s] - REFERENCE_TEMPERATURE))
    tm = _motor_torque(p, s, law, setpoint, y, v, kp[w, s], on, resistance)
    if thermal:  # addition_thermal.heat_step: the copper losses of the current tm / kt, explicit Euler
        current = tm / p[s, wp.static(_C["kt"])]
        tw = winding[w, s]
        tc = case_node[w, s]
        flow = (tw - tc) / p[s, wp.static(_C["thermal_winding_resistance"])]
        loss = (tc - p[s, wp.static(_C["thermal_ambient"])]) / p[s, wp.static(_C["thermal_case_resistance"])]
        winding[w, s] = tw + dt * (current * current * resistance - flow) / p[s, wp.static(_C["thermal_winding_capacity"])]
        case_node[w, s] = tc + dt * (flow - loss) / p[s, wp.static(_C["thermal_case_capacity"])]
    te = qfrc_constraint[w, dof] - qfrc_bias[w, dof] - friction_loss[w, s]
    tfm = _budget(p, s, tm, te, v)
    if ints[s, wp.static(_I["release"])] == 1:  # addition_release.released: torque off, less of both
        off = 1.0 - float(on)
        tfm = tfm * (1.0 - p[s, wp.static(_C["release_friction_share"])] * off)
        dof_armature[w, dof] = p[s, wp.static(_C["armature"])] * (1.0 - p[s, wp.static(_C["release_armature_share"])] * off)
    applied = tm
    if ints[s, wp.static(_I["dahl"])] == 1:  # friction.DAHL's torque, applied like an external one
        applied = tm - p[s, wp.static(_C["dahl_fc"])] * dahl[w, s]
    drive_before[w, s] = q
    velocity_before[w, s] = v
    qfrc_applied[w, dof] = applied
    dof_frictionloss[w, dof] = tfm
    motor_torque[w, s] = tm
    external_torque[w, s] = te
    budget[w, s] = tfm


@wp.func
def _dahl_update(w: float, dx: float, rho: float) -> float:
    """Dahl's state after a monotone displacement ``dx`` [rad] (actuator_models.dahl.dahl_update, eq. 18)."""
    sign = float(0.0)
    if dx > 0.0:
        sign = 1.0
    elif dx < 0.0:
        sign = -1.0
    return sign - (sign - w) * wp.exp(-rho * wp.abs(dx))


@wp.kernel
def servo_dahl_advance(
    p: wp.array2d[float], ints: wp.array2d[int], dt: float, qpos: wp.array2d[float], qvel: wp.array2d[float],
    drive_before: wp.array2d[float], velocity_before: wp.array2d[float], dahl: wp.array2d[float],
):
    """Dahl's ``w`` after the step moved the drive (actuator_models.dahl.dahl_step: split at a
    reversal inside the step, placed as under a constant acceleration)."""
    w, s = wp.tid()
    if ints[s, wp.static(_I["dahl"])] == 0:
        return
    v0 = velocity_before[w, s]
    v1 = qvel[w, ints[s, wp.static(_I["dof"])]]
    dx = qpos[w, ints[s, wp.static(_I["qpos"])]] - drive_before[w, s]
    before = float(0.0)
    if v0 * v1 < 0.0:
        before = dt * v0 * v0 / (2.0 * (v0 - v1))
    rho = p[s, wp.static(_C["dahl_rho"])]
    dahl[w, s] = _dahl_update(_dahl_update(dahl[w, s], before, rho), dx - before, rho)


@wp.kernel
def servo_after_step(
    p: wp.array2d[float], ints: wp.array2d[int], qpos: wp.array2d[float],
    dof_frictionadr: wp.array2d[int], efc_force: wp.array2d[float],
    output: wp.array2d[float], friction_loss: wp.array2d[float],
):
    """The step's friction-loss force per servo (the next step's ``te`` leaves it out) and the
    output behind the backlash play (additions.play)."""
    w, s = wp.tid()
    dof = ints[s, wp.static(_I["dof"])]
    row = dof_frictionadr[w, dof]
    force = float(0.0)
    if row >= 0:
        force = efc_force[w, row]
    friction_loss[w, s] = force
    if ints[s, wp.static(_I["backlash"])] == 1:
        half = 0.5 * p[s, wp.static(_C["backlash"])]
        q = qpos[w, ints[s, wp.static(_I["qpos"])]]
        output[w, s] = _clip(output[w, s], q - half, q + half)


@wp.kernel
def servo_bam_position(ints: wp.array2d[int], dt: float, qvel: wp.array2d[float], velocity: wp.array2d[float],
                       qpos: wp.array2d[float]):
    """The published (``bam``) position update on a servo joint after MuJoCo's semi-implicit one:
    MuJoCo moves ``q += v' dt`` with the new velocity ``v' = v + a dt``; ``bam`` moves
    ``q += v' dt + a dt^2 / 2`` (actuator_models.simulation.step), so add ``(v' - v) dt / 2``
    (``velocity``: ``v`` of each servo joint, as :func:`servo_before_step` recorded it)."""
    w, s = wp.tid()
    a = ints[s, wp.static(_I["qpos"])]
    qpos[w, a] = qpos[w, a] + 0.5 * dt * (qvel[w, ints[s, wp.static(_I["dof"])]] - velocity[w, s])
