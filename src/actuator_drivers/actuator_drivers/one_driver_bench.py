"""What every bench over one driver shares (a Dynamixel bus, an EtherCAT line of eRob drives).

:class:`OneDriverBench` is the :class:`actuator_models.bench.Bench` contract by joint name on top
of a driver that addresses its joints by id: commands routed by id (gains only when they
changed), one read per sample with the servo model's motor-torque estimate, the driver's clock,
communication counters and watchdog. Subclasses say what the drive applies
(:meth:`OneDriverBench.applied`: volts or amperes) and how the hardware is opened and closed.
"""

from __future__ import annotations

from typing import Any, Sequence, Tuple

from actuator_models.bench import Command, CommandRouter, JointSample
from actuator_models.model import Model

from .dynamixel_bus import ErrorCounters


class OneDriverBench:
    """Joints of one open driver, addressed by name.

    Args:
        driver: an open driver (``ids``, ``clock``, ``counters``, ``watchdog_trips``, ``read``,
            ``command``, ``set_kp``, ``release``). models: servo model per joint, in the driver's
            id order (the torque estimate). joints: joint names, in the same order.
    """

    def __init__(self, driver: Any, models: Sequence[Model], joints: Sequence[str]) -> None:
        self.driver = driver
        self.models = tuple(models)
        self.joints: Tuple[str, ...] = tuple(joints)
        self._router = CommandRouter(dict(zip(self.joints, driver.ids)))

    @staticmethod
    def applied(state: Any) -> float:
        """What the drive applies in a state read by the driver [V or A]."""
        raise NotImplementedError

    @property
    def clock(self) -> Any:
        """The driver's time base (an emulator's clock when emulating, else wall time)."""
        return self.driver.clock

    @property
    def counters(self) -> ErrorCounters:
        """Cumulative communication counters of the bus or line (the driver's)."""
        return self.driver.counters

    @property
    def watchdog_trips(self) -> int:
        """How many times the command watchdog released the torque."""
        return self.driver.watchdog_trips

    def apply(self, command: Command) -> None:
        """Send a command (gains first when they changed); unknown joints raise ValueError."""
        self._router.send(self.driver, command)

    def sample(self) -> JointSample:
        """Read every joint once; the motor torque [N m] is the servo model's estimate from what
        the drive applies."""
        states = self.driver.read()
        ordered = [states[i] for i in self.driver.ids]
        applied = [self.applied(s) for s in ordered]
        torques = [float(m.actuator.torque(u, s.torque_enabled, s.velocity, m.values, s.input_voltage))
                   for m, s, u in zip(self.models, ordered, applied)]
        return JointSample.from_states(self.joints, ordered, torques, applied, self.driver.counters.errors)

    def release(self) -> None:
        """Torque off on every joint."""
        self.driver.release()
