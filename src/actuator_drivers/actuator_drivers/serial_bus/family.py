"""What a serial-bus family declares beyond any family's record: its SDK's baud rates, its bench
and emulator classes (:class:`SerialFamily`, a :class:`~actuator_models.family.Family`).

A serial-bus family registers its record like every family (entry point of group
``actuator_bench.families``, :mod:`actuator_models.family`)::

    entry_points={"actuator_bench.families": ["myservo = my_package.myservo.family:FAMILY"]}

and names the serial core's backends (:func:`serial_backends`: ``<name>`` on a port,
``<name>_emulator`` on its emulator's pseudo-terminal) or its own. The bench and the emulator are
``"module:Class"`` strings imported when used, so listing the actuators works where a vendor SDK
is missing.
"""

from __future__ import annotations

import pkgutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Tuple, Type

from actuator_models.family import Family, family_of

if TYPE_CHECKING:  # imported when used (the vendor SDK may be missing)
    from actuator_drivers.serial_bus.bench import SerialBusBench
    from actuator_drivers.serial_bus_emulator.emulator import SerialBusEmulator

#: What a serial-bus family's ``emulate`` runs (:mod:`actuator_drivers.serial_bus_emulator.command`).
EMULATE = "actuator_drivers.serial_bus_emulator.command:EMULATE"


@dataclass(frozen=True, kw_only=True)
class SerialFamily(Family):
    """One serial-bus family.

    Attributes (besides :class:`~actuator_models.family.Family`'s):
        baudrates: what its SDK accepts [bit/s]. default_baudrate [bit/s].
        bench: ``"module:Class"`` of its :class:`~actuator_drivers.serial_bus.bench.SerialBusBench`
            (whose ``DRIVER`` opens the bus).
        emulator: ``"module:Class"`` of its
            :class:`~actuator_drivers.serial_bus_emulator.emulator.SerialBusEmulator`.
        protocols: firmware protocols the ``protocol`` setting selects (empty: the family has one).
    """

    baudrates: Tuple[int, ...]
    default_baudrate: int
    bench: str
    emulator: str
    protocols: Tuple[int, ...] = ()
    emulate: str = EMULATE

    def bench_class(self) -> Type[SerialBusBench]:
        """Its bench class (imports the driver and the vendor SDK)."""
        return pkgutil.resolve_name(self.bench)

    def emulator_class(self) -> Type[SerialBusEmulator]:
        """Its emulator class (imports the emulator)."""
        return pkgutil.resolve_name(self.emulator)

    def describe(self, protocol: int) -> str:
        """What the emulator's description line says of the protocol (``" (protocol 2)"`` or nothing)."""
        return f" (protocol {protocol})" if self.protocols else ""


def serial_family_of(actuator: str) -> SerialFamily:
    """The installed serial-bus family that drives ``actuator``; ValueError otherwise."""
    family = family_of(actuator)
    if not isinstance(family, SerialFamily):
        raise ValueError(f"actuator {actuator!r}: the {family.title} family is not a serial-bus family")
    return family
