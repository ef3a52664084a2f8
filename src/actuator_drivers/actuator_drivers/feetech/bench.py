"""Feetech STS servos of one bus as a :class:`actuator_models.bench.Bench` (commands by joint
name, samples with the servo model's motor-torque estimate from the PWM voltage, Present Load
times Present Voltage), and the ``feetech`` backend: the serial-bus bench over
:class:`~.driver.FeetechDriver`. The emulated bus is the same bench opened on an emulator's
pseudo-terminal (:mod:`actuator_drivers.feetech_emulator.bench`)."""

from __future__ import annotations

from typing import Sequence, Union

from actuator_models.bench import Backend, BenchParams, WallClock

from ..common import LockstepClock
from ..serial_bus.bench import SerialBusBench
from ..serial_bus.servo import ServoConfig
from .driver import FeetechDriver


class FeetechBench(SerialBusBench):
    """STS servos of one bus, addressed by joint name; :meth:`open` takes ``params`` with
    actuators ``sts3215`` and an STS baud rate (1000000 in ``sts3215_bench.yaml``)."""

    @staticmethod
    def make_driver(port: str, servos: Sequence[ServoConfig], params: BenchParams, retries: int,
                    clock: Union[WallClock, LockstepClock, None]) -> FeetechDriver:
        """The (unopened) Feetech driver of :meth:`open`."""
        return FeetechDriver(port, servos, baudrate=params.baudrate, retries=retries,
                             command_timeout=params.command_timeout, latency_ms=params.latency_ms, clock=clock)


#: The ``feetech`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("feetech", "Feetech STS servos on a serial bus (feetech-servo-sdk)", FeetechBench.open,
                  "sts3215_bench.yaml")
