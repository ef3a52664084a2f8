"""Errors every servo driver raises (Dynamixel, eRob), so recording and nodes handle them alike."""

from __future__ import annotations


class DriverError(RuntimeError):
    """Base class of every driver error: the bench stopped; torque has been released where possible."""


class LimitError(DriverError, ValueError):
    """A goal outside the joint limits; nothing was sent."""


class CommandTimeout(DriverError):
    """Torque was released because no command arrived within the command timeout."""


class UsageError(ValueError):
    """Command-line options that do not go together (exit status 2, like argparse's own errors)."""
