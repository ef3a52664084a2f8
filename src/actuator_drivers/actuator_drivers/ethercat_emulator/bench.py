"""The ``erob_emulator`` backend: create a veth pair, start the EtherCAT emulator on one end (one
pendulum per drive, driven by that drive's model), then open the real
:class:`~actuator_drivers.erob.bench.ErobBench` on the other end through pysoem. Closing the
bench releases the torque, then stops the emulator and removes the veth pair. The bench changes
its load with ``set_load`` (the emulator's 0x2F00 objects). Root (or CAP_NET_ADMIN and
CAP_NET_RAW) is needed. After closing, ``emulated_state()`` says the CiA 402 state the emulated
drive was in when the line left OP (``switched on``: the torque was off)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from typing import List

from actuator_models.bench import Backend, BenchParams

from actuator_drivers.erob.bench import ErobBench
from actuator_drivers.erob.settings import EmulatedErobSettings
from actuator_drivers.ethercat_emulator.emulated import (EMULATOR_RECEIVE_TIMEOUT, LOSSY_EMULATOR_RECEIVE_TIMEOUT,
                                                         EmulatedJoint, EmulatorProcess, set_bench)
from actuator_drivers.ethercat_emulator.veth import veth_pair


def _emulator_options(params: BenchParams, settings: EmulatedErobSettings) -> List[str]:
    """Fault injection, and drive cycles on the wall clock unless the master is stepped (its
    bench time is then wall time: :mod:`~actuator_drivers.ethercat_emulator.cycles`)."""
    options = ["--drop", str(settings.drop), "--corrupt", str(settings.corrupt), "--seed", str(params.seed)]
    return options if settings.stepped else options + ["--realtime"]


def open_emulated(params: BenchParams) -> ErobBench:
    """Emulated drives of ``params`` (models, pendulum, fault injection) with the real bench
    opened on them; ``time_scale`` None (or the ``stepped`` setting): stepped (cycles back to
    back, reproducible), else paced in real time (the drives' cycles then run on the wall clock too)."""
    settings = params.settings_as(EmulatedErobSettings)
    settings = replace(settings, stepped=settings.stepped or params.time_scale is None)
    stack = ExitStack()
    try:
        master_end, slave_end = stack.enter_context(veth_pair())
        emulator = stack.enter_context(EmulatorProcess(slave_end, [
            EmulatedJoint(m, params.mass, params.length, params.arm_mass) for m in params.models],
            _emulator_options(params, settings)))
        lossy = settings.drop > 0 or settings.corrupt > 0
        bench = ErobBench.open(replace(params, settings=settings), master_end,
                               LOSSY_EMULATOR_RECEIVE_TIMEOUT if lossy else EMULATOR_RECEIVE_TIMEOUT)
    except BaseException:
        stack.close()
        raise
    bench.resources.enter_context(stack)
    bench.emulator_state = lambda: f"emulated drive when the line left OP: {emulator.op_exit.get(1, 'unknown')}"

    def set_load(mass: float, length: float, arm_mass: float = 0.0) -> None:
        for slave in range(1, len(params.joints) + 1):
            set_bench(bench.driver, slave, mass, length, arm_mass)

    bench.emulator_load = set_load
    return bench


#: The ``erob_emulator`` backend (listed by the eRob family, :mod:`actuator_drivers.erob.family`).
BACKEND = Backend("erob_emulator", "the eRob driver on emulated drives over a veth pair (root)", open_emulated,
                  "erob_bench.yaml", EmulatedErobSettings)
