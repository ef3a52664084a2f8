"""The ``feetech_emulator`` backend: start an emulated STS bus, then open the real
:class:`~actuator_drivers.feetech.bench.FeetechBench` on its pseudo-terminal (the real code path,
byte for byte through feetech-servo-sdk). One emulated pendulum per servo, driven by that servo's
model; :meth:`~actuator_drivers.common.OneDriverBench.close` stops the emulator after the driver
released the torque."""

from __future__ import annotations

from actuator_models.bench import Backend, BenchParams
from actuator_models.model import load_model
from actuator_models.simulation import Pendulum

from actuator_drivers.feetech.bench import FeetechBench
from actuator_drivers.feetech.tables import control_table
from actuator_drivers.feetech_emulator.emulator import FeetechEmulator
from actuator_drivers.feetech_emulator.firmware import StsServo
from actuator_drivers.serial_bus.settings import EmulatedSerialSettings
from actuator_drivers.serial_bus_emulator.bench import open_on_emulator
from actuator_drivers.serial_bus_emulator.faults import Faults


def _emulator(params: BenchParams, settings: EmulatedSerialSettings, faults: Faults) -> FeetechEmulator:
    pendulum = Pendulum(params.mass, params.length, params.arm_mass)
    return FeetechEmulator([
        StsServo(control_table(a), load_model(m), pendulum, servo_id=i, vin=v or None)
        for i, a, m, v in zip(params.ids, params.actuators, params.models, params.vin)
    ], faults=faults, time_scale=params.time_scale, seed=params.seed)


def open_emulated(params: BenchParams) -> FeetechBench:
    """An emulated STS bus of ``params`` (ids, actuators, models, pendulum; ``time_scale`` None:
    lockstep with the driver; ``seed``) with the real bench opened on it."""
    return open_on_emulator(params, _emulator, FeetechBench)


#: The ``feetech_emulator`` backend (listed by the Feetech family, :mod:`actuator_drivers.feetech.family`).
BACKEND = Backend("feetech_emulator", "the Feetech driver on the emulated STS bus", open_emulated, "sts3215_bench.yaml",
                  EmulatedSerialSettings)
