"""A bench on a bus: its communication counters, their health, and commands routed by bus id.

Bus health is an optional part of the bench contract (:class:`~.bench.Bench`): a bench on a bus
(a Dynamixel or Feetech serial bus, an EtherCAT line) has ``counters`` (:class:`ErrorCounters`)
and ``watchdog_trips``; :func:`bus_health` reads them (None for a bench without a bus, such as a
simulation). :class:`CommandRouter` turns a :class:`~.bench.Command` by joint name into the calls
of a driver that addresses its joints by id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Protocol

from .bench import Bench, Command


@dataclass
class ErrorCounters:
    """Cumulative communication counters of a bus or EtherCAT line.

    Attributes:
        transactions: transactions attempted (a block read of several servos, one process-data
        cycle, counts once). timeouts: attempts that got no reply. corrupt: attempts that got a
        bad one (checksum/CRC, truncated, wrong working counter). other: other failures (port
        busy, transmit failure). retries: attempts repeated after a failure. failures:
        transactions that failed every attempt.
    """

    transactions: int = 0
    timeouts: int = 0
    corrupt: int = 0
    other: int = 0
    retries: int = 0
    failures: int = 0

    @property
    def errors(self) -> int:
        """Failed attempts of every kind."""
        return self.timeouts + self.corrupt + self.other

    def copy(self) -> "ErrorCounters":
        return ErrorCounters(self.transactions, self.timeouts, self.corrupt, self.other, self.retries, self.failures)

    def __sub__(self, before: "ErrorCounters") -> "ErrorCounters":
        return ErrorCounters(self.transactions - before.transactions, self.timeouts - before.timeouts,
                             self.corrupt - before.corrupt, self.other - before.other,
                             self.retries - before.retries, self.failures - before.failures)


@dataclass(frozen=True)
class BusHealth:
    """A snapshot of a bench's bus health: its counters (copied) and watchdog trips."""

    counters: ErrorCounters
    watchdog_trips: int


def bus_health(bench: Bench) -> Optional[BusHealth]:
    """The bus health of ``bench`` now, None for a bench without a bus (the optional members)."""
    counters = getattr(bench, "counters", None)
    if counters is None:
        return None
    return BusHealth(counters.copy(), int(getattr(bench, "watchdog_trips", 0)))


class IdAddressedDriver(Protocol):
    """A driver that addresses its joints by bus id (Dynamixel ids, EtherCAT slave positions)."""

    def set_kp(self, gains: Mapping[int, float]) -> None: ...  # noqa: E704
    def command(self, goals: Mapping[int, float], enable: Optional[Mapping[int, bool]] = None) -> None: ...  # noqa: E704


class CommandRouter:
    """Turns a :class:`Command` by joint name into driver calls by id, sending a gain only when
    it changed since the last one sent.

    Args:
        ids: bus id of each joint name, in the bench's joint order.
    """

    def __init__(self, ids: Mapping[str, int]) -> None:
        self.ids: Dict[str, int] = dict(ids)
        self.sent_kp: Dict[int, float] = {}

    def send(self, driver: IdAddressedDriver, command: Command) -> None:
        """Gains first (those that changed), then goals [rad] and torque enables; a joint this
        bench does not have raises ValueError before anything is sent."""
        unknown = [j for j in command.name if j not in self.ids]
        if unknown:
            raise ValueError(f"command for unknown joint(s) {unknown}; this bench has {list(self.ids)}")
        ids = [self.ids[j] for j in command.name]
        gains = {i: k for i, k in zip(ids, command.kp) if self.sent_kp.get(i) != k}
        if gains:
            driver.set_kp(gains)
            self.sent_kp.update(gains)
        enable = dict(zip(ids, command.torque_enable)) if command.torque_enable else None
        driver.command(dict(zip(ids, command.goal_position)), enable)
