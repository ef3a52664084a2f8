"""The eRob family's command line: its ``emulate`` (the EtherCAT emulator on a network interface,
:data:`EMULATE`, found through the family's record) and ``veth`` (the virtual EtherCAT cable).
``record`` and ``record-all`` open eRob benches through the backend registry like any family's
(the ``port`` setting, alias ``--ethercat``, is the network interface).

    actuator-bench veth create                       # prints the two new interface names
    actuator-bench emulate --ethercat ecXs --actuator erob80_100 --params erob80_100/m6 --mass 3.1 --length 0.5
    actuator-bench emulate --ethercat ecXs --chain erob80_100/m6:3.1:0.5 erob80_50/m6:1:0.3   # 2R arm
    actuator-bench record --ethercat ecXm --actuator erob80_100 --trajectory sin_sin --mass 3.1 --length 0.5 --kp 25 --out logs
    actuator-bench record-all --emulate erob80_100/m6 --actuator erob80_100 --out logs --unattended
    actuator-bench veth remove ecXm
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import List, Optional

from actuator_models.family import EmulateCommand
from actuator_models.model import load_model
from actuator_models.option_numbers import fraction, positive

from actuator_drivers.command import Command
from actuator_drivers.common import UsageError
from actuator_drivers.erob.units import ErobUnits
from actuator_drivers.ethercat_emulator.cycles import ClockCycles, FrameCycles
from actuator_drivers.ethercat_emulator.drive import DriveFaults, EthercatServer, LinkFaults, chain, shaft
from actuator_drivers.ethercat_emulator.emulated import EmulatedJoint
from actuator_drivers.ethercat_emulator.veth import VethError, create, remove, unique_names


# ---------------------------------------------------------------------- emulate --ethercat
def add_emulate_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("eRob over EtherCAT (with --ethercat)")
    g.add_argument("--ethercat", metavar="IFACE", help="serve emulated eRob drives on this network interface "
                   "(one end of a veth pair; root or CAP_NET_RAW)")
    g.add_argument("--chain", nargs="+", metavar="MODEL:MASS:LENGTH[:ARM_MASS]",
                   help="several drives on the line, in order (e.g. the 2R arm: erob80_100/m6:3.1:0.5 erob80_50/m6:1:0.3)")
    g.add_argument("--cycle-time", type=positive, default=0.001,
                   help="shaft step per drive cycle when the master sets neither DC SYNC0 nor 0x1C32:02, s [0.001]")
    g.add_argument("--realtime", action="store_true",
                   help="drive cycles on the host's clock, as SYNC0 fires (a late frame finds the missed cycles run "
                   "on the previous target torque): for a master paced on the wall clock; default one cycle per "
                   "frame (a stepped master)")
    g.add_argument("--rated-current", type=positive, default=ErobUnits().rated_current,
                   help="0x6075 rated current the per-mille values refer to, A [5.4; eRob80 ratings are unpublished]")
    g.add_argument("--wrong-wkc", type=fraction, default=0.0, help="fraction of process-data replies with a wrong working counter [0]")
    g.add_argument("--al-error-at", type=int, metavar="CYCLE", help="AL status 0x001A (sync error) at this OP cycle")
    g.add_argument("--drive-fault-at", type=int, metavar="CYCLE", help="CiA 402 drive fault at this OP cycle")
    g.add_argument("--fault-slave", type=int, default=1, help="which drive (1-based) gets --al-error-at/--drive-fault-at [1]")
    g.add_argument("--reject-dc", action="store_true", help="refuse SAFE-OP while DC SYNC0 is configured (AL 0x0030)")
    g.add_argument("--cut-at", type=int, metavar="FRAMES", help="stop answering after this many process-data frames")
    g.add_argument("--parent", type=int, metavar="PID", help="stop once process PID is no longer this emulator's parent "
                   "(it died): what a bench that starts its own emulator passes")


def _chain_joints(args: argparse.Namespace) -> List[EmulatedJoint]:
    if args.chain:
        joints = []
        for spec in args.chain:
            parts = spec.split(":")
            if len(parts) not in (3, 4):
                raise UsageError(f"--chain {spec!r}: expected MODEL:MASS:LENGTH[:ARM_MASS]")
            try:
                numbers = [float(v) for v in parts[1:]]
            except ValueError:
                raise UsageError(f"--chain {spec!r}: mass, length and arm mass must be numbers") from None
            joints.append(EmulatedJoint(parts[0], *numbers))
        return joints
    if args.model is None or args.mass is None or args.length is None:
        raise UsageError("emulate --ethercat: give --params, --mass and --length, or --chain")
    return [EmulatedJoint(args.model, args.mass, args.length, args.arm_mass)]


def chain_actuator(args: argparse.Namespace) -> Optional[str]:
    """The actuator the first ``--chain`` drive's model names (None without ``--chain``)."""
    return load_model(args.chain[0].split(":")[0]).actuator.name if args.chain else None


def run_emulate(args: argparse.Namespace) -> int:
    if not args.ethercat:
        raise UsageError("emulate: an eRob is emulated on a network interface: give --ethercat IFACE")
    joints = _chain_joints(args)
    if not 1 <= args.fault_slave <= len(joints):
        raise UsageError(f"--fault-slave {args.fault_slave}: the chain has {len(joints)} drive(s)")
    faults = [DriveFaults(reject_dc=args.reject_dc) for _ in joints]
    faults[args.fault_slave - 1] = DriveFaults(args.al_error_at, args.drive_fault_at, args.reject_dc)
    shafts = [shaft(j.model, j.mass, j.length, j.arm_mass, args.vin) for j in joints]
    drives = chain(shafts, units=ErobUnits(rated_current=args.rated_current), cycle_time=args.cycle_time, faults=faults,
                   cycles=ClockCycles if args.realtime else FrameCycles)
    server = EthercatServer(args.ethercat, drives, LinkFaults(args.drop, args.corrupt, args.wrong_wkc, args.cut_at), seed=args.seed)
    with server:
        if threading.current_thread() is threading.main_thread():  # before the interface is announced:
            signal.signal(signal.SIGTERM, lambda *_: server.stop())  # a client may SIGTERM it from then
        if args.parent is not None:
            _stop_when_orphaned(server, args.parent)
        for i, j in enumerate(joints):
            print(f"EtherCAT emulator: slave {i + 1} eRob {j.actuator} (model {j.model}), pendulum {j.mass:g} kg "
                  f"at {j.length:g} m", file=sys.stderr)
        print(args.ethercat, flush=True)
        print("Ctrl-C to stop.", file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        c = server.counters
        for i, drive in enumerate(drives):
            left = drive.op_exit_state.value if drive.op_exit_state else "never in OP"
            print(f"slave {i + 1} left OP in: {left}", file=sys.stderr)
        print(f"counters: frames={c.frames} process_frames={c.process_frames} dropped={c.dropped} "
              f"corrupted={c.corrupted} wrong_wkc={c.wrong_wkc} malformed={c.malformed}", file=sys.stderr, flush=True)
    return 0


def _stop_when_orphaned(server: EthercatServer, parent: int, poll: float = 0.2) -> None:
    """Stop ``server`` once ``parent`` [pid] is no longer this process's parent (checked every
    ``poll`` seconds). A bench starts its emulator in a session of its own, so that a Ctrl-C at the
    terminal leaves it answering while the master releases the torque; a master killed without
    cleanup (SIGKILL) then leaves no one else to stop it."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        server.stop()

    threading.Thread(target=watch, name="parent watch", daemon=True).start()


#: The eRob family's ``emulate`` (``Family.emulate``).
EMULATE = EmulateCommand(add_emulate_options, run_emulate, chain_actuator)


# ---------------------------------------------------------------------- veth
def configure_veth(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("create", "remove"))
    p.add_argument("names", nargs="*", help="create: two names [unique ecXXXXXXXXm/s]; remove: either end")


def run_veth(args: argparse.Namespace) -> int:
    try:
        if args.action == "create":
            if len(args.names) not in (0, 2):
                raise UsageError("veth create: give two interface names or none")
            a, b = args.names or unique_names()
            create(a, b)
            print(f"{a} {b}")
            print(f"veth pair created: master end {a}, emulator end {b}; remove with "
                  f"`actuator-bench veth remove {a}`", file=sys.stderr)
        else:
            if len(args.names) != 1:
                raise UsageError("veth remove: give one interface name")
            remove(args.names[0])
            print(f"removed {args.names[0]} and its peer", file=sys.stderr)
    except VethError as error:
        print(f"actuator-bench: error: {error}", file=sys.stderr)
        return 1
    return 0


#: The eRob family's own tools (``Family.commands``).
COMMANDS = (
    Command("veth", "create or remove a veth pair (the virtual EtherCAT cable; root)", configure_veth, run_veth,
            ("actuator-bench veth create ecm0 ecs0      # master end, emulator end",
             "actuator-bench veth remove ecm0")),
)
