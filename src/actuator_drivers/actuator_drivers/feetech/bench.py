"""Feetech STS servos of one bus as a :class:`actuator_models.bench.Bench` (commands by joint
name, samples with the servo model's motor-torque estimate from the PWM voltage, Present Load
times Present Voltage), and the ``feetech`` backend: the serial-bus bench over
:class:`~.driver.FeetechDriver`. The emulated bus is the same bench opened on an emulator's
pseudo-terminal (:mod:`actuator_drivers.feetech_emulator.bench`)."""

from __future__ import annotations

from actuator_models.bench import Backend

from ..serial_bus.bench import SerialBusBench
from ..serial_bus.settings import SerialBusSettings
from .driver import FeetechDriver


class FeetechBench(SerialBusBench):
    """STS servos of one bus, addressed by joint name; :meth:`open` takes ``params`` with
    actuators ``sts3215`` and an STS baud rate (1000000 in ``sts3215_bench.yaml``)."""

    DRIVER = FeetechDriver


#: The ``feetech`` backend (listed by the Feetech family, :mod:`.family`).
BACKEND = Backend("feetech", "Feetech STS servos on a serial bus (feetech-servo-sdk)", FeetechBench.open,
                  "sts3215_bench.yaml", SerialBusSettings)
