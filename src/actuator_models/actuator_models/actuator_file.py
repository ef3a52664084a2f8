"""Actuator description files: a servo the package does not ship, without editing source.

A description is YAML or JSON (JSON is YAML too). Every number carries its unit, which is
checked against the unit the control law expects::

    name: xm430                          # what logs call the motor ("motor" field)
    title: Dynamixel XM430-W350          # optional, for figures
    control_law: voltage                 # voltage (Dynamixel PWM law, paper eq. 12-13),
                                         # current (generic current law, paper eq. 14-15)
                                         # or sts (Feetech STS: target-speed limit, then the voltage law)
    constants:
      error_gain: {value: 0.0115, unit: 1/rad}   # voltage law: duty per rad per unit of kp
      max_duty:   {value: 1.0, unit: "1"}        # voltage law: largest duty cycle
      # max_current: {value: 2.0, unit: A}       # current law: current limit
      vin:        {value: 12.0, unit: V}         # supply voltage when a log does not give one
    parameters:                          # the actuator's own parameters: default and search bounds
      kt:       {default: 1.8,   bounds: [0.5, 4.0],    unit: N m/A}
      R:        {default: 5.2,   bounds: [2.0, 10.0],   unit: ohm}
      armature: {default: 0.008, bounds: [0.001, 0.05], unit: kg m^2}
      q_offset: {default: 0.0,   bounds: [-0.1, 0.1],   unit: rad}   # optional
      # sts law only, optional (default 1 in [0.1, 10], and 5.2155 rad/s = 3400 counts/s in 0.1-10x):
      # error_gain_ratio:   {default: 1.0, bounds: [0.1, 10.0], unit: "1"}
      # target_speed_limit: {default: 5.2155, bounds: [0.52, 52.2], unit: rad/s}
    friction_bounds:                     # optional: search bounds of friction parameters
      friction_base: {bounds: [0.0, 0.3], unit: N m}

Every problem raises :class:`ActuatorFileError` naming the file and the field.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Dict, Mapping, Tuple, Union

from .actuators import (
    ARMATURE, ERROR_GAIN_RATIO, KT, Q_OFFSET, R, TARGET_SPEED_LIMIT, Actuator, CurrentControlled, SpeedLimitedVoltage,
    VoltageControlled,
)
from .friction import installed_friction_models
from .parameters import Parameter, did_you_mean

#: Control laws a description may name, with their constants and the unit of each.
LAWS: Dict[str, Dict[str, str]] = {
    "voltage": {"error_gain": "1/rad", "max_duty": "1", "vin": "V"},
    "current": {"max_current": "A", "vin": "V"},
    "sts": {"error_gain": "1/rad", "max_duty": "1", "vin": "V"},
}
#: Parameters of the sts law only (optional in a description: their defaults apply).
STS_PARAMETERS: Dict[str, Parameter] = {p.name: p for p in (ERROR_GAIN_RATIO, TARGET_SPEED_LIMIT)}
#: The actuator's own parameters: required ones and optional ones.
OWN_PARAMETERS: Dict[str, Parameter] = {p.name: p for p in (KT, R, ARMATURE, Q_OFFSET)}
REQUIRED_PARAMETERS = ("kt", "R", "armature")
TOP_LEVEL = ("name", "title", "control_law", "constants", "parameters", "friction_bounds")


class ActuatorFileError(ValueError):
    """An actuator description that cannot be used; the message names file and field."""


def _unit_key(unit: str) -> str:
    """Units compared without spaces or multiplication signs: ``"N m/A"`` == ``"N·m/A"``."""
    return "".join(ch for ch in unit if ch not in " ·*.")


def _mapping(data: object, where: str) -> Mapping[str, object]:
    if not isinstance(data, Mapping):
        raise ActuatorFileError(f"{where}: expected a mapping, got {type(data).__name__} {data!r}")
    return data


def _no_unknown(data: Mapping[str, object], known: Tuple[str, ...], where: str) -> None:
    for key in data:
        if key not in known:
            raise ActuatorFileError(
                f"{where}: unknown field {key!r}{did_you_mean(str(key), known)}; expected {', '.join(known)}"
            )


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ActuatorFileError(f"{where}: {value!r} is not a finite number")
    return float(value)


def _with_unit(entry: object, expected: str, where: str, keys: Tuple[str, ...]) -> Mapping[str, object]:
    """An entry ``{..., unit: U}``; ``U`` must be ``expected``."""
    entry = _mapping(entry, where)
    _no_unknown(entry, keys + ("unit",), where)
    unit = entry.get("unit")
    if not isinstance(unit, str):
        raise ActuatorFileError(f"{where}: field 'unit' is missing (expected {expected!r})")
    if _unit_key(unit) != _unit_key(expected):
        raise ActuatorFileError(f"{where}: unit {unit!r}, expected {expected!r}")
    return entry


def _bounds(entry: Mapping[str, object], where: str) -> Tuple[float, float]:
    pair = entry.get("bounds")
    if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
        raise ActuatorFileError(f"{where}: field 'bounds': expected [lower, upper], got {pair!r}")
    lower, upper = (_number(v, f"{where}: field 'bounds'") for v in pair)
    if not lower < upper:
        raise ActuatorFileError(f"{where}: field 'bounds': lower {lower:g} is not below upper {upper:g}")
    return lower, upper


def _parameter(base: Parameter, entry: object, where: str) -> Parameter:
    entry = _with_unit(entry, base.unit, where, ("default", "bounds"))
    lower, upper = _bounds(entry, where)
    default = _number(entry.get("default"), f"{where}: field 'default'")
    if not lower <= default <= upper:
        raise ActuatorFileError(f"{where}: default {default:g} is outside bounds [{lower:g}, {upper:g}]")
    for label, value in (("default", default), ("lower bound", lower)):
        problem = base.problem(value)
        if problem:
            raise ActuatorFileError(f"{where}: {label} {value:g}: {problem}")
    return replace(base, default=default, lower=lower, upper=upper)


def actuator_from_description(data: object, source: str = "<description>") -> Actuator:
    """Build an :class:`Actuator` from a decoded description (see the module docstring)."""
    data = _mapping(data, source)
    _no_unknown(data, TOP_LEVEL, source)
    name = data.get("name")
    if not (isinstance(name, str) and name.strip()):
        raise ActuatorFileError(f"{source}: field 'name' is missing or not a string")
    law = data.get("control_law")
    if law not in LAWS:
        raise ActuatorFileError(f"{source}: field 'control_law' is {law!r}, expected one of {', '.join(LAWS)}")
    units = LAWS[str(law)]
    constants = _mapping(data.get("constants", {}), f"{source}: field 'constants'")
    _no_unknown(constants, tuple(units), f"{source}: field 'constants' ({law} law)")
    values: Dict[str, float] = {}
    for key, unit in units.items():
        where = f"{source}: constants.{key}"
        if key not in constants:
            raise ActuatorFileError(f"{where}: missing (the {law} law needs {', '.join(units)})")
        value = _number(_with_unit(constants[key], unit, where, ("value",)).get("value"), f"{where}: field 'value'")
        if value <= 0:
            raise ActuatorFileError(f"{where}: {value:g} is not positive")
        values[key] = value
    params = _mapping(data.get("parameters"), f"{source}: field 'parameters'")
    allowed = {**OWN_PARAMETERS, **(STS_PARAMETERS if law == "sts" else {})}
    _no_unknown(params, tuple(allowed), f"{source}: field 'parameters' ({law} law)")
    for key in REQUIRED_PARAMETERS:
        if key not in params:
            raise ActuatorFileError(f"{source}: parameters.{key}: missing (required: {', '.join(REQUIRED_PARAMETERS)})")
    own = tuple(
        _parameter(base, params[key], f"{source}: parameters.{key}") for key, base in OWN_PARAMETERS.items() if key in params
    )
    if law == "sts":
        own += tuple(_parameter(base, params[key], f"{source}: parameters.{key}") if key in params else base
                     for key, base in STS_PARAMETERS.items())
    models = tuple(installed_friction_models().values())
    friction = {p.name: p for m in models for p in m.parameters}
    bounds_data = _mapping(data.get("friction_bounds", {}), f"{source}: field 'friction_bounds'")
    _no_unknown(bounds_data, tuple(sorted(friction)), f"{source}: field 'friction_bounds'")
    friction_bounds = {}
    for key, entry in bounds_data.items():
        where = f"{source}: friction_bounds.{key}"
        lower, upper = _bounds(_with_unit(entry, friction[key].unit, where, ("bounds",)), where)
        problem = friction[key].problem(lower)
        if problem:
            raise ActuatorFileError(f"{where}: lower bound {lower:g}: {problem}")
        friction_bounds[str(key)] = (lower, upper)
    title = str(data.get("title") or name)
    common = dict(friction_bounds=friction_bounds, default_vin=values["vin"], description=dict(data))
    if law == "sts":
        return SpeedLimitedVoltage(name.strip(), title, own, error_gain=values["error_gain"],
                                   max_duty=values["max_duty"], **common)  # type: ignore[arg-type]
    if law == "voltage":
        return VoltageControlled(name.strip(), title, own, error_gain=values["error_gain"],
                                 max_duty=values["max_duty"], **common)  # type: ignore[arg-type]
    return CurrentControlled(name.strip(), title, own, max_current=values["max_current"], **common)  # type: ignore[arg-type]


def read_actuator_file(path: Union[str, Path]) -> Actuator:
    """Read an actuator description file (YAML or JSON)."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise ActuatorFileError(f"{path}: cannot read actuator description ({error.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ActuatorFileError(f"{path}: not valid YAML/JSON ({error})".replace("\n", " ")) from None
    return actuator_from_description(data, str(path))
