"""The model additions' registry: what real servos do and M1-M6 leave out, as declared parts
(:class:`~.addition.Addition`) carrying optional identifiable parameters.

Any model (M1-M6, Dahl) may carry them; a params file without their key carries none, and the
simulation then runs exactly the published step (bit for bit). Each one's parameters are searched
by CMA-ES and written to params files like the others; ``actuator-models fit --additions`` keeps
one only where cross-validation says it predicts held-out logs better (:mod:`.addition_selection`).

Shipped: ``latency`` (:mod:`.addition_latency`), ``backlash`` (:mod:`.addition_backlash`),
``heating`` (:mod:`.addition_heating`), ``thermal`` (:mod:`.addition_thermal`), ``supply``
(:mod:`.addition_supply`), ``release`` (:mod:`.addition_release`). A new addition is one module defining an
:class:`~.addition.Addition` and registered either by calling :func:`register_addition` or, to be
found by every command, by an entry point of group :data:`ENTRY_POINT_GROUP`
(``"<name> = <module>:<Addition instance>"``).
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .plugins import entry_points
from .actuators import Actuator, gives_duty
from .addition import Addition
from .addition_backlash import BACKLASH_ADDITION, play  # noqa: F401  (play: re-exported)
from .addition_heating import HEATING_ADDITION, HEATING_SPAN, REFERENCE_TEMPERATURE  # noqa: F401
from .addition_latency import LATENCY_ADDITION, delay_steps  # noqa: F401
from .addition_thermal import THERMAL_ADDITION
from .addition_supply import SUPPLY_ADDITION
from .addition_release import RELEASE_ADDITION

#: Entry-point group of additions installed by other packages.
ENTRY_POINT_GROUP = "actuator_models.additions"
#: The additions by name, in the order they are listed everywhere (shipped ones first).
ADDITIONS: Dict[str, Addition] = {a.name: a for a in (LATENCY_ADDITION, BACKLASH_ADDITION, HEATING_ADDITION,
                                                             THERMAL_ADDITION, SUPPLY_ADDITION, RELEASE_ADDITION)}
_LOADED: List[bool] = []


def register_addition(addition: Addition) -> Addition:
    """Add ``addition`` to the registry (its name must be new, and none of its parameters'
    names taken by another addition); returns it."""
    if not addition.name or addition.name in ADDITIONS and ADDITIONS[addition.name] is not addition:
        raise ValueError(f"addition {addition.name!r}: the name is empty or already registered")
    taken = {n for a in ADDITIONS.values() if a is not addition for n in a.parameter_names}
    clash = taken.intersection(addition.parameter_names)
    if clash:
        raise ValueError(f"addition {addition.name!r}: parameter(s) {', '.join(sorted(clash))} already belong to another addition")
    ADDITIONS[addition.name] = addition
    return addition


def installed_additions() -> Dict[str, Addition]:
    """The registry, with the additions of installed entry points loaded (once)."""
    if not _LOADED:
        _LOADED.append(True)
        for point in entry_points(group=ENTRY_POINT_GROUP):
            register_addition(point.load())
    return ADDITIONS


def addition(name: str) -> Addition:
    """An addition by name (installed entry points included)."""
    known = installed_additions()
    if name not in known:
        raise ValueError(f"{name!r} is not an addition; expected one of {', '.join(known)}")
    return known[name]


def check_additions(names: Sequence[str], source: str = "--additions") -> Tuple[str, ...]:
    """Names validated against the registry, in its order; ``source`` names the option or file in
    the error."""
    known = installed_additions()
    for name in names:
        if name not in known:
            raise ValueError(f"{source}: {name!r} is not an addition; expected one of {', '.join(known)}")
    return tuple(name for name in known if name in names)


def check_carried(names: Sequence[str], actuator: Actuator, source: str) -> None:
    """Refuse (``ValueError`` naming ``source``) additions ``names`` that cannot be carried together
    (:attr:`~.addition.Addition.excludes`) or by ``actuator`` (one that reads the duty where the law
    gives none: it would change nothing, and a value fitted for it would mean nothing)."""
    for name in names:
        part = addition(name)
        clash = [other for other in part.excludes if other in names]
        if clash:
            raise ValueError(f"{source}: {name!r} and {clash[0]!r} cannot be carried together; choose one")
        if part.reads_duty and not gives_duty(actuator):
            raise ValueError(f"{source}: {name!r} acts through the duty of a voltage law, and {actuator.name}'s "
                             f"{type(actuator).__name__} law gives none (it would change nothing)")


def carried(values: Mapping[str, object]) -> Tuple[str, ...]:
    """The additions a set of parameter values carries (those whose parameters are all present)."""
    return tuple(a.name for a in installed_additions().values()
                 if a.parameters and all(n in values for n in a.parameter_names))


def carried_values(values: Mapping[str, float]) -> Dict[str, object]:
    """The carried additions' values by addition: its value (one parameter) or its values by
    parameter name (several: ``thermal``)."""
    out: Dict[str, object] = {}
    for name in carried(values):
        names = addition(name).parameter_names
        out[name] = float(values[names[0]]) if len(names) == 1 else {n: float(values[n]) for n in names}
    return out


def parts(names: Sequence[str]) -> Tuple[Addition, ...]:
    """The :class:`~.addition.Addition` objects of ``names``."""
    return tuple(addition(name) for name in names)


def carried_by_default(temperatures: Sequence[Optional[np.ndarray]], actuator: Actuator,
                       enables: Sequence[Optional[np.ndarray]] = ()) -> Tuple[str, ...]:
    """The additions a fit carries from the start unless told otherwise (``fit --carry auto``):
    those whose :meth:`~.addition.Addition.carried_by_default` says so for the training logs'
    recorded temperatures [degC] and torque enable columns (one array or None per log), less those
    that read the duty (``reads_duty``) where ``actuator``'s law gives none (a current law).
    Shipped: ``thermal`` and, for a voltage law, ``supply`` when every log records its temperature
    over :data:`HEATING_SPAN` or more (issue 31; ``heating`` before), with ``release`` when a log
    also releases the torque."""
    inputs = {"temperature": list(temperatures), "enable": list(enables)}
    duty = gives_duty(actuator)
    return tuple(a.name for a in installed_additions().values()
                 if a.carried_by_default(inputs) and (duty or not a.reads_duty))


def settings_from_logs(names: Sequence[str], temperatures: Sequence[Optional[np.ndarray]]) -> Dict[str, float]:
    """The values the additions ``names`` fix from the training logs' recorded temperatures [degC]
    (one array or None per log) instead of searching them (:meth:`~.addition.Addition.settings`:
    ``thermal``'s ambient and start temperatures)."""
    inputs = {"temperature": list(temperatures)}
    return {k: v for name in names for k, v in addition(name).settings(inputs).items()}


def describe(values: Mapping[str, float]) -> str:
    """``"latency 4.2 ms, backlash 0.012 rad, heating 1.5 %/K"`` or ``"none"``."""
    return ", ".join(addition(name).describe(float(values[addition(name).parameter_names[0]]))
                     for name in carried(values)) or "none"
