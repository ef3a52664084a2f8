"""Parameter metadata: what a model parameter is called, where it may live, and its unit.

Identification, params files, documentation and plots all iterate over these records, so the
name is the BAM-compatible key used in params JSON files.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, replace
from typing import Mapping, Optional, Sequence, Union

import numpy as np

#: A parameter value: a Python float or a numpy array (for batches of parameter sets).
Value = Union[float, np.ndarray]

#: Physical domains of a parameter (see :attr:`Parameter.domain`).
DOMAINS = ("positive", "non-negative", "share", "real", "temperature")
#: The temperatures [degC] a servo can be at (the ``"temperature"`` domain, and a log's ``temp``
#: column): above absolute zero, below copper's melting point (its winding would be liquid).
TEMPERATURE_RANGE = (-273.15, 1085.0)

#: Parameter values by name. Arrays broadcast against the state of a batched rollout.
ParamValues = Mapping[str, Value]


@dataclass(frozen=True)
class Parameter:
    """One identifiable parameter.

    Attributes:
        name: key in params files (BAM-compatible), e.g. ``"friction_base"``.
        default: value used when a params file does not set it.
        lower: lower bound searched by identification.
        upper: upper bound searched by identification.
        unit: SI unit, e.g. ``"N m"``.
        meaning: one line saying what it is.
        symbol: the paper's symbol, e.g. ``"Kc"``.
        domain: physically meaningful values: ``"positive"`` (> 0), ``"non-negative"`` (>= 0),
            ``"share"`` (0 to 1: a part of a whole), ``"real"`` or ``"temperature"`` [degC]
            (within :data:`TEMPERATURE_RANGE`); when not given, from the sign of ``lower`` at
            definition (a search that starts at 0 is a magnitude, one that starts above 0 a
            strictly positive quantity). :func:`with_bounds` keeps the domain of the definition.
        log: searched on a log scale (bounds spanning decades, such as 0.1-10x a nominal value:
            the centre of the search is then their geometric mean); needs a positive lower bound.
    """

    name: str
    default: float
    lower: float
    upper: float
    unit: str
    meaning: str
    symbol: str = ""
    domain: str = ""
    log: bool = False

    def __post_init__(self) -> None:
        if not self.domain:
            derived = "positive" if self.lower > 0 else "non-negative" if self.lower == 0 else "real"
            object.__setattr__(self, "domain", derived)
        if self.domain not in DOMAINS:
            raise ValueError(f"parameter {self.name!r}: domain {self.domain!r} is not one of {', '.join(DOMAINS)}")
        if self.log and not self.lower > 0:
            raise ValueError(f"parameter {self.name!r}: a log-scale search needs a positive lower bound, got {self.lower}")

    def problem(self, value: float) -> Optional[str]:
        """Why ``value`` is outside the parameter's physical domain, or None when it is inside."""
        if not math.isfinite(value):
            return "expected a finite number"
        if self.domain == "positive" and value <= 0:
            return f"expected > 0 ({self.meaning} must be positive)"
        if self.domain == "non-negative" and value < 0:
            return f"expected >= 0 ({self.meaning} cannot be negative)"
        if self.domain == "share" and not 0 <= value <= 1:
            return f"expected from 0 to 1 ({self.meaning} is a part of the whole)"
        if self.domain == "temperature":
            return temperature_problem(value)
        return None

    def with_bounds(self, lower: float, upper: float) -> "Parameter":
        """Return a copy with other identification bounds."""
        return replace(self, lower=lower, upper=upper)


def temperature_problem(value: float) -> Optional[str]:
    """Why ``value`` [degC] is no temperature a servo can be at, or None when it can."""
    low, high = TEMPERATURE_RANGE
    if low < value < high:
        return None
    return f"expected a temperature in degC above absolute zero ({low:g}) and below copper's melting point ({high:g})"


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``known`` to a misspelt ``name``, else ``""``."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def clip(x: Value, low: Value, high: Value) -> Value:
    """``min(max(x, low), high)`` elementwise: ``np.clip`` without its per-call overhead,
    which matters in the per-step loop of batched rollouts."""
    return np.minimum(np.maximum(x, low), high)
