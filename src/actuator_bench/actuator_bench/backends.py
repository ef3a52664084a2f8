"""Registry of bench backends: how a bench of each installed actuator family is opened.

A backend (:class:`actuator_models.bench.Backend`) turns :class:`~actuator_models.bench.BenchParams`
(the bench node's parameters, the CLI's options) into an open
:class:`~actuator_models.bench.Bench`. A family lists its backends in its one record
(``Family.backends``, an entry point of group ``actuator_bench.families``,
:mod:`actuator_models.family`); a backend without a family (the MuJoCo simulation) is an entry
point of group ``actuator_bench.backends``, named as the backend::

    entry_points={"actuator_bench.backends": ["mujoco = actuator_sim.bench:BACKEND"]}

The bench node, ``actuator-bench play``, ``record``, ``record-all``, ``emulate`` and the demo open
benches through :func:`installed_backends`, the way ros2_control finds hardware interfaces
through pluginlib.
"""

from __future__ import annotations

import pkgutil
from functools import partial
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

from actuator_models.plugins import entry_points
from actuator_models.bench import Backend, Bench, BenchParams
from actuator_models.family import installed_families

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


def _points() -> List[Tuple[str, str, Callable[[], Any]]]:
    """(name, "module:attribute", loader) of every backend: each installed family's
    (``Family.backends``) and each entry point of :data:`GROUP`."""
    found: List[Tuple[str, str, Callable[[], Any]]] = [
        (name, target, partial(pkgutil.resolve_name, target))
        for family in installed_families().values() for name, target in family.backends.items()]
    found += [(p.name, p.value, p.load) for p in entry_points(group=GROUP)]
    return sorted(found, key=lambda point: point[0])


def installed_backends() -> BackendRegistry:
    """The backends of every installed family (``Family.backends``, :mod:`actuator_models.family`)
    and of every entry point of :data:`GROUP`, by name; the entry points are read again whenever
    ``sys.path`` or one of its folders changed (:mod:`actuator_models.plugins`), so a family
    installed after this process started is found too. A backend whose module cannot be imported
    (its vendor SDK missing) is left out, and naming it says why: one family's missing SDK does not
    stop the others. TypeError names a backend that is not a :class:`Backend` of its own name."""
    found = []
    unavailable: Dict[str, str] = {}
    for name, target, load in _points():
        try:
            backend = load()
        except ImportError as error:
            unavailable[name] = f"{target}: {error}"
            continue
        if not isinstance(backend, Backend) or backend.name != name:
            raise TypeError(f"backend {name} = {target}: expected an actuator_models.bench.Backend named "
                            f"{name!r}, got {backend!r}")
        found.append(backend)
    return BackendRegistry(*found, unavailable=unavailable)
