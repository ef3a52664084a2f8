"""Feetech STS servos of one bus as a :class:`actuator_models.bench.Bench` (commands by joint
name, samples with the servo model's motor-torque estimate from the PWM voltage), and the
``feetech`` backend. The emulated bus is the same bench opened on an emulator's pseudo-terminal
(:mod:`actuator_drivers.feetech_emulator.bench`)."""

from __future__ import annotations

from typing import Optional, Sequence, Union

from actuator_models.bench import Backend, BenchParams, WallClock
from actuator_models.model import Model, load_model

from ..common import LockstepClock, OneDriverBench
from ..dynamixel.driver import ServoConfig, ServoState
from .driver import FeetechDriver


class FeetechBench(OneDriverBench):
    """STS servos of one bus, addressed by joint name.

    Args:
        driver: an open driver. models: servo model per servo (same order as the driver's IDs).
    """

    def __init__(self, driver: FeetechDriver, models: Sequence[Model]) -> None:
        super().__init__(driver, models, [driver.configs[i].joint for i in driver.ids])

    @staticmethod
    def applied(state: ServoState) -> float:
        """The PWM voltage [V]: Present Load (duty) times Present Voltage."""
        return state.control

    @classmethod
    def open(cls, params: BenchParams, port: Optional[str] = None,
             clock: Union[WallClock, LockstepClock, None] = None, retries: int = 3) -> "FeetechBench":
        """Open the bus of ``params`` (ids, joints, actuators ``sts3215``, limits, models, baud rate:
        1000000 in ``sts3215_bench.yaml``) on ``port`` (default ``params.port``: an
        emulator's pty) with the bench clock ``clock`` (default wall time)."""
        models = [load_model(m) for m in params.models]
        servos = [ServoConfig(i, a, lo, hi, j) for i, a, lo, hi, j in
                  zip(params.ids, params.actuators, params.min_position, params.max_position, params.joints)]
        driver = FeetechDriver(port or params.port, servos, baudrate=params.baudrate, retries=retries,
                               command_timeout=params.command_timeout, latency_ms=params.latency_ms, clock=clock)
        driver.open()
        return cls(driver, models)


#: The ``feetech`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("feetech", "Feetech STS servos on a serial bus (feetech-servo-sdk)", FeetechBench.open,
                  "sts3215_bench.yaml")
