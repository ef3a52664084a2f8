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
Turning (5.2.2): ``control_type = "turn-in-place"`` runs one side's legs backwards (their hip
target mirrors the profile about the offset; ``turn_polarity`` picks the side); differential
turning gives the left legs (3-5) ``t_s + delta_ts`` and ``phi_o + delta_offset``, the right
legs the opposite. Terrain (Table 3): ``terrain_type`` flat, sinusoid or sloped; toes touch down
on it, stance toes slip in its tangent plane and liftoff is the push along its normal.

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
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .hexapod_parts import (HexapodParameters, Terrain, cross, euler_angles, free_leg_length,  # noqa: F401
                            leg_force_matrix, rotation, skew, wrap)
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


def chart_of(contacts: Iterable[bool], phases: Iterable[int]) -> int:
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
        slow_times = params.leg_slow_times()
        slow = params.sweep_angle / slow_times
        fast = (2 * math.pi - params.sweep_angle) / (params.cycle_time - slow_times)
        self.rates = np.stack([slow, fast, fast, slow], -1)  # (leg, phase) [rad/s]
        self.offsets = params.leg_offsets()
        self.directions = params.directions()
        self.terrain = params.terrain()
        half = params.sweep_angle / 2
        self.phase_ends = np.array([half, math.pi, 2 * math.pi - half, 2 * math.pi])

    def parameters(self) -> Mapping[str, Union[float, str]]:
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
        ref_rate = self.directions * self.rates[np.arange(N_LEGS), phases_of(chart)]
        ref = self.offsets + self.directions * (x[REF] - self.offsets)  # a reversed leg mirrors its profile
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
        toe_v[stance] = self.slip_velocity(legs.force_world[stance], self.normals(x, stance))
        toe_a[stance] = 0.0
        ref_dot = self.rates[np.arange(N_LEGS), phases_of(chart)]
        return np.concatenate([q_dot, w_dot, x[RD], force / p.body_mass, toe_v.ravel(), toe_a.ravel(), ref_dot])

    def normals(self, x: np.ndarray, legs: Union[np.ndarray, Sequence[int]]) -> np.ndarray:
        """Terrain normals (upward, unit) under the toes of ``legs`` (a mask or indices), shape (n, 3)."""
        toes = x[F].reshape(N_LEGS, 3)[legs]
        if self.terrain.kind == "flat":
            return np.tile([0.0, 0.0, 1.0], (len(toes), 1))
        return np.array([self.terrain.normal(tx, ty) for tx, ty, _ in toes])

    def ground(self, x: float, y: float) -> float:
        return self.terrain.height(x, y)

    def slip_velocity(self, force_world: np.ndarray, normals: np.ndarray) -> np.ndarray:
        """Toe velocities of stance legs under the slip law, in the terrain's tangent planes."""
        on_toe = -force_world
        push = np.einsum("ij,ij->i", on_toe, normals)
        normal = np.abs(push)
        tangential = on_toe - push[:, None] * normals
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
            return float(self.phase_ends[phases_of(chart)[leg]] - (x[REF][leg] - self.offsets[leg]))
        leg = index // 2
        toe = x[F][3 * leg: 3 * leg + 3]
        if index % 2:  # touchdown: toe height above the contact skin below the ground
            return float(toe[2] - self.ground(toe[0], toe[1]) + CONTACT_SKIN)
        # liftoff: normal push of the ground through the leg on the body
        return float(self.legs(x, chart).force_world[leg] @ self.normals(x, [leg])[0])

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
            new[F.start + 3 * leg + 2] = self.ground(x[F.start + 3 * leg], x[F.start + 3 * leg + 1])
            contacts[leg] = True
            candidate = chart_of(contacts, phases_of(chart))
            if self.legs(new, candidate).force_world[leg] @ self.normals(new, [leg])[0] <= 0.0:
                return Transition(chart, new)
            return Transition(candidate, new)
        contacts[leg] = False
        return Transition(chart_of(contacts, phases_of(chart)), new)

    def validate(self, t: float, x: np.ndarray, chart: int) -> Optional[str]:
        if x[R][2] < self.ground(x[R][0], x[R][1]):
            return "body toppled over (below the ground)"
        flight = ~contacts_of(chart)
        deep = flight & (self.toe_heights(x) < -2 * CONTACT_SKIN)
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
        x[R] = [0.0, 0.0, height + self.ground(0.0, 0.0)]
        toes = np.zeros((N_LEGS, 3))
        for i in range(N_LEGS):
            hip = self.attach[i] + x[R]
            theta = self.t0[i]
            if i in TRIPOD_A:
                toes[i] = hip + [height * math.tan(theta), 0.0, -height]
                toes[i, 2] = self.ground(toes[i, 0], toes[i, 1])
                x[REF.start + i] = self.offsets[i]
            else:
                rho = free_leg_length(self.k_r[i], self.r0[i], self.p.q_rl, self.p.saturation)
                toes[i] = hip + rho * np.array([math.sin(theta), 0.0, math.cos(theta)])
                x[REF.start + i] = self.offsets[i] + math.pi
        x[F] = toes.ravel()
        return x

    def initial_chart(self, t: float, x: np.ndarray) -> Transition:
        """Legs whose toe is on or below the ground start in stance (manual 5.4.3); a tripod at
        reference 0 (mod 2 pi) starts its slow phase, one at pi the second half of its fast phase."""
        phases = []
        new = np.array(x, dtype=float)
        for leg, ref in enumerate(np.asarray(x[REF]) - self.offsets):
            angle = ref % (2 * math.pi)
            # a reference within PHASE_TOLERANCE of a phase end starts the next phase, as the
            # transition would (a run resumed at a phase end, --change, must not sit on its boundary)
            phase = int(np.searchsorted(self.phase_ends, angle + PHASE_TOLERANCE, side="right")) % 4
            phases.append(phase)
            # the phase boundaries read the unwrapped reference: bring it into this phase's interval
            # (the hip law reads it modulo 2 pi), else a resumed run starts outside its chart's patch
            new[REF.start + leg] = self.offsets[leg] + (angle - 2 * math.pi if phase == 0 and angle > math.pi else angle)
        return Transition(chart_of(self.toe_heights(x) <= 1e-12, phases), new)

    def toe_heights(self, x: np.ndarray) -> np.ndarray:
        """Toe heights above the terrain [m], shape (6,)."""
        toes = np.asarray(x[F]).reshape(N_LEGS, 3)
        if self.terrain.kind == "flat":
            return toes[:, 2].copy()
        return np.array([tz - self.ground(tx, ty) for tx, ty, tz in toes])
