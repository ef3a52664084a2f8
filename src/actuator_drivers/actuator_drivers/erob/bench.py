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
from actuator_models.model import Model, load_model

from actuator_drivers.common import OneDriverBench
from actuator_drivers.erob.drive import ErobDriver
from actuator_drivers.erob.joint import ErobJoint, ErobState
from actuator_drivers.erob.pacing import Pacing, Realtime


class ErobBench(OneDriverBench):
    """eRob drives of one EtherCAT line, addressed by joint name (clock: cycles x cycle time when
    stepped, else wall time; a sample is the last cycle's reading)."""

    def __init__(self, driver: ErobDriver, models: Sequence[Model]) -> None:
        super().__init__(driver, models, [j.name for j in driver.joints])

    @staticmethod
    def applied(state: ErobState) -> float:
        """The measured current [A] (current-controlled drives)."""
        return state.current

    @classmethod
    def open(cls, params: BenchParams, iface: Optional[str] = None, pacing: Optional[Pacing] = None,
             receive_timeout: float = 0.002, cycle_time: float = 0.001) -> "ErobBench":
        """Open the line of ``params`` (joints in line order, actuators, limits, models, command
        timeout) on ``iface`` (default ``params.port``, a network interface), paced in real time
        unless ``pacing`` says otherwise."""
        models = [load_model(m) for m in params.models]
        joints = [ErobJoint(name, a, lo, hi) for name, a, lo, hi in
                  zip(params.joints, params.actuators, params.min_position, params.max_position)]
        driver = ErobDriver(iface or params.port, joints, cycle_time=cycle_time, command_timeout=params.command_timeout,
                            pacing=pacing if pacing is not None else Realtime(), receive_timeout=receive_timeout)
        driver.open()
        return cls(driver, models)


#: The ``erob`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("erob", "eRob drives over EtherCAT (port = network interface)", ErobBench.open, "erob_bench.yaml")
