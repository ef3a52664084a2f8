"""Number types of command-line options (argparse ``type=``), shared by every command.

Each refuses what its option cannot mean, a NaN, an infinity, a sign or a value out of range,
with one line naming the value (argparse adds the option: ``argument --dt: 'nan' is not a
positive number``), before any work. A ``float`` type would let ``--dt nan`` or ``--tail 0``
through to a traceback, or to a result computed from it.
"""

from __future__ import annotations

import argparse
import math

from .parameters import temperature_problem


def _number(text: str, kind: str) -> float:
    """``text`` as a finite float, else the ArgumentTypeError saying it is not a ``kind``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not {kind}")
    return value


def finite(text: str) -> float:
    """A finite number of either sign."""
    return _number(text, "a finite number")


def positive(text: str) -> float:
    """A finite number > 0."""
    value = _number(text, "a positive number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def non_negative(text: str) -> float:
    """A finite number >= 0."""
    value = _number(text, "a non-negative number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative number")
    return value


def fraction(text: str) -> float:
    """A number in [0, 1]."""
    value = _number(text, "a fraction in [0, 1]")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in [0, 1]")
    return value


def open_fraction(text: str) -> float:
    """A number in (0, 1), both ends excluded."""
    value = _number(text, "a fraction in (0, 1)")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in (0, 1), ends excluded")
    return value


def count(text: str) -> int:
    """A whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return value


def temperature(text: str) -> float:
    """A servo temperature [degC] (:func:`~.parameters.temperature_problem`)."""
    value = _number(text, "a temperature in degC")
    problem = temperature_problem(value)
    if problem:
        raise argparse.ArgumentTypeError(f"{text!r}: {problem}")
    return value
