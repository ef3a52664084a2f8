"""Registry of bench backends: how a bench of each installed actuator family is opened.

A backend (:class:`actuator_models.bench.Backend`) turns :class:`~actuator_models.bench.BenchParams`
(the bench node's parameters, the CLI's options) into an open
:class:`~actuator_models.bench.Bench`. Families register their backends as entry points of group
``actuator_bench.backends`` (one per backend, named as the backend, pointing at its ``Backend``),
the way ros2_control finds hardware interfaces through pluginlib; the bench node, the recorder
(through the node or :func:`actuator_bench.session.record_run`) and ``actuator-bench play`` list
what is installed with :func:`installed_backends`. A new family is a subpackage plus one entry
point in its ``setup.py``::

    entry_points={"actuator_bench.backends": ["myservo = my_package.myservo.bench:BACKEND"]}

Installed here: the backends the packages' ``setup.py`` list (actuator_drivers: each serial-bus
family and eRob, each with its emulator; actuator_sim: ``mujoco``). A serial-bus family also
registers itself for the command lines (group ``actuator_drivers.families``,
:mod:`actuator_drivers.serial_bus.family`).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Dict, Iterator, Mapping, Optional

from actuator_models.bench import Backend, Bench, BenchParams

#: The entry-point group of bench backends.
GROUP = "actuator_bench.backends"


class BackendRegistry(Mapping[str, Backend]):
    """Backends by name (immutable: :meth:`with_backend` returns an extended copy)."""

    def __init__(self, *backends: Backend, unavailable: Optional[Mapping[str, str]] = None) -> None:
        self._backends = {b.name: b for b in backends}
        self._unavailable = dict(unavailable or {})  # name -> why its entry point did not load

    def __getitem__(self, name: str) -> Backend:
        try:
            return self._backends[name]
        except KeyError:
            if name in self._unavailable:
                raise ValueError(f"backend {name!r} is installed but cannot load: {self._unavailable[name]}") from None
            raise ValueError(f"unknown backend {name!r}; expected one of {', '.join(self._backends)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._backends)

    def __len__(self) -> int:
        return len(self._backends)

    def with_backend(self, backend: Backend) -> "BackendRegistry":
        return BackendRegistry(*self._backends.values(), backend, unavailable=self._unavailable)

    def open(self, name: str, params: BenchParams) -> Bench:
        """Open a bench of backend ``name``."""
        return self[name].open(params)

    def describe(self) -> str:
        """``name (help), ...``: for parameter descriptions and CLI help."""
        return ", ".join(f"{b.name} ({b.help})" for b in self._backends.values())


def installed_backends() -> BackendRegistry:
    """The backends of every installed family (entry points of :data:`GROUP`), by name; read
    afresh at each call, so a family installed after this process started is found too. A family
    whose module cannot be imported (its vendor SDK missing) is left out, and naming it says why:
    one family's missing SDK does not stop the others. TypeError names an entry point that is not
    a :class:`Backend` of its own name."""
    found = []
    unavailable: Dict[str, str] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        try:
            backend = point.load()
        except ImportError as error:
            unavailable[point.name] = f"{point.value}: {error}"
            continue
        if not isinstance(backend, Backend) or backend.name != point.name:
            raise TypeError(f"entry point {point.name} = {point.value} (group {GROUP}): expected an "
                            f"actuator_models.bench.Backend named {point.name!r}, got {backend!r}")
        found.append(backend)
    return BackendRegistry(*found, unavailable=unavailable)
