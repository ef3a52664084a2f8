"""What the demo records and how hard it searches, for each emulated actuator it offers
(:func:`demo_settings`, by ``actuator_models`` name: the ``--actuator`` choices of
``actuator-bench demo``): the demo each installed family declares (``Family.demo``,
:mod:`actuator_models.family`; the MX-64 is the Dynamixel family's, the eRob80:100 the eRob
family's)."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from importlib.resources import files
from pathlib import Path
from typing import Any, Dict, Iterator, Mapping, Optional, Sequence, Tuple

from actuator_models.family import installed_families

from .record_grid import Grid


@dataclass(frozen=True)
class DemoSettings:
    """What the demo records and how hard it searches.

    Attributes:
        reference: the emulated servo's true model. actuator: its actuator name.
        grid: configurations to record. time_scale: emulator speed-up over real time, or None
        (the default) for lockstep: the emulated shaft advances by exactly the bench time the
        driver's cycle lets pass, so the recordings, and every number after them, do not depend on
        how loaded the host is.
        trials: CMA-ES trials per friction model (early stop on convergence).
        paths: 2R end-effector paths compared in MuJoCo (low gain); empty = all of them.
        arm: the MuJoCo 2R arm (``mx``, ``erob``). partner: the actuator of the arm's other joint.
        fitted_joint: which joint carries the emulated actuator (0 shoulder, 1 elbow).
        settings: the family's emulated backend's settings by name (``{"protocol": 1}``: the
        MX-64's firmware protocol; ``{"cycle_time": 0.002}``: an eRob line at 500 Hz).
    """

    reference: str = "mx64/m6"
    actuator: str = "mx64"
    grid: Grid = Grid((0.5, 1.0, 1.5), (0.1, 0.2), (8, 32))
    time_scale: Optional[float] = None
    trials: int = 6000
    paths: Sequence[str] = ()
    arm: str = "mx"
    partner: str = "mx106"
    fitted_joint: int = 1
    settings: Mapping[str, Any] = field(default_factory=dict)


def _declared(data: Mapping[str, Any]) -> Dict[str, Any]:
    """DemoSettings keyword arguments from a family's plain data (grids as tuples, the reference
    as a package resource ``reference_resource = (package, file)``)."""
    out = dict(data)
    if "grid" in out:
        out["grid"] = Grid(*out["grid"])
    if "reference_resource" in out:
        package, name = out.pop("reference_resource")
        out["reference"] = str(files(package) / name)
    return out


def demo_settings() -> Dict[str, Tuple[DemoSettings, DemoSettings]]:
    """``{actuator: (full, quick)}`` of the demo each installed family declares."""
    found = {}
    for family in installed_families().values():
        if family.demo:
            spec = dict(family.demo)
            quick = spec.pop("quick", {})
            full = DemoSettings(**_declared(spec))
            found[full.actuator] = (full, replace(full, **_declared(quick)))
    return found




#: What the demo writes in its output folder (and ``--force`` removes before a new run, in a
#: folder that holds :data:`DEMO_MARKER`: one a demo wrote).
DEMO_OUTPUTS = ("logs", "params", "plots")
DEMO_MARKER = ".actuator-bench-demo"


@contextmanager
def interrupts_raise() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise KeyboardInterrupt, whatever the parent set: a
    shell without job control starts background commands with SIGINT ignored, and Python keeps
    it so. Main thread only (signal handlers live there); elsewhere the block runs unchanged."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def kept(out: Path) -> str:
    """What a demo left in ``out``: raw and processed logs, params files, report, plots."""
    def count(folder: str, pattern: str = "*") -> int:
        return sum(1 for path in (out / folder).glob(pattern) if path.is_file())

    parts = [f"{count('logs/raw', '*.json')} raw log(s) in logs/raw", f"{count('logs/processed', '*.json')} processed "
             f"in logs/processed", f"{count('params', '*.json')} params file(s) in params"]
    if (out / "params" / "report" / "report.md").is_file():
        parts.append("the report in params/report")
    parts.append(f"{count('plots')} plot(s) in plots")
    return ", ".join(parts)
