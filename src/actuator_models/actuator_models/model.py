"""A complete servo model: an actuator, a friction model, parameter values and an integrator.

Params files are JSON, compatible with BAM's: ``{"model": "m1".."m6", "actuator": "<name>",
"<param>": value, ..., "integrator": "bam" | "semi-implicit"}``. Every parameter of the model
is required except ``R`` and ``q_offset`` (:data:`OPTIONAL_PARAMETERS`, omitted by the published
files), which keep their defaults; unknown keys and unphysical values are errors. A missing
``"integrator"`` means ``"bam"`` (the published step). ``"actuator"`` may name an actuator
description file (relative to the params file); a params file of a user-defined actuator
carries its description in ``"actuator_description"``. A model may carry *additions*
(``latency``, ``backlash``: :mod:`.additions`): a params file carries one when it has its key.

The published models of the paper ship inside the package (``library/``, Apache-2.0, credit in
``library/CREDITS.md``) and load by name: ``load_model("mx64/m6")``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .actuator_file import actuator_from_description
from .additions import carried, check_additions, check_carried, installed_additions, parts
from .actuators import Actuator, actuator, is_description_path
from .friction import FrictionModel, friction_model
from .parameters import Parameter, did_you_mean

INTEGRATORS = ("bam", "semi-implicit")
#: Parameters a params file may omit (the published files do); their defaults are
#: ``R`` = 2.0 ohm (the Parameter default) and ``q_offset`` = 0 rad (no encoder offset); the
#: Feetech STS law's ``error_gain_ratio`` = 1 and ``target_speed_limit`` = 3400 counts/s.
OPTIONAL_PARAMETERS = ("R", "q_offset", "error_gain_ratio", "target_speed_limit")
#: Keys of a params file that are not parameters.
RESERVED_KEYS = ("model", "actuator", "integrator", "actuator_description")


class ParamsError(ValueError):
    """A params file or library name that cannot be used; the message names file and field."""


@dataclass(frozen=True)
class Model:
    """Actuator + friction model + parameter values (floats, by BAM name)."""

    actuator: Actuator
    friction: FrictionModel
    values: Mapping[str, float] = field(default_factory=dict)
    integrator: str = "bam"
    #: additions carried (:data:`.additions.ADDITIONS` names), besides those whose value is given
    additions: Tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.integrator not in INTEGRATORS:
            raise ParamsError(
                f"integrator {self.integrator!r} is not one of {', '.join(INTEGRATORS)}"
            )
        object.__setattr__(self, "additions", check_additions((*self.additions, *carried(self.values)), "additions"))
        merged = {p.name: p.default for p in self.parameters}
        merged.update(self.values)
        object.__setattr__(self, "values", merged)

    @property
    def parameters(self) -> Tuple[Parameter, ...]:
        """All identifiable parameters, with the actuator's bounds applied to friction ones."""
        friction = tuple(
            p.with_bounds(*self.actuator.friction_bounds[p.name])
            if p.name in self.actuator.friction_bounds
            else p
            for p in self.friction.parameters
        )
        return self.actuator.parameters + friction + tuple(p for a in parts(self.additions) for p in a.parameters)

    @property
    def name(self) -> str:
        return f"{self.actuator.name}/{self.friction.name}"

    def with_values(self, **values: float) -> "Model":
        return replace(self, values={**self.values, **values})

    def to_dict(self) -> Dict[str, object]:
        """The params-file dictionary (published format plus ``"integrator"``)."""
        out: Dict[str, object] = {name: float(value) for name, value in self.values.items()}
        out.update(model=self.friction.name, actuator=self.actuator.name, integrator=self.integrator)
        if self.actuator.description:
            out["actuator_description"] = dict(self.actuator.description)
        return out


def new_model(actuator_name: str, friction_name: str, integrator: str = "bam", additions: Sequence[str] = (),
              **values: float) -> Model:
    """A model with default parameter values, e.g. ``new_model("mx64", "m6")``; ``additions``:
    the :mod:`.additions` it carries (at their defaults: none acting until fitted)."""
    return Model(actuator(actuator_name), friction_model(friction_name), values, integrator, tuple(additions))


def _actuator_of(data: Mapping[str, object], source: str, base_dir: Optional[Path]) -> Actuator:
    """The params' actuator: embedded description, registry name or description file path
    (relative to the params file's folder)."""
    name = str(data["actuator"])
    if "actuator_description" in data:
        act = actuator_from_description(data["actuator_description"], f"{source}: field 'actuator_description'")
        if act.name != name:
            raise ParamsError(f"{source}: field 'actuator' is {name!r} but its description is named {act.name!r}")
        return act
    if base_dir is not None and is_description_path(name) and not Path(name).is_absolute():
        name = str(base_dir / name)
    return actuator(name)


def model_from_dict(
    data: Mapping[str, object],
    source: str = "<dict>",
    notes: Optional[Callable[[str], None]] = None,
    base_dir: Optional[Path] = None,
) -> Model:
    """Build a model from a params dictionary, validated against the model's parameter set.

    Every parameter of the model is required except :data:`OPTIONAL_PARAMETERS` (``R`` and
    ``q_offset``, which the published files omit): their default is used and reported through
    ``notes`` (one line each). A missing or unknown key, a non-number and a value outside the
    parameter's physical domain (negative friction, non-positive inertia...) raise
    :class:`ParamsError` naming ``source``, the key and the value.
    """
    if not isinstance(data, Mapping):
        raise ParamsError(f"{source}: expected a JSON object, got {type(data).__name__}")
    for key in ("model", "actuator"):
        if not isinstance(data.get(key), str):
            raise ParamsError(f"{source}: field {key!r} is missing or not a string")
    try:
        act = _actuator_of(data, source, base_dir)
        fric = friction_model(str(data["model"]))
        check_carried(carried(data), act, "additions")
    except ValueError as error:
        raise ParamsError(f"{source}: {error}") from None
    integrator = data.get("integrator", "bam")
    if integrator not in INTEGRATORS:
        raise ParamsError(
            f"{source}: field 'integrator' is {integrator!r}, expected one of {', '.join(INTEGRATORS)}"
        )
    parameters = Model(act, fric, additions=carried(data)).parameters
    optional = [n for a in installed_additions().values() if a.name not in carried(data) for n in a.parameter_names]
    additions = {n for a in installed_additions().values() for n in a.parameter_names}
    known = [p.name for p in parameters] + optional
    for key in data:
        if key not in known and key not in RESERVED_KEYS:
            raise ParamsError(
                f"{source}: unknown key {key!r} (value {data[key]!r}) for model {act.name}/{fric.name}"
                f"{did_you_mean(str(key), known)}; its parameters are {', '.join(known)}"
            )
    for part in installed_additions().values():
        absent = [q for q in part.parameters if q.name not in data]
        if absent and len(absent) < len(part.parameters):  # half an addition would be silently dropped
            raise ParamsError(
                f"{source}: key {absent[0].name!r} ({absent[0].meaning}, {absent[0].unit}) is missing; the "
                f"{part.name} addition its other keys carry needs {', '.join(part.parameter_names)}"
            )
    values: Dict[str, float] = {}
    for p in parameters:
        if p.name not in data:
            if p.name not in OPTIONAL_PARAMETERS:
                raise ParamsError(
                    f"{source}: key {p.name!r} ({p.meaning}, {p.unit}) is missing; model "
                    f"{act.name}/{fric.name} needs {', '.join(n for n in known if n not in OPTIONAL_PARAMETERS and n not in additions)}"
                )
            if notes is not None:
                notes(f"note: {source}: {p.name} not set, using the default {p.default:g} {p.unit} ({p.meaning})")
            continue
        value = data[p.name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ParamsError(f"{source}: key {p.name!r} is {value!r}, expected a finite number")
        problem = p.problem(float(value))
        if problem:
            raise ParamsError(f"{source}: key {p.name!r} is {value!r}: {problem}")
        values[p.name] = float(value)
    return Model(act, fric, values, str(integrator), carried(data))


def library_names() -> List[str]:
    """Names of the shipped published models, e.g. ``["erob80_100/m1", ..., "xl330/m6"]``."""
    root = resources.files(__package__) / "library"
    return sorted(
        f"{folder.name}/{item.name[:-5]}"
        for folder in root.iterdir()
        if folder.is_dir()
        for item in folder.iterdir()
        if item.name.endswith(".json")
    )


def published_model(actuator_name: str) -> str:
    """The library name of an actuator's best published model: ``<actuator>/m6``, or
    ``<actuator>/m1`` where only M1 is published (``sts3215``)."""
    best = f"{actuator_name}/m6"
    return best if best in library_names() else f"{actuator_name}/m1"


def load_model(name_or_path: Union[str, Path], notes: Optional[Callable[[str], None]] = None) -> Model:
    """Load a params file by path, or a shipped published model by name (``"xl330/m6"``);
    ``notes`` receives one line per optional parameter left at its default."""
    path = Path(name_or_path)
    if path.suffix == ".json" or path.exists():
        if not path.is_file():
            raise ParamsError(f"{path}: no such params file")
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as error:  # found by tests/test_fuzz_readers.py
            raise ParamsError(f"{path}: cannot read as a text (UTF-8) params file ({error})") from None
        source = str(path)
        base_dir: Optional[Path] = path.parent
    else:
        name = str(name_or_path).lower()
        if name not in library_names():
            raise ParamsError(
                f"{name_or_path!r} is neither a params file nor a library model "
                f"(library: {', '.join(library_names())})"
            )
        text = (resources.files(__package__) / "library" / f"{name}.json").read_text()
        source = f"library:{name}"
        base_dir = None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParamsError(f"{source}: not valid JSON ({error})") from None
    return model_from_dict(data, source, notes, base_dir)


def save_model(model: Model, path: Union[str, Path]) -> None:
    """Write a params file (published format plus ``"integrator"``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(model.to_dict(), indent=4) + "\n")
