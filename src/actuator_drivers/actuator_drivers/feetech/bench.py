"""Feetech STS servos of one bus as a :class:`actuator_models.bench.Bench` (commands by joint
name, samples with the servo model's motor-torque estimate from the PWM voltage)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

from actuator_models.model import Model, load_model

from ..clock import Clock, LockstepClock
from ..dynamixel_driver import ServoConfig, ServoState
from ..one_driver_bench import OneDriverBench
from .driver import FeetechDriver


@dataclass(frozen=True)
class FeetechConfig:
    """An STS bench.

    Attributes:
        ids: servo IDs. joints: joint name per servo. actuators: actuator per servo (``sts3215``).
        min_position, max_position: joint limits [rad]. models: servo model per servo (params
        file or library name; ``""``: ``<actuator>/m1``, the published one). port: serial device.
        baudrate [bit/s]. command_timeout: watchdog [s]. latency_ms: USB latency timer [ms].
        retries: extra attempts per transaction.
    """

    ids: Tuple[int, ...] = (1,)
    joints: Tuple[str, ...] = ("pendulum",)
    actuators: Tuple[str, ...] = ("sts3215",)
    min_position: Tuple[float, ...] = (-2.8,)
    max_position: Tuple[float, ...] = (2.8,)
    models: Tuple[str, ...] = ("",)
    port: str = "/dev/ttyACM0"
    baudrate: int = 1_000_000
    command_timeout: Optional[float] = 0.5
    latency_ms: float = 16.0
    retries: int = 3

    def __post_init__(self) -> None:
        n = len(self.ids)
        for name in ("joints", "actuators", "min_position", "max_position", "models"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name}: {len(getattr(self, name))} values for {n} servo IDs")
        object.__setattr__(self, "models", tuple(m or f"{a}/m1" for m, a in zip(self.models, self.actuators)))

    def servos(self) -> List[ServoConfig]:
        return [ServoConfig(i, a, lo, hi, j) for i, a, lo, hi, j in
                zip(self.ids, self.actuators, self.min_position, self.max_position, self.joints)]


class FeetechBench(OneDriverBench):
    """STS servos of one bus by joint name; ``on_close`` runs after the driver closed (an
    emulator's stop)."""

    def __init__(self, driver: FeetechDriver, models: Sequence[Model],
                 on_close: Optional[Callable[[], Any]] = None) -> None:
        super().__init__(driver, models, [driver.configs[i].joint for i in driver.ids])
        self._on_close = on_close

    @staticmethod
    def applied(state: ServoState) -> float:
        """The PWM voltage [V]: Present Load (duty) times Present Voltage."""
        return state.control

    @classmethod
    def open(cls, config: FeetechConfig, clock: "Clock | LockstepClock | None" = None,
             port: Optional[str] = None, on_close: Optional[Callable[[], Any]] = None) -> "FeetechBench":
        """Open the bus (``port`` overrides the config's: an emulator's pty)."""
        driver = FeetechDriver(port or config.port, config.servos(), baudrate=config.baudrate, retries=config.retries,
                               command_timeout=config.command_timeout, latency_ms=config.latency_ms, clock=clock)
        driver.open()
        return cls(driver, [load_model(m) for m in config.models], on_close)

    def close(self) -> None:
        """Release torque and close the bus (then stop the emulator, if any)."""
        try:
            self.driver.close()
        finally:
            if self._on_close is not None:
                self._on_close()
