"""Friction models M1-M6 (Duclusaud et al., ICRA 2025, sections II-B and III).

Each model computes the friction budget ``tau_fm`` [N m]: the largest resistive torque the
friction can apply, from the joint velocity ``v`` [rad/s], the motor torque ``tm`` [N m] and
the external torque ``te`` [N m]. The applied friction is the stopping torque clipped to
``[-tau_fm, tau_fm]`` (:func:`applied_friction`).

Dynamic friction (the Dahl model, :mod:`.dahl`) adds a torque from a state carried per joint
(:class:`FrictionState`); ``dahl`` has no budget, ``dahl+viscous`` the viscous budget ``Kv |v|``.

All functions are pure and vectorised: inputs are floats or numpy arrays of any broadcastable
shape, parameter values included (a batch of parameter sets is an array per parameter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from .plugins import entry_points
from .dahl import dahl_step, dahl_torque
from .parameters import Parameter, ParamValues, Value

KC = Parameter("friction_base", 0.05, 0.0, 0.2, "N m", "Coulomb friction", "Kc")
KV = Parameter("friction_viscous", 0.1, 0.0, 1.0, "N m s/rad", "viscous friction", "Kv")
KCS = Parameter("friction_stribeck", 0.05, 0.0, 0.2, "N m", "extra static (Stribeck) friction at rest", "Kcs")
VS = Parameter("dtheta_stribeck", 1.0, 0.1, 3.0, "rad/s", "Stribeck velocity", "vs")
ALPHA = Parameter("alpha", 2.0, 0.5, 10.0, "1", "Stribeck curve exponent", "alpha")
KL = Parameter("load_friction_base", 0.05, 0.0, 0.5, "1", "friction per N m of gearbox load |tm - te|", "Kl")
KLS = Parameter("load_friction_stribeck", 0.05, 0.0, 1.0, "1", "extra load-dependent friction at rest", "Kls")
KM = Parameter("load_friction_motor", 0.05, 0.0, 0.5, "1", "friction per N m of motor torque", "Km")
KE = Parameter("load_friction_external", 0.05, 0.0, 0.5, "1", "friction per N m of external torque", "Ke")
KMS = Parameter("load_friction_motor_stribeck", 0.05, 0.0, 1.0, "1", "extra motor-load friction at rest", "Kms")
KES = Parameter("load_friction_external_stribeck", 0.05, 0.0, 1.0, "1", "extra external-load friction at rest", "Kes")
KMQ = Parameter("load_friction_motor_quad", 0.001, 0.0, 0.01, "1/(N m)", "quadratic motor-load friction at rest", "Kmq")
KEQ = Parameter("load_friction_external_quad", 0.001, 0.0, 0.01, "1/(N m)", "quadratic external-load friction at rest", "Keq")
RHO = Parameter("dahl_rho", 1000.0, 10.0, 5000.0, "1/rad", "Dahl rest stiffness over Coulomb level (sigma / Fc)", "rho")


def stribeck(v: Value, p: ParamValues) -> Value:
    """Stribeck factor ``exp(-|v / vs| ** alpha)``, 1 at rest and 0 at speed (dimensionless)."""
    return np.exp(-(np.abs(v / p["dtheta_stribeck"]) ** p["alpha"]))


def m1(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """M1 Coulomb-viscous budget: ``Kv |v| + Kc`` [N m]."""
    return p["friction_viscous"] * np.abs(v) + p["friction_base"]


def m2(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """M2 Stribeck budget: ``M1 + s Kcs`` [N m]."""
    return m1(tm, te, v, p) + stribeck(v, p) * p["friction_stribeck"]


def m3(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """M3 load-dependent budget: ``M1 + Kl |tm - te|`` [N m]."""
    return m1(tm, te, v, p) + p["load_friction_base"] * np.abs(tm - te)


def m4(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """M4 Stribeck load-dependent budget: ``M3 + s (Kcs + Kls |tm - te|)`` [N m]."""
    load = np.abs(tm - te)
    return m3(tm, te, v, p) + stribeck(v, p) * (
        p["friction_stribeck"] + p["load_friction_stribeck"] * load
    )


def _directional(tm: Value, te: Value, v: Value, p: ParamValues, quadratic: Value) -> Value:
    """M5 budget with ``quadratic`` added inside the Stribeck bracket [N m]."""
    base = (
        p["friction_viscous"] * np.abs(v)
        + p["friction_base"]
        + np.abs(p["load_friction_motor"] * tm - p["load_friction_external"] * te)
    )
    at_rest = (
        p["friction_stribeck"]
        + np.abs(p["load_friction_motor_stribeck"] * tm - p["load_friction_external_stribeck"] * te)
        + quadratic
    )
    return base + stribeck(v, p) * at_rest


def m5(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """M5 directional budget: ``Kv|v| + Kc + |Km tm - Ke te| + s (Kcs + |Kms tm - Kes te|)``."""
    return _directional(tm, te, v, p, 0.0)


def quadratic_term(tm: Value, te: Value, p: ParamValues) -> Value:
    """M6's ``Q`` [N m]: ``Keq te^2`` if ``|tm| > |te|`` else ``Kmq tm^2``.

    Applied only when ``tm`` and ``te`` have opposite signs, as in the published models.
    """
    q = np.where(
        np.abs(tm) > np.abs(te),
        p["load_friction_external_quad"] * te**2,
        p["load_friction_motor_quad"] * tm**2,
    )
    return np.where(tm * te < 0, q, 0.0)


def m6(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """M6 quadratic budget: M5 with ``Q`` (:func:`quadratic_term`) in the Stribeck bracket."""
    return _directional(tm, te, v, p, quadratic_term(tm, te, p))


def applied_friction(stopping_torque: Value, budget: Value) -> Value:
    """Friction torque [N m]: ``-sign(tstop) min(|tstop|, budget)``.

    ``stopping_torque`` is the torque that would bring the joint to rest in one step.
    """
    return -np.sign(stopping_torque) * np.minimum(np.abs(stopping_torque), budget)


def viscous(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """Viscous budget alone: ``Kv |v|`` [N m] (the static part of Dahl + viscous)."""
    return p["friction_viscous"] * np.abs(v)


def no_budget(tm: Value, te: Value, v: Value, p: ParamValues) -> Value:
    """No static friction (0 N m): pure Dahl."""
    return np.zeros_like(np.asarray(v, dtype=float))


Budget = Callable[[Value, Value, Value, ParamValues], Value]


@dataclass(frozen=True)
class FrictionState:
    """Friction carried by an internal state per joint (dynamic friction), next to the budget.

    Attributes:
        torque: ``(state, p) -> torque on the joint [N m]``, applied like an external torque.
        advance: ``(state, dq [rad], v0, v1 [rad/s], dt [s], p) -> state`` after a step that
            moved the joint by ``dq`` from velocity ``v0`` to ``v1``.
        initial: state at the start of a simulation.
    """

    torque: Callable[[Value, ParamValues], Value]
    advance: Callable[[Value, Value, Value, Value, Value, ParamValues], Value]
    initial: float = 0.0


#: Dahl friction (García-Baños and Ikhouane, eqs. 9-10): torque ``-Fc w`` with ``Fc`` =
#: ``friction_base`` and ``rho`` = ``dahl_rho``; ``w`` advances by the exact update (eq. 18).
DAHL = FrictionState(
    torque=lambda w, p: dahl_torque(w, p["friction_base"]),
    advance=lambda w, dq, v0, v1, dt, p: dahl_step(w, dq, p["dahl_rho"], v0, v1, dt),
)


@dataclass(frozen=True)
class FrictionModel:
    """A friction model: its name, budget function and parameters, and for dynamic friction
    (Dahl) the state it carries (``state``; None for the static models M1-M6)."""

    name: str
    title: str
    budget: Budget
    parameters: Tuple[Parameter, ...]
    state: Optional[FrictionState] = None

    @property
    def parameter_names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.parameters)


FRICTION_MODELS: Dict[str, FrictionModel] = {
    m.name: m
    for m in (
        FrictionModel("m1", "Coulomb-viscous", m1, (KC, KV)),
        FrictionModel("m2", "Stribeck", m2, (KC, KV, KCS, VS, ALPHA)),
        FrictionModel("m3", "load-dependent", m3, (KC, KV, KL)),
        FrictionModel("m4", "Stribeck load-dependent", m4, (KC, KV, KL, KCS, KLS, VS, ALPHA)),
        FrictionModel("m5", "directional", m5, (KC, KV, KM, KE, KCS, KMS, KES, VS, ALPHA)),
        FrictionModel(
            "m6", "quadratic directional", m6, (KC, KV, KM, KE, KCS, KMS, KES, KMQ, KEQ, VS, ALPHA)
        ),
    )
}
#: Dynamic friction models, looked up by :func:`friction_model` like M1-M6 (kept apart from
#: :data:`FRICTION_MODELS`, whose members are pure budgets).
DYNAMIC_FRICTION_MODELS: Dict[str, FrictionModel] = {
    m.name: m
    for m in (
        FrictionModel("dahl", "Dahl", no_budget, (KC, RHO), DAHL),
        FrictionModel("dahl+viscous", "Dahl + viscous", viscous, (KC, KV, RHO), DAHL),
    )
}


#: Entry-point group of friction models installed by other packages (``"<name> = <module>:<FrictionModel>"``).
ENTRY_POINT_GROUP = "actuator_models.friction_models"
#: Friction models registered beyond the shipped ones (:func:`register_friction_model`, entry points).
REGISTERED_FRICTION_MODELS: Dict[str, FrictionModel] = {}
_LOADED: List[bool] = []


def register_friction_model(model: FrictionModel) -> FrictionModel:
    """Add a friction model to the registry (a new friction model is one module that defines a
    :class:`FrictionModel` and registers it, here or by an entry point of :data:`ENTRY_POINT_GROUP`);
    returns it. Its name must be new."""
    name = model.name.lower()
    shipped = {**FRICTION_MODELS, **DYNAMIC_FRICTION_MODELS}
    if not name or name in shipped or REGISTERED_FRICTION_MODELS.get(name, model) is not model:
        raise ValueError(f"friction model {model.name!r}: the name is empty or already registered")
    REGISTERED_FRICTION_MODELS[name] = model
    return model


def installed_friction_models() -> Dict[str, FrictionModel]:
    """Every friction model by name: M1-M6, the dynamic ones, then the registered ones (installed
    entry points loaded once)."""
    if not _LOADED:
        _LOADED.append(True)
        for point in entry_points(group=ENTRY_POINT_GROUP):
            register_friction_model(point.load())
    return {**FRICTION_MODELS, **DYNAMIC_FRICTION_MODELS, **REGISTERED_FRICTION_MODELS}


def friction_model(name: str) -> FrictionModel:
    """Look a friction model up by name (``"m1"`` .. ``"m6"``, ``"dahl"``, ``"dahl+viscous"``, or a
    registered one)."""
    known = installed_friction_models()
    try:
        return known[name.lower()]
    except KeyError:
        raise ValueError(
            f"unknown friction model {name!r}; expected one of {', '.join(known)}"
        ) from None


#: Where a richer model's parameter takes its value from a simpler model's (M5/M6 split the
#: load terms of M3/M4 into motor and external sides: equal sides give the same budget).
_SAME_AS = {
    "load_friction_motor": "load_friction_base",
    "load_friction_external": "load_friction_base",
    "load_friction_motor_stribeck": "load_friction_stribeck",
    "load_friction_external_stribeck": "load_friction_stribeck",
}
#: Parameters whose term vanishes at 0.
_TERM_AMPLITUDES = {p.name for p in (KCS, KL, KLS, KM, KE, KMS, KES, KMQ, KEQ)}


def embed(values: ParamValues, source: FrictionModel, target: FrictionModel) -> Dict[str, Value]:
    """``target``'s friction parameters reproducing ``source``'s budget where ``target`` nests it
    (M1 in all, M2 and M3 in M4, everything in M5 and M6): shared parameters are copied, split
    load terms take the unsplit value, terms ``source`` lacks are switched off (0), and the
    shape parameters of a switched-off term keep their defaults. Check with :func:`nests`."""
    out: Dict[str, Value] = {}
    for p in target.parameters:
        if p.name in source.parameter_names:
            out[p.name] = values[p.name]
        elif _SAME_AS.get(p.name) in source.parameter_names:
            out[p.name] = values[_SAME_AS[p.name]]
        else:
            out[p.name] = 0.0 if p.name in _TERM_AMPLITUDES else p.default
    return out


def nests(source: FrictionModel, target: FrictionModel, samples: int = 64, seed: int = 0) -> bool:
    """Whether :func:`embed` makes ``target`` reproduce ``source``'s budget (checked on random
    states and parameters within bounds, to 1e-12 N m; a dynamic model only nests the same dynamics)."""
    if source.state is not target.state:
        return False
    rng = np.random.default_rng(seed)
    values = {p.name: rng.uniform(p.lower, p.upper, samples) for p in source.parameters}
    tm, te, v = (rng.uniform(-2.0, 2.0, samples) for _ in range(3))
    expected = source.budget(tm, te, v, values)
    got = target.budget(tm, te, v, embed(values, source, target))
    return bool(np.allclose(expected, got, rtol=0.0, atol=1e-12))
