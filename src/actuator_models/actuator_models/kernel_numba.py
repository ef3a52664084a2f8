"""The numba source of :mod:`.kernel` (imported on first use: importing numba takes a while).

Module-level functions so that numba's on-disk cache (``cache=True``) finds them again in a
new process; see :mod:`.kernel` for what is computed and why.
"""

import math
from typing import Literal, Optional, TypedDict

import numba
import numpy as np

from .kernel import COLUMNS


class Options(TypedDict):
    """The compile options every kernel function shares (``numba.njit`` keywords)."""

    cache: bool
    fastmath: bool
    error_model: Literal["python", "numpy"]
    nogil: bool


OPTIONS = Options(cache=True, fastmath=False, error_model="numpy", nogil=True)

# Where each declared parameter sits in a row of the parameter matrix (kernel.COLUMNS, built by
# name from the parts' declarations); numba freezes these globals as compile-time constants.
KT, R, ARMATURE, Q_OFFSET = (COLUMNS.index(n) for n in ("kt", "R", "armature", "q_offset"))
ERROR_GAIN_RATIO, TARGET_SPEED_LIMIT = COLUMNS.index("error_gain_ratio"), COLUMNS.index("target_speed_limit")
KC, KV, KCS = (COLUMNS.index(n) for n in ("friction_base", "friction_viscous", "friction_stribeck"))
VS, ALPHA = COLUMNS.index("dtheta_stribeck"), COLUMNS.index("alpha")
KL, KLS = COLUMNS.index("load_friction_base"), COLUMNS.index("load_friction_stribeck")
KM, KE = COLUMNS.index("load_friction_motor"), COLUMNS.index("load_friction_external")
KMS, KES = COLUMNS.index("load_friction_motor_stribeck"), COLUMNS.index("load_friction_external_stribeck")
KMQ, KEQ = COLUMNS.index("load_friction_motor_quad"), COLUMNS.index("load_friction_external_quad")
LATENCY, BACKLASH, HEATING = (COLUMNS.index(n) for n in ("latency", "backlash", "heating"))
SUPPLY = COLUMNS.index("supply_resistance")
THERMAL_ALPHA, RW, CW, RC, CC, AMBIENT, INITIAL = (COLUMNS.index(n) for n in (
    "thermal_alpha", "thermal_winding_resistance", "thermal_winding_capacity", "thermal_case_resistance",
    "thermal_case_capacity", "thermal_ambient", "thermal_initial"))

@numba.njit(inline="always", **OPTIONS)
def stribeck(v: float, vs: float, alpha: float) -> float:
    return math.exp(-(abs(v / vs) ** alpha))

@numba.njit(inline="always", **OPTIONS)
def budget(kind: int, tm: float, te: float, v: float, p: np.ndarray) -> float:
    kv, kc = p[KV], p[KC]
    m1 = kv * abs(v) + kc
    if kind == 1:
        return m1
    if kind == 2:
        return m1 + stribeck(v, p[VS], p[ALPHA]) * p[KCS]
    if kind == 3:
        return m1 + p[KL] * abs(tm - te)
    if kind == 4:
        load = abs(tm - te)
        return (m1 + p[KL] * abs(tm - te)) + stribeck(v, p[VS], p[ALPHA]) * (p[KCS] + p[KLS] * load)
    quadratic = 0.0
    if kind == 6:
        if abs(tm) > abs(te):
            quadratic = p[KEQ] * te**2
        else:
            quadratic = p[KMQ] * tm**2
        if not tm * te < 0:
            quadratic = 0.0
    base = kv * abs(v) + kc + abs(p[KM] * tm - p[KE] * te)
    at_rest = p[KCS] + abs(p[KMS] * tm - p[KES] * te) + quadratic
    return base + stribeck(v, p[VS], p[ALPHA]) * at_rest

@numba.njit(inline="always", **OPTIONS)
def motor(law: int, c: np.ndarray, goal: float, q: float, v: float, kp: float, vin: float,
          enable: bool, kt: float, r: float, rs: float) -> float:
    if law == 0:  # VoltageControlled; rs: the supply addition's resistance (addition_supply.sagged_resistance)
        duty = min(max(kp * c[0] * (goal - q), -c[1]), c[1])
        volts = vin * duty
        if not enable:
            return 0.0
        r = r + rs * (volts / vin) * (volts / vin)
        return kt * volts / r - kt**2 * v / r
    if law == 1:  # CurrentPD
        current = min(max(kp * (goal - q) - c[0] * math.sqrt(kp) * v, -c[1]), c[1])
        limit = kt / r * c[2]
        emf = kt**2 * v / r
        return min(max(kt * current * (1.0 if enable else 0.0), -limit - emf), limit - emf)
    current = min(max(kp * (goal - q), -c[0]), c[0])  # CurrentControlled
    low = (-vin - kt * v) / r
    high = (vin - kt * v) / r
    return kt * min(max(current, low), high) * (1.0 if enable else 0.0)

@numba.njit(inline="always", **OPTIONS)
def sts_firmware(target: float, goal: float, q: float, enable: bool, dt: float, p: np.ndarray) -> tuple:
    """Feetech STS law (code 3): (smoothed target, setpoint); see SpeedLimitedVoltage.firmware."""
    if not enable:
        return q, q
    step = p[TARGET_SPEED_LIMIT] * dt
    target = target + min(max(goal - target, -step), step)
    return target, q + p[ERROR_GAIN_RATIO] * (target - q)

@numba.njit(inline="always", **OPTIONS)
def lane(p: np.ndarray, q: float, v: float, mass: float, length: float, arm_mass: float, dt: float,
         reading: Optional[np.ndarray]) -> tuple:
    """One parameter set's constants on one log: (inertia [kg m^2], the latency's whole steps, its
    fraction, the steps the torque switch is held, half the backlash [rad]), and its start state
    (y, q, v, target, Tw, Tc, error sum, heat error sum): see :func:`simulate`."""
    inertia = mass * length**2 + arm_mass * length**2 / 3 + p[ARMATURE]
    delay = p[LATENCY] / dt
    whole = math.floor(delay)
    fraction = delay - whole
    held = int(whole) + (1 if fraction > 0 else 0)
    tw = 0.0  # winding and case temperatures [degC]
    if reading is not None:
        tw = p[INITIAL] if math.isnan(reading[0]) else reading[0]
    return (inertia, whole, fraction, held, 0.5 * p[BACKLASH]), (q, q, v, q, tw, tw, 0.0, 0.0)

@numba.njit(inline="always", **OPTIONS)
def step(k: int, law: int, c: np.ndarray, kind: int, semi: bool, p: np.ndarray, delayed: bool, played: bool,
         heated: bool, goal: np.ndarray, enable: np.ndarray, warming: np.ndarray, reading: Optional[np.ndarray],
         position: np.ndarray, mass: float, length: float, arm_mass: float, kp: float, vin: float, dt: float,
         scored: int, constants: tuple, state: tuple) -> tuple:
    """Step ``k`` of one parameter set on one log: the new state (see :func:`lane`), the errors of
    step ``k``'s output added to the sums."""
    inertia, whole, fraction, held, half = constants
    y, q, v, target, tw, tc, error, heat_error = state
    error += abs(y - position[k])
    if reading is not None:
        if k < scored and not math.isnan(reading[k]):
            heat_error += abs(tc - reading[k])
    g = goal[k]
    en = enable[k]
    if delayed:
        at = max(k - int(whole), 0)
        g = goal[at] + fraction * (goal[max(k - int(whole) - 1, 0)] - goal[at])
        en = enable[max(k - held, 0)]
    setpoint = g
    if law == 3:
        target, setpoint = sts_firmware(target, g, y, en, dt, p)
    r = p[R]
    if heated:
        r = p[R] * (1.0 + p[HEATING] * warming[k])
    if reading is not None:
        r = r * (1.0 + p[THERMAL_ALPHA] * (tw - 25.0))
    tm = motor(0 if law == 3 else law, c, setpoint, y, v, kp, vin, en, p[KT], r, p[SUPPLY])
    if reading is not None:  # the copper losses of the step's current heat the winding (addition_thermal.heat_step)
        current = tm / p[KT]
        power = current * current * r
        flow = (tw - tc) / p[RW]
        loss = (tc - p[AMBIENT]) / p[RC]
        tw, tc = tw + dt * ((power - flow) / p[CW]), tc + dt * ((flow - loss) / p[CC])
    te = -(mass + arm_mass / 2) * 9.80665 * length * math.sin(y + p[Q_OFFSET])
    tfm = budget(kind, tm, te, v, p)
    stopping = inertia * v / dt + tm + te
    sign = 1.0 if stopping > 0 else (-1.0 if stopping < 0 else (0.0 if stopping == 0 else stopping))
    tf = -sign * min(abs(stopping), tfm)
    a = (tm + te + tf) / inertia
    v = min(max(v + a * dt, -100.0), 100.0)
    if semi:
        q = q + v * dt
    else:
        q = q + v * dt + 0.5 * a * dt**2
    if played:
        y = min(max(y, q - half), q + half)
    else:
        y = q
    return (y, q, v, target, tw, tc, error, heat_error)

@numba.njit(**OPTIONS)
def simulate(law: int, c: np.ndarray, kind: int, semi: bool, p: np.ndarray, delayed: bool, played: bool, heated: bool,
             goal: np.ndarray, enable: np.ndarray, warming: np.ndarray, reading: Optional[np.ndarray],
             position: np.ndarray, q: float, v: float, mass: float, length: float, arm_mass: float, kp: float,
             vin: float, dt: float, steps: int, scored: int, out: np.ndarray, write: bool) -> tuple:
    """Simulate one log for ``steps`` steps; returns the sums of |q - position| over them and of
    |case temperature - reading| over the first ``scored`` (``reading`` not NaN) and, with
    ``write``, stores q before each step in ``out``. ``delayed``/``played``/``heated``: the
    latency, backlash and heating additions (actuator_models.additions) are on; ``warming`` [K]:
    the logged temperature above the reference, per step (used when heated); ``reading`` [degC]:
    the logged temperature (NaN: none), its first entry the thermal nodes' start (else the
    ``thermal_initial`` setting), or None: the thermal addition is off. None is a type of its own
    to numba: that specialisation is compiled without the thermal addition's code, so a model
    without it runs the step of one that never had it (not a branch per step)."""
    constants, state = lane(p, q, v, mass, length, arm_mass, dt, reading)
    for k in range(steps):
        if write:
            out[k] = state[0]
        state = step(k, law, c, kind, semi, p, delayed, played, heated, goal, enable, warming, reading, position,
                     mass, length, arm_mass, kp, vin, dt, scored, constants, state)
    return state[6], state[7]

@numba.njit(**OPTIONS)
def simulate_pair(law: int, c: np.ndarray, kind: int, semi: bool, p: np.ndarray, p2: np.ndarray, delayed: bool,
                  played: bool, heated: bool, goal: np.ndarray, enable: np.ndarray, warming: np.ndarray,
                  reading: Optional[np.ndarray], position: np.ndarray, q: float, v: float, mass: float, length: float,
                  arm_mass: float, kp: float, vin: float, dt: float, steps: int, scored: int) -> tuple:
    """:func:`simulate` (without ``write``) of two parameter sets ``p`` and ``p2`` on the same log,
    step by step side by side: each set's arithmetic is :func:`simulate`'s, in its order (the same
    numbers to the bit), but the two independent chains of dependent operations (each step needs
    the last one's velocity) overlap in the processor: 5-8 % less time per step (measured; four
    sets gain nothing more: the libm calls, ``pow`` and ``sin``, bound the rest). Returns the four
    sums, ``p``'s then ``p2``'s."""
    constants, state = lane(p, q, v, mass, length, arm_mass, dt, reading)
    constants2, state2 = lane(p2, q, v, mass, length, arm_mass, dt, reading)
    for k in range(steps):
        state = step(k, law, c, kind, semi, p, delayed, played, heated, goal, enable, warming, reading, position,
                     mass, length, arm_mass, kp, vin, dt, scored, constants, state)
        state2 = step(k, law, c, kind, semi, p2, delayed, played, heated, goal, enable, warming, reading, position,
                      mass, length, arm_mass, kp, vin, dt, scored, constants2, state2)
    return state[6], state[7], state2[6], state2[7]

@numba.njit(parallel=True, **OPTIONS)
def batch(law: int, c: np.ndarray, kind: int, semi: bool, params: np.ndarray, delayed: bool, played: bool, heated: bool,
          goal: np.ndarray, enable: np.ndarray, warming: np.ndarray, reading: Optional[np.ndarray],
          position: np.ndarray, speed: np.ndarray, lengths: np.ndarray, mass: np.ndarray, length: np.ndarray,
          arm_mass: np.ndarray, kp: np.ndarray, vin: np.ndarray, dt: np.ndarray, out: np.ndarray, write: bool,
          heat_maes: np.ndarray) -> np.ndarray:
    """MAE per (parameter set, log); the case temperature's MAE [K] into ``heat_maes`` (P, L)
    (``reading`` (L, T) [degC] or None: see :func:`simulate`); with ``write``, positions into ``out`` (P, L, T), every padded step simulated as the numpy
    rollout does."""
    sets, logs, steps = params.shape[0], goal.shape[0], goal.shape[1]
    maes = np.empty((sets, logs))
    if not write:  # parameter sets two by two on each log (simulate_pair), the odd last one alone
        pairs = (sets + 1) // 2
        for job in numba.prange(pairs * logs):
            i, j = 2 * (job // logs), job % logs
            if i + 1 < sets:
                if reading is None:  # pruned by numba where reading is None (simulate's docstring)
                    total, heat_total, total2, heat_total2 = simulate_pair(
                        law, c, kind, semi, params[i], params[i + 1], delayed, played, heated, goal[j], enable[j],
                        warming[j], None, position[j], position[j, 0], speed[j, 0], mass[j], length[j], arm_mass[j],
                        kp[j], vin[j], dt[j], lengths[j], lengths[j])
                else:
                    total, heat_total, total2, heat_total2 = simulate_pair(
                        law, c, kind, semi, params[i], params[i + 1], delayed, played, heated, goal[j], enable[j],
                        warming[j], reading[j], position[j], position[j, 0], speed[j, 0], mass[j], length[j],
                        arm_mass[j], kp[j], vin[j], dt[j], lengths[j], lengths[j])
                maes[i + 1, j], heat_maes[i + 1, j] = total2 / lengths[j], heat_total2 / lengths[j]
            elif reading is None:
                total, heat_total = simulate(law, c, kind, semi, params[i], delayed, played, heated, goal[j], enable[j],
                                             warming[j], None, position[j], position[j, 0], speed[j, 0], mass[j],
                                             length[j], arm_mass[j], kp[j], vin[j], dt[j], lengths[j], lengths[j],
                                             out[0, 0], False)
            else:
                total, heat_total = simulate(law, c, kind, semi, params[i], delayed, played, heated, goal[j], enable[j],
                                             warming[j], reading[j], position[j], position[j, 0], speed[j, 0],
                                             mass[j], length[j], arm_mass[j], kp[j], vin[j], dt[j], lengths[j],
                                             lengths[j], out[0, 0], False)
            maes[i, j], heat_maes[i, j] = total / lengths[j], heat_total / lengths[j]
        return maes
    for job in numba.prange(sets * logs):
        i, j = job // logs, job % logs
        count = steps
        row = out[i, j]
        if reading is None:
            total, heat_total = simulate(law, c, kind, semi, params[i], delayed, played, heated, goal[j], enable[j],
                                         warming[j], None, position[j], position[j, 0], speed[j, 0], mass[j],
                                         length[j], arm_mass[j], kp[j], vin[j], dt[j], count, lengths[j], row, write)
        else:
            total, heat_total = simulate(law, c, kind, semi, params[i], delayed, played, heated, goal[j], enable[j],
                                         warming[j], reading[j], position[j], position[j, 0], speed[j, 0], mass[j],
                                         length[j], arm_mass[j], kp[j], vin[j], dt[j], count, lengths[j], row, write)
        heat_maes[i, j] = heat_total / lengths[j]
        total = 0.0  # the padded tail is not part of the error
        for k in range(lengths[j]):
            total += abs(out[i, j, k] - position[j, k])
        maes[i, j] = total / lengths[j]
    return maes
