"""A Dynamixel bus as a bench (:class:`actuator_models.bench.Bench`), the ROS-free core of the
bench node's ``dynamixel`` backend: the serial-bus bench
(:class:`~actuator_drivers.serial_bus.bench.SerialBusBench`) over
:class:`~actuator_drivers.dynamixel.driver.DynamixelDriver`. The emulated bus is the same bench
opened on an emulator's pseudo-terminal (:mod:`actuator_drivers.dynamixel_emulator.bench`).
"""

from __future__ import annotations

from typing import Sequence, Union

from actuator_models.bench import Backend, BenchParams, WallClock

from actuator_drivers.common import LockstepClock
from actuator_drivers.dynamixel.driver import DynamixelDriver, ServoConfig
from actuator_drivers.serial_bus.bench import SerialBusBench


class DynamixelBench(SerialBusBench):
    """Dynamixel servos of one bus, addressed by joint name (``params.protocol`` 1 or 2)."""

    @staticmethod
    def make_driver(port: str, servos: Sequence[ServoConfig], params: BenchParams, retries: int,
                    clock: Union[WallClock, LockstepClock, None]) -> DynamixelDriver:
        """The (unopened) Dynamixel driver of :meth:`open`."""
        return DynamixelDriver(port, servos, protocol=params.protocol, baudrate=params.baudrate, retries=retries,
                               command_timeout=params.command_timeout, latency_ms=params.latency_ms, clock=clock)


#: The ``dynamixel`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("dynamixel", "Dynamixel servos on a serial bus", DynamixelBench.open)
