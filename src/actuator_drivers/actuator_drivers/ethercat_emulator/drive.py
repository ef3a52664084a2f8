"""An emulated eRob on an EtherCAT link: CoE object dictionary, CiA 402 drive in CST mode, and a
shaft that is the core pendulum simulator, advanced one cycle per process-data frame.

:class:`ErobDrive` is the application behind one :class:`~.esc.Esc`; an
:class:`EthercatServer` answers the frames arriving on one end of a veth pair for a chain of
drives (auto-increment order = list order). Run it with
``actuator-bench emulate --actuator erob80_100 --ethercat IFACE`` or :func:`serve` (root, or
CAP_NET_RAW, is needed for the raw socket).

Timing: the shaft advances by drive cycles (SYNC0 cycle 0x09A0 with DC, else 0x1C32:02, else
``cycle_time``) when a process-data frame reaches the drive in OP: one per frame by default (a
recording depends only on the frames), or with ``emulate --realtime`` those elapsed on the host's
clock, the missed ones on the previous target torque (:mod:`.cycles`).

Objects: identity 0x1018 (vendor 0x5A65726F, product 0x00029252 from ZeroErr's configuration),
0x1C00/0x1C12/0x1C13/0x1600/0x1A00 (default mapping = ZeroErr's CST demo), 0x1C32:01/02 (sync
mode, cycle time), 0x603F, 0x6040, 0x6041, 0x6060/0x6061, 0x6064, 0x606C, 0x6071, 0x6072,
0x6075 (rated current, mA), 0x6076, 0x6077, 0x6078, 0x607A, 0x6087, 0x60E0/0x60E1, 0x60FF, and
emulator-only 0x2F00:01-03 (pendulum mass [kg], length [m], arm mass [kg], float32) so a
recording tool can change the load like a person changing weights.

Fault injection (:class:`LinkFaults`, :class:`DriveFaults`): dropped and corrupted reply frames,
a wrong working counter, AL status 0x001A (sync error: the drive falls to SAFE-OP + ERROR) at a
given process-data cycle, a drive fault (statusword fault bit, error code 0x2310) at a given
cycle, and a drive that refuses SAFE-OP when DC SYNC0 is configured (AL 0x0030), as users report
for eRob.
"""

from __future__ import annotations

import random
import select
import socket
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from actuator_models.model import Model, load_model
from actuator_models.simulation import Pendulum, PendulumSimulator

from actuator_drivers.erob import cia402
from actuator_drivers.ethercat_emulator.coe import (Entry, ObjectDictionary, SdoAbort, Value, add_pdo_objects, pdo_word,
                                                    sdo_reply)
from actuator_drivers.ethercat_emulator.cycles import DriveCycles, FrameCycles
from actuator_drivers.erob.units import ErobUnits
from actuator_drivers.ethercat_emulator.esc import (AL_INVALID_DC_SYNC, AL_INVALID_INPUT_SM, AL_INVALID_OUTPUT_SM, AL_SYNC_ERROR, OP, PREOP,
                           SAFEOP, Esc, Segment, SiiInfo)
from actuator_drivers.ethercat_emulator.frames import ETHERTYPE, LOGICAL, Frame, FrameError, decode, encode

EROB_VENDOR = 0x5A65726F
EROB_PRODUCT = 0x00029252
DEVICE_TYPE = 0x00020192  # CiA 402 servo drive
ERROR_OVERCURRENT = 0x2310

#: ZeroErr's CST demo mapping (RxPDO 6 bytes, TxPDO 12 bytes)
CST_RX = (pdo_word(0x6040, 0, 16), pdo_word(0x6071, 0, 16), pdo_word(0x6060, 0, 8), pdo_word(0, 0, 8))
CST_TX = (pdo_word(0x6041, 0, 16), pdo_word(0x6064, 0, 32), pdo_word(0x606C, 0, 32), pdo_word(0x6077, 0, 16))


@dataclass(frozen=True)
class DriveFaults:
    """Slave-side faults, counted in process-data cycles in OP (None = never).

    Attributes: al_error_at: the drive reports AL status 0x001A and drops to SAFE-OP + ERROR.
    drive_fault_at: the CiA 402 drive faults (statusword bit 3, 0x603F = 0x2310).
    reject_dc: refuse PRE-OP -> SAFE-OP with AL 0x0030 while SYNC0 is active.
    """

    al_error_at: Optional[int] = None
    drive_fault_at: Optional[int] = None
    reject_dc: bool = False


@dataclass(frozen=True)
class LinkFaults:
    """Link faults on reply frames, as fractions in [0, 1]: dropped, corrupted (damaged bytes, the
    datagram index included, so the master cannot match the frame), wrong working counter
    (process-data frames only); ``cut_at``: after this many process-data frames nothing is
    answered any more (a pulled cable)."""

    drop: float = 0.0
    corrupt: float = 0.0
    wrong_wkc: float = 0.0
    cut_at: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("drop", "corrupt", "wrong_wkc"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"link fault {name} {value!r}: must be a fraction in [0, 1]")


@dataclass(frozen=True)
class Shaft:
    """What one emulated drive turns: a servo model and its pendulum."""

    model: Model
    mass: float
    length: float
    arm_mass: float = 0.0
    vin: Optional[float] = None


def erob_dictionary(units: ErobUnits, preop: tuple = (PREOP,)) -> ObjectDictionary:
    """The object dictionary of an emulated eRob (values in drive units)."""
    od = ObjectDictionary()
    od.add(0x1000, 0, Entry("device type", "<I", "ro"), DEVICE_TYPE)
    od.add(0x1018, 0, Entry("identity", "<B", "ro"), 4)
    for sub, value in enumerate((EROB_VENDOR, EROB_PRODUCT, 1, 1), start=1):
        od.add(0x1018, sub, Entry("identity", "<I", "ro"), value)
    add_pdo_objects(od, CST_RX, CST_TX, preop)
    od.add(0x1C32, 0, Entry("SM2 parameters", "<B", "ro"), 2)
    od.add(0x1C32, 1, Entry("sync mode", "<H", "ro"), 0)
    od.add(0x1C32, 2, Entry("cycle time ns", "<I", "rw"), 0)
    rated_ma = int(round(units.rated_current * 1000))
    for index, name, fmt, access, value in (
        (0x603F, "error code", "<H", "ro", 0),
        (0x6040, "controlword", "<H", "rw", 0),
        (0x6041, "statusword", "<H", "ro", cia402.statusword(cia402.State.SWITCH_ON_DISABLED)),
        (0x6060, "modes of operation", "<b", "rw", 0),
        (0x6061, "modes of operation display", "<b", "ro", 0),
        (0x6064, "position actual", "<i", "ro", 0),
        (0x606C, "velocity actual", "<i", "ro", 0),
        (0x6071, "target torque", "<h", "rw", 0),
        (0x6072, "max torque", "<H", "rw", units.permille(12.0)),
        (0x6075, "motor rated current mA", "<I", "rw", rated_ma),
        (0x6076, "motor rated torque mNm", "<I", "rw", 0),
        (0x6077, "torque actual", "<h", "ro", 0),
        (0x6078, "current actual", "<h", "ro", 0),
        (0x607A, "target position", "<i", "rw", 0),
        (0x6087, "torque slope", "<I", "rw", 0),
        (0x60E0, "positive torque limit", "<H", "rw", 0xFFFF // 2),
        (0x60E1, "negative torque limit", "<H", "rw", 0xFFFF // 2),
        (0x60F4, "following error", "<i", "ro", 0),
        (0x60FF, "target velocity", "<i", "rw", 0),
        (0x6502, "supported modes", "<I", "ro", 0x0000038D),
    ):
        od.add(index, 0, Entry(name, fmt, access), value)
    od.add(0x2F00, 0, Entry("emulated bench", "<B", "ro"), 3)
    for sub, name in ((1, "pendulum mass kg"), (2, "pendulum length m"), (3, "arm mass kg")):
        od.add(0x2F00, sub, Entry(name, "<f", "rw"), 0.0)
    return od


class ErobDrive:
    """One emulated eRob: ESC + CoE + CiA 402 + shaft. ``cycle_time``: shaft step [s] when the
    master sets neither DC SYNC0 nor 0x1C32:02. ``cycles``: when its cycles run (None: one per frame)."""

    def __init__(self, shaft: Shaft, *, units: ErobUnits = ErobUnits(), cycle_time: float = 0.001,
                 faults: DriveFaults = DriveFaults(), ports: int = 1, dc: bool = True, serial: int = 1,
                 cycles: Optional[DriveCycles] = None) -> None:
        self.units = units
        self.cycle_time = cycle_time
        self.cycles: DriveCycles = cycles or FrameCycles()
        self._latched = (0.0, False)  # the target current [A] and torque-on of the last frame
        self.faults = faults
        self.shaft = shaft
        self.od = erob_dictionary(units)
        self.od[(0x1018, 4)] = serial
        for sub, value in ((1, shaft.mass), (2, shaft.length), (3, shaft.arm_mass)):
            self.od[(0x2F00, sub)] = value
            self.od.hooks[(0x2F00, sub)] = self._bench_changed
        self.state = cia402.State.SWITCH_ON_DISABLED
        #: the CiA 402 state the drive was in when the line last left OP (None: never in OP); a
        #: master that released the torque leaves it "switched on", never "operation enabled"
        self.op_exit_state: Optional[cia402.State] = None
        self._in_op = False
        self.previous_cw = 0
        self.op_cycles = 0
        self.sim = self._simulator(0.0, 0.0)
        title = f"eRob {shaft.model.actuator.title}"
        self.esc = Esc(SiiInfo(EROB_VENDOR, EROB_PRODUCT, 1, serial, title), self, ports=ports, dc=dc)

    # -------------------------------------------------------------- shaft
    def _simulator(self, q: float, v: float) -> PendulumSimulator:
        bench = Pendulum(self.od.real((0x2F00, 1)), self.od.real((0x2F00, 2)), self.od.real((0x2F00, 3)))
        return PendulumSimulator(self.shaft.model, bench, vin=self.shaft.vin, q=q, v=v)

    def _bench_changed(self, _value: Value) -> None:
        if self.od.real((0x2F00, 2)) <= 0 or self.od.real((0x2F00, 1)) < 0 or self.od.real((0x2F00, 3)) < 0:
            raise SdoAbort(0x06090030)
        self.sim = self._simulator(self.sim.q, self.sim.v)

    @property
    def dt(self) -> float:
        """Shaft step [s] per process-data cycle."""
        if self.esc.sync0_active and self.esc.sync0_cycle_ns:
            return self.esc.sync0_cycle_ns * 1e-9
        configured = self.od[(0x1C32, 2)]
        return configured * 1e-9 if configured else self.cycle_time

    # -------------------------------------------------------------- SlaveApplication
    def mailbox(self, request: bytes) -> Optional[bytes]:
        return sdo_reply(request, self.od, self.esc.state)

    def check_transition(self, esc: Esc, current: int, requested: int) -> int:
        if current == PREOP and requested == SAFEOP:
            try:
                self.od.check_mapping(0x1C12)
                self.od.check_mapping(0x1C13)
            except SdoAbort:
                return AL_INVALID_OUTPUT_SM
            if esc.sync_manager(2).length != self.od.mapped_size(0x1C12):
                return AL_INVALID_OUTPUT_SM
            if esc.sync_manager(3).length != self.od.mapped_size(0x1C13):
                return AL_INVALID_INPUT_SM
            if self.faults.reject_dc and esc.sync0_active:
                return AL_INVALID_DC_SYNC
            self.od[(0x1C32, 1)] = 2 if esc.sync0_active else 1
        return 0

    def entered(self, esc: Esc, state: int) -> None:
        if state < OP and self._in_op:
            self.op_exit_state = self.state
        if state == OP and not self._in_op:
            self.cycles.restart()
        self._in_op = state == OP
        if state < OP and cia402.torque_on(self.state):
            self.state = cia402.State.SWITCH_ON_DISABLED  # outputs invalid: the power stage is off
        self._publish(0.0)

    def exchange(self, esc: Esc, outputs: Optional[bytes]) -> bytes:
        if outputs is not None:
            self.od.unpack(0x1C12, outputs)
            self._cycle()
        return self.od.pack(0x1C13)

    # -------------------------------------------------------------- the drive
    def _cycle(self) -> None:
        self.op_cycles += 1
        if self.faults.al_error_at is not None and self.op_cycles == self.faults.al_error_at:
            self.esc.fail(AL_SYNC_ERROR)
            return
        cw = self.od[(0x6040, 0)]
        if self.faults.drive_fault_at is not None and self.op_cycles == self.faults.drive_fault_at:
            self.state = cia402.State.FAULT
            self.od[(0x603F, 0)] = ERROR_OVERCURRENT
        else:
            new = cia402.transition(self.state, cw, self.previous_cw)
            if self.state == cia402.State.FAULT and new != cia402.State.FAULT:
                self.od[(0x603F, 0)] = 0
            self.state = new
        self.previous_cw = cw
        mode = self.od[(0x6060, 0)]
        self.od[(0x6061, 0)] = mode
        enabled = cia402.torque_on(self.state) and mode == cia402.MODE_CST
        permille = self._limit(self.od[(0x6071, 0)]) if enabled else 0
        current = self.units.amps(permille)
        self._run(self.cycles.due(round(self.dt * 1e9)), (current, enabled))
        self._publish(current if enabled else 0.0)

    def _run(self, cycles: int, command: Tuple[float, bool]) -> None:
        """``cycles`` drive cycles: those missed on the last frame's (current [A], torque on), then this one's."""
        for _ in range(cycles - 1):
            self.sim.step_control(*self._latched, self.dt)
        if cycles > 0:
            self.sim.step_control(*command, self.dt)
        self._latched = command

    def _limit(self, permille: int) -> int:
        high = min(self.od[(0x6072, 0)], self.od[(0x60E0, 0)])
        low = min(self.od[(0x6072, 0)], self.od[(0x60E1, 0)])
        return max(-low, min(high, permille))

    def _publish(self, current: float) -> None:
        u = self.units
        self.od[(0x6064, 0)] = u.counts(self.sim.q)
        self.od[(0x606C, 0)] = u.counts(self.sim.v)
        self.od[(0x6077, 0)] = u.permille(current)
        self.od[(0x6078, 0)] = u.permille(current)
        extra = cia402.SW_REMOTE | (cia402.SW_FOLLOWS_COMMAND if cia402.torque_on(self.state) else 0)
        self.od[(0x6041, 0)] = cia402.statusword(self.state, extra)


# ---------------------------------------------------------------------- the link
@dataclass
class ServerCounters:
    """Frames answered and faults injected by an :class:`EthercatServer`."""

    frames: int = 0
    process_frames: int = 0
    dropped: int = 0
    corrupted: int = 0
    wrong_wkc: int = 0
    malformed: int = 0


class EthercatServer:
    """Answers EtherCAT frames on ``iface`` for a chain of drives (raw socket, root needed)."""

    def __init__(self, iface: str, drives: Sequence[ErobDrive], faults: LinkFaults = LinkFaults(),
                 seed: Optional[int] = 0) -> None:
        self.iface = iface
        self.drives = list(drives)
        self.segment = Segment([d.esc for d in self.drives])
        self.faults = faults
        self.counters = ServerCounters()
        self._random = random.Random(seed)
        self._stop = threading.Event()
        self._sock: Optional[socket.socket] = None

    def open(self) -> "EthercatServer":
        try:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
            sock.bind((self.iface, ETHERTYPE))
        except PermissionError as error:
            raise PermissionError(f"raw socket on {self.iface}: {error}; run as root or grant CAP_NET_RAW") from error
        except OSError as error:
            raise OSError(f"raw socket on {self.iface!r}: {error} (does the interface exist and is it up?)") from error
        self._sock = sock
        return self

    def close(self) -> None:
        self._stop.set()
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def stop(self) -> None:
        self._stop.set()

    def __enter__(self) -> "EthercatServer":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def serve_forever(self, poll: float = 0.2) -> None:
        """Answer frames until :meth:`stop` (checked every ``poll`` seconds when idle)."""
        if self._sock is None:
            self.open()
        sock = self._sock
        assert sock is not None  # open() set it or raised
        while not self._stop.is_set():
            ready, _, _ = select.select([sock], [], [], poll)
            if not ready:
                continue
            raw, address = sock.recvfrom(2048)
            if address[2] == socket.PACKET_OUTGOING:
                continue
            reply = self.answer(raw)
            if reply is not None:
                sock.send(reply)

    def answer(self, raw: bytes) -> Optional[bytes]:
        """The reply to one received frame, faults applied (None: nothing goes back)."""
        try:
            frame = decode(raw)
        except FrameError:
            self.counters.malformed += 1
            return None
        f, rnd = self.faults, self._random
        if f.cut_at is not None and self.counters.process_frames >= f.cut_at:
            self.counters.dropped += 1
            return None
        self.counters.frames += 1
        out = self.segment.process(frame)
        process = any(d.cmd in LOGICAL for d in frame.datagrams)
        if process:
            self.counters.process_frames += 1
        if f.drop and rnd.random() < f.drop:
            self.counters.dropped += 1
            return None
        raw_out = bytearray(encode(out))
        if f.corrupt and rnd.random() < f.corrupt:
            self.counters.corrupted += 1
            raw_out[17] ^= 0xA5  # first datagram's index: the master cannot match this frame
            for i in range(26, min(len(raw_out), 34)):
                raw_out[i] ^= 0xFF
            return bytes(raw_out)
        if process and f.wrong_wkc and rnd.random() < f.wrong_wkc:
            self.counters.wrong_wkc += 1
            out = Frame(out.dst, out.src, tuple(
                d.with_(wkc=max(0, d.wkc - 1)) if d.cmd in LOGICAL else d for d in out.datagrams))
            return encode(out)
        return bytes(raw_out)


def chain(shafts: Sequence[Shaft], *, units: ErobUnits = ErobUnits(), cycle_time: float = 0.001,
          faults: Sequence[DriveFaults] = (), dc: bool = True,
          cycles: Callable[[], DriveCycles] = FrameCycles) -> List[ErobDrive]:
    """Drives for a line of eRobs (the first is next to the master); ports set as on a real line;
    ``cycles`` makes each drive's :class:`~.cycles.DriveCycles` (``ClockCycles``: real time)."""
    n = len(shafts)
    return [
        ErobDrive(s, units=units, cycle_time=cycle_time, faults=faults[i] if i < len(faults) else DriveFaults(),
                  ports=2 if i < n - 1 else 1, dc=dc, serial=i + 1, cycles=cycles())
        for i, s in enumerate(shafts)
    ]


def shaft(model: str, mass: float, length: float, arm_mass: float = 0.0, vin: Optional[float] = None) -> Shaft:
    """A :class:`Shaft` from a model name or params file."""
    for name, value in (("mass", mass), ("arm_mass", arm_mass)):
        if not value >= 0:
            raise ValueError(f"{name} {value!r} kg: must be >= 0")
    if not length > 0:
        raise ValueError(f"length {length!r} m: must be positive")
    return Shaft(load_model(model), float(mass), float(length), float(arm_mass), vin)

