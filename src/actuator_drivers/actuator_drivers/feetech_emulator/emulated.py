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
from typing import Iterator, Tuple, Union

from actuator_models.model import Model

from ..feetech.driver import FeetechDriver
from ..serial_bus_emulator.emulated import Emulation, emulated_servo
from .emulator import FeetechEmulator


@contextmanager
def emulated_feetech(model: Union[str, Model], mass: float, length: float, *, actuator: str = "sts3215",
                     arm_mass: float = 0.0, emulation: Emulation = Emulation(time_scale=None),
                     ) -> Iterator[Tuple[FeetechEmulator, FeetechDriver]]:
    """An emulated STS servo and an open :class:`FeetechDriver` on its pty; both closed on exit
    (retries 10: the emulator shares the host's CPUs); ``emulation``:
    :class:`~actuator_drivers.serial_bus_emulator.emulated.Emulation`, lockstep by default (an
    ``Emulation`` given in full says its own ``time_scale``). ValueError for an actuator of
    another family."""
    with emulated_servo(actuator, model, mass, length, arm_mass=arm_mass, emulation=emulation) as (emulator, driver):
        if not (isinstance(emulator, FeetechEmulator) and isinstance(driver, FeetechDriver)):
            raise ValueError(f"actuator {actuator!r} is not a Feetech servo (its driver: {type(driver).__name__})")
        yield emulator, driver
