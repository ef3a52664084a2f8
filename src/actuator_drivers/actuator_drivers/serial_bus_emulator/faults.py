"""What an emulated serial bus injects (:class:`Faults`) and counts (:class:`BusCounters`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class Faults:
    """Faults the emulated bus injects into its status packets.

    Attributes:
        drop: probability [0, 1] that a status packet is not sent.
        corrupt: probability [0, 1] that a status packet's last checksum/CRC byte is altered.
        delay: extra delay [s of bench time] before every status packet.
        dead: never answer anything.
        stalls: ``(start, duration)`` windows [s of bench time]: a status packet due inside a
            window is held back until the window ends (a bus or host hiccup).
        late: READ start addresses, each used once: the status packet of the next READ at that
            address is held back until the next instruction packet arrives, and sent just before
            that instruction's own status packet (a reply later than the driver's receive timeout,
            as from an emulator thread held back by a busy host, whatever the timeouts are).
    """

    drop: float = 0.0
    corrupt: float = 0.0
    delay: float = 0.0
    dead: bool = False
    stalls: Tuple[Tuple[float, float], ...] = ()
    late: Tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for name in ("drop", "corrupt"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"faults.{name} = {value!r}: must be a probability in [0, 1]")
        if not self.delay >= 0:
            raise ValueError(f"faults.delay = {self.delay!r}: must be >= 0 seconds")
        for window in self.stalls:
            if len(window) != 2 or not (window[0] >= 0 and window[1] > 0):
                raise ValueError(f"faults.stalls window {window!r}: expected (start >= 0, duration > 0) seconds")
        for address in self.late:
            if not (isinstance(address, int) and address >= 0):
                raise ValueError(f"faults.late address {address!r}: expected a register address >= 0")

    def hold(self, t: float) -> float:
        """Bench seconds a status packet due at bench time ``t`` waits for its stall window to end."""
        return max([start + duration - t for start, duration in self.stalls if start <= t < start + duration],
                   default=0.0)


@dataclass
class BusCounters:
    """What the emulated bus saw: instruction packets, bad ones, status packets sent/dropped/corrupted."""

    received: int = 0
    bad_crc: int = 0
    sent: int = 0
    dropped: int = 0
    corrupted: int = 0
