"""An emulated Dynamixel with the real driver on it, in one call (demo, tests, no hardware): the
serial-bus :func:`~actuator_drivers.serial_bus_emulator.emulated.emulated_servo` with Dynamixel
defaults (real time, ``time_scale=1``).

    with emulated_dynamixel("mx64", "mx64/m6", mass=1.0, length=0.15, protocol=1, time_scale=4) as (emulator, driver):
        state = driver.read()  # or record through it: actuator_bench.recording.record
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Tuple, Union

from actuator_models.model import Model

from actuator_drivers.dynamixel.driver import DynamixelDriver
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
from actuator_drivers.serial_bus_emulator.emulated import emulated_servo


@contextmanager
def emulated_dynamixel(actuator: str, model: Union[str, Model], mass: float, length: float,
                       **options) -> Iterator[Tuple[DynamixelEmulator, DynamixelDriver]]:
    """An emulated Dynamixel of ``actuator`` and an open :class:`DynamixelDriver` on its pty; both
    closed on exit. ``options``: those of
    :func:`~actuator_drivers.serial_bus_emulator.emulated.emulated_servo` (``protocol``, ``time_scale``...)."""
    with emulated_servo(actuator, model, mass, length, **options) as pair:
        yield pair  # type: ignore[misc]
