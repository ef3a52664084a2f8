"""Servos of one serial bus as a bench (:class:`actuator_models.bench.Bench`), the ROS-free core
of a serial-bus family's bench-node backend.

:class:`SerialBusBench` wraps a family's driver
(:class:`~actuator_drivers.serial_bus.driver.SerialBusDriver`): commands by joint name, samples as
:class:`~actuator_models.bench.JointSample` with the motor torque estimated by the servo model
(``kt V / R - kt^2 v / R`` for the voltage-controlled servos, ``V`` the PWM voltage). A family
subclasses it naming its driver class (:attr:`SerialBusBench.DRIVER`); its emulated bus is the same bench opened
on an emulator's pseudo-terminal.

Safety is the driver's: goals outside the joint limits are refused, torque is released on
faults, on :meth:`~actuator_drivers.common.OneDriverBench.close` and by its watchdog when
commands stop for ``command_timeout`` seconds.
"""

from __future__ import annotations

from typing import ClassVar, Optional, Sequence, Type, TypeVar, Union

from actuator_models.bench import BenchParams, WallClock
from actuator_models.family import estimate_model
from actuator_models.model import Model, load_model

from actuator_drivers.common import LockstepClock, OneDriverBench
from actuator_drivers.serial_bus.driver import SerialBusDriver
from actuator_drivers.serial_bus.family import serial_family_of
from actuator_drivers.serial_bus.servo import ServoConfig, ServoState
from actuator_drivers.serial_bus.settings import SerialBusSettings

#: a family's bench class (what :meth:`SerialBusBench.of` and :meth:`SerialBusBench.open` return)
B = TypeVar("B", bound="SerialBusBench")


class SerialBusBench(OneDriverBench):
    """Servos of one bus, addressed by joint name.

    Args:
        driver: an open driver. models: servo model per servo (same order as the driver's IDs).
    """

    #: the family's driver class
    DRIVER: ClassVar[Type[SerialBusDriver]]

    def __init__(self, driver: SerialBusDriver, models: Sequence[Model]) -> None:
        super().__init__(driver, models, [driver.configs[i].joint for i in driver.ids])

    @classmethod
    def of(cls: Type[B], driver: SerialBusDriver, actuator: str) -> B:
        """The bench of an open driver whose joints are all ``actuator``; the motor torque of its
        samples is estimated by :func:`~actuator_models.family.estimate_model`."""
        return cls(driver, [estimate_model(actuator)] * len(driver.ids))

    @staticmethod
    def applied(state: ServoState) -> float:
        """The PWM voltage [V] (voltage-controlled servos)."""
        return state.control

    @classmethod
    def open(cls: Type[B], params: BenchParams, port: Optional[str] = None,
             clock: Union[WallClock, LockstepClock, None] = None) -> B:
        """Open the bus of ``params`` (ids, joints, actuators, limits; its
        :class:`~actuator_drivers.serial_bus.settings.SerialBusSettings`: port, baud rate, protocol,
        latency, retries) on ``port`` (default the settings') with the bench clock ``clock``
        (default wall time times ``params.time_scale``)."""
        settings = params.settings_as(SerialBusSettings)
        models = [load_model(m) for m in params.models]
        servos = [ServoConfig(i, a, lo, hi, j) for i, a, lo, hi, j in
                  zip(params.ids, params.actuators, params.min_position, params.max_position, params.joints)]
        baudrate = settings.baudrate or serial_family_of(params.actuators[0]).default_baudrate
        driver = cls.DRIVER.on_bus(port or settings.port, servos, settings.protocol, baudrate, retries=settings.retries,
                                   command_timeout=params.command_timeout, latency_ms=settings.latency_ms,
                                   clock=clock or WallClock(params.time_scale or 1.0))
        driver.open()
        return cls(driver, models)
