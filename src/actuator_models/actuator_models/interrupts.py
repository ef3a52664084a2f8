"""Deferring Ctrl-C and SIGTERM while an operation that must not be cut short runs.

A ``KeyboardInterrupt`` raised in the middle of some operations leaves them half done: between
a bus transaction's send and its receive (:mod:`actuator_drivers.safe_stop`), for example.
:class:`InterruptShield` defers the signals inside a ``with`` block and delivers them when it ends:

    shield = InterruptShield()
    with shield:           # reentrant; a no-op outside the main thread (signals go to the main thread)
        operation()        # a Ctrl-C arriving here is raised when the outermost block ends
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Callable, Dict, Optional, Union

#: The signals a shield defers.
DEFERRED = (signal.SIGINT, signal.SIGTERM)

Handler = Union[Callable[[int, Optional[FrameType]], object], int, None]


class InterruptShield:
    """Defers :data:`DEFERRED` signals inside ``with`` blocks (reentrant, main thread only).

    On leaving the outermost block the previous handlers are restored and a signal that came
    meanwhile is delivered to its previous handler (Python's Ctrl-C handler raises
    ``KeyboardInterrupt`` there; a default SIGTERM ends the process as it would have). Two
    signals are delivered once: the first one counts.
    """

    def __init__(self) -> None:
        self._depth = 0
        self._pending: Optional[int] = None
        self._previous: Dict[int, Handler] = {}

    @property
    def pending(self) -> Optional[int]:
        """The signal waiting for the end of the block (None: none)."""
        return self._pending

    def _defer(self, signum: int, frame: Optional[FrameType]) -> None:
        if self._pending is None:
            self._pending = signum

    def __enter__(self) -> "InterruptShield":
        if threading.current_thread() is not threading.main_thread():
            return self
        if self._depth == 0:
            # a handler installed outside Python (None: rclpy's, for one) could not be put back: left alone
            self._previous = {s: h for s in DEFERRED if (h := signal.getsignal(s)) is not None}
            try:
                for s in self._previous:
                    signal.signal(s, self._defer)
            except BaseException:  # a signal delivered while installing: put everything back
                self._restore()
                raise
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        if threading.current_thread() is not threading.main_thread() or self._depth == 0:
            return
        self._depth -= 1
        if self._depth:
            return
        self._restore()
        pending, self._pending = self._pending, None
        if pending is not None:
            _deliver(pending, self._previous.get(pending))

    def _restore(self) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)


def _deliver(signum: int, handler: Handler) -> None:
    """What ``signum`` would have done had it not been deferred."""
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        signal.raise_signal(signum)  # the default action (SIGTERM: the process ends)

