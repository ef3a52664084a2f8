"""A virtual Ethernet (veth) pair: the cable between the EtherCAT master and the emulated slaves.

Created through netlink with pyroute2 (no dependency on the ``ip`` binary, errors as exceptions
rather than parsed stderr). Creating links needs root or CAP_NET_ADMIN; opening the raw sockets
of the master and the emulator needs root or CAP_NET_RAW. Without them :class:`VethError` says so.

    with veth_pair() as (master_end, slave_end):   # unique names, removed on exit
        ...
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from typing import Iterator, Optional, Tuple

MAX_NAME = 15  # IFNAMSIZ - 1


class VethError(RuntimeError):
    """A veth pair could not be created or removed (privileges, name clash, no netlink)."""


def _check_name(name: str) -> None:
    if not name or len(name) > MAX_NAME or "/" in name or " " in name:
        raise VethError(f"interface name {name!r}: 1-{MAX_NAME} characters, no '/' or spaces")


def unique_names(prefix: str = "ec") -> Tuple[str, str]:
    """Two fresh interface names, ``<prefix><8 hex>m`` / ``...s`` (master end, slave end)."""
    tag = uuid.uuid4().hex[:8]
    return f"{prefix}{tag}m", f"{prefix}{tag}s"


def _no_privilege(action: str, error: Exception) -> VethError:
    return VethError(f"{action}: {error}. Creating a veth pair needs root or CAP_NET_ADMIN "
                     "(run `sudo actuator-bench veth create ...`); the EtherCAT master and the emulator "
                     "need root or CAP_NET_RAW for their raw sockets")


def exists(name: str) -> bool:
    """Whether a network interface ``name`` exists."""
    return os.path.exists(f"/sys/class/net/{name}")


def create(a: str, b: str) -> None:
    """Create the veth pair ``a``-``b`` and bring both ends up."""
    _check_name(a)
    _check_name(b)
    for name in (a, b):
        if exists(name):
            raise VethError(f"interface {name!r} already exists; pick other names or remove it first")
    try:
        from pyroute2 import IPRoute
    except ImportError as error:  # pragma: no cover - a dependency of this package
        raise VethError(f"pyroute2 is not installed: {error}") from error
    try:
        with IPRoute() as ip:
            ip.link("add", ifname=a, kind="veth", peer=b)
            for name in (a, b):
                ip.link("set", index=ip.link_lookup(ifname=name)[0], state="up")
    except PermissionError as error:
        raise _no_privilege(f"creating veth pair {a}-{b}", error) from error
    except Exception as error:  # netlink errors carry the kernel's reason
        if getattr(error, "code", None) == 1:  # EPERM
            raise _no_privilege(f"creating veth pair {a}-{b}", error) from error
        raise VethError(f"creating veth pair {a}-{b}: {error}") from error
    _disable_ipv6(a)
    _disable_ipv6(b)


def _disable_ipv6(name: str) -> None:
    """Keep the kernel's IPv6 chatter (router solicitations) off the link; best effort."""
    try:
        with open(f"/proc/sys/net/ipv6/conf/{name}/disable_ipv6", "w") as f:
            f.write("1")
    except OSError:
        pass


def remove(name: str) -> None:
    """Remove a veth pair by either end's name."""
    _check_name(name)
    if not exists(name):
        raise VethError(f"interface {name!r} does not exist")
    from pyroute2 import IPRoute
    try:
        with IPRoute() as ip:
            ip.link("del", index=ip.link_lookup(ifname=name)[0])
    except PermissionError as error:
        raise _no_privilege(f"removing {name}", error) from error
    except Exception as error:
        if getattr(error, "code", None) == 1:
            raise _no_privilege(f"removing {name}", error) from error
        raise VethError(f"removing {name}: {error}") from error


@contextmanager
def veth_pair(names: Optional[Tuple[str, str]] = None) -> Iterator[Tuple[str, str]]:
    """A veth pair for the duration of a ``with`` block: ``(master end, slave end)``."""
    a, b = names or unique_names()
    create(a, b)
    try:
        yield a, b
    finally:
        if exists(a):
            remove(a)
