"""The ``dynamixel_emulator`` backend: start an emulated bus, then open the real
:class:`~actuator_drivers.dynamixel.bench.DynamixelBench` on its pseudo-terminal (the real code
path, byte for byte through dynamixel-sdk). One emulated pendulum per servo, driven by that
servo's model; :meth:`~actuator_drivers.common.OneDriverBench.close` stops the emulator after
the driver released the torque."""

from __future__ import annotations

from actuator_models.bench import Backend, BenchParams
from actuator_models.model import load_model
from actuator_models.simulation import Pendulum

from actuator_drivers.dynamixel.bench import DynamixelBench
from actuator_drivers.dynamixel.tables import control_table
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo


def open_emulated(params: BenchParams) -> DynamixelBench:
    """An emulated bus of ``params`` (ids, actuators, models, pendulum, protocol; ``time_scale``
    None: lockstep with the driver; ``seed``) with the real bench opened on it."""
    pendulum = Pendulum(params.mass, params.length, params.arm_mass)
    emulator = DynamixelEmulator([
        EmulatedServo(control_table(a, params.protocol), load_model(m), pendulum, servo_id=i)
        for i, a, m in zip(params.ids, params.actuators, params.models)
    ], time_scale=params.time_scale, seed=params.seed).start()
    try:
        bench = DynamixelBench.open(params, emulator.port, emulator.clock)
    except BaseException:
        emulator.stop()
        raise
    bench.resources.callback(emulator.stop)
    return bench


#: The ``dynamixel_emulator`` backend (entry point of group ``actuator_bench.backends``).
BACKEND = Backend("dynamixel_emulator", "the Dynamixel driver on the emulated bus", open_emulated)
