"""What a serial-bus family offers the command lines, found by registry, not by name.

A family (its subpackages: driver and emulator) describes itself with one :class:`SerialFamily`
record and registers it as an entry point of group :data:`GROUP`, named as the family::

    entry_points={"actuator_drivers.families": ["myservo = my_package.myservo.family:FAMILY"]}

``actuator-bench emulate``, ``record``, ``record-all``, the Table I grids and the demo find a
family by actuator name with :func:`family_of` (through :func:`installed_families`, read afresh at
each call, so a family installed after the process started is found too): its actuators, baud
rates and default baud rate, how to open its driver on a port (its bench class's ``DRIVER``,
:meth:`~actuator_drivers.serial_bus.driver.SerialBusDriver.on_bus`) and how to emulate one servo
(its emulator class's ``one_servo``). The record itself imports neither the vendor SDK nor the
emulator: both are named ``"module:attribute"`` and imported when used, so listing the actuators
works where a vendor SDK is missing. The bench node's backends are the other registry (group
``actuator_bench.backends``, :class:`actuator_models.bench.Backend`).
"""

from __future__ import annotations

import pkgutil
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Dict, Mapping, Optional, Tuple

from actuator_models.model import Model, load_model, published_model

#: The entry-point group of serial-bus families.
GROUP = "actuator_drivers.families"

#: A Table I style grid as plain data: (masses [kg], lengths [m], firmware gains).
GridData = Tuple[Tuple[float, ...], Tuple[float, ...], Tuple[float, ...]]


@dataclass(frozen=True)
class SerialFamily:
    """One serial-bus family, as the command lines see it.

    Attributes:
        name: entry-point name (``dynamixel``). title: for messages (``Dynamixel``).
        actuators: the actuator names it drives (``actuator_models`` names).
        baudrates: what its SDK accepts [bit/s]. default_baudrate [bit/s].
        bench: ``"module:Class"`` of its :class:`~actuator_drivers.serial_bus.bench.SerialBusBench`
            (whose ``DRIVER`` opens the bus).
        emulator: ``"module:Class"`` of its
            :class:`~actuator_drivers.serial_bus_emulator.emulator.SerialBusEmulator`.
        protocols: firmware protocols ``--protocol`` selects (empty: the family has one).
        grids: default Table I style grid per actuator (:data:`GridData`).
        models: the model that estimates the motor torque of a recording, per actuator (a params
            file the family ships, e.g. ``str(Path(__file__).with_name("x_m1.json"))``), for an
            actuator without a published model in the params library; default: the published one.
        demo: the ``actuator-bench demo`` settings of its demo actuator, as the keyword arguments
            of ``actuator_bench.demo_settings.DemoSettings`` (grids as :data:`GridData`;
            ``quick``: the overrides of the quick run); empty: no demo.
        example: an ``emulate`` command line for the help.
    """

    name: str
    title: str
    actuators: Tuple[str, ...]
    baudrates: Tuple[int, ...]
    default_baudrate: int
    bench: str
    emulator: str
    protocols: Tuple[int, ...] = ()
    grids: Mapping[str, GridData] = field(default_factory=dict)
    models: Mapping[str, str] = field(default_factory=dict)
    demo: Mapping[str, Any] = field(default_factory=dict)
    example: str = ""

    def bench_class(self) -> Any:
        """Its bench class (imports the driver and the vendor SDK)."""
        return pkgutil.resolve_name(self.bench)

    def emulator_class(self) -> Any:
        """Its emulator class (imports the emulator)."""
        return pkgutil.resolve_name(self.emulator)

    def describe(self, protocol: int) -> str:
        """What the emulator's description line says of the protocol (``" (protocol 2)"`` or nothing)."""
        return f" (protocol {protocol})" if self.protocols else ""


def installed_families() -> Dict[str, SerialFamily]:
    """The serial-bus families installed (entry points of :data:`GROUP`), by name. TypeError names
    an entry point that is not a :class:`SerialFamily` of its own name."""
    found: Dict[str, SerialFamily] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        family = point.load()
        if not isinstance(family, SerialFamily) or family.name != point.name:
            raise TypeError(f"entry point {point.name} = {point.value} (group {GROUP}): expected an "
                            f"actuator_drivers.serial_bus.family.SerialFamily named {point.name!r}, got {family!r}")
        found[point.name] = family
    return found


def serial_actuators() -> Tuple[str, ...]:
    """Every actuator of an installed serial-bus family."""
    return tuple(a for family in installed_families().values() for a in family.actuators)


def family_of(actuator: str) -> SerialFamily:
    """The installed family that drives ``actuator``; ValueError naming the choices otherwise."""
    families = installed_families().values()
    found: Optional[SerialFamily] = next((f for f in families if actuator in f.actuators), None)
    if found is None:
        raise ValueError(f"actuator {actuator!r}: no installed serial-bus family drives it; expected one of "
                         f"{', '.join(a for f in families for a in f.actuators)}")
    return found


def estimate_model(actuator: str) -> Model:
    """The model of a serial-bus actuator that estimates the motor torque of a recording: the one
    its family declares (``SerialFamily.models``), else the published one of the params library."""
    declared = next((f.models[actuator] for f in installed_families().values() if actuator in f.models), None)
    return load_model(declared or published_model(actuator))
