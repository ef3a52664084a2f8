"""Figures drawn by a child process while the parent computes.

Importing matplotlib takes about 0.3 s of CPU and drawing the fit report's figure about 0.1 s;
``actuator-models fit`` spends its first part importing optuna and reading the logs on one core. A
:class:`FigureProcess` started before that (forked: the child inherits numpy and the parsed
arguments, nothing is imported twice) imports :mod:`.plots` on the other core meanwhile, then
draws what it is sent (plain data and a path) and hands back the path written or the exception
raised. The parent never imports matplotlib.

Where ``fork`` is not available, :func:`start_figure_process` returns None and the caller draws
in its own process. The child ignores Ctrl-C (the parent decides what to finish) and ends when
the parent closes it or dies (its request pipe then reads end-of-file).
"""

from __future__ import annotations

import multiprocessing
import signal
from multiprocessing.connection import Connection
from typing import Any, Mapping, Optional


def draw_mae_bars(maes: Mapping[str, Mapping[str, float]], out: str, title: str) -> str:
    """:func:`.plots.plot_mae_bars`, imported here so that sending it does not import matplotlib."""
    from .plots import plot_mae_bars

    return str(plot_mae_bars(maes, out, title=title))


#: What the child may be asked to draw, by name.
DRAWINGS = {"mae_bars": draw_mae_bars}


def _serve(requests: Connection, requests_writer: Connection, replies: Connection) -> None:
    """The child: import matplotlib, then answer requests until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests_writer.close()  # only the parent writes: its exit is our end of file
    try:
        from . import plots  # noqa: F401  the import this process exists to do early
    except Exception:  # noqa: BLE001  raised again, to the parent, by the first drawing
        pass

    while True:
        try:
            name, args, kwargs = requests.recv()
        except (EOFError, OSError):
            return
        try:
            replies.send((True, DRAWINGS[name](*args, **kwargs)))
        except Exception as error:  # handed to the parent, which raises it
            replies.send((False, error))


class FigureProcess:
    """A forked child that draws figures; :meth:`draw` sends one, :meth:`result` waits for it.
    Requests are answered in order. Use as a context manager (or call :meth:`close`)."""

    def __init__(self, context: Any) -> None:
        requests, self._requests = context.Pipe(duplex=False)
        self._replies, replies = context.Pipe(duplex=False)
        self._process = context.Process(target=_serve, args=(requests, self._requests, replies), daemon=True,
                                        name="figures")
        self._process.start()
        requests.close()
        replies.close()
        self._pending = 0

    def draw(self, name: str, *args: Any, **kwargs: Any) -> None:
        """Ask for drawing ``name`` (a key of :data:`DRAWINGS`) with these arguments."""
        self._requests.send((name, args, kwargs))
        self._pending += 1

    def result(self) -> Any:
        """What the oldest pending drawing returned; raises what it raised."""
        self._pending -= 1
        try:
            ok, value = self._replies.recv()
        except EOFError:
            raise RuntimeError("the figure process ended before drawing") from None
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """Wait for pending drawings to end, then end the child."""
        self._requests.close()
        while self._pending > 0:
            try:
                self.result()
            except Exception:  # noqa: BLE001  nobody asked for it any more
                pass
        self._process.join()
        self._replies.close()

    def __enter__(self) -> "FigureProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_figure_process() -> Optional[FigureProcess]:
    """A :class:`FigureProcess`, or None where processes cannot be forked."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    return FigureProcess(multiprocessing.get_context("fork"))

