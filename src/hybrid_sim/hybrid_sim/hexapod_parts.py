"""The hexapod's parameters (manual Table 2, rc-file symbols), terrain (Table 3) and geometry helpers.

``HexapodParameters.scalars`` flattens the parameters to Table 2's symbol names (``rho0_k``,
``attach0_x``, ``J_11`` ...), and ``HexapodParameters.from_symbols`` reads them back, so the
``.param`` file a run writes is a valid ``--config`` file. Units are SI throughout.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Dict, Mapping, Tuple, Union

import numpy as np

#: Table 2 symbols of SimSect's hexapod that this model has no use for (motor electrics the
#: manual marks unused or that the torque-speed line already covers, Geomview's grid and frames)
UNUSED_SYMBOLS = ("q_rt", "speed_constant", "torque_constant", "armature_resist", "torque_loss",
                  "grid_xsize", "grid_ysize", "grid_xsteps", "grid_ysteps", "frame_width", "frame_height")
#: Table 2's spelling of two parameters
ALIASES = {"KP": "kp", "KD": "kd"}
TERRAINS = ("flat", "sinusoid", "sloped")
CONTROLS = ("open-loop", "turn-in-place")
#: sweep_angle [rad] when an rc file / command asks for turn-in-place and names none: at the
#: running default 0.75 a stance leg lags its reference by pi after about 1 s of turning in place,
#: the wrapped hip PD error flips sign there and a liftoff boundary jumps through zero (the run
#: stops at 0.97 s, "discontinuous boundary?"); at 0.5 the legs keep up (issue 35)
TURN_IN_PLACE_SWEEP = 0.5
LEFT_LEGS = (3, 4, 5)  # legs on the -x_B side


@dataclass(frozen=True)
class Terrain:
    """Ground height h(x, y) [m] and unit normal of manual Table 3 (a1..a3 = terrain_arg1..3).

    Sloped: Table 3's ``a1 x + a2 y + a3`` for y > 0, ``a3`` elsewhere, jumps by ``a1 x`` at y = 0
    (a toe crossing it was underground at once: "flight toe underground" at 0.64 s with a1 = 0.1).
    Here y <= 0 is the plane's trace continued, ``a1 x + a3``: Table 3 where y > 0, continuous,
    with a crease (the slope a2 starts) at y = 0; with a1 = 0 it is Table 3 exactly.
    """

    kind: str = "flat"
    a1: float = 0.0
    a2: float = 0.0
    a3: float = 0.0

    def height(self, x: float, y: float) -> float:
        if self.kind == "sinusoid":
            return self.a1 * math.sin(self.a2 * x) * math.cos(self.a3 * y)
        if self.kind == "sloped":
            return self.a1 * x + self.a2 * max(y, 0.0) + self.a3
        return 0.0

    def normal(self, x: float, y: float) -> np.ndarray:
        """Upward unit normal (-h_x, -h_y, 1) / norm."""
        if self.kind == "sinusoid":
            hx = self.a1 * self.a2 * math.cos(self.a2 * x) * math.cos(self.a3 * y)
            hy = -self.a1 * self.a3 * math.sin(self.a2 * x) * math.sin(self.a3 * y)
        elif self.kind == "sloped":
            hx, hy = self.a1, (self.a2 if y > 0.0 else 0.0)
        else:
            return np.array([0.0, 0.0, 1.0])
        n = np.array([-hx, -hy, 1.0])
        return n / math.sqrt(hx * hx + hy * hy + 1.0)


@dataclass(frozen=True)
class HexapodParameters:
    """Table 2 of the manual (SI units), with the choices of the module docstring."""

    body_mass: float = 6.0
    leg_mass: float = 0.01
    friction_coeff: float = 0.5
    q_rl: float = 0.181  # liftoff leg length [m]: the radial spring saturates beyond it
    g: float = 10.0
    max_torque: float = 3.0  # stall torque at the leg [N m]
    max_speed: float = 10000.0  # no-load motor speed [rpm]
    gear_ratio: float = 0.0333
    rho_k: Tuple[float, ...] = (500.0, 1000.0, 500.0, 500.0, 1000.0, 500.0)
    rho_d: Tuple[float, ...] = (10.0, 20.0, 10.0, 10.0, 20.0, 10.0)
    rho_r0: Tuple[float, ...] = (0.2,) * 6
    theta_k: Tuple[float, ...] = (100.0, 200.0, 100.0, 100.0, 200.0, 100.0)
    theta_d: Tuple[float, ...] = (0.4, 0.8, 0.4, 0.4, 0.8, 0.4)
    theta_r0: Tuple[float, ...] = (0.2, 0.2, 0.2, -0.2, -0.2, -0.2)
    attach: Tuple[Tuple[float, float, float], ...] = (
        (0.1, -0.2, 0.0), (0.1, 0.0, 0.0), (0.1, 0.2, 0.0), (-0.1, -0.2, 0.0), (-0.1, 0.0, 0.0), (-0.1, 0.2, 0.0))
    inertia: Tuple[Tuple[float, float, float], ...] = ((0.2, 0.0, 0.0), (0.0, 0.08, 0.0), (0.0, 0.0, 0.4))
    saturation: float = 1.0e4  # K of the saturation term [N] (not in the manual)
    toe_slip_damping: float = 20.0  # [N s/m] of the slip law (not in the manual)
    kp: float = 10.0  # hip PD [N m/rad]
    kd: float = 0.5  # [N m s/rad]
    cycle_time: float = 1.0
    sweep_angle: float = 0.75  # from_symbols: TURN_IN_PLACE_SWEEP for turn-in-place unless given
    flight_time: float = 0.4
    leg_offset: float = 0.0
    control_type: str = "open-loop"  # or "turn-in-place" (manual 5.2.2)
    turn_polarity: float = 1.0  # turn-in-place: +1 the left legs (3-5) run backwards, -1 the right ones
    delta_ts: float = 0.0  # differential turning (5.2.2): left t_s + delta_ts, right t_s - delta_ts [s]
    delta_offset: float = 0.0  # left phi_o + delta_offset, right phi_o - delta_offset [rad]
    terrain_type: str = "flat"
    terrain_arg1: float = 0.03
    terrain_arg2: float = 15.0
    terrain_arg3: float = 15.0

    def __post_init__(self) -> None:
        for name in ("body_mass", "leg_mass", "g", "cycle_time", "sweep_angle", "flight_time", "max_torque"):
            if not getattr(self, name) > 0.0:
                raise ValueError(f"hexapod parameter {name} = {getattr(self, name)!r} must be > 0")
        for name in ("q_rl", "max_speed", "gear_ratio"):
            if not getattr(self, name) > 0.0:
                raise ValueError(f"hexapod parameter {name} = {getattr(self, name)!r} must be > 0")
        for name in ("friction_coeff", "saturation", "toe_slip_damping", "kp", "kd"):
            if not getattr(self, name) >= 0.0:
                raise ValueError(f"hexapod parameter {name} = {getattr(self, name)!r} must be >= 0")
        for name in ("rho_k", "rho_r0", "theta_k"):
            if not min(getattr(self, name)) > 0.0:
                raise ValueError(f"hexapod parameter {name} = {list(getattr(self, name))} must be > 0")
        for name in ("rho_d", "theta_d"):
            if not min(getattr(self, name)) >= 0.0:
                raise ValueError(f"hexapod parameter {name} = {list(getattr(self, name))} must be >= 0")
        # scale: a tripod carries the body; its weakest leg's static compression under a third of the
        # weight must leave the leg at least half its rest length (body_mass = 1e6 kg sank 6.7 km)
        sag = self.body_mass * self.g / (3.0 * min(self.rho_k))
        if not sag < 0.5 * min(self.rho_r0):
            raise ValueError(f"hexapod: body_mass {self.body_mass:g} kg sags a tripod's legs (rho_k {min(self.rho_k):g} "
                             f"N/m) by {sag:.3g} m under g = {self.g:g}, more than half their rest length "
                             f"{min(self.rho_r0):g} m")
        if not self.flight_time < self.cycle_time:
            raise ValueError(f"hexapod: flight_time {self.flight_time} must be below cycle_time {self.cycle_time}")
        if not 0.0 < self.sweep_angle < 2 * math.pi:
            raise ValueError(f"hexapod: sweep_angle {self.sweep_angle} must be in (0, 2 pi)")
        if self.terrain_type not in TERRAINS:
            raise ValueError(f"hexapod: terrain_type {self.terrain_type!r} is not one of {', '.join(TERRAINS)}")
        if self.control_type not in CONTROLS:
            raise ValueError(f"hexapod: control_type {self.control_type!r} is not one of {', '.join(CONTROLS)}")
        if self.turn_polarity not in (1.0, -1.0):
            raise ValueError(f"hexapod: turn_polarity must be 1 or -1, got {self.turn_polarity!r}")
        slow = self.slow_time
        if not abs(self.delta_ts) < min(slow, self.flight_time):
            raise ValueError(f"hexapod: |delta_ts| = {abs(self.delta_ts)} must be below t_s = {slow} and "
                             f"flight_time = {self.flight_time}")

    def terrain(self) -> Terrain:
        args = (self.terrain_arg1, self.terrain_arg2, self.terrain_arg3)
        return Terrain(self.terrain_type, *args) if self.terrain_type != "flat" else Terrain()

    def leg_slow_times(self) -> np.ndarray:
        """t_s per leg [s]: left legs t_s + delta_ts, right legs t_s - delta_ts (differential turning)."""
        side = np.array([1.0 if leg in LEFT_LEGS else -1.0 for leg in range(6)])
        return self.slow_time + side * self.delta_ts

    def leg_offsets(self) -> np.ndarray:
        """phi_o per leg [rad]: left + delta_offset, right - delta_offset."""
        side = np.array([1.0 if leg in LEFT_LEGS else -1.0 for leg in range(6)])
        return self.leg_offset + side * self.delta_offset

    def directions(self) -> np.ndarray:
        """+1 where a leg's reference runs forwards, -1 backwards (one side, turning in place)."""
        if self.control_type != "turn-in-place":
            return np.ones(6)
        reversed_side = LEFT_LEGS if self.turn_polarity > 0 else tuple(i for i in range(6) if i not in LEFT_LEGS)
        return np.array([-1.0 if leg in reversed_side else 1.0 for leg in range(6)])

    @classmethod
    def from_symbols(cls, symbols: Mapping[str, Union[float, str]]) -> "HexapodParameters":
        """Parameters from rc-file symbols named as in ``scalars`` (Table 2); others raise ValueError.

        Symbols of :data:`UNUSED_SYMBOLS` are accepted and left out (the command says so).
        ``control_type = "turn-in-place"`` without a ``sweep_angle`` gets :data:`TURN_IN_PLACE_SWEEP`
        (written to the run's .param file, so it reads back the same).
        """
        base = cls()
        flat = base.scalars()
        values: Dict[str, Any] = {}  # field name -> value of that field's type (a float, a string, a tuple)
        tuples = {f.name: list(getattr(base, f.name)) for f in fields(cls) if isinstance(getattr(base, f.name), tuple)}
        tuples["attach"] = [list(p) for p in base.attach]
        tuples["inertia"] = [list(r) for r in base.inertia]
        for raw, value in symbols.items():
            name = ALIASES.get(raw, raw)
            if name in UNUSED_SYMBOLS:
                continue
            if name not in flat:
                raise ValueError(f"unknown hexapod symbol {raw!r}")
            is_text = isinstance(flat[name], str)
            if is_text != isinstance(value, str):
                raise ValueError(f"hexapod symbol {raw}: expected a {'quoted string' if is_text else 'number'}, "
                                 f"got {value!r}")
            target = _tuple_slot(name)
            if target is None:
                values[name] = value
            else:
                field_name, index = target
                slot = tuples[field_name]
                if isinstance(index, tuple):
                    slot[index[0]][index[1]] = float(value)
                else:
                    slot[index] = float(value)
                values[field_name] = slot
        for name in ("attach", "inertia"):
            if name in values:
                values[name] = tuple(tuple(row) for row in values[name])
        values.update({k: tuple(v) for k, v in values.items() if isinstance(v, list)})
        if values.get("control_type") == "turn-in-place" and "sweep_angle" not in values:
            values["sweep_angle"] = TURN_IN_PLACE_SWEEP
        return replace(base, **values)

    @property
    def slow_time(self) -> float:
        return self.cycle_time - self.flight_time

    @property
    def slow_rate(self) -> float:
        return self.sweep_angle / self.slow_time

    @property
    def fast_rate(self) -> float:
        return (2 * math.pi - self.sweep_angle) / self.flight_time

    @property
    def no_load_leg_speed(self) -> float:
        return self.max_speed * 2 * math.pi / 60.0 * self.gear_ratio

    def scalars(self) -> Dict[str, Union[float, str]]:
        """Every parameter as a flat ``name -> value`` map, per-leg ones as ``rho0_k`` etc. (Table 2)."""
        out: Dict[str, Union[float, str]] = {}
        for name, value in asdict(self).items():
            if name == "attach":
                for i, point in enumerate(value):
                    out.update({f"attach{i}_{axis}": float(c) for axis, c in zip("xyz", point)})
            elif name == "inertia":
                out.update({f"J_{r + 1}{c + 1}": float(value[r][c]) for r in range(3) for c in range(3)})
            elif isinstance(value, tuple):
                prefix, suffix = name.split("_", 1)
                out.update({f"{prefix}{i}_{suffix}": float(v) for i, v in enumerate(value)})
            else:
                out[name] = value if isinstance(value, str) else float(value)
        return out


def _tuple_slot(name: str):
    """(field, index) of a per-leg / matrix symbol: ``rho3_k`` -> ("rho_k", 3), ``attach1_y`` ->
    ("attach", (1, 1)), ``J_23`` -> ("inertia", (1, 2)); ``None`` for a plain field."""
    if name.startswith("J_") and len(name) == 4:
        return "inertia", (int(name[2]) - 1, int(name[3]) - 1)
    head, _, tail = name.partition("_")
    if head[-1:].isdigit() and head[:-1] in ("rho", "theta", "attach"):
        leg = int(head[-1])
        if head[:-1] == "attach":
            return "attach", (leg, "xyz".index(tail))
        return f"{head[:-1]}_{tail}", leg
    return None


def skew(w: np.ndarray) -> np.ndarray:
    """``J(w)`` of manual 5.1.4: ``skew(w) @ u == cross(w, u)``."""
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product over the last axis (broadcasting), cheaper than ``np.cross`` on tiny arrays."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)


def rotation(q: np.ndarray) -> np.ndarray:
    """Rotation matrix B -> W of a (not necessarily unit) quaternion ``[w, x, y, z]``."""
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def leg_force_matrix(theta: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """The matrix of manual 5.1.2 per leg, shape (6, 3, 3): columns -e_rho, -e_theta, -e_phi."""
    st, ct, sp, cp = np.sin(theta), np.cos(theta), np.sin(phi), np.cos(phi)
    zero = np.zeros_like(theta)
    return np.stack([np.stack([-st, -ct, zero], -1), np.stack([-ct * sp, st * sp, -cp], -1),
                     np.stack([ct * cp, -st * cp, -sp], -1)], -2)


def wrap(angle: np.ndarray) -> np.ndarray:
    """Angle wrapped to [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


def free_leg_length(k: float, rest: float, liftoff: float, saturation: float) -> float:
    """Length [m] where a flight leg's radial force vanishes: ``k (rest - rho) = K (exp(rho - liftoff) - 1)``."""
    if rest <= liftoff:
        return rest
    rho = liftoff
    for _ in range(50):  # Newton on g(rho) = k (rho - rest) + K (exp(rho - liftoff) - 1), convex
        g = k * (rho - rest) + saturation * math.expm1(rho - liftoff)
        rho -= g / (k + saturation * math.exp(rho - liftoff))
    return rho


def euler_angles(rot: np.ndarray) -> Tuple[float, float, float]:
    """Roll (about x_B), pitch (about y_B), yaw (about z) [rad] of a rotation B -> W (z-y-x order)."""
    pitch = math.asin(max(-1.0, min(1.0, -rot[2, 0])))
    roll = math.atan2(rot[2, 1], rot[2, 2])
    yaw = math.atan2(rot[1, 0], rot[0, 0])
    return roll, pitch, yaw
