"""A Dynamixel bus as a bench (:class:`actuator_models.bench.Bench`), the ROS-free core of the
bench node's ``dynamixel`` backend: the serial-bus bench
(:class:`~actuator_drivers.serial_bus.bench.SerialBusBench`) over
:class:`~actuator_drivers.dynamixel.driver.DynamixelDriver` (the ``protocol`` setting, 1 or 2). The
emulated bus is the same bench opened on an emulator's pseudo-terminal
(:mod:`actuator_drivers.dynamixel_emulator.bench`).
"""

from __future__ import annotations

from actuator_models.bench import Backend

from actuator_drivers.dynamixel.driver import DynamixelDriver
from actuator_drivers.serial_bus.bench import SerialBusBench
from actuator_drivers.serial_bus.settings import SerialBusSettings


class DynamixelBench(SerialBusBench):
    """Dynamixel servos of one bus, addressed by joint name."""

    DRIVER = DynamixelDriver


#: The ``dynamixel`` backend (listed by the Dynamixel family, :mod:`.family`).
BACKEND = Backend("dynamixel", "Dynamixel servos on a serial bus", DynamixelBench.open, settings=SerialBusSettings)
