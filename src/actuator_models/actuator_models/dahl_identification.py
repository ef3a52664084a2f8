"""Two-stage identification of the Dahl model (García-Baños and Ikhouane, section 2).

Stage 1 (section 2.1, eq. 20): under a constant velocity the force tends to ``Fc sign(v)``;
``Fc`` is the mean force over the settled tail of the record.

Stage 2 (section 2.2): under a wave-periodic displacement (Definition 1: periodic, increasing
then decreasing once per period) the force tends to the hysteresis loop of Theorem 1. On the
loading branch of the steady state (eq. 35)::

    F(x) = Fc (1 - a exp(-rho (x - Xmin))),     a = 2 / (1 + exp(-rho (Xmax - Xmin)))

and ``rho`` follows from one point of it: ``x = Xmin`` (eq. 39), ``x = Xmax`` (eq. 40) or the
midpoint (eq. 41). None of them differentiates the measured signals. As an extension,
:func:`.dahl_rho.fit_loading_branch` (the closed forms live there too) fits eq. 35 to the whole loading branch by least squares.

The steady state is the *last full period* of the record (from a minimum of ``x`` through a
maximum to the next minimum; reversals are found with a hysteresis band, so that noise on ``x``
makes none). Eqs. 39/40 read one sample each and are ill-conditioned when ``rho (Xmax - Xmin)``
is large (``conditioning``); the least-squares ``rho`` uses the whole branch. Records that are
not wave-periodic, or too short to hold two full periods, are rejected with :class:`DahlDataError`.

Units: ``t`` [s], ``x`` [rad] (or m), ``F`` [N m] (or N), ``rho`` [1/rad] (or 1/m).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Dict, List, Tuple

import numpy as np

from .dahl import steady_loading_force
from .dahl_rho import conditioning, fit_loading_branch, rho_from_midpoint, rho_from_xmax, rho_from_xmin
from .dahl_denoise import smooth_displacement
from .dahl_turning import TURN_BAND, turning_points  # noqa: F401 (TURN_BAND re-exported)
from .model import Model, new_model

#: Fraction of a stage-1 record (by displacement, at its end) averaged for ``Fc``.
TAIL = 0.25
#: Full periods a stage-2 record must hold (one to settle, the last one measured).
MIN_PERIODS = 2
#: Successive periods of a wave-periodic input may differ by this fraction of the range / period.
PERIOD_TOLERANCE = 0.02
#: rho is resolved when at least this many loading-branch samples lie within 3 / rho of Xmin.
RESOLVING_SAMPLES = 5
#: Condition number of eqs. 39/40 above which the command warns (a relative force error e moves rho by it times e).
ILL_CONDITIONED = 100.0


class DahlDataError(ValueError):
    """A record that the identification cannot use; the message names the record and why."""


@dataclass(frozen=True)
class Record:
    """Sampled time ``t`` [s], displacement ``x`` [rad] and measured force ``F`` [N m];
    ``source`` names the record in error messages."""

    t: np.ndarray
    x: np.ndarray
    F: np.ndarray
    source: str = "<record>"

    def __post_init__(self) -> None:
        for name in ("t", "x", "F"):
            value = np.asarray(getattr(self, name), dtype=float)
            if value.ndim != 1:
                raise DahlDataError(f"{self.source}: column {name!r} is not one-dimensional")
            bad = np.flatnonzero(~np.isfinite(value))
            if bad.size:
                raise DahlDataError(f"{self.source}: column {name!r} is not finite at row {bad[0] + 1}")
            object.__setattr__(self, name, value)
        if not len(self.t) == len(self.x) == len(self.F):
            raise DahlDataError(f"{self.source}: columns t, x, F have different lengths")
        if len(self.t) < 3:
            raise DahlDataError(f"{self.source}: {len(self.t)} samples; need at least 3")
        steps = np.diff(self.t)
        if np.any(steps <= 0):
            row = int(np.flatnonzero(steps <= 0)[0]) + 2
            raise DahlDataError(f"{self.source}: time 't' does not increase at row {row}")


# ---------------------------------------------------------------------------------- stage 1
@dataclass(frozen=True)
class CoulombEstimate:
    """Stage 1: ``fc`` [N m], the constant ``velocity`` [rad/s], the standard deviation of the
    averaged tail ``spread`` [N m] and its number of samples ``samples``."""

    fc: float
    velocity: float
    spread: float
    samples: int


def identify_fc(record: Record, tail: float = TAIL) -> CoulombEstimate:
    """``Fc`` as the limit of ``F sign(v)`` under a constant velocity (eq. 20).

    The limit is the mean over the last ``tail`` of the displacement. Rejects a record whose
    velocity is not constant (residual of a straight line over 2 % of the travel), and one whose
    force has not settled (the two halves of the tail differ by more than 1 % of ``Fc`` plus six
    standard errors).
    """
    if not 0.0 < tail < 1.0:
        raise ValueError(f"tail fraction {tail} is not in (0, 1)")
    t, x, force = record.t, record.x, record.F
    velocity, offset = np.polyfit(t, x, 1)
    travel = float(np.ptp(x))
    if travel == 0.0 or velocity == 0.0:
        raise DahlDataError(f"{record.source}: x does not move; stage 1 needs a constant nonzero velocity")
    residual = float(np.max(np.abs(x - (velocity * t + offset))))
    if residual > 0.02 * travel:
        raise DahlDataError(
            f"{record.source}: velocity is not constant (x departs {residual:.3g} from a straight line, "
            f"more than 2 % of the travel {travel:.3g})"
        )
    direction = math.copysign(1.0, velocity)
    moved = np.abs(x - x[0])
    settled = direction * force[moved >= (1.0 - tail) * travel]
    if len(settled) < 4:
        raise DahlDataError(f"{record.source}: only {len(settled)} samples in the last {tail:.0%} of the travel")
    fc = float(np.mean(settled))
    half = len(settled) // 2
    first, second = settled[:half].mean(), settled[half:].mean()
    error = settled.std(ddof=1) / math.sqrt(half)
    if fc <= 0.0 or abs(second - first) > 0.01 * abs(fc) + 6.0 * error:
        raise DahlDataError(
            f"{record.source}: the force has not settled (means {first:.6g} and {second:.6g} over the two "
            f"halves of the last {tail:.0%} of the travel); record a longer constant-velocity run"
        )
    return CoulombEstimate(fc, float(velocity), float(settled.std(ddof=1)), len(settled))


# ---------------------------------------------------------------------------------- stage 2
@dataclass(frozen=True)
class Period:
    """One full period of the wave: sample indices of its start (a minimum of x), its maximum
    and its end (the next minimum)."""

    start: int
    peak: int
    end: int


def full_periods(record: Record, noise: float = 0.0) -> List[Period]:
    """The full periods (minimum -> maximum -> minimum) of ``record``, checked wave-periodic.

    Raises DahlDataError when there are fewer than :data:`MIN_PERIODS`, or when successive
    periods differ in Xmin, Xmax (by more than :data:`PERIOD_TOLERANCE` of the range plus six
    times ``noise``, the standard deviation of the noise left on x) or in duration or rise time
    (:data:`PERIOD_TOLERANCE` of the period plus three times the time by which that noise moves
    a reversal), which a T-periodic input increasing then
    decreasing once per period (Definition 1) cannot do.
    """
    minima, maxima = turning_points(record.x)
    periods = []
    for start, end in zip(minima[:-1], minima[1:]):
        peaks = maxima[(maxima > start) & (maxima < end)]
        periods.append(Period(int(start), int(peaks[0]), int(end)))  # minima and maxima alternate
    if len(periods) < MIN_PERIODS:
        raise DahlDataError(
            f"{record.source}: {len(periods)} full period(s) of x found (minimum -> maximum -> minimum); "
            f"need at least {MIN_PERIODS} (the steady state is measured on the last one): record longer"
        )
    t, x = record.t, record.x
    span = float(x.max() - x.min())
    duration = np.array([t[p.end] - t[p.start] for p in periods])
    rise = np.array([t[p.peak] - t[p.start] for p in periods])
    lows = np.array([x[p.start] for p in periods])
    highs = np.array([x[p.peak] for p in periods])
    # a noise n on x moves a reversal's time by about sqrt(n / |x''|), |x''| ~ (span / 2) (2 pi / T)^2
    curvature = 0.5 * span * (2.0 * math.pi / float(np.median(duration))) ** 2
    timing = math.sqrt(noise / curvature) if noise > 0.0 else 0.0
    checks = (
        ("Xmin", lows, span, 6.0 * noise), ("Xmax", highs, span, 6.0 * noise),
        ("period", duration, duration.max(), 3.0 * timing), ("rise time T+", rise, duration.max(), 3.0 * timing),
    )
    for name, values, scale, scatter in checks:
        if values.max() - values.min() > PERIOD_TOLERANCE * scale + scatter:
            raise DahlDataError(
                f"{record.source}: x is not wave-periodic (Definition 1): {name} varies from "
                f"{values.min():.6g} to {values.max():.6g} over {len(periods)} periods"
            )
    return periods


#: The four stage-2 estimates, by the attribute names of :class:`RhoEstimate`.
METHODS = ("rho_xmin", "rho_xmax", "rho_mid", "rho_fit")


@dataclass(frozen=True)
class RhoEstimate:
    """Stage 2 on the last full period.

    Attributes:
        rho_xmin, rho_xmax, rho_mid: eqs. 39, 40, 41 [1/rad] (NaN where noise put the point
            outside the model's range). rho_fit: least-squares fit of eq. 35 over the loading
            branch [1/rad].
        x_min, x_max: extremes of the last period [rad]. f_min, f_max, f_mid: loading-branch
            force at Xmin, Xmax and the midpoint [N m]. period: its duration [s].
        start_time: time of its first minimum [s]. periods: full periods in the record.
        drift: RMS change of the loading-branch force between the last two periods over Fc (a
            steady state has ~0, or the noise level).
        condition: condition number of eqs. 39/40 at the fitted rho (``conditioning``); above
            :data:`ILL_CONDITIONED` their estimates say little and the command warns.
        uncertainty: per method of :data:`METHODS`, its 1-sd uncertainty [1/rad]: the larger
            of the error that white force noise (of the fit's residual RMS) propagates into it
            and the standard deviation of its estimate over the full periods after the first
            (the settling one; catches errors that are not white); NaN when the method gave
            NaN (in any of those periods).
        x_noise: estimated standard deviation of the noise on x [rad]; x was smoothed before
            the analysis when it exceeded ``dahl_denoise.NOISY`` of the range.
        method: the recommended estimate (a name in :data:`METHODS`): the smallest finite
            uncertainty, eqs. 39/40 only when well conditioned; ``rho_fit`` when none is known.
    """

    rho_xmin: float
    rho_xmax: float
    rho_mid: float
    rho_fit: float
    x_min: float
    x_max: float
    f_min: float
    f_max: float
    f_mid: float
    period: float
    start_time: float
    periods: int
    drift: float
    condition: float
    uncertainty: Dict[str, float]
    x_noise: float
    method: str

    @property
    def rho(self) -> float:
        """The recommended estimate [1/rad]."""
        return float(getattr(self, self.method))


def _loading_branch(record: Record, period: Period) -> Tuple[np.ndarray, np.ndarray]:
    """Samples from the period's minimum to its maximum, sorted by x (noise can make x step back)."""
    span = slice(period.start, period.peak + 1)
    order = np.argsort(record.x[span], kind="stable")
    return record.x[span][order], record.F[span][order]


def _period_estimates(record: Record, period: Period, fc: float) -> Tuple[Tuple[float, ...], Tuple[float, ...]]:
    """Eqs. 39, 40, 41 and the least-squares rho on one period's loading branch, and the points
    they read: ``(x_min, x_max, f_min, f_max, f_mid)``."""
    x, force = _loading_branch(record, period)
    x_min, x_max = float(record.x[period.start]), float(record.x[period.peak])
    f_min, f_max = float(record.F[period.start]), float(record.F[period.peak])
    f_mid = float(np.interp(0.5 * (x_min + x_max), x, force))  # x is non-decreasing on the loading branch
    eq39 = rho_from_xmin(f_min, fc, x_min, x_max)
    eq40 = rho_from_xmax(f_max, fc, x_min, x_max)
    eq41 = rho_from_midpoint(f_mid, fc, x_min, x_max)
    rho0 = next((r for r in (eq41, eq39, eq40) if math.isfinite(r) and r > 0), math.nan)
    rho_fit = fit_loading_branch(x, force, fc, x_min, x_max, rho0)
    return (eq39, eq40, eq41, rho_fit), (x_min, x_max, f_min, f_max, f_mid)


def _propagated(estimates: Tuple[float, ...], points: Tuple[float, ...], fc: float,
                x: np.ndarray, force: np.ndarray) -> Tuple[float, ...]:
    """1-sd error of each estimate from white force noise of the fit's residual RMS ``s``: for
    eqs. 39-41, ``|d rho / d F| s`` at the point they read; for the fit, ``s / |J|`` with ``J``
    the derivative of eq. 35 over the loading branch with respect to rho."""
    x_min, x_max, f_min, f_max, f_mid = points
    rho_fit = estimates[3]
    s = float(np.sqrt(np.mean((steady_loading_force(x, fc, rho_fit, x_min, x_max) - force) ** 2)))
    h = 1e-6 * fc
    errors = []
    for rule, f in ((rho_from_xmin, f_min), (rho_from_xmax, f_max), (rho_from_midpoint, f_mid)):
        slope = (rule(f + h, fc, x_min, x_max) - rule(f - h, fc, x_min, x_max)) / (2.0 * h)
        errors.append(abs(slope) * s)
    step = 1e-6 * rho_fit
    jac = (steady_loading_force(x, fc, rho_fit + step, x_min, x_max)
           - steady_loading_force(x, fc, rho_fit - step, x_min, x_max)) / (2.0 * step)
    norm = float(np.sqrt(np.sum(jac ** 2)))
    errors.append(s / norm if norm > 0.0 else math.nan)
    return tuple(errors)


def _check_resolved(record: Record, period: Period, rho: float, x_noise: float) -> None:
    """Refuse a rho the record cannot resolve: the loading branch must hold
    :data:`RESOLVING_SAMPLES` samples within 3 / rho of Xmin (where the force settles), and
    3 / rho must exceed six times the noise on x; otherwise only a lower bound is known."""
    x, _ = _loading_branch(record, period)
    width = 3.0 / rho
    inside = int(np.count_nonzero(x - x[0] <= width))
    if inside < RESOLVING_SAMPLES or width <= 6.0 * x_noise:
        raise DahlDataError(
            f"{record.source}: rho is not resolved: the force settles within 3/rho = {width:.3g} of Xmin, "
            f"{inside} sample(s) of the loading branch (need {RESOLVING_SAMPLES}, and more than 6 x-noise "
            f"{6.0 * x_noise:.3g}); the record only says rho is large (the fit gave {rho:.6g} 1/rad): "
            f"sample x more finely near the reversals"
        )


def _recommend(estimates: Tuple[float, ...], uncertainty: Dict[str, float], condition: float) -> str:
    """The method with the smallest finite uncertainty (eqs. 39/40 only when well conditioned)."""
    usable = [
        (uncertainty[name], name) for name, value in zip(METHODS, estimates)
        if math.isfinite(value) and math.isfinite(uncertainty[name])
        and not (name in ("rho_xmin", "rho_xmax") and not condition <= ILL_CONDITIONED)
    ]
    return min(usable)[1] if usable else "rho_fit"


def identify_rho(record: Record, fc: float) -> RhoEstimate:
    """Stage 2: ``rho`` from the loading branch of the last full period (eqs. 39, 40, 41 and the
    least-squares fit of eq. 35), given ``Fc`` from stage 1, each with its uncertainty
    (:class:`RhoEstimate`). A noisy x is smoothed first (``dahl_denoise``)."""
    if not fc > 0:
        raise ValueError(f"Fc = {fc}: must be positive")
    smoothed = smooth_displacement(record.x)
    record = Record(record.t, smoothed.x, record.F, record.source)
    periods = full_periods(record, smoothed.residual_noise)
    per_period = [_period_estimates(record, period, fc)[0] for period in periods[1:-1]]
    estimates, points = _period_estimates(record, periods[-1], fc)
    x_min, x_max, f_min, f_max, f_mid = points
    per_period.append(estimates)
    spread = np.array(per_period)
    propagated = _propagated(estimates, points, fc, *_loading_branch(record, periods[-1]))
    uncertainty = {
        name: max(propagated[i], float(np.std(spread[:, i], ddof=1)) if len(per_period) > 1 else 0.0)
        for i, name in enumerate(METHODS)
    }
    rho_fit = estimates[3]
    _check_resolved(record, periods[-1], rho_fit, smoothed.noise)
    x, force = _loading_branch(record, periods[-1])
    x_prev, f_prev = _loading_branch(record, periods[-2])
    drift = float(np.sqrt(np.mean((np.interp(x, x_prev, f_prev) - force) ** 2)) / fc)
    condition = conditioning(rho_fit, x_min, x_max)
    last = periods[-1]
    eq39, eq40, eq41, _ = estimates
    return RhoEstimate(
        eq39, eq40, eq41, rho_fit, x_min, x_max, f_min, f_max, f_mid,
        float(record.t[last.end] - record.t[last.start]), float(record.t[last.start]), len(periods), drift,
        condition, uncertainty, smoothed.noise, _recommend(estimates, uncertainty, condition),
    )


# ---------------------------------------------------------------------------------- both
@dataclass(frozen=True)
class DahlIdentification:
    """Both stages: ``fc`` [N m] and ``rho`` [1/rad] (the recommended estimate, the one with the
    smallest uncertainty: ``hysteresis.method``), with the details of each stage."""

    fc: float
    rho: float
    coulomb: CoulombEstimate
    hysteresis: RhoEstimate

    def to_dict(self) -> Dict[str, object]:
        """Flat JSON-ready summary: ``Fc``, ``rho``, ``rho_method``, ``rho_eq39``, ``rho_eq40``,
        ``rho_eq41``, ``rho_lsq``, their ``uncertainty`` and the stage details (NaN becomes None)."""
        h = self.hysteresis
        def number(value: float) -> object:
            return value if math.isfinite(value) else None
        keys = dict(zip(METHODS, ("rho_eq39", "rho_eq40", "rho_eq41", "rho_lsq")))
        stage2 = {k: number(v) if isinstance(v, float) else v for k, v in asdict(h).items() if k != "uncertainty"}
        return {
            "Fc": self.fc,
            "rho": number(self.rho),
            "rho_method": keys[h.method],
            **{keys[name]: number(getattr(h, name)) for name in METHODS},
            "uncertainty": {keys[name]: number(h.uncertainty[name]) for name in METHODS},
            "stage1": asdict(self.coulomb),
            "stage2": stage2,
        }


def identify(constant_velocity: Record, periodic: Record, tail: float = TAIL) -> DahlIdentification:
    """The paper's two stages: ``Fc`` from ``constant_velocity`` (eq. 20), then ``rho`` from the
    last full period of ``periodic`` (eqs. 39-41 and the least-squares fit of eq. 35; the one
    with the smallest uncertainty is ``rho``)."""
    coulomb = identify_fc(constant_velocity, tail)
    hysteresis = identify_rho(periodic, coulomb.fc)
    return DahlIdentification(coulomb.fc, hysteresis.rho, coulomb, hysteresis)


def start_model(
    result: DahlIdentification, actuator: str, friction: str = "dahl+viscous", integrator: str = "bam",
    **values: float,
) -> Model:
    """A model carrying the two-stage estimate (``Fc`` -> ``friction_base`` [N m], ``rho`` ->
    ``dahl_rho`` [1/rad]; other parameters from ``values`` or defaults), to start a CMA-ES
    identification there: ``fit(FitSpec(logs, actuator, (friction,), start=start_model(...)))``."""
    model = new_model(actuator, friction, integrator, (), **values)
    if model.friction.state is None:
        raise ValueError(f"friction model {friction!r} has no Dahl state; use dahl or dahl+viscous")
    return model.with_values(friction_base=result.fc, dahl_rho=result.rho)
