"""eRob drives as a bench (:class:`actuator_models.bench.Bench`): the ROS-free core of the bench
node's ``erob`` backend (the emulated line is the same bench opened on an emulator's veth pair:
:mod:`actuator_drivers.ethercat_emulator.bench`).

Commands and samples by joint name; the motor torque in each sample is the servo model's
estimate from the measured current (``kt I``, clipped to what the bus voltage can drive).

Safety is the driver's: limits checked before sending, torque released (and read back from the
statuswords) on faults, on :meth:`ErobBench.close` and when commands stop for
``command_timeout`` seconds.
"""

from __future__ import annotations

from typing import Optional, Sequence

from actuator_models.bench import Backend, BenchParams
from actuator_models.model import Model, load_model, published_model

from actuator_drivers.common import OneDriverBench
from actuator_drivers.erob.drive import ErobDriver
from actuator_drivers.erob.joint import ErobJoint, ErobState
from actuator_drivers.erob.master import LineTiming
from actuator_drivers.erob.pacing import Realtime, Stepped
from actuator_drivers.erob.settings import ErobSettings
from actuator_drivers.erob.units import ErobUnits

#: Receive timeout [s] of a line paced in real time (hardware: a frame later than this is lost)
REALTIME_RECEIVE_TIMEOUT = 0.002

#: Receive timeout [s] of a stepped line (emulators only)
STEPPED_RECEIVE_TIMEOUT = 0.5


class ErobBench(OneDriverBench):
    """eRob drives of one EtherCAT line, addressed by joint name (clock: cycles x cycle time when
    stepped, else wall time; a sample is the last cycle's reading)."""

    def __init__(self, driver: ErobDriver, models: Sequence[Model]) -> None:
        super().__init__(driver, models, [j.name for j in driver.joints])

    @classmethod
    def of(cls, driver: ErobDriver, actuator: str) -> "ErobBench":
        """The bench of an open driver whose joints are all ``actuator``; the motor torque of its
        samples is estimated by the published model (``<actuator>/m6``, or ``/m1`` where only M1
        is published: :func:`~actuator_models.model.published_model`)."""
        return cls(driver, [load_model(published_model(actuator))] * len(driver.ids))

    @staticmethod
    def applied(state: ErobState) -> float:
        """The measured current [A] (current-controlled drives)."""
        return state.current

    @classmethod
    def open(cls, params: BenchParams, iface: Optional[str] = None,
             receive_timeout: Optional[float] = None) -> "ErobBench":
        """Open the line of ``params`` (joints in line order, actuators, limits, models, command
        timeout; its :class:`~actuator_drivers.erob.settings.ErobSettings`) on ``iface`` (default
        the settings' port, a network interface), paced in real time unless the settings say
        ``stepped``. Each receive waits up to ``receive_timeout`` [s] (default: the pacing's,
        :data:`REALTIME_RECEIVE_TIMEOUT` or :data:`STEPPED_RECEIVE_TIMEOUT`); an emulator sharing
        the host's CPUs gives its own, whatever the pacing."""
        settings = params.settings_as(ErobSettings)
        units = ErobUnits(rated_current=settings.rated_current) if settings.rated_current else None
        models = [load_model(m) for m in params.models]
        joints = [ErobJoint(name, a, lo, hi, units=units) for name, a, lo, hi in
                  zip(params.joints, params.actuators, params.min_position, params.max_position)]
        if receive_timeout is None:
            receive_timeout = STEPPED_RECEIVE_TIMEOUT if settings.stepped else REALTIME_RECEIVE_TIMEOUT
        timing = LineTiming(settings.cycle_time, settings.dc, receive_timeout)
        driver = ErobDriver(iface or settings.port, joints, timing=timing, command_timeout=params.command_timeout,
                            pacing=Stepped() if settings.stepped else Realtime(), max_lost=settings.max_lost)
        driver.open()
        return cls(driver, models)


#: The ``erob`` backend (listed by the eRob family, :mod:`.family`).
BACKEND = Backend("erob", "eRob drives over EtherCAT (port = network interface)", ErobBench.open, "erob_bench.yaml",
                  ErobSettings)
