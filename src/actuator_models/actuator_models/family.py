"""The actuator families installed, found by registry, not by name: one record per family.

A family (its driver, its emulator, whatever its bus: serial, EtherCAT, in-process) describes
itself with one :class:`Family` record and registers it as one entry point of group :data:`GROUP`,
named as the family, the way ros2_control finds hardware interfaces through pluginlib::

    entry_points={"actuator_bench.families": ["myservo = my_package.myservo.family:FAMILY"]}

The record is plain data (importing it imports neither the vendor SDK nor the emulator): the
actuators it drives, its bench backends (``"module:attribute"`` of each
:class:`~actuator_models.bench.Backend`, imported when used), which of them opens the real bench
and which an emulated one, its Table I style grids, its demo, and the ``emulate`` command it offers.
``actuator-bench record``, ``record-all``, ``emulate``, ``demo``, ``play`` and the bench node find
a family with :func:`family_of` (by actuator) and open its benches through the backend registry
(``actuator_bench.backends.installed_backends``); no command names a family.
"""

from __future__ import annotations

import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .plugins import entry_points
from .actuators import Actuator
from .model import Model, load_model, published_model

#: The entry-point group of actuator families.
GROUP = "actuator_bench.families"

#: A Table I style grid as plain data: (masses [kg], lengths [m], firmware gains).
GridData = Tuple[Tuple[float, ...], Tuple[float, ...], Tuple[float, ...]]


@dataclass(frozen=True)
class EmulateCommand:
    """What a family's ``actuator-bench emulate`` runs: ``configure(parser)`` adds its own options
    (an argument group), ``run(args)`` returns the exit status, ``actuator(args)`` is the actuator
    its own options name (None: they name none; the command then uses ``--actuator`` or the
    ``--params`` model's)."""

    configure: Callable[[Any], None]
    run: Callable[[Any], int]
    actuator: Callable[[Any], Optional[str]] = lambda args: None


@dataclass(frozen=True)
class Family:
    """One actuator family, as the command lines see it.

    Attributes:
        name: entry-point name (``dynamixel``). title: for messages (``Dynamixel``).
        actuators: the actuator names it drives (``actuator_models`` names).
        backends: ``{name: "module:attribute"}`` of each of its bench backends
            (:class:`~actuator_models.bench.Backend` of that name), imported when used.
        real: the name of the backend that opens real hardware (``record``).
        emulated: the name of the backend that opens its emulator with the real driver on it
            (``record-all --emulate``, the demo; its benches offer ``set_load``); empty: none.
        lockstep: ``record-all --emulate`` runs its emulator in lockstep (``time_scale`` None)
            even without ``--lockstep`` (an emulator whose line the master clocks, such as eRob's).
        descriptions: the description file (:mod:`actuator_models.actuator_file`) of each actuator
            it drives that the actuator library lacks, by name: ``actuator(name)`` finds it.
        grids: default Table I style grid per actuator (:data:`GridData`).
        models: the model that estimates the motor torque of a recording, per actuator (a params
            file the family ships), for an actuator without a published model; default: the published one.
        demo: the ``actuator-bench demo`` settings of its demo actuator, as the keyword arguments
            of ``actuator_bench.demo_settings.DemoSettings`` (grids as :data:`GridData`; ``quick``:
            the overrides of the quick run; ``settings``: its emulated backend's settings); empty: no demo.
        emulate: ``"module:attribute"`` of the :class:`EmulateCommand` its ``actuator-bench
            emulate`` runs; empty: no stand-alone emulator.
        example: an ``emulate`` command line for the help.
        commands: ``"module:attribute"`` of a tuple of its own tools, subcommands of
            ``actuator-bench`` and ``actuator-drivers`` (``actuator_drivers.cli.Command``); empty: none.
    """

    name: str
    title: str
    actuators: Tuple[str, ...]
    backends: Mapping[str, str] = field(default_factory=dict)
    real: str = ""
    emulated: str = ""
    lockstep: bool = False
    descriptions: Mapping[str, str] = field(default_factory=dict)
    grids: Mapping[str, GridData] = field(default_factory=dict)
    models: Mapping[str, str] = field(default_factory=dict)
    demo: Mapping[str, Any] = field(default_factory=dict)
    emulate: str = ""
    example: str = ""
    commands: str = ""

    def emulate_command(self) -> EmulateCommand:
        """What its ``emulate`` runs (imports it); ValueError for a family without one."""
        if not self.emulate:
            raise ValueError(f"the {self.title} family offers no stand-alone emulator")
        return pkgutil.resolve_name(self.emulate)

    def extra_commands(self) -> Tuple[Any, ...]:
        """Its own subcommands (imports them)."""
        return tuple(pkgutil.resolve_name(self.commands)) if self.commands else ()

    def backend(self, emulated: bool) -> str:
        """The name of its emulated or real backend; ValueError if it has none."""
        name = self.emulated if emulated else self.real
        if not name:
            raise ValueError(f"the {self.title} family has no {'emulated' if emulated else 'real'} bench")
        return name


def installed_families() -> Dict[str, Family]:
    """The families installed (entry points of :data:`GROUP`), by name; the entry points are read
    again whenever ``sys.path`` or one of its folders changed (:mod:`.plugins`), so a family
    installed after the process started is found too. TypeError names an entry point that is not
    a :class:`Family` of its own name."""
    found: Dict[str, Family] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        family = point.load()
        if not isinstance(family, Family) or family.name != point.name:
            raise TypeError(f"entry point {point.name} = {point.value} (group {GROUP}): expected an "
                            f"actuator_models.family.Family named {point.name!r}, got {family!r}")
        found[point.name] = family
    return found


def family_actuators() -> Tuple[str, ...]:
    """Every actuator of an installed family."""
    return tuple(a for family in installed_families().values() for a in family.actuators)


def family_of(actuator: str) -> Family:
    """The installed family that drives ``actuator``; ValueError naming the choices otherwise."""
    families = installed_families().values()
    found: Optional[Family] = next((f for f in families if actuator in f.actuators), None)
    if found is None:
        raise ValueError(f"actuator {actuator!r}: no installed family drives it; expected one of "
                         f"{', '.join(a for f in families for a in f.actuators)}")
    return found


def described_actuator(name: str) -> Optional[Actuator]:
    """The actuator ``name`` as an installed family describes it (``Family.descriptions``), None
    if none does."""
    from .actuator_file import read_actuator_file

    path = next((f.descriptions[name] for f in installed_families().values() if name in f.descriptions), None)
    return read_actuator_file(path) if path is not None else None


def estimate_model(actuator: str) -> Model:
    """The model that estimates the motor torque of a recording of ``actuator``: the one its
    family declares (``Family.models``), else the published one of the params library."""
    declared = next((f.models[actuator] for f in installed_families().values() if actuator in f.models), None)
    return load_model(declared or published_model(actuator))
