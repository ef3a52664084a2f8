"""A complete servo model: an actuator, a friction model, parameter values and an integrator.

Params files are JSON, compatible with BAM's: ``{"model": "m1".."m6", "actuator": "<name>",
"<param>": value, ..., "integrator": "bam" | "semi-implicit"}``. Missing parameters keep their
defaults; a missing ``"integrator"`` means ``"bam"`` (the published step).

The published models of the paper ship inside the package (``library/``, Apache-2.0, credit in
``library/CREDITS.md``) and load by name: ``load_model("mx64/m6")``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Dict, List, Mapping, Tuple, Union

from .actuators import Actuator, actuator
from .friction import FrictionModel, friction_model
from .parameters import Parameter

INTEGRATORS = ("bam", "semi-implicit")


class ParamsError(ValueError):
    """A params file or library name that cannot be used; the message names file and field."""


@dataclass(frozen=True)
class Model:
    """Actuator + friction model + parameter values (floats, by BAM name)."""

    actuator: Actuator
    friction: FrictionModel
    values: Mapping[str, float] = field(default_factory=dict)
    integrator: str = "bam"

    def __post_init__(self) -> None:
        if self.integrator not in INTEGRATORS:
            raise ParamsError(
                f"integrator {self.integrator!r} is not one of {', '.join(INTEGRATORS)}"
            )
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
        return self.actuator.parameters + friction

    @property
    def name(self) -> str:
        return f"{self.actuator.name}/{self.friction.name}"

    def with_values(self, **values: float) -> "Model":
        return replace(self, values={**self.values, **values})

    def to_dict(self) -> Dict[str, object]:
        """The params-file dictionary (published format plus ``"integrator"``)."""
        out: Dict[str, object] = {name: float(value) for name, value in self.values.items()}
        out.update(model=self.friction.name, actuator=self.actuator.name, integrator=self.integrator)
        return out


def new_model(actuator_name: str, friction_name: str, integrator: str = "bam", **values: float) -> Model:
    """A model with default parameter values, e.g. ``new_model("mx64", "m6")``."""
    return Model(actuator(actuator_name), friction_model(friction_name), values, integrator)


def model_from_dict(data: Mapping[str, object], source: str = "<dict>") -> Model:
    """Build a model from a params dictionary; errors name ``source`` and the field."""
    if not isinstance(data, Mapping):
        raise ParamsError(f"{source}: expected a JSON object, got {type(data).__name__}")
    for key in ("model", "actuator"):
        if not isinstance(data.get(key), str):
            raise ParamsError(f"{source}: field {key!r} is missing or not a string")
    try:
        act = actuator(str(data["actuator"]))
        fric = friction_model(str(data["model"]))
    except ValueError as error:
        raise ParamsError(f"{source}: {error}") from None
    integrator = data.get("integrator", "bam")
    if integrator not in INTEGRATORS:
        raise ParamsError(
            f"{source}: field 'integrator' is {integrator!r}, expected one of {', '.join(INTEGRATORS)}"
        )
    known = {p.name for p in act.parameters} | {p.name for p in fric.parameters}
    values: Dict[str, float] = {}
    for key, value in data.items():
        if key in ("model", "actuator", "integrator"):
            continue
        if key not in known:
            continue  # BAM files may carry parameters of other models; they do not apply.
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ParamsError(f"{source}: field {key!r} is {value!r}, expected a finite number")
        values[key] = float(value)
    return Model(act, fric, values, str(integrator))


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


def load_model(name_or_path: Union[str, Path]) -> Model:
    """Load a params file by path, or a shipped published model by name (``"xl330/m6"``)."""
    path = Path(name_or_path)
    if path.suffix == ".json" or path.exists():
        if not path.is_file():
            raise ParamsError(f"{path}: no such params file")
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as error:  # found by tests/test_fuzz_readers.py
            raise ParamsError(f"{path}: cannot read as a text (UTF-8) params file ({error})") from None
        source = str(path)
    else:
        name = str(name_or_path).lower()
        if name not in library_names():
            raise ParamsError(
                f"{name_or_path!r} is neither a params file nor a library model "
                f"(library: {', '.join(library_names())})"
            )
        text = (resources.files(__package__) / "library" / f"{name}.json").read_text()
        source = f"library:{name}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParamsError(f"{source}: not valid JSON ({error})") from None
    return model_from_dict(data, source)


def save_model(model: Model, path: Union[str, Path]) -> None:
    """Write a params file (published format plus ``"integrator"``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(model.to_dict(), indent=4) + "\n")
