"""The eRob driver's errors (all :class:`~actuator_drivers.common.DriverError`: the bench stopped,
torque released where possible)."""

from __future__ import annotations

from actuator_drivers.common import DriverError, LimitError


class ErobError(DriverError):
    """Base class of the eRob driver errors."""


class SetupError(ErobError):
    """Bring-up failed (no slaves, wrong identity, mapping refused, state not reached)."""


class IdentityError(SetupError):
    """The line holds other slaves than configured (count, vendor or product)."""


class InterfaceError(SetupError):
    """The network interface cannot be opened (missing, or no raw-socket privilege)."""


class ALStatusError(ErobError):
    """A slave left OP (AL status error, e.g. 0x001A synchronization error)."""


class DriveFaultError(ErobError):
    """A drive reports the CiA 402 fault bit."""


class LostFramesError(ErobError):
    """Too many consecutive cycles without a valid process-data frame."""


class ErobLimitError(ErobError, LimitError):
    """A goal outside the joint limits; nothing was sent."""

