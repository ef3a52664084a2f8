"""Emulation as a factory: start an emulated STS bus, then open the real driver or bench on it.

    with emulated_feetech("sts3215/m1", mass=0.3, length=0.1, time_scale=None) as (emulator, driver):
        state = driver.read()

The driver talks to the emulator through feetech-servo-sdk over the pseudo-terminal, exactly as
to a servo on a USB adapter; ``time_scale=None`` runs them in lockstep (deterministic).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Iterator, Optional, Sequence, Tuple, Union

from actuator_models.model import Model, load_model
from actuator_models.simulation import Pendulum

from ..feetech.bench import FeetechBench, FeetechConfig
from ..feetech.driver import FeetechDriver
from ..feetech.tables import control_table
from ..dynamixel_driver import ServoConfig
from ..dynamixel_emulator import Faults
from .emulator import FeetechEmulator
from .firmware import StsServo


@contextmanager
def emulated_feetech(
    model: Union[str, Model],
    mass: float,
    length: float,
    *,
    arm_mass: float = 0.0,
    servo_id: int = 1,
    vin: Optional[float] = None,
    time_scale: Optional[float] = None,
    faults: Faults = Faults(),
    seed: Optional[int] = 0,
    command_timeout: Optional[float] = 0.5,
    retries: int = 10,
    limits: Tuple[float, float] = (-2.8, 2.8),
) -> Iterator[Tuple[FeetechEmulator, FeetechDriver]]:
    """An emulated STS3215 and an open :class:`FeetechDriver` on its pty; both closed on exit
    (retries 10: the emulator shares the host's CPUs)."""
    emulator = FeetechEmulator.single(model, mass, length, arm_mass, servo_id=servo_id, vin=vin,
                                      time_scale=time_scale, faults=faults, seed=seed)
    with emulator:
        driver = FeetechDriver(emulator.port, ServoConfig(servo_id, "sts3215", *limits), retries=retries,
                               command_timeout=command_timeout, clock=emulator.clock)
        with driver:
            yield emulator, driver


def open_emulated_bench(config: FeetechConfig, mass: float, length: float, arm_mass: float = 0.0,
                        time_scale: Optional[float] = 1.0, seed: int = 0,
                        models: Sequence[str] = ()) -> FeetechBench:
    """Start an emulated bus (one pendulum per servo, driven by its model, or by ``models`` when
    given: the emulated truth), then open the real bench on it; closing the bench stops it."""
    truth = [load_model(m) for m in (models or config.models)]
    pendulum = Pendulum(mass, length, arm_mass)
    emulator = FeetechEmulator([StsServo(control_table(a), m, pendulum, servo_id=i)  # type: ignore[list-item]
                                for i, a, m in zip(config.ids, config.actuators, truth)],
                               time_scale=time_scale, seed=seed).start()
    try:
        return FeetechBench.open(replace(config, retries=max(config.retries, 10)), emulator.clock, emulator.port,
                                 emulator.stop)
    except BaseException:
        emulator.stop()
        raise
