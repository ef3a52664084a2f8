"""``actuator-bench emulate`` for a serial-bus family: one emulated servo on a pseudo-terminal
(prints a description line, then the device path), until Ctrl-C or SIGTERM.

    actuator-bench emulate --actuator mx64 --params mx64/m6 --mass 1.0 --length 0.15 --protocol 2
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from actuator_models.family import EmulateCommand
from actuator_models.model import load_model
from actuator_models.simulation import BENCH_DT

from actuator_drivers.common import UsageError
from actuator_drivers.serial_bus.family import serial_family_of
from actuator_drivers.serial_bus_emulator.faults import Faults
from actuator_drivers.serial_bus_emulator.firmware import ServoSetup


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def configure(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("a serial-bus servo on a pseudo-terminal")
    g.add_argument("--protocol", type=int, choices=(1, 2), default=2, help="firmware protocol (MX: 1 or 2; XL330: 2) [2]")
    g.add_argument("--physics-dt", type=_positive, default=BENCH_DT, help=f"simulation step, s [{BENCH_DT:g}]")


def run(args: argparse.Namespace) -> int:
    missing = [f"--{o}" for o, n in (("params", "model"), ("mass", "mass"), ("length", "length"))
               if getattr(args, n) is None]
    if missing:
        raise UsageError(f"emulate: the following arguments are required: {', '.join(missing)}")
    model = load_model(args.model)
    actuator = args.actuator or model.actuator.name
    family = serial_family_of(actuator)
    emulator = family.emulator_class().one_servo(
        actuator, model, args.mass, args.length, args.arm_mass, protocol=args.protocol,
        setup=ServoSetup(args.id, args.vin, args.physics_dt), time_scale=args.time_scale, faults=Faults(args.drop, args.corrupt, args.delay),
        seed=args.seed)
    with emulator:
        stop = threading.Event()  # SIGTERM stops it cleanly (exit 0): handled before the port is announced,
        if threading.current_thread() is threading.main_thread():  # which is when a client may send it
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
        servo = emulator.servos[0]
        print(f"{family.title} emulator: {servo.table.title}{family.describe(args.protocol)}, ID {args.id}, model {args.model}, "
              f"pendulum {args.mass:g} kg at {args.length:g} m, time scale {args.time_scale:g}")
        print(emulator.port, flush=True)
        print("Ctrl-C to stop.", file=sys.stderr, flush=True)
        try:
            while not stop.wait(0.2):
                pass
        except KeyboardInterrupt:
            pass
        c = emulator.counters
        print(f"\n{c.received} instruction packets, {c.sent} status packets sent, {c.dropped} dropped, "
              f"{c.corrupted} corrupted", file=sys.stderr)
    return 0


#: The ``emulate`` of every serial-bus family (``SerialFamily.emulate``).
EMULATE = EmulateCommand(configure, run)
