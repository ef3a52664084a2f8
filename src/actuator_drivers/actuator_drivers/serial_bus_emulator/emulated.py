"""An emulated serial-bus servo of any installed family with the real driver on it, in one call
(demo, tests, no hardware); the family of the actuator is found by registry
(:func:`~actuator_drivers.serial_bus.family.serial_family_of`).

    with emulated_servo("mx64", "mx64/m6", mass=1.0, length=0.15, protocol=1, time_scale=4) as (emulator, driver):
        state = driver.read()  # or record through it: actuator_bench.recording.record

The driver talks to the emulator through its vendor SDK over the pseudo-terminal, exactly as
to a servo on a USB adapter, and shares the emulator's bench clock. ``time_scale=None`` runs
them in lockstep: the shaft advances by exactly the bench time the driver's cycle lets pass, so
a recording is identical on a quiet or a loaded machine (use it wherever a number matters; a
real-time emulation measures the host's scheduling as much as the servo).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional, Tuple, Union

from actuator_models.model import Model
from actuator_models.simulation import BENCH_DT

from actuator_drivers.serial_bus.driver import SerialBusDriver
from actuator_drivers.serial_bus.family import serial_family_of
from actuator_drivers.serial_bus.servo import ServoConfig
from actuator_drivers.serial_bus_emulator.emulator import SerialBusEmulator
from actuator_drivers.serial_bus_emulator.faults import Faults
from actuator_drivers.serial_bus_emulator.firmware import ServoSetup


@contextmanager
def emulated_servo(
    actuator: str,
    model: Union[str, Model],
    mass: float,
    length: float,
    *,
    arm_mass: float = 0.0,
    protocol: int = 2,
    servo_id: int = 1,
    vin: Optional[float] = None,
    time_scale: Optional[float] = 1.0,
    faults: Faults = Faults(),
    seed: Optional[int] = 0,
    physics_dt: float = BENCH_DT,
    command_timeout: Optional[float] = 0.5,
    retries: int = 10,
    latency_ms: float = 16.0,
    limits: Tuple[float, float] = (-2.8, 2.8),
    trace: bool = False,
) -> Iterator[Tuple[SerialBusEmulator, SerialBusDriver]]:
    """Start an emulated servo and open its family's driver on its pty (the family's default baud
    rate; ``protocol`` for a family with several); both closed on exit.

    ``retries`` defaults to 10 (a real bus uses 3): the emulator shares the host's CPUs, and a
    loaded host can hold its thread back for longer than three receive timeouts.
    """
    family = serial_family_of(actuator)
    emulator = family.emulator_class().one_servo(
        actuator, model, mass, length, arm_mass, protocol=protocol, setup=ServoSetup(servo_id, vin, physics_dt),
        faults=faults, time_scale=time_scale, seed=seed, trace=trace,
    )
    with emulator:
        driver = family.bench_class().DRIVER.on_bus(
            emulator.port, ServoConfig(servo_id, actuator, *limits), protocol, family.default_baudrate, retries=retries,
            command_timeout=command_timeout, latency_ms=latency_ms, clock=emulator.clock,
        )
        with driver:
            yield emulator, driver
