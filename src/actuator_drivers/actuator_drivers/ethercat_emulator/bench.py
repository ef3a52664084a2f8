"""The ``erob_emulator`` backend: create a veth pair, start the EtherCAT emulator on one end (one
pendulum per drive, driven by that drive's model), then open the real
:class:`~actuator_drivers.erob.bench.ErobBench` on the other end through pysoem. Closing the
bench releases the torque, then stops the emulator and removes the veth pair. Root (or
CAP_NET_ADMIN and CAP_NET_RAW) is needed."""

from __future__ import annotations

from contextlib import ExitStack

from actuator_models.bench import Backend, BenchParams

from actuator_drivers.erob.bench import ErobBench
from actuator_drivers.erob.pacing import Realtime, Stepped
from actuator_drivers.ethercat_emulator.emulated import EMULATOR_RECEIVE_TIMEOUT, EmulatedJoint, EmulatorProcess
from actuator_drivers.ethercat_emulator.veth import veth_pair


def open_emulated(params: BenchParams) -> ErobBench:
    """Emulated drives of ``params`` (models, pendulum) with the real bench opened on them;
    ``time_scale`` None: stepped (cycles back to back, reproducible), else paced in real time."""
    stack = ExitStack()
    try:
        master_end, slave_end = stack.enter_context(veth_pair())
        stack.enter_context(EmulatorProcess(slave_end, [
            EmulatedJoint(m, params.mass, params.length, params.arm_mass) for m in params.models]))
        stepped = params.time_scale is None
        bench = ErobBench.open(params, master_end, Stepped() if stepped else Realtime(),
                               receive_timeout=EMULATOR_RECEIVE_TIMEOUT if stepped else 0.002)
    except BaseException:
        stack.close()
        raise
    bench.resources.enter_context(stack)
    return bench


#: The ``erob_emulator`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("erob_emulator", "the eRob driver on emulated drives over a veth pair (root)", open_emulated,
                  "erob_bench.yaml")
