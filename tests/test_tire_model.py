"""The lumped spatial-spring tire contact (Stramigioli-Duindam): energy, wrench, power, kinematics.

References are closed forms (k d^2 / 2, f = -k d, R phi, series stiffness), exact identities
(P P^T = I, power continuity) and an independent integrator (scipy's solve_ivp on the model's rates).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from hybrid_sim.tire_contact import Body, TireContact
from hybrid_sim.tire_damper import Damper
from hybrid_sim.tire_frame import average_frame
from hybrid_sim.tire_slip import SlipRule
from hybrid_sim.tire_spring import Stiffness, rate_map, series_stiffness
from hybrid_sim.tire_surfaces import Plane, Sphere, Torus
from hybrid_sim.tire_twist import P, body_wrench, relative_twist
from hybrid_sim.wheel_geometry import pitch

R, CROWN = 0.3, 0.05
K = Stiffness.isotropic(k_theta=200.0, k_t=4.0e4, k_z=5.0e4)
GROUND = Body(np.eye(3), np.zeros(3))


def tire_contact(**kw) -> TireContact:
    return TireContact(Plane(), Torus(R, CROWN), K, **kw)


def rates(contact: TireContact, motion, slipping=False):
    """d/dt of (hinge, q) for a prescribed wheel motion t -> Body."""
    def f(t, y):
        s = contact.evaluate(GROUND, motion(t), y[:4], y[4:], slipping)
        return np.concatenate((s.hinge_rate, s.spring_rate))
    return f


def integrate(contact, motion, t_end, y0=None):
    y0 = np.zeros(8) if y0 is None else y0
    sol = solve_ivp(rates(contact, motion), (0.0, t_end), y0, rtol=1e-11, atol=1e-13, method="DOP853")
    assert sol.success
    return sol.y[:, -1]


def translating(x0=0.0, z0=R, vx=0.0, vy=0.0, vz=0.0, spin_z=0.0):
    """Wheel centre moving with constant velocity, optional yaw rate about the vertical."""
    def motion(t):
        yaw = spin_z * t
        c, s = np.cos(yaw), np.sin(yaw)
        rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return Body(rot, np.array([x0 + vx * t, vy * t, z0 + vz * t]), np.array([0.0, 0.0, spin_z]),
                    np.array([vx, vy, vz]))
    return motion


def test_contact_start_has_zero_energy_and_zero_wrench():
    # touchdown: both hinges at the lowest tread point / ground point under the centre, q = 0
    contact = tire_contact()
    body = Body(pitch(0.3), np.array([0.2, 0.0, R]), np.array([0.0, 7.0, 0.0]), np.array([1.0, 0.0, -2.0]))
    hinge = np.array([0.2, 0.0, -0.3, 0.0])  # u2 = -phi faces the ground
    state = contact.evaluate(GROUND, body, hinge, np.zeros(4), slipping=False)
    assert state.energy == 0.0
    np.testing.assert_array_equal(state.wrench, np.zeros(4))
    # the frame sits on the contact point with its normal up
    np.testing.assert_allclose(state.frame.origin, [0.2, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(state.frame.normal, [0.0, 0.0, 1.0], atol=1e-15)


def test_pure_rolling_stores_no_energy_and_hinges_travel_r_phi():
    # wheel rolling without slip on the plane (kinematic): x = R phi
    phi_end, rate = 2.0, 1.0
    contact = tire_contact()

    def motion(t):
        phi = rate * t
        return Body(pitch(phi), np.array([R * phi, 0.0, R]), np.array([0.0, rate, 0.0]),
                    np.array([R * rate, 0.0, 0.0]))
    arc = R * phi_end
    y = integrate(contact, motion, phi_end / rate)
    assert np.max(np.abs(y[4:])) < 1e-12
    assert contact.stiffness.energy(y[4:]) < 1e-20
    assert y[0] == pytest.approx(arc, abs=1e-10)            # ground hinge: R phi
    assert -y[2] * R == pytest.approx(arc, abs=1e-10)        # tread hinge: u grows backwards, arc R |u|
    assert y[1] == pytest.approx(0.0, abs=1e-12) and y[3] == pytest.approx(0.0, abs=1e-12)


def test_ball_rolling_diagonally_moves_hinges_by_montana():
    # a ball of radius rho rolling with omega = (wx, wy, 0) moves its contact by rho (wy, -wx)
    rho, w = 0.1, np.array([-0.6, 0.8, 0.0])
    contact = TireContact(Plane(), Sphere(rho), K)

    def motion(t):
        angle = np.linalg.norm(w) * t
        axis = w / np.linalg.norm(w)
        kx = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        rot = np.eye(3) + np.sin(angle) * kx + (1 - np.cos(angle)) * kx @ kx
        v = rho * np.array([w[1], -w[0], 0.0])
        return Body(rot, np.array([0.0, 0.0, rho]) + v * t, w, v)
    y = integrate(contact, motion, 1.5)
    np.testing.assert_allclose(y[:2], 1.5 * rho * np.array([w[1], -w[0]]), atol=1e-10)
    assert np.max(np.abs(y[4:])) < 1e-12
    # the ball's hinge is where the ball now touches: its world point is the ground hinge
    p2 = motion(1.5).origin + motion(1.5).rotation @ Sphere(rho).point(*y[2:4])
    np.testing.assert_allclose(p2, [y[0], y[1], 0.0], atol=1e-10)


def test_tangential_slide_stores_half_k_d_squared():
    d, kt = 0.004, K.matrix[1, 1]
    contact = tire_contact()
    y = integrate(contact, translating(vx=d / 0.5), 0.5)
    q = y[4:]
    np.testing.assert_allclose(q, [0.0, d, 0.0, 0.0], atol=1e-13)
    assert K.energy(q) == pytest.approx(0.5 * kt * d * d, rel=1e-10)   # 0.32 J
    np.testing.assert_allclose(K.wrench(q), [0.0, -kt * d, 0.0, 0.0], atol=1e-9)  # f_x = -160 N


def test_closed_sliding_loop_returns_energy_to_zero():
    # slide +x, yaw, slide +y, yaw back, slide back: a closed path of the tire in SE(2)
    contact = tire_contact()
    y = np.zeros(8)
    legs = [dict(vx=0.004), dict(spin_z=0.2), dict(vy=0.003), dict(spin_z=-0.2), dict(vx=-0.004),
            dict(vy=-0.003)]
    pose = np.zeros(3)  # x, y, yaw of the wheel centre
    peak = 0.0
    for leg in legs:
        motion = translating(x0=pose[0], z0=R, **leg)

        def shifted(t, motion=motion, pose=pose.copy()):
            b = motion(t)
            c, s = np.cos(pose[2]), np.sin(pose[2])
            yaw = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            return Body(b.rotation @ yaw, b.origin + np.array([0.0, pose[1], 0.0]), b.omega, b.velocity)
        y = integrate(contact, shifted, 1.0, y)
        peak = max(peak, K.energy(y[4:]))
        pose += [leg.get("vx", 0.0), leg.get("vy", 0.0), leg.get("spin_z", 0.0)]
    assert peak > 0.1                      # the loop did charge the spring (0.3 J at the far corner)
    assert K.energy(y[4:]) < 1e-18         # and gave everything back
    assert np.max(np.abs(y[4:])) < 1e-11


def test_pure_penetration_gives_only_f_z():
    delta, kz = 0.002, K.matrix[3, 3]
    y = integrate(tire_contact(), translating(vz=-delta / 0.2), 0.2)
    q = y[4:]
    np.testing.assert_allclose(q, [0.0, 0.0, 0.0, -delta], atol=1e-14)
    w = K.wrench(q)
    np.testing.assert_allclose(w, [0.0, 0.0, 0.0, kz * delta], atol=1e-10)  # f_z = 100 N, nothing else


def test_projection_has_orthonormal_rows():
    np.testing.assert_array_equal(P @ P.T, np.eye(4))
    np.testing.assert_array_equal(P.T @ P, np.diag([0, 0, 1, 1, 1, 1]))  # rolling part (wx, wy) dropped


def _random_frame(rng):
    n1 = rng.normal(size=3)
    n1 /= np.linalg.norm(n1)
    n2 = -n1 + 0.1 * rng.normal(size=3)
    n2 /= np.linalg.norm(n2)
    return average_frame(rng.normal(size=3), n1, rng.normal(size=3), n2, 1e-6, 2e-5, rng.normal(size=3))


def test_power_continuity_of_every_map():
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(200):
        frame = _random_frame(rng)
        t6, w4 = rng.normal(size=6), rng.normal(size=4)
        # MTF P: <P^T W, T> = <W, P T>
        worst = max(worst, abs((P.T @ w4) @ t6 - w4 @ (P @ t6)))
        # frame change Psi_c -> common frame and moment transport to a body point
        o1, o2, point = rng.normal(size=(3, 3))
        om1, v1, om2, v2 = rng.normal(size=(4, 3))
        twist = relative_twist(frame, o1, om1, v1, o2, om2, v2)
        on2 = body_wrench(frame, w4, point)             # on body 2, moment about ``point``
        v2_point = v2 + np.cross(om2, point - o2)
        v1_point = v1 + np.cross(om1, point - o1)
        bodies = on2[:3] @ om2 + on2[3:] @ v2_point - on2[:3] @ om1 - on2[3:] @ v1_point
        worst = max(worst, abs(bodies - w4 @ (P @ twist)))
        # spring: -<W, xi> = dV/dt along q' = A(q) xi, for an anisotropic coupled K
        k = Stiffness.anisotropic(150.0, 3e4, 1e4, 5e4, k_xz=8e3)
        q, xi = 1e-3 * rng.normal(size=4), rng.normal(size=4)
        worst = max(worst, abs(-(k.wrench(q) @ xi) - (k.matrix @ q) @ (rate_map(q) @ xi)) / 1e2)
    assert worst < 1e-12


def test_series_stiffness():
    assert float(series_stiffness(1e6, 1e3)) == pytest.approx(999.000999000999, abs=1e-9)
    k = Stiffness.isotropic(1e6, 1e6, 1e6).series(Stiffness.isotropic(1e3, 2e3, 4e3))
    np.testing.assert_allclose(np.diag(k.matrix), [999.000999000999, 1996.007984031936, 1996.007984031936,
                                                   3984.063745019920])
    assert float(series_stiffness(np.inf, 1e3)) == 1e3  # rigid ground: the tire's own stiffness


def test_anisotropic_stiffness_and_coupling():
    k = Stiffness.anisotropic(150.0, 3e4, 1e4, 5e4, k_xz=8e3)
    q = np.array([0.0, 0.002, -0.001, 0.0])
    # f = -K (x, y, z); m_z = -(x f_y' - y f_x') = -x y (k_y - k_x): anisotropy twists; coupling: f_z = -k_xz x
    np.testing.assert_allclose(k.wrench(q), [-0.04, -60.0, 10.0, -16.0])
    assert k.energy(q) == pytest.approx(0.5 * (3e4 * 4e-6 + 1e4 * 1e-6))
    with pytest.raises(ValueError, match="positive definite"):
        Stiffness.anisotropic(150.0, 3e4, 1e4, 1e3, k_xz=1e4)


def test_damper_and_slip_only_dissipate():
    rng = np.random.default_rng(11)
    # (a coupled tangential damper, here only for the damper alone: the slip rule refuses it)
    damper = Damper(np.array([[2.0, 0.1, 0, 0.3], [0.1, 50.0, 5.0, 0], [0, 5.0, 40.0, 0], [0.3, 0, 0, 80.0]]))
    with pytest.raises(ValueError, match="tangential damper"):
        SlipRule(0.8, K, damper)
    rule = SlipRule(0.8, K)
    with pytest.raises(ValueError, match="normal damper"):  # the elastic circle would ignore d_z's force
        SlipRule(0.8, K, Damper(np.diag([2.0, 0.0, 0.0, 80.0])))
    contact = TireContact(Plane(), Torus(R, CROWN), K, damper=Damper(np.diag([2.0, 0.0, 0.0, 0.0])), mu=0.8)
    for _ in range(300):
        q, xi = 1e-3 * rng.normal(size=4), rng.normal(size=4)
        q[3] = -abs(q[3])
        for active in (np.ones(4, bool), np.array([True, False, False, True])):
            rate = rate_map(q) @ xi
            assert damper.wrench(q, rate, active) @ xi <= 1e-15
        # slipping: put (x, y) on the friction circle, stretch outward: spring takes less than the bodies give
        q[1:3] *= rule.radius(q) / np.hypot(q[1], q[2])
        stick = rate_map(q) @ xi
        if rule.release(q, stick) > 0:
            slip = rule.slip_rate(q, stick)
            spring_power = (K.matrix @ q) @ slip
            assert -(K.wrench(q) @ xi) - spring_power >= -1e-12
    # in the assembled contact the dissipation is never negative, sticking or slipping
    body = Body(pitch(0.1), np.array([0.0, 0.0, R - 0.002]), np.array([0.0, 3.0, 0.2]), np.array([0.5, 0.1, -0.3]))
    q = np.array([0.01, 0.0, 0.0, -0.002])
    stick = contact.evaluate(GROUND, body, np.zeros(4), q, False)
    assert stick.dissipation >= 0.0
    q[1:3] = rule.radius(q) * stick.spring_rate[1:3] / np.hypot(*stick.spring_rate[1:3])  # on the circle, stretching
    slipping = contact.evaluate(GROUND, body, np.zeros(4), q, True)
    assert rule.release(q, contact.evaluate(GROUND, body, np.zeros(4), q, False).spring_rate) > 0.0
    assert slipping.dissipation > 0.0


def test_tangential_damper_total_force_respects_the_friction_limit():
    # issue 35: with d_t > 0 the limit holds on the TOTAL forces (spring + damper) read from the
    # assembled wrench: |(f_x, f_y)| <= mu f_z while sticking, = mu f_z while slipping, and the
    # slider only dissipates (the reference: Coulomb's inequality on the wrench, not the rule's own margin)
    rng = np.random.default_rng(5)
    mu = 0.8
    damper = Damper(np.array([[2.0, 0, 0, 0.3], [0, 150.0, 0, 0], [0, 0, 150.0, 0], [0.3, 0, 0, 100.0]]))
    contact = TireContact(Plane(), Torus(R, CROWN), K, damper=damper, mu=mu)
    rule = contact.slip
    assert rule.viscous
    counts = [0, 0]
    for _ in range(300):
        velocity, omega = rng.normal(scale=0.3, size=3), rng.normal(scale=3.0, size=3)
        body = Body(pitch(0.1), np.array([0.0, 0.0, R - 0.002]), omega, velocity)
        q = np.array([0.01, *(1e-3 * rng.normal(size=2)), -0.002])
        stick = contact.evaluate(GROUND, body, np.zeros(4), q, False)
        f_n = stick.wrench[3]
        if f_n <= 0.0:
            continue
        sticks = rule.stick_margin(q, stick.spring_rate) >= 0.0
        state = stick if sticks else contact.evaluate(GROUND, body, np.zeros(4), q, True)
        f_t = np.hypot(*state.wrench[1:3])
        assert state.wrench[3] == pytest.approx(f_n)
        if sticks:
            assert f_t <= mu * f_n * (1 + 1e-12)
        else:
            assert f_t == pytest.approx(mu * f_n, rel=1e-12)
            # the tangential force opposes the sliding (spring rate less stick rate) and dissipates
            sliding = stick.spring_rate[1:3] - state.spring_rate[1:3]
            assert state.wrench[1:3] @ sliding < 0.0
        assert state.dissipation >= -1e-12
        counts[sticks] += 1
    assert min(counts) > 20  # both charts exercised


def test_frame_weights_and_axes():
    p1, n1 = np.zeros(3), np.array([0.0, 0.0, 1.0])
    p2, n2 = np.array([0.0, 0.0, -0.003]), np.array([0.0, 0.0, -1.0])
    axle = np.array([0.0, 1.0, 0.0])
    # rigid ground (compliance 0): the plane lies on the ground; equal stiffness: halfway
    assert average_frame(p1, n1, p2, n2, 0.0, 1e-4, axle).origin[2] == 0.0
    assert average_frame(p1, n1, p2, n2, 1e-4, 1e-4, axle).origin[2] == pytest.approx(-0.0015)
    # stiffer body 2 (smaller compliance): the plane is closer to body 2
    assert average_frame(p1, n1, p2, n2, 1e-4, 1e-6, axle).origin[2] == pytest.approx(-0.003 * 100 / 101)
    # right-handed, and continuous while the normal tilts: no axis flips
    previous = None
    for tilt in np.linspace(-1.2, 1.2, 241):
        n2t = -np.array([np.sin(tilt), 0.0, np.cos(tilt)])
        e = average_frame(p1, n1, p2, n2t, 1e-5, 1e-4, pitch(tilt) @ axle).rotation
        assert np.linalg.det(e) == pytest.approx(1.0) and np.allclose(e.T @ e, np.eye(3))
        if previous is not None:
            assert np.linalg.norm(e - previous) < 0.05
        previous = e


def test_curvatures_and_frame_change():
    from hybrid_sim.tire_surfaces import weingarten
    from hybrid_sim.tire_twist import adjoint

    # Weingarten map: 1/rho on a sphere, 1/R along and 1/crown across the tread of the torus
    ball = Sphere(0.1)
    w = weingarten(ball, 0.4, -0.3)
    t = ball.tangents(0.4, -0.3)
    np.testing.assert_allclose(w @ t, t / 0.1, atol=1e-12)
    np.testing.assert_allclose(np.diag(weingarten(Torus(R, CROWN), 0.0, 0.0)), [1 / R, 1 / CROWN, 0.0], atol=1e-12)
    # eq. 3 and the adjoint: a twist and a wrench keep their power when both change frame
    rng = np.random.default_rng(3)
    frame = _random_frame(rng)
    h = frame.homogeneous()
    np.testing.assert_allclose(h[:3, :3].T @ h[:3, :3], np.eye(3), atol=1e-14)
    ad = adjoint(frame.rotation, frame.origin)
    twist_c, wrench_c = rng.normal(size=6), rng.normal(size=6)
    wrench_0 = np.linalg.inv(ad).T @ wrench_c
    assert abs(wrench_0 @ (ad @ twist_c) - wrench_c @ twist_c) < 1e-12
