"""Emulation as a factory: start an emulated STS bus, then open the real driver on it (the bench:
:mod:`.bench`).

    with emulated_feetech("sts3215/m1", mass=0.3, length=0.1, time_scale=None) as (emulator, driver):
        state = driver.read()

The driver talks to the emulator through feetech-servo-sdk over the pseudo-terminal, exactly as
to a servo on a USB adapter; ``time_scale=None`` runs them in lockstep (deterministic).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional, Tuple, Union

from actuator_models.model import Model

from ..feetech.driver import FeetechDriver
from ..serial_bus.servo import ServoConfig
from ..serial_bus_emulator.faults import Faults
from .emulator import FeetechEmulator


@contextmanager
def emulated_feetech(
    model: Union[str, Model],
    mass: float,
    length: float,
    *,
    arm_mass: float = 0.0,
    servo_id: int = 1,
    vin: Optional[float] = None,
    time_scale: Optional[float] = None,
    faults: Faults = Faults(),
    seed: Optional[int] = 0,
    command_timeout: Optional[float] = 0.5,
    retries: int = 10,
    limits: Tuple[float, float] = (-2.8, 2.8),
) -> Iterator[Tuple[FeetechEmulator, FeetechDriver]]:
    """An emulated STS3215 and an open :class:`FeetechDriver` on its pty; both closed on exit
    (retries 10: the emulator shares the host's CPUs)."""
    emulator = FeetechEmulator.single(model, mass, length, arm_mass, servo_id=servo_id, vin=vin,
                                      time_scale=time_scale, faults=faults, seed=seed)
    with emulator:
        driver = FeetechDriver(emulator.port, ServoConfig(servo_id, "sts3215", *limits), retries=retries,
                               command_timeout=command_timeout, clock=emulator.clock)
        with driver:
            yield emulator, driver

