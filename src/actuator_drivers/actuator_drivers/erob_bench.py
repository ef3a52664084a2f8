"""eRob drives as a bench (:class:`actuator_models.bench.Bench`): the ROS-free core of the bench
node's ``erob`` and ``erob_emulator`` backends.

Commands and samples by joint name; the motor torque in each sample is the servo model's
estimate from the measured current (``kt I``, clipped to what the bus voltage can drive). With
``emulate`` set, a uniquely named veth pair and an emulator process (one pendulum per drive,
driven by that drive's model) are started first and removed by :meth:`ErobBench.close`: the
hardware-free bench (root is needed for the veth pair and the raw sockets).

Safety is the driver's: limits checked before sending, torque released on faults, on
:meth:`ErobBench.close` and when commands stop for ``command_timeout`` seconds.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from actuator_models.model import Model, load_model

from .erob_driver import EMULATOR_RECEIVE_TIMEOUT, ErobDriver, ErobJoint, ErobState
from .erob_emulated import EmulatedJoint, EmulatorProcess
from .one_driver_bench import OneDriverBench
from .veth import veth_pair


@dataclass(frozen=True)
class ErobConfig:
    """An eRob bench (the backend's parameters).

    Attributes:
        iface: EtherCAT interface (ignored when emulating). joints: joint name per drive, in line
        order. actuators: ``erob80_50`` / ``erob80_100`` per drive. min_position, max_position:
        limits [rad]. models: servo model per drive (``""``: ``<actuator>/m6``). cycle_time [s].
        dc: use distributed clocks when offered. command_timeout [s]. emulate: veth pair + emulator.
        stepped: clock the bench by process-data cycles (emulator only; default wall-clock paced).
        mass [kg], length [m], arm_mass [kg]: the emulated pendulums.
    """

    joints: Tuple[str, ...] = ("joint1",)
    actuators: Tuple[str, ...] = ("erob80_100",)
    min_position: Tuple[float, ...] = (-2.8,)
    max_position: Tuple[float, ...] = (2.8,)
    models: Tuple[str, ...] = ()
    iface: str = "eth0"
    cycle_time: float = 0.001
    dc: bool = True
    command_timeout: float = 0.5
    emulate: bool = False
    stepped: bool = False
    mass: float = 3.1
    length: float = 0.5
    arm_mass: float = 0.0

    def __post_init__(self) -> None:
        n = len(self.joints)
        for name in ("actuators", "min_position", "max_position") + (("models",) if self.models else ()):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name}: {len(getattr(self, name))} values for {n} joints {list(self.joints)}")
        models = self.models or ("",) * n
        object.__setattr__(self, "models", tuple(m or f"{a}/m6" for m, a in zip(models, self.actuators)))
        if self.stepped and not self.emulate:
            raise ValueError("stepped: only for an emulated bench (hardware needs the real-time loop)")


class ErobBench(OneDriverBench):
    """eRob drives of one EtherCAT line, addressed by joint name (clock: cycles x cycle time when
    stepped, else wall time; a sample is the last cycle's reading)."""

    def __init__(self, driver: ErobDriver, models: Sequence[Model], resources: Optional[ExitStack] = None) -> None:
        super().__init__(driver, models, [j.name for j in driver.joints])
        self._resources = resources

    @staticmethod
    def applied(state: ErobState) -> float:
        """The measured current [A] (current-controlled drives)."""
        return state.current

    @classmethod
    def open(cls, config: ErobConfig) -> "ErobBench":
        models = [load_model(m) for m in config.models]
        joints = [ErobJoint(name, a, lo, hi) for name, a, lo, hi in
                  zip(config.joints, config.actuators, config.min_position, config.max_position)]
        stack = ExitStack()
        try:
            iface = config.iface
            if config.emulate:
                master_end, slave_end = stack.enter_context(veth_pair())
                stack.enter_context(EmulatorProcess(slave_end, [
                    EmulatedJoint(m, config.mass, config.length, config.arm_mass) for m in config.models]))
                iface = master_end
            driver = ErobDriver(iface, joints, cycle_time=config.cycle_time, dc=config.dc,
                                command_timeout=config.command_timeout,
                                mode="stepped" if config.stepped else "realtime",
                                receive_timeout=EMULATOR_RECEIVE_TIMEOUT if config.emulate and config.stepped else 0.002)
            driver.open()
        except BaseException:
            stack.close()
            raise
        return cls(driver, models, stack)

    def close(self) -> None:
        """Release torque, close the line, stop the emulator and remove its veth pair."""
        try:
            self.driver.close()
        finally:
            if self._resources is not None:
                self._resources.close()
