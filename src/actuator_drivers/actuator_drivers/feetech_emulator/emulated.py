"""An emulated STS3215 with the real driver on it, in one call: the serial-bus
:func:`~actuator_drivers.serial_bus_emulator.emulated.emulated_servo` with STS defaults
(lockstep, ``time_scale=None``; the bench: :mod:`.bench`).

    with emulated_feetech("sts3215/m1", mass=0.3, length=0.1) as (emulator, driver):
        state = driver.read()

The driver talks to the emulator through feetech-servo-sdk over the pseudo-terminal, exactly as
to a servo on a USB adapter; ``time_scale=None`` runs them in lockstep (deterministic).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional, Tuple, Union

from actuator_models.model import Model

from ..feetech.driver import FeetechDriver
from ..serial_bus_emulator.emulated import emulated_servo
from .emulator import FeetechEmulator


@contextmanager
def emulated_feetech(model: Union[str, Model], mass: float, length: float, *, actuator: str = "sts3215",
                     time_scale: Optional[float] = None, **options) -> Iterator[Tuple[FeetechEmulator, FeetechDriver]]:
    """An emulated STS servo and an open :class:`FeetechDriver` on its pty; both closed on exit
    (retries 10: the emulator shares the host's CPUs). ``options``: those of
    :func:`~actuator_drivers.serial_bus_emulator.emulated.emulated_servo`."""
    with emulated_servo(actuator, model, mass, length, time_scale=time_scale, **options) as pair:
        yield pair  # type: ignore[misc]
