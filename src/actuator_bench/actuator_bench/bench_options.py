"""The command-line options a bench is opened with (``record``, ``record-all``), for any family:
the fields every bench reads (actuator, id, limits, rate, clock) and the settings the installed
backends declare (each field of a ``Backend.settings`` dataclass is one option, described by its
:func:`actuator_models.bench.option` metadata), then :func:`bench_params` that turns the parsed
options into the :class:`~actuator_models.bench.BenchParams` of one backend."""

from __future__ import annotations

import argparse
from dataclasses import MISSING, fields
from typing import Any, Dict, List, Tuple

from actuator_models.option_numbers import non_negative, positive
from actuator_drivers.common import UsageError
from actuator_models.bench import Backend, BenchParams
from actuator_models.family import family_actuators, installed_families

from .backends import BackendRegistry


def add_bench_options(p: argparse.ArgumentParser, registry: BackendRegistry) -> None:
    """The options of a bench of any installed family (the settings of ``registry``'s backends)."""
    families = installed_families().values()
    p.add_argument("--actuator", required=True, choices=family_actuators(),
                   help="servo model (" + "; ".join(f"{', '.join(f.actuators)}: {f.title}" for f in families) + ")")
    p.add_argument("--id", type=int, default=1, help="servo ID [1]")
    p.add_argument("--time-scale", type=positive, default=1.0,
                   help="bench seconds per wall second; must match an emulator's --time-scale [1]")
    p.add_argument("--rate", type=positive, default=200.0, help="control rate, cycles per bench second [200]")
    p.add_argument("--limits", type=float, nargs=2, default=(-2.8, 2.8), metavar=("MIN", "MAX"),
                   help="joint limits, rad [-2.8 2.8]")
    p.add_argument("--out", "--logdir", dest="logdir", required=True, metavar="DIR",
                   help="folder for the JSON logs (each file is named by bench and time: nothing is overwritten)")
    p.add_argument("--arm-mass", type=non_negative, default=0.0, help="mass of the arm itself, kg [0]")
    p.add_argument("--vin", type=positive, help="supply voltage for the log, V [measured]")
    add_command_timeout(p)
    g = p.add_argument_group("bench settings (each backend reads its own; default: the backend's)")
    for name, (flags, kind, default, help) in _settings_options(registry).items():
        if kind is bool:
            g.add_argument(*flags, dest=name, action=_Setting, nargs=0, const=not default, default=argparse.SUPPRESS,
                           help=help)
        else:
            g.add_argument(*flags, dest=name, action=_Setting, type=kind, default=argparse.SUPPRESS,
                           metavar=name.upper(), help=help)


def add_command_timeout(p: argparse.ArgumentParser) -> None:
    """``--command-timeout``: the bench's watchdog (``BenchParams.command_timeout``) [s]."""
    p.add_argument("--command-timeout", type=positive, default=0.5, metavar="S",
                   help="the bench releases the torque when no command came for this long, s [0.5]")


class _Setting(argparse.Action):
    """Stores a setting and remembers the flag that gave it (``args.setting_flags``), so that a
    flag the chosen backend does not declare is refused (:func:`bench_params`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Any = None) -> None:
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)
        namespace.setting_flags = getattr(namespace, "setting_flags", ()) + (option_string,)


def _settings_options(registry: BackendRegistry) -> Dict[str, Tuple[Tuple[str, ...], type, Any, str]]:
    """``{field: (flags, type, default, help)}`` over the settings of every backend of the installed
    families; a field several declare is one option with all their flags."""
    found: Dict[str, Tuple[Tuple[str, ...], type, Any, str]] = {}
    for backend in _family_backends(registry):
        for f in fields(backend.settings):
            default = f.default if f.default is not MISSING else None
            flags = tuple(f.metadata.get("flags") or (f"--{f.name.replace('_', '-')}",))
            if f.name in found:
                old = found[f.name]
                flags = old[0] + tuple(x for x in flags if x not in old[0])
                found[f.name] = (flags, *old[1:])
            else:
                found[f.name] = (flags, type(default), default, f.metadata.get("help", f.name))
    return found


def _family_backends(registry: BackendRegistry) -> List[Backend]:
    names = [n for family in installed_families().values() for n in family.backends]
    return [registry[n] for n in names if n in registry]


def _flags(backend: Backend) -> List[str]:
    return [x for f in fields(backend.settings) for x in (f.metadata.get("flags") or (f"--{f.name.replace('_', '-')}",))]


def bench_params(args: argparse.Namespace, backend: Backend, **common: Any) -> BenchParams:
    """The parameters of one joint (``--id``, ``--actuator``, ``--limits``) on ``backend``, its
    settings from the parsed options it declares (the others keep its defaults); ``common``:
    the other :class:`~actuator_models.bench.BenchParams` fields (models, pendulum, clock).
    UsageError names a setting option given that ``backend`` does not read."""
    foreign = [flag for flag in getattr(args, "setting_flags", ()) if flag not in _flags(backend)]
    if foreign:
        raise UsageError(f"{foreign[0]}: not a setting of the {backend.name} backend (--actuator {args.actuator}); "
                         f"its settings: {' '.join(_flags(backend)) or 'none'}")
    return BenchParams(joints=(f"joint{args.id}",), actuators=(args.actuator,), ids=(args.id,),
                       min_position=(args.limits[0],), max_position=(args.limits[1],),
                       command_timeout=args.command_timeout, settings=backend.settings_from(vars(args)), **common)
