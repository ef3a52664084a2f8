"""A Dynamixel bus as a bench (ROS-free core of the driver node).

Wraps :class:`actuator_drivers.dynamixel_driver.DynamixelDriver`: commands by joint name,
samples as :class:`~actuator_bench.messages.JointSample` with the motor torque estimated by the
servo model (``kt V / R - kt^2 v / R`` for the voltage-controlled Dynamixels). With
``emulate`` set, the bus is a :class:`~actuator_drivers.dynamixel_emulator.DynamixelEmulator`
on a pseudo-terminal (one emulated pendulum per servo, driven by that servo model), and the
real driver code talks to it: the hardware-free bench.

Safety is the driver's: goals outside the joint limits are refused, torque is released on
faults, on :meth:`DriverBench.close` and by its watchdog when commands stop for
``command_timeout`` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

from actuator_drivers.dynamixel_driver import DynamixelDriver, ServoConfig, ServoState
from actuator_drivers.dynamixel_emulator import DynamixelEmulator
from actuator_drivers.dynamixel_firmware import EmulatedServo
from actuator_drivers.dynamixel_tables import control_table
from actuator_drivers.erob_bench import ErobBench
from actuator_drivers.erob_driver import ErobDriver
from actuator_drivers.one_driver_bench import OneDriverBench
from actuator_models.bench import Bench
from actuator_models.model import Model, library_names, load_model
from actuator_models.simulation import Pendulum



@dataclass(frozen=True)
class DriverConfig:
    """A Dynamixel bench (the driver node's parameters).

    Attributes:
        port: serial device (ignored when emulating). baudrate [bit/s]. protocol: 1 or 2.
        ids: servo IDs. joints: joint name per servo. actuators: actuator per servo (``mx64``,
        ``mx106``, ``xl330``). min_position, max_position: joint limits per servo [rad].
        models: servo model per servo (params file or library name such as ``xl330/m6``; ``""``
        or none: the published ``<actuator>/m6``): the torque estimate, and the emulated physics.
        command_timeout: watchdog [s]. latency_ms: USB latency timer [ms]. emulate: run the emulator
        instead of hardware.
        mass [kg], length [m], arm_mass [kg]: the emulated pendulums. time_scale: emulated bench
        time per wall second. seed: random seed of the emulator.
    """

    ids: Tuple[int, ...]
    joints: Tuple[str, ...]
    actuators: Tuple[str, ...]
    min_position: Tuple[float, ...]
    max_position: Tuple[float, ...]
    models: Tuple[str, ...] = ()
    port: str = "/dev/ttyUSB0"
    baudrate: int = 57600
    protocol: int = 2
    command_timeout: float = 0.5
    latency_ms: float = 16.0
    emulate: bool = False
    mass: float = 1.0
    length: float = 0.15
    arm_mass: float = 0.0
    time_scale: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        n = len(self.ids)
        given = ("joints", "actuators", "min_position", "max_position") + (("models",) if self.models else ())
        for name in given:
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name}: {len(getattr(self, name))} values for {n} servo IDs")
        models = self.models or ("",) * n
        object.__setattr__(self, "models", tuple(m or f"{a}/m6" for m, a in zip(models, self.actuators)))

    def servos(self) -> List[ServoConfig]:
        return [ServoConfig(i, a, lo, hi, j) for i, a, lo, hi, j in
                zip(self.ids, self.actuators, self.min_position, self.max_position, self.joints)]


class DriverBench(OneDriverBench):
    """Servos of one bus, addressed by joint name: a :class:`actuator_models.bench.Bench`.

    Args:
        driver: an open driver. models: servo model per servo (same order as the driver's IDs).
        emulator: the emulator the driver talks to, stopped by :meth:`close`.
    """

    def __init__(self, driver: DynamixelDriver, models: Sequence[Model],
                 emulator: Optional[DynamixelEmulator] = None) -> None:
        super().__init__(driver, models, [driver.configs[i].joint for i in driver.ids])
        self.emulator = emulator

    @staticmethod
    def applied(state: ServoState) -> float:
        """The PWM voltage [V] (voltage-controlled Dynamixels)."""
        return state.control

    @classmethod
    def open(cls, config: DriverConfig) -> "DriverBench":
        """Open the bus (starting the emulator first when ``config.emulate``)."""
        models = [load_model(m) for m in config.models]
        pendulum = Pendulum(config.mass, config.length, config.arm_mass)
        emulator = None
        port = config.port
        if config.emulate:
            emulator = DynamixelEmulator([
                EmulatedServo(control_table(a, config.protocol), m, pendulum, servo_id=i)
                for i, a, m in zip(config.ids, config.actuators, models)
            ], time_scale=config.time_scale, seed=config.seed).start()
            port = emulator.port
        driver = DynamixelDriver(port, config.servos(), protocol=config.protocol, baudrate=config.baudrate,
                                 command_timeout=config.command_timeout, latency_ms=config.latency_ms,
                                 clock=emulator.clock if emulator else None)
        try:
            driver.open()
        except BaseException:
            if emulator:
                emulator.stop()
            raise
        return cls(driver, models, emulator)

    def close(self) -> None:
        """Release torque, close the bus and stop the emulator."""
        try:
            self.driver.close()
        finally:
            if self.emulator:
                self.emulator.stop()


def driver_bench(driver: Union[DynamixelDriver, ErobDriver], actuator: str) -> Bench:
    """The bench of an open driver; the motor torque of its samples is estimated by the
    published ``<actuator>/m6`` model (``<actuator>/m1`` where only M1 is published: sts3215)."""
    bench = ErobBench if isinstance(driver, ErobDriver) else DriverBench
    name = f"{actuator}/m6" if f"{actuator}/m6" in library_names() else f"{actuator}/m1"
    return bench(driver, [load_model(name)] * len(driver.ids))
