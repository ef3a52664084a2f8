"""A Dynamixel bus as a bench (:class:`actuator_models.bench.Bench`), the ROS-free core of the
bench node's ``dynamixel`` backend: the serial-bus bench
(:class:`~actuator_drivers.serial_bus.bench.SerialBusBench`) over
:class:`~actuator_drivers.dynamixel.driver.DynamixelDriver` (``params.protocol`` 1 or 2). The
emulated bus is the same bench opened on an emulator's pseudo-terminal
(:mod:`actuator_drivers.dynamixel_emulator.bench`).
"""

from __future__ import annotations

from actuator_models.bench import Backend

from actuator_drivers.dynamixel.driver import DynamixelDriver
from actuator_drivers.serial_bus.bench import SerialBusBench


class DynamixelBench(SerialBusBench):
    """Dynamixel servos of one bus, addressed by joint name."""

    DRIVER = DynamixelDriver


#: The ``dynamixel`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("dynamixel", "Dynamixel servos on a serial bus", DynamixelBench.open)
