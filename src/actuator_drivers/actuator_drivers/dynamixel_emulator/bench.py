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
from actuator_drivers.serial_bus.settings import EmulatedSerialSettings
from actuator_drivers.serial_bus_emulator.bench import open_on_emulator
from actuator_drivers.serial_bus_emulator.faults import Faults


def _emulator(params: BenchParams, settings: EmulatedSerialSettings, faults: Faults) -> DynamixelEmulator:
    pendulum = Pendulum(params.mass, params.length, params.arm_mass)
    return DynamixelEmulator([
        EmulatedServo(control_table(a, settings.protocol), load_model(m), pendulum, servo_id=i, vin=v or None)
        for i, a, m, v in zip(params.ids, params.actuators, params.models, params.vin)
    ], faults=faults, time_scale=params.time_scale, seed=params.seed)


def open_emulated(params: BenchParams) -> DynamixelBench:
    """An emulated bus of ``params`` (ids, actuators, models, pendulum, protocol; ``time_scale``
    None: lockstep with the driver; ``seed``) with the real bench opened on it."""
    return open_on_emulator(params, _emulator, DynamixelBench)


#: The ``dynamixel_emulator`` backend (listed by the Dynamixel family, :mod:`.family`).
BACKEND = Backend("dynamixel_emulator", "the Dynamixel driver on the emulated bus", open_emulated,
                  settings=EmulatedSerialSettings)
