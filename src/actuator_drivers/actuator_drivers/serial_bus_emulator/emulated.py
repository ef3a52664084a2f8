"""An emulated serial-bus servo of any installed family with the real driver on it, in one call
(demo, tests, no hardware); the family of the actuator is found by registry
(:func:`~actuator_drivers.serial_bus.family.serial_family_of`).

    with emulated_servo("mx64", "mx64/m6", 1.0, 0.15, emulation=Emulation(protocol=1, time_scale=4)) as (emulator, driver):
        state = driver.read()  # or record through it: actuator_bench.recording.record

The driver talks to the emulator through its vendor SDK over the pseudo-terminal, exactly as
to a servo on a USB adapter, and shares the emulator's bench clock. ``time_scale=None`` runs
them in lockstep: the shaft advances by exactly the bench time the driver's cycle lets pass, so
a recording is identical on a quiet or a loaded machine (use it wherever a number matters; a
real-time emulation measures the host's scheduling as much as the servo).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Optional, Tuple, Union

from actuator_models.model import Model

from actuator_drivers.serial_bus.driver import SerialBusDriver
from actuator_drivers.serial_bus.family import serial_family_of
from actuator_drivers.serial_bus.servo import ServoConfig
from actuator_drivers.serial_bus_emulator.emulator import SerialBusEmulator
from actuator_drivers.serial_bus_emulator.faults import Faults
from actuator_drivers.serial_bus_emulator.firmware import ServoSetup


@dataclass(frozen=True)
class Emulation:
    """How :func:`emulated_servo` sets up the emulated servo and the driver on it.

    The emulator: ``protocol`` (a family with several; the others ignore it), ``setup`` (the
    servo's ID, supply voltage and physics step: :class:`~.firmware.ServoSetup`), ``time_scale``
    (bench time per wall-clock second; None: lockstep with the driver), ``faults`` injected,
    ``seed`` of the fault injection, ``trace`` (keep every packet in ``emulator.trace``).
    The driver: joint ``limits`` [rad], ``command_timeout`` [s] of its watchdog (None: none),
    ``retries`` per transaction (10, where a real bus uses 3: the emulator shares the host's
    CPUs, and a loaded host can hold its thread back for longer than three receive timeouts) and
    the USB ``latency_ms`` timer [ms] assumed in receive timeouts.
    """

    protocol: int = 2
    setup: ServoSetup = ServoSetup()
    time_scale: Optional[float] = 1.0
    faults: Faults = Faults()
    seed: Optional[int] = 0
    trace: bool = False
    limits: Tuple[float, float] = (-2.8, 2.8)
    command_timeout: Optional[float] = 0.5
    retries: int = 10
    latency_ms: float = 16.0


@contextmanager
def emulated_servo(
    actuator: str,
    model: Union[str, Model],
    mass: float,
    length: float,
    *,
    arm_mass: float = 0.0,
    emulation: Emulation = Emulation(),
) -> Iterator[Tuple[SerialBusEmulator, SerialBusDriver]]:
    """Start an emulated servo of ``actuator`` driven by ``model`` on a pendulum of ``mass`` [kg]
    at ``length`` [m] (``arm_mass`` [kg]) and open its family's driver on its pty (the family's
    default baud rate), both as ``emulation`` says; both closed on exit."""
    family = serial_family_of(actuator)
    e = emulation
    emulator = family.emulator_class().one_servo(
        actuator, model, mass, length, arm_mass, protocol=e.protocol, setup=e.setup,
        faults=e.faults, time_scale=e.time_scale, seed=e.seed, trace=e.trace,
    )
    with emulator:
        driver = family.bench_class().DRIVER.on_bus(
            emulator.port, ServoConfig(e.setup.servo_id, actuator, *e.limits), e.protocol, family.default_baudrate,
            retries=e.retries, command_timeout=e.command_timeout, latency_ms=e.latency_ms, clock=emulator.clock,
        )
        with driver:
            yield emulator, driver
