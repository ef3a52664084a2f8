"""A torque-driven rigid wheel with a compliant tire on the ground: a hybrid model (charts FLIGHT, STICK, SLIP).

The wheel (mass m, axle inertia I, tread a torus of outer radius R and crown radius r) moves in
the x-z plane (see ``wheel_geometry``); the contact is the lumped spatial spring of
``tire_contact`` between the ground (body 1, rigid or with its own stiffness) and the tire
(body 2). States:

    x, z, phi, xd, zd, phid      wheel centre [m], pitch [rad] and their rates
    u1, v1, u2, v2               hinge coordinates on the ground and on the tread
    theta, qx, qy, qz            spring state on SE(2) x T(1) [rad, m]
    work, dissipated             drive work int(tau phid) [J], energy lost in damper and slip [J]
    released                     (bookkeeping) spring energy released at liftoff [J]

Charts and boundaries (all positive inside the patch):

* FLIGHT: gap between tread and ground; touchdown puts both hinges at the closest points with
  q = 0 (zero energy, zero wrench) and enters SLIP when the contact would have to slide at once
  (lambda > 0, see ``tire_slip``), else STICK;
* STICK: f_z (the normal force, spring + damper: liftoff when it would pull); the friction
  limit (only when mu is finite): mu f_n - |f_t| on the total forces with the default tangential
  damper, r - |(qx, qy)| on the spring's without one (``tire_slip``);
* SLIP: f_z; |(qx, qy)| lambda (slip -> stick when the twist unloads the tangential spring;
  weighted so that it stays continuous as (qx, qy) shrinks through 0 at liftoff, ``tire_slip``).
  Where a boundary falls through right after a transition (liftoff while slipping), ``rest``
  takes that boundary's own transition.

Liftoff releases the spring's remaining energy V(q) into ``released``, so that E = kinetic +
gravity + spring, E + dissipated + released - work is constant. With a finite mu there is none
to release in the undamped tire: the friction circle r = mu f_n / k_t shrinks to 0 with the
normal force, so the slip has dissipated the tangential spring (into ``dissipated``) by the time
f_z = -k_z z reaches 0 (to the integration error: 3e-8 J at tolerance 1e-8, 1e-11 J at 1e-10).
What is released is what the text's contact cannot keep once it is broken (section VII: "the
contact is broken (the energy in the spring is lost)"): the tangential spring of a tire that
never slips (mu = inf), and with dampers the elastic compression left where spring + damper
stop pushing (a massless free spring-damper would relax and dissipate exactly that).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, Tuple

import numpy as np

from .model import Boundary, HybridModel, Transition
from .tire_contact import Body, ContactState, TireContact
from .tire_damper import Damper
from .tire_spring import Stiffness
from .tire_surfaces import Plane, Torus, Waves
from .wheel_geometry import gap, touchdown_hinges, wheel_body

FLIGHT, STICK, SLIP = 0, 1, 2
STATE_NAMES = ("x", "z", "phi", "xd", "zd", "phid", "u1", "v1", "u2", "v2", "theta", "qx", "qy", "qz",
               "work", "dissipated", "released")
GROUND = Body(np.eye(3), np.zeros(3))
LIFTOFF, STICK_LIMIT, RELEASE, TOUCHDOWN = 0, 1, 2, 3


@dataclass(frozen=True)
class WheelParameters:
    """Wheel, tire and ground (SI units). ``inertia`` 0 means m R^2 / 2; ``k_ground`` inf = rigid ground;
    ``amplitude`` 0 = plane, else the ground is ``Waves(amplitude, wavelength)``."""

    mass: float = 5.0
    radius: float = 0.3
    crown: float = 0.05
    inertia: float = 0.0
    gravity: float = 9.81
    torque: float = 0.0
    k_theta: float = 200.0
    k_t: float = 5.0e4
    k_z: float = 5.0e4
    k_ground: float = 1.0e7
    d_theta: float = 1.0
    d_t: float = 150.0
    d_z: float = 100.0
    mu: float = 0.8
    amplitude: float = 0.0
    wavelength: float = 2.0
    hardening: float = 0.0  # [1/m]: k_t exp(-hardening z) (section VI), only with mu = inf

    def __post_init__(self) -> None:
        for name in ("mass", "radius", "crown", "k_theta", "k_t", "k_z", "k_ground", "wavelength"):
            if not getattr(self, name) > 0.0:
                raise ValueError(f"wheel: {name} must be > 0, got {getattr(self, name)!r}")
        for name in ("inertia", "gravity", "d_theta", "d_t", "d_z", "amplitude", "hardening"):
            if not getattr(self, name) >= 0.0:
                raise ValueError(f"wheel: {name} must be >= 0, got {getattr(self, name)!r}")
        if np.isfinite(self.mu) and self.d_z > 0.0 and self.d_t == 0.0:
            raise ValueError(f"wheel: d_z = {self.d_z!r} needs d_t > 0 with a finite mu = {self.mu!r} (the friction "
                             "limit holds on spring + damper forces through the tangential damper); set d_t > 0, "
                             "d_z = 0 or mu = inf")
        if self.amplitude * (2 * np.pi / self.wavelength) ** 2 >= 1.0 / self.radius:
            raise ValueError("wheel: ground curvature amplitude*(2 pi/wavelength)^2 must be below 1/radius")

    @property
    def axle_inertia(self) -> float:
        return self.inertia or 0.5 * self.mass * self.radius ** 2

    def tire(self) -> Torus:
        return Torus(self.radius, self.crown)

    def ground(self):
        return Waves(self.amplitude, self.wavelength) if self.amplitude > 0.0 else Plane()

    def contact(self) -> TireContact:
        damped = self.d_theta + self.d_t + self.d_z > 0.0
        ground = None if np.isinf(self.k_ground) else Stiffness.isotropic(self.k_ground, self.k_ground, self.k_ground)
        return TireContact(self.ground(), self.tire(), Stiffness.isotropic(self.k_theta, self.k_t, self.k_z,
                                                                            self.hardening),
                           stiffness1=ground, damper=Damper.diagonal(self.d_theta, self.d_t, self.d_z) if damped else None,
                           mu=self.mu)


class Wheel(HybridModel):
    """The wheel of the module docstring as a hybrid model for ``hybrid_sim.simulate``.

    State layout: ``n_pos`` positions (the centre's coordinates, then the spin angle phi), their
    rates, the 4 hinge coordinates, the 4 spring states, work, dissipated (continuous), released
    (bookkeeping). A subclass with another body (``wheel3d``) overrides ``n_pos``, the names and
    the geometry hooks ``body``, ``centre``, ``forces``, ``gap_of``, ``first_hinges``.
    """

    state_names: Tuple[str, ...] = STATE_NAMES
    n_continuous = 16
    chart_names = ("FLIGHT", "STICK", "SLIP")
    n_pos = 3

    @property
    def hinge(self) -> slice:
        return slice(2 * self.n_pos, 2 * self.n_pos + 4)

    @property
    def spring(self) -> slice:
        return slice(2 * self.n_pos + 4, 2 * self.n_pos + 8)

    @property
    def books(self) -> Tuple[int, int, int]:
        """Indices of work, dissipated, released."""
        first = 2 * self.n_pos + 8
        return first, first + 1, first + 2

    def __init__(self, params: WheelParameters = WheelParameters()) -> None:
        self.params = params
        self.model = params.contact()
        self.slip_rule = self.model.slip

    # ------------------------------------------------------------------ physics
    # ------------------------------------------------------------------ geometry hooks (planar)
    def body(self, x: np.ndarray) -> Body:
        return wheel_body(*x[:6])

    def centre(self, x: np.ndarray) -> np.ndarray:
        return np.array([x[0], 0.0, x[1]])

    def gap_of(self, x: np.ndarray) -> float:
        return gap(self.params.ground(), self.params.tire(), x[0], x[1])

    def first_hinges(self, x: np.ndarray) -> np.ndarray:
        return touchdown_hinges(self.params.ground(), x[0], x[1], x[2])

    def forces(self, wrench: np.ndarray) -> np.ndarray:
        """Generalised forces on (x, z, phi) of a wrench (tau, F) about the centre [N, N, N m]."""
        return np.array([wrench[3], wrench[5], wrench[1]])

    # ------------------------------------------------------------------ physics
    def contact(self, x: np.ndarray, chart: int) -> ContactState:
        return self.model.evaluate(GROUND, self.body(x), x[self.hinge], x[self.spring], slipping=chart == SLIP)

    def accelerations(self, x: np.ndarray, wrench: np.ndarray) -> np.ndarray:
        """Centre accelerations and phidd under gravity, drive torque and a contact wrench (tau, F)
        about the centre (common frame)."""
        p = self.params
        acc = self.forces(wrench) / np.array([p.mass] * (self.n_pos - 1) + [p.axle_inertia])
        acc[self.n_pos - 2] -= p.gravity  # the last centre coordinate is the height
        acc[-1] += p.torque / p.axle_inertia
        return acc

    def vector_field(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        n = self.n_pos
        work, dissipated, _ = self.books
        dx = np.zeros(self.n_continuous)
        dx[:n] = x[n:2 * n]
        dx[work] = self.params.torque * x[2 * n - 1]
        if chart == FLIGHT:
            dx[n:2 * n] = self.accelerations(x, np.zeros(6))
            return dx
        state = self.contact(x, chart)
        dx[n:2 * n] = self.accelerations(x, self.model.body_wrench(state, self.centre(x)))
        dx[self.hinge] = state.hinge_rate
        dx[self.spring] = state.spring_rate
        dx[dissipated] = state.dissipation
        return dx

    # ------------------------------------------------------------------ charts
    def boundaries(self, chart: int) -> Sequence[Boundary]:
        if chart == FLIGHT:
            return (Boundary(TOUCHDOWN),)
        if chart == STICK:
            return (Boundary(LIFTOFF),) + ((Boundary(STICK_LIMIT),) if self.slip_rule.enabled else ())
        return (Boundary(LIFTOFF), Boundary(RELEASE))

    def boundary(self, t: float, x: np.ndarray, chart: int, index: int) -> float:
        if index == TOUCHDOWN:
            return self.gap_of(x)
        q = x[self.spring]
        if index == STICK_LIMIT:
            return self.slip_rule.stick_margin(q, self.stick_rate(x))
        state = self.contact(x, chart)
        if index == LIFTOFF:
            return float(state.wrench[3])
        return self.slip_rule.release_margin(q, self.stick_rate(x))

    def stick_rate(self, x: np.ndarray) -> np.ndarray:
        """q' of the sticking contact at ``x`` (the slip rule's s)."""
        return self.contact(x, STICK).spring_rate

    def transition(self, t: float, x: np.ndarray, chart: int, index: int) -> Transition:
        new = np.array(x, dtype=float)
        if index == TOUCHDOWN:
            new[self.hinge] = self.first_hinges(x)
            new[self.spring] = 0.0
            slides = self.slip_rule.enabled and self.slip_rule.release(new[self.spring], self.stick_rate(new)) > 0.0
            return Transition(SLIP if slides else STICK, new)
        if index == LIFTOFF:
            new[self.books[2]] += self.model.stiffness.energy(x[self.spring])
            new[self.spring] = 0.0
            return Transition(FLIGHT, new)
        return Transition(SLIP if index == STICK_LIMIT else STICK, new)

    def rest(self, t: float, x: np.ndarray, chart: int, index: int) -> Transition:
        """Where a boundary falls through right after a transition: take that boundary's transition.

        It happens at liftoff while slipping: as the normal force runs out, (qx, qy) shrinks with
        the friction circle and passes through 0 (to within the integration error) a hair before
        f_z does; the slip -> stick boundary crosses there, and in STICK the friction limit (or
        f_z) is gone again at once. The state is on that boundary with no tangential load, so its
        own transition is the right one (STICK -> SLIP, or liftoff); no state jumps.
        """
        return self.transition(t, x, chart, index)

    def initial_chart(self, t: float, x: np.ndarray) -> Transition:
        x = np.asarray(x, dtype=float)
        if self.gap_of(x) <= 0.0:
            raise ValueError(f"wheel: the initial state must be in flight (tread above the ground), "
                             f"z = {self.centre(x)[2]!r}")
        return Transition(FLIGHT, x)

    # ------------------------------------------------------------------ outputs
    def parameters(self) -> Mapping[str, float]:
        return {k: float(v) for k, v in vars(self.params).items()}

    def energy(self, x: np.ndarray) -> float:
        """Kinetic + gravity + spring energy [J]."""
        p, n = self.params, self.n_pos
        velocity = x[n:2 * n - 1]
        kinetic = 0.5 * p.mass * float(velocity @ velocity) + 0.5 * p.axle_inertia * x[2 * n - 1] ** 2
        return float(kinetic + p.mass * p.gravity * self.centre(x)[2] + self.model.stiffness.energy(x[self.spring]))

    def aux_names(self) -> Tuple[str, ...]:
        return ("t",) + self.state_names + ("energy", "balance", "slip_velocity", "f_n", "f_t",
                                            "spring_energy", "tangential_energy")

    def auxiliary(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        energy = self.energy(x)
        work, dissipated, released = self.books
        balance = energy + x[dissipated] + x[released] - x[work]
        slip_velocity = f_n = f_t = 0.0
        q = x[self.spring]
        if chart != FLIGHT:
            state = self.contact(x, chart)
            slip_velocity = float(np.hypot(state.twist[3], state.twist[4]))
            f_n, f_t = float(state.wrench[3]), float(np.hypot(state.wrench[1], state.wrench[2]))
        k = self.model.stiffness
        tangential = k.energy(q * [0.0, 1.0, 1.0, 0.0])
        return np.concatenate(([t], x, [energy, balance, slip_velocity, f_n, f_t, k.energy(q), tangential]))


def initial_state(x: float = 0.0, height: float = 0.05, xd: float = 0.0, zd: float = 0.0,
                  spin: float = 0.0, params: WheelParameters = WheelParameters()) -> np.ndarray:
    """Wheel with its tread ``height`` [m] above the ground under its centre, spin phid [rad/s]."""
    state = np.zeros(len(STATE_NAMES))
    state[[0, 1, 3, 4, 5]] = x, params.ground().height(x) + params.radius + height, xd, zd, spin
    return state
