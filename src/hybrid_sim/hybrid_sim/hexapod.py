"""The compliant hexapod (RHex-like) of the SimSect manual, section 5, with its open-loop tripod
controller (sections 5.2, 5.5).

Frames: world W (z up, flat ground z = 0 unless a terrain says otherwise); body B fixed to the
rigid body at its centre of mass, x_B lateral (legs 0-2 on the +x side), y_B along the body
(Table 2's attachment points span y_B), z_B up. With the manual's monotonically increasing leg
profiles the toes push towards +y_B in stance, so the robot walks towards -y_B: we call -y_B
"forward" and report the forward speed as ``-ydot_B``.

State (continuous; all other data is in the chart number):
``[qw, qx, qy, qz]`` body orientation as a unit quaternion (the manual stores R_b; a quaternion
keeps it a rotation without re-orthogonalising), ``w`` body angular velocity in W [rad/s],
``r`` body position in W [m], ``rd`` its velocity [m/s], ``f_i`` toe positions in W [m] (18),
``fd_i`` toe velocities [m/s] (18), ``ref_i`` the controller's reference leg angles [rad] (6).

Chart number (manual 5.5.2): bits 5-0 are the contact flags (bit i set: leg i in stance), bits
17-6 hold two bits of controller phase per leg (leg i at bits 6 + 2i, 7 + 2i): 2^6 x 4^6 charts.
Boundary indices (manual 5.4.4): liftoff ``2 i`` (legs in stance), touchdown ``2 i + 1`` (legs in
flight), and ``12 + i`` for leg i's controller phase end.

Leg model (5.1.2): spherical leg coordinates theta (lateral splay), phi (sweep), rho (length) of
the hip-to-toe vector; radial spring/damper with exponential saturation past the liftoff length,
torsional spring/damper in theta, PD hip torque on phi towards the reference angle, clipped by
the motor's linear torque-speed curve (stall ``max_torque``; no-load leg speed
``max_speed * 2 pi / 60 * gear_ratio``). Only stance legs push the body (eq. 3-4); a flight toe
of mass ``leg_mass`` feels the opposite of its leg's force (5.1.5).

Controller (5.2, 5.5): tripods {0, 2, 4} and {1, 3, 5}, half a cycle apart. Each reference angle
sweeps the slow slice ``sweep_angle`` (centred on ``leg_offset``, leg down) in ``t_s`` and the
rest of the turn in ``flight_time``; phases 0/3 are the two halves of the slow phase, 1/2 those of
the fast phase; a phase ends when the reference reaches ``sweep_angle/2``, ``pi``,
``2 pi - sweep_angle/2``, ``2 pi`` past the offset (the last wraps the reference by -2 pi).

Choices where the manual is ambiguous or incomplete (each is tested):

* Table 2 gives legs 4 and 5 the same attachment point (-0.1, 0.2, 0). We put leg 4 at
  (-0.1, 0, 0), mirroring leg 1 (its stiffness and damping are leg 1's too, the middle legs).
* The saturation term of eq. 2, ``-K exp(rho - rho0)`` past the liftoff length, jumps by
  ``K exp(rho_l - rho0)`` where it switches on: the radial force, hence the liftoff boundary (the
  normal leg force), is then discontinuous and a liftoff cannot be located (we tried: the stop
  iterations run out). We use the continuous ``-K (exp(rho - rho_l) - 1)`` past ``rho_l``
  (zero at the switch, growing exponentially), and, the manual giving no K, K = 1e4 N: a stiff
  end stop, so a flight leg rests just past the liftoff length (0.1820 m for k_r = 500 N/m,
  0.1829 m for 1000 N/m) and a stance leg lifts off about there.
* The toe friction law of 5.1.5 defines the toe velocity in terms of itself. We read it as a
  first-order (viscous) slip law: the toe sticks while ``|F_t| < k_f |F_n|`` and otherwise slides
  along the tangential force with speed ``(|F_t| - k_f |F_n|) / toe_slip_damping``; the stored
  toe velocity stays zero in stance (set at touchdown, as the manual says).
* The manual's liftoff function ``-<n | F_i>`` is negative during stance, the opposite of the
  "patch where boundary functions are positive" convention of 3.1; we use ``<n | R F_i>`` (the
  normal push of the ground through leg i on the body), which crosses zero when the leg starts
  to pull the toe off the ground.
* The slow-phase duration is ``t_s = cycle_time - flight_time`` (Table 2 lists the flight time).
* A touchdown whose normal leg force would pull (5.3.3) zeroes the toe velocity without a chart
  change. A flight toe touches down ``CONTACT_SKIN`` (1 micrometre) below the ground and is put
  back on the ground by the touchdown map: a leg lifting off with its toe on the ground then has
  its touchdown boundary armed at once (the engine does not arm a boundary that is at zero on
  entry), so a toe the leg pushes back down touches down again instead of sinking.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Mapping, Optional, Sequence, Tuple

import numpy as np

from .model import Boundary, HybridModel, Side, Transition

N_LEGS = 6
TRIPOD_A = (0, 2, 4)
SLOW_FIRST, FAST_FIRST, FAST_SECOND, SLOW_SECOND = range(4)
# state layout
Q, W, R, RD = slice(0, 4), slice(4, 7), slice(7, 10), slice(10, 13)
F, FD, REF = slice(13, 31), slice(31, 49), slice(49, 55)
N_STATES = 55
CONTROL = 12  # boundary index offset of the controller phase boundaries
#: [m] a flight toe touches down this far below the ground, then is put back on it: a leg that
#: lifts off with its toe on the ground has its touchdown boundary armed at once
CONTACT_SKIN = 1e-6
#: [rad] controller phase boundaries this close to their end advance together in one transition
PHASE_TOLERANCE = 1e-9


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
    sweep_angle: float = 0.75
    flight_time: float = 0.4
    leg_offset: float = 0.0

    def __post_init__(self) -> None:
        for name in ("body_mass", "leg_mass", "g", "cycle_time", "sweep_angle", "flight_time", "max_torque"):
            if not getattr(self, name) > 0.0:
                raise ValueError(f"hexapod parameter {name} = {getattr(self, name)!r} must be > 0")
        if not self.flight_time < self.cycle_time:
            raise ValueError(f"hexapod: flight_time {self.flight_time} must be below cycle_time {self.cycle_time}")
        if not 0.0 < self.sweep_angle < 2 * math.pi:
            raise ValueError(f"hexapod: sweep_angle {self.sweep_angle} must be in (0, 2 pi)")

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

    def scalars(self) -> Mapping[str, float]:
        """Every parameter as a flat ``name -> float`` map, per-leg ones as ``rho0_k`` etc."""
        out = {}
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
                out[name] = float(value)
        return out


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


def spherical(v: np.ndarray, vd: np.ndarray) -> Tuple[np.ndarray, ...]:
    """Leg angles and rates (manual 5.1.8) from Cartesian leg vectors ``v`` and rates, shape (6, 3).

    Returns ``theta, phi, rho, theta_dot, phi_dot, rho_dot``.
    """
    x, y, z = v.T
    xd, yd, zd = vd.T
    c = y * y + z * z
    s = np.sqrt(c)
    rho = np.sqrt(c + x * x)
    theta = np.arctan2(x, s)
    phi = np.arctan2(y, -z)
    rho_dot = (x * xd + y * yd + z * zd) / rho
    s_dot = (y * yd + z * zd) / s
    theta_dot = (xd * s - x * s_dot) / (rho * rho)
    phi_dot = (-z * yd + y * zd) / c
    return theta, phi, rho, theta_dot, phi_dot, rho_dot


def leg_force_matrix(theta: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """The matrix of manual 5.1.2 per leg, shape (6, 3, 3): columns -e_rho, -e_theta, -e_phi."""
    st, ct, sp, cp = np.sin(theta), np.cos(theta), np.sin(phi), np.cos(phi)
    zero = np.zeros_like(theta)
    return np.stack([np.stack([-st, -ct, zero], -1), np.stack([-ct * sp, st * sp, -cp], -1),
                     np.stack([ct * cp, -st * cp, -sp], -1)], -2)


def wrap(angle: np.ndarray) -> np.ndarray:
    """Angle wrapped to [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


@dataclass(frozen=True)
class LegForces:
    """Per-leg quantities at one state (arrays of shape (6,) or (6, 3); forces on the body in B)."""

    force_body: np.ndarray  # F_i in B [N]
    force_world: np.ndarray  # R F_i in W [N]
    leg: np.ndarray  # hip -> toe vectors in B [m]
    theta: np.ndarray
    phi: np.ndarray
    rho: np.ndarray
    hip_torque: np.ndarray  # [N m]


def chart_of(contacts: Sequence[bool], phases: Sequence[int]) -> int:
    """Chart number: contact bits 5-0, two phase bits per leg in bits 17-6 (manual 5.5.2)."""
    chart = sum(1 << i for i, c in enumerate(contacts) if c)
    return chart | sum((int(p) & 3) << (6 + 2 * i) for i, p in enumerate(phases))


def contacts_of(chart: int) -> np.ndarray:
    return np.array([(chart >> i) & 1 for i in range(N_LEGS)], dtype=bool)


def phases_of(chart: int) -> np.ndarray:
    return np.array([(chart >> (6 + 2 * i)) & 3 for i in range(N_LEGS)], dtype=int)


class Hexapod(HybridModel):
    """The compliant hexapod on flat ground (module docstring for frames, charts and choices)."""

    state_names = tuple(["qw", "qx", "qy", "qz", "wx", "wy", "wz", "x", "y", "z", "xd", "yd", "zd"]
                        + [f"f{i}_{a}" for i in range(N_LEGS) for a in "xyz"]
                        + [f"fd{i}_{a}" for i in range(N_LEGS) for a in "xyz"]
                        + [f"ref{i}" for i in range(N_LEGS)])
    n_continuous = N_STATES

    def __init__(self, params: HexapodParameters = HexapodParameters()) -> None:
        self.p = params
        self.attach = np.array(params.attach, dtype=float)
        self.inertia_body = np.array(params.inertia, dtype=float)
        self.k_r, self.d_r, self.r0 = (np.array(a, dtype=float) for a in (params.rho_k, params.rho_d, params.rho_r0))
        self.k_t, self.d_t, self.t0 = (np.array(a, dtype=float) for a in (params.theta_k, params.theta_d, params.theta_r0))
        slow, fast = params.slow_rate, params.fast_rate
        self.rates = np.array([slow, fast, fast, slow])
        half = params.sweep_angle / 2
        self.phase_ends = np.array([half, math.pi, 2 * math.pi - half, 2 * math.pi])

    def parameters(self) -> Mapping[str, float]:
        return self.p.scalars()

    def chart_count(self) -> int:
        return 1 << 18

    def chart_name(self, chart: int) -> str:
        contacts = "".join("S" if c else "F" for c in contacts_of(chart))
        return f"{contacts}/{''.join(str(p) for p in phases_of(chart))}"

    # ----------------------------------------------------------------- forces
    def legs(self, x: np.ndarray, chart: int, rot: Optional[np.ndarray] = None) -> LegForces:
        """Leg states and the forces each leg would exert on the body (all legs, any mode)."""
        rot = rotation(x[Q]) if rot is None else rot
        w, r, rd = x[W], x[R], x[RD]
        toes = x[F].reshape(N_LEGS, 3)
        toes_d = x[FD].reshape(N_LEGS, 3)
        hips = (toes - r) @ rot  # R^T (f - r), per row
        leg = hips - self.attach
        # R^T (fd - rd - w x R (v + a)) = R^T (fd - rd) - (R^T w) x (v + a)
        w_body = rot.T @ w
        leg_d = (toes_d - rd) @ rot - cross(w_body, hips)
        theta, phi, rho, theta_d, phi_d, rho_d = spherical(leg, leg_d)
        radial = -self.k_r * (rho - self.r0) - self.d_r * rho_d
        radial = radial - np.where(rho >= self.p.q_rl, self.p.saturation * np.expm1(rho - self.p.q_rl), 0.0)
        bend = -self.k_t * (theta - self.t0) - self.d_t * theta_d
        phase = phases_of(chart)
        ref, ref_rate = x[REF], self.rates[phase]
        hip = self.p.kp * wrap(ref - phi) + self.p.kd * (ref_rate - phi_d)
        limit = self.p.no_load_leg_speed
        hip = np.clip(hip, -self.p.max_torque * (1 + phi_d / limit), self.p.max_torque * (1 - phi_d / limit))
        generalized = np.stack([radial, bend / rho, hip / (rho * np.cos(theta))], -1)
        force_body = np.einsum("lij,lj->li", leg_force_matrix(theta, phi), generalized)
        return LegForces(force_body, force_body @ rot.T, leg, theta, phi, rho, hip)

    # ----------------------------------------------------------------- hybrid model
    def vector_field(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        p = self.p
        rot = rotation(x[Q])
        legs = self.legs(x, chart, rot)
        stance = contacts_of(chart)
        arms = legs.leg + self.attach  # from the centre of mass to the toe, in B
        force = np.array([0.0, 0.0, -p.body_mass * p.g]) + legs.force_world[stance].sum(axis=0)
        torque = rot @ cross(arms[stance], legs.force_body[stance]).sum(axis=0)
        w = x[W]
        inertia = rot @ self.inertia_body @ rot.T
        w_dot = np.linalg.solve(inertia, torque - cross(w, inertia @ w))
        qw, qx, qy, qz = x[Q]
        q_dot = 0.5 * np.array([-w[0] * qx - w[1] * qy - w[2] * qz, w[0] * qw + w[1] * qz - w[2] * qy,
                                w[1] * qw + w[2] * qx - w[0] * qz, w[2] * qw + w[0] * qy - w[1] * qx])
        toe_v = x[FD].reshape(N_LEGS, 3).copy()
        toe_a = -legs.force_world / p.leg_mass
        toe_v[stance] = self.slip_velocity(legs.force_world[stance])
        toe_a[stance] = 0.0
        ref_dot = self.rates[phases_of(chart)]
        return np.concatenate([q_dot, w_dot, x[RD], force / p.body_mass, toe_v.ravel(), toe_a.ravel(), ref_dot])

    def slip_velocity(self, force_world: np.ndarray) -> np.ndarray:
        """Toe velocities of stance legs under the slip law (flat ground, normal +z)."""
        on_toe = -force_world
        normal = np.abs(on_toe[:, 2])
        tangential = on_toe.copy()
        tangential[:, 2] = 0.0
        size = np.linalg.norm(tangential, axis=1)
        excess = np.maximum(size - self.p.friction_coeff * normal, 0.0)
        scale = np.divide(excess, size * self.p.toe_slip_damping, out=np.zeros_like(size), where=size > 0.0)
        return tangential * scale[:, None]

    def boundaries(self, chart: int) -> Sequence[Boundary]:
        stance = contacts_of(chart)
        contact = [Boundary(2 * i if stance[i] else 2 * i + 1, Side.RIGHT) for i in range(N_LEGS)]
        return contact + [Boundary(CONTROL + i, Side.RIGHT) for i in range(N_LEGS)]

    def boundary(self, t: float, x: np.ndarray, chart: int, index: int) -> float:
        if index >= CONTROL:
            leg = index - CONTROL
            return float(self.phase_ends[phases_of(chart)[leg]] - (x[REF][leg] - self.p.leg_offset))
        leg = index // 2
        if index % 2:  # touchdown: toe height above the contact skin below the ground
            return float(x[F][3 * leg + 2] + CONTACT_SKIN)
        return float(self.legs(x, chart).force_world[leg, 2])  # liftoff: normal push on the body

    def transition(self, t: float, x: np.ndarray, chart: int, index: int) -> Transition:
        new = np.array(x, dtype=float)
        if index >= CONTROL:
            # every leg whose phase ends now advances (a tripod's legs cross together: the engine
            # reports the first, and would not re-fire the others, already at zero, in the new chart)
            phase = phases_of(chart)
            for leg in range(N_LEGS):
                if leg == index - CONTROL or self.boundary(t, x, chart, CONTROL + leg) <= PHASE_TOLERANCE:
                    if phase[leg] == SLOW_SECOND:
                        new[REF.start + leg] -= 2 * math.pi
                    phase[leg] = (phase[leg] + 1) % 4
            return Transition(chart_of(contacts_of(chart), phase), new)
        leg = index // 2
        contacts = contacts_of(chart)
        if index % 2:  # touchdown: plastic impact onto the ground, then stance unless the leg would pull
            new[FD.start + 3 * leg: FD.start + 3 * leg + 3] = 0.0
            new[F.start + 3 * leg + 2] = 0.0
            contacts[leg] = True
            candidate = chart_of(contacts, phases_of(chart))
            if self.legs(new, candidate).force_world[leg, 2] <= 0.0:
                return Transition(chart, new)
            return Transition(candidate, new)
        contacts[leg] = False
        return Transition(chart_of(contacts, phases_of(chart)), new)

    def validate(self, t: float, x: np.ndarray, chart: int) -> Optional[str]:
        if x[R][2] < 0.0:
            return "body toppled over (below the ground)"
        toes_z = x[F][2::3]
        flight = ~contacts_of(chart)
        deep = flight & (toes_z < -2 * CONTACT_SKIN)
        if np.any(deep):
            return f"flight toe underground: legs {np.flatnonzero(deep).tolist()}"
        return None

    def aux_names(self):
        return ("t", "x", "y", "z", "forward_speed", "roll", "pitch", "yaw", "stance_legs")

    def auxiliary(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        rot = rotation(x[Q])
        roll, pitch, yaw = euler_angles(rot)
        forward = -(rot.T @ x[RD])[1]
        return np.array([t, *x[R], forward, roll, pitch, yaw, contacts_of(chart).sum()])

    # ----------------------------------------------------------------- initial state
    def standing_state(self, height: float = 0.16) -> np.ndarray:
        """Body level at ``height`` [m], tripod {0, 2, 4} at mid-stance (toes on the ground below
        the hips at the spring's rest splay), tripod {1, 3, 5} at mid-swing (legs up, free length)."""
        x = np.zeros(N_STATES)
        x[Q] = [1.0, 0.0, 0.0, 0.0]
        x[R] = [0.0, 0.0, height]
        toes = np.zeros((N_LEGS, 3))
        for i in range(N_LEGS):
            hip = self.attach[i] + x[R]
            theta = self.t0[i]
            if i in TRIPOD_A:
                toes[i] = hip + [height * math.tan(theta), 0.0, -height]
                x[REF.start + i] = self.p.leg_offset
            else:
                rho = free_leg_length(self.k_r[i], self.r0[i], self.p.q_rl, self.p.saturation)
                toes[i] = hip + rho * np.array([math.sin(theta), 0.0, math.cos(theta)])
                x[REF.start + i] = self.p.leg_offset + math.pi
        x[F] = toes.ravel()
        return x

    def initial_chart(self, t: float, x: np.ndarray) -> Transition:
        """Legs whose toe is on or below the ground start in stance (manual 5.4.3); a tripod at
        reference 0 (mod 2 pi) starts its slow phase, one at pi the second half of its fast phase."""
        toes_z = np.asarray(x[F][2::3])
        phases = []
        for ref in np.asarray(x[REF]) - self.p.leg_offset:
            angle = ref % (2 * math.pi)
            phases.append(int(np.searchsorted(self.phase_ends, angle, side="right")) % 4)
        return Transition(chart_of(toes_z <= 1e-12, phases), np.asarray(x, dtype=float))


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
