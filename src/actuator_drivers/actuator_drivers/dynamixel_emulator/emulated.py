"""An emulated Dynamixel with the real driver on it, in one call (demo, tests, no hardware): the
serial-bus :func:`~actuator_drivers.serial_bus_emulator.emulated.emulated_servo` with Dynamixel
defaults (real time, ``time_scale=1``).

    with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=Emulation(protocol=1, time_scale=4)) as (emulator, driver):
        state = driver.read()  # or record through it: actuator_bench.recording.record
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Tuple, Union

from actuator_models.model import Model

from actuator_drivers.dynamixel.driver import DynamixelDriver
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
from actuator_drivers.serial_bus_emulator.emulated import Emulation, emulated_servo


@contextmanager
def emulated_dynamixel(actuator: str, model: Union[str, Model], mass: float, length: float, *, arm_mass: float = 0.0,
                       emulation: Emulation = Emulation()) -> Iterator[Tuple[DynamixelEmulator, DynamixelDriver]]:
    """An emulated Dynamixel of ``actuator`` and an open :class:`DynamixelDriver` on its pty; both
    closed on exit; ``emulation``: :class:`~actuator_drivers.serial_bus_emulator.emulated.Emulation`
    (``protocol``, ``time_scale``...). ValueError for an actuator of another family."""
    with emulated_servo(actuator, model, mass, length, arm_mass=arm_mass, emulation=emulation) as (emulator, driver):
        if not (isinstance(emulator, DynamixelEmulator) and isinstance(driver, DynamixelDriver)):
            raise ValueError(f"actuator {actuator!r} is not a Dynamixel (its driver: {type(driver).__name__})")
        yield emulator, driver
