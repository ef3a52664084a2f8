"""What the ``actuator-sim`` commands share: params sources loaded with their notes, the motor
check of a log against them, and the figure titles naming actuators and sources."""

from __future__ import annotations

import json
import re
import sys
from typing import List, Optional, Sequence, TextIO

from actuator_models.logs import Log, check_motor
from actuator_models.model import Model, load_model


def load_params(sources: Sequence[str]) -> List[Model]:
    """Load params; once all are valid, print the defaults they use (one note each)."""
    notes: List[str] = []
    models = [load_model(source, notes.append) for source in sources]
    for text in notes:
        print(text, file=sys.stderr)
    return models


def check_params_motor(log: Log, models: Sequence[Model], sources: Sequence[str], allow: bool) -> None:
    for model, source in zip(models, sources):
        check_motor([log], model.actuator.name, f"params {source}", allow)


def models_title(models: Sequence[Model], labels: Sequence[str]) -> str:
    """``"Dynamixel MX-64 - models: mx64/m1, m6.json"``: actuators and sources of a figure."""
    actuators = ", ".join(dict.fromkeys(m.actuator.title for m in models))
    return f"{actuators} - models: {', '.join(labels)}"


def resolve_params(text: str, actuator: str) -> Model:
    """A params file / library name, or ``m1``..``m6`` meaning the published model of ``actuator``."""
    if re.fullmatch(r"m[1-6]", text.lower()):
        return load_model(f"{actuator}/{text.lower()}")
    return load_model(text)


def print_json(data: object, stream: Optional[TextIO] = None) -> None:
    print(json.dumps(data), file=stream)
