"""A serial-bus family's emulated bench: its emulator started, the real bench opened on the
emulator's pseudo-terminal (the real code path, byte for byte through the vendor SDK), the
emulator stopped when the bench closes (after the driver released the torque). The bench
changes its load with ``set_load`` (:func:`actuator_models.bench.set_load`); ``emulated_state()``
reads the emulated servos' Torque Enable back (after :meth:`close`: the fail-safe check).

:func:`open_on_emulator` is what a family's ``<name>_emulator`` backend calls with its own
emulator of several servos; :func:`open_one_servo` serves any family from its record (one joint,
the emulator's ``one_servo``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Type, TypeVar

from actuator_models.bench import BenchParams

from actuator_drivers.serial_bus.bench import SerialBusBench
from actuator_drivers.serial_bus.family import serial_family_of
from actuator_drivers.serial_bus.settings import EmulatedSerialSettings
from actuator_drivers.serial_bus_emulator.emulator import SerialBusEmulator
from actuator_drivers.serial_bus_emulator.faults import Faults
from actuator_drivers.serial_bus_emulator.firmware import ServoSetup

#: The least USB latency [ms] that the receive timeouts of an emulated bus without injected faults
#: assume: each attempt waits 2 x 100 + 2 ms for its status packet, the 11 attempts of a
#: transaction about 2.2 s. The emulator runs on a thread of this process and steps its servos in
#: Python: on a busy host it answers late, never not at all unless told to (a control node on a
#: 2-core host running two launches found its emulator silent for the 11 x 34 ms that 16 ms allow,
#: and could not start). With drops, corruption or delays injected the settings' latency stands,
#: so that a lost status packet costs what it costs on the hardware.
EMULATOR_LATENCY_MS = 100.0

#: The emulator of a bench's parameters and settings (not started).
EmulatorFactory = Callable[[BenchParams, EmulatedSerialSettings, Faults], SerialBusEmulator]
#: the family's bench class
B = TypeVar("B", bound=SerialBusBench)


def open_on_emulator(params: BenchParams, make_emulator: EmulatorFactory, bench_class: Type[B]) -> B:
    """Start ``make_emulator(params, settings, faults)`` (``time_scale`` None: lockstep with the
    driver; ``seed``), then open ``bench_class`` on its pty with the
    :class:`~actuator_drivers.serial_bus.settings.EmulatedSerialSettings` of ``params`` (the
    latency at least :data:`EMULATOR_LATENCY_MS` without injected faults)."""
    settings = params.settings_as(EmulatedSerialSettings)
    if not (settings.drop or settings.corrupt or settings.delay):
        settings = replace(settings, latency_ms=max(settings.latency_ms, EMULATOR_LATENCY_MS))
    emulator = make_emulator(params, settings, Faults(settings.drop, settings.corrupt, settings.delay)).start()
    try:
        bench = bench_class.open(replace(params, settings=settings), emulator.port, emulator.clock)
    except BaseException:
        emulator.stop()
        raise
    bench.resources.callback(emulator.stop)
    bench.emulator_load = emulator.set_bench  # (mass, length, arm_mass): every servo's pendulum
    bench.emulator_state = lambda: "emulated servo once the driver closed: Torque Enable " + ", ".join(
        str(servo.peek("torque_enable")) for servo in emulator.servos)
    return bench


def open_one_servo(params: BenchParams) -> SerialBusBench:
    """The emulated bench of one servo of any installed serial-bus family (found by the actuator):
    its emulator's ``one_servo`` and its bench class."""
    if len(params.joints) != 1:
        raise ValueError(f"joints {list(params.joints)}: this emulated bus has one servo")
    family = serial_family_of(params.actuators[0])

    def make(p: BenchParams, settings: EmulatedSerialSettings, faults: Faults) -> SerialBusEmulator:
        return family.emulator_class().one_servo(
            p.actuators[0], p.models[0], p.mass, p.length, p.arm_mass, protocol=settings.protocol,
            setup=ServoSetup(p.ids[0], p.vin[0] or None), time_scale=p.time_scale, faults=faults, seed=p.seed)

    return open_on_emulator(params, make, family.bench_class())
