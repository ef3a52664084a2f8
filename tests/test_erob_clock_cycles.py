"""An emulated eRob whose cycles run on a clock (``emulate --realtime``, what a master paced on the
wall clock gets) tracks the servo model on that master's bench time (issue 36).

No network and no wall clock: the drive's clock is a counter the test sets, and the test is the
master. It sends LRW frames through the slave's :class:`Segment` the way SOEM does, computes the
eRob's current PD law on each frame's inputs (the driver's ``CurrentPD`` and ``pdo`` image), and
plays lift_and_drop on bench time = the clock. A master on a loaded host sends some frames late
(here: a 5-cycle stall every 50 cycles, and frames up to 0.4 cycle late): a real drive's SYNC0
cycles run meanwhile on the last target torque. The references are the servo model stepped by
``actuator_models``' own :class:`PendulumSimulator`: driven by the same commands on bench time
(exact, to the encoder's resolution), and with its own 1 kHz law on the goals for a punctual
master (nothing added: no delay a real drive has not).

Before the fix the drive stepped one cycle per frame whatever the time: each stall was 4 ms the
shaft never lived, and the joint fell behind the model run on bench time (the 0.17 rad of the
control launch test's lift).
"""

import math
import struct

import numpy as np
import pytest

from actuator_models.actuators import actuator
from actuator_models.model import load_model
from actuator_models.simulation import Pendulum, PendulumSimulator
from actuator_models.trajectories import TRAJECTORIES

from actuator_drivers.erob import cia402, pdo
from actuator_drivers.erob.units import ErobUnits
from actuator_drivers.ethercat_emulator.cycles import ClockCycles, FrameCycles
from actuator_drivers.ethercat_emulator.drive import chain, shaft
from actuator_drivers.ethercat_emulator.esc import OP, PREOP, SAFEOP, Segment
from actuator_drivers.ethercat_emulator.frames import Cmd, Datagram, datagram_frame, decode, encode

MODEL, MASS, LENGTH, KP = "erob80_100/m6", 3.1, 0.5, 25.0
PERIOD_NS = 1_000_000  # the drive's cycle (no DC, no 0x1C32:02: its cycle_time, 1 ms)
DT = PERIOD_NS * 1e-9
UNITS = ErobUnits()  # the emulator's default rated current, 5.4 A
COUNT = 2 * math.pi / UNITS.counts_per_rev  # encoder resolution [rad]
LAW = actuator("erob80_100")
CYCLES = 2500  # the 2 s lift of lift_and_drop, then 0.5 s released


class Clock:
    """The drive's clock [ns], set by the test."""

    def __init__(self) -> None:
        self.ns = 0

    def __call__(self) -> int:
        return self.ns


def _exchange(segment: Segment, outputs: bytes) -> pdo.Inputs:
    frame = datagram_frame([Datagram(Cmd.LRW, 1, 0, 0, outputs + bytes(pdo.TX_BYTES))])
    (lrw,) = decode(encode(segment.process(decode(encode(frame))))).datagrams
    assert lrw.wkc == 3  # outputs 2 + inputs 1
    return pdo.unpack_inputs(lrw.data[pdo.RX_BYTES:])


def _in_op(cycles):
    """One emulated drive in OP with its process data at logical 0 (outputs) and 6 (inputs)."""
    (drive,) = chain([shaft(MODEL, MASS, LENGTH)], units=UNITS, cycles=lambda: cycles)
    esc = drive.esc
    struct.pack_into("<HHBBBB", esc.mem, 0x0810, 0x1100, pdo.RX_BYTES, 0x64, 0, 1, 0)
    struct.pack_into("<HHBBBB", esc.mem, 0x0818, 0x1180, pdo.TX_BYTES, 0x20, 0, 1, 0)
    struct.pack_into("<IHBBHBBB", esc.mem, 0x0600, 0, pdo.RX_BYTES, 0, 7, 0x1100, 0, 2, 1)
    struct.pack_into("<IHBBHBBB", esc.mem, 0x0610, pdo.RX_BYTES, pdo.TX_BYTES, 0, 7, 0x1180, 0, 1, 1)
    for state in (PREOP, SAFEOP, OP):
        esc.write(0x0120, struct.pack("<H", state))
    assert esc.state == OP
    return drive, Segment([esc])


def _enable(segment: Segment, clock: Clock) -> pdo.Inputs:
    """The CiA 402 enable sequence, one frame per cycle, zero torque; the last frame's inputs."""
    previous, inputs = 0, _exchange(segment, pdo.pack_outputs(0, 0))
    for _ in range(10):
        state = cia402.decode(inputs.statusword)
        if state == cia402.State.OPERATION_ENABLED:
            return inputs
        previous = cia402.controlword(state, True, previous)
        clock.ns += PERIOD_NS
        inputs = _exchange(segment, pdo.pack_outputs(previous, 0))
    raise AssertionError("the emulated drive did not enable")


def _play(cycles, sent_at) -> np.ndarray:
    """lift_and_drop on an emulated drive whose cycles are ``cycles(clock)``, a frame at each
    cycle ``k`` for which ``sent_at(k)`` gives an arrival offset [ns] (None: no frame that cycle).
    One row per frame: cycle, measured position [rad], and after that cycle the model driven by
    the commands on bench time and the model running its own law on the goals [rad]."""
    clock = Clock()
    drive, segment = _in_op(cycles(clock))
    inputs = _enable(segment, clock)
    start = clock.ns + PERIOD_NS
    sim = drive.sim
    on_commands = PendulumSimulator(load_model(MODEL), Pendulum(MASS, LENGTH), q=sim.q, v=sim.v)
    own_law = PendulumSimulator(load_model(MODEL), Pendulum(MASS, LENGTH), q=sim.q, v=sim.v)
    trajectory = TRAJECTORIES["lift_and_drop"]
    held, rows = (0.0, True), []
    for k in range(CYCLES):
        t = k * DT
        goal, enable = float(trajectory.goal(t)), bool(trajectory.enable(t))
        offset = sent_at(k)
        if offset is not None:
            amps = float(LAW.control(goal, UNITS.rad(inputs.position), UNITS.rad(inputs.velocity), KP, 48.0))
            permille = UNITS.permille(amps) if enable else 0
            clock.ns = start + k * PERIOD_NS + offset
            controlword = cia402.ENABLE_OPERATION if enable else cia402.SWITCH_ON
            inputs = _exchange(segment, pdo.pack_outputs(controlword, permille))
            held = (UNITS.amps(permille), enable)
        on_commands.step_control(held[0], held[1], DT)
        own_law.step(goal, enable, KP, DT)
        if offset is not None:
            rows.append((k, UNITS.rad(inputs.position), on_commands.q, own_law.q))
    return np.array(rows)


def _late(k: int):
    """A master on a loaded host: a 5-cycle stall every 50 cycles (4 frames never sent), and
    every third frame 0.4 cycle late (less than half a cycle: the same SYNC0 cycle)."""
    if 1 <= k % 50 <= 4:
        return None
    return 400_000 if k % 3 == 0 else 0


def test_a_late_frame_finds_the_cycles_it_missed_run_on_the_last_torque():
    rows = _play(ClockCycles, _late)
    measured, on_commands = rows[:, 1], rows[:, 2]
    assert len(rows) == CYCLES - 4 * (CYCLES // 50) and measured.min() < -1.0  # lifted (sagging at kp 25), stalls and all
    assert np.abs(measured - on_commands).max() <= COUNT  # the encoder's resolution


def test_a_drive_stepping_per_frame_behind_that_master_loses_the_stalls():
    """The bug the test above guards against: one cycle per frame (lockstep, right for a stepped
    master only) behind a master on the wall clock lags the model by the stalls' motion
    (thousands of encoder counts here)."""
    rows = _play(lambda clock: FrameCycles(), _late)
    assert np.abs(rows[:, 1] - rows[:, 2]).max() > 1000 * COUNT


def test_a_punctual_master_gets_the_model_with_its_own_law():
    """Frames every cycle, up to 0.4 cycle late: the drive is the servo model running its own PD
    law at 1 kHz on the goals, to the law's quantisation: its current is sent in per mille of the
    rated current (half a step, through the loop's stiffness kp, moves the joint by
    ``amps(1) / 2 / kp``) and computed on the encoder's counts (one count)."""
    rows = _play(ClockCycles, lambda k: 400_000 if k % 3 == 0 else 0)
    assert len(rows) == CYCLES and rows[:, 1].min() < -1.0
    assert np.abs(rows[:, 1] - rows[:, 3]).max() <= UNITS.amps(1) / 2 / KP + COUNT
    assert np.abs(rows[:, 1] - rows[:, 2]).max() <= COUNT


@pytest.mark.parametrize("offsets, due", [((0, 1_000_000, 2_000_000), [1, 1, 1]),
                                          ((0, 1_499_999, 1_500_000, 6_200_000), [1, 1, 1, 4]),
                                          ((0, 400_000, 900_000), [1, 0, 1])])
def test_clock_cycles_count_the_sync0_instants_within_half_a_period(offsets, due):
    clock = Clock()
    cycles = ClockCycles(clock)
    counted = []
    for offset in offsets:
        clock.ns = 10**9 + offset
        counted.append(cycles.due(PERIOD_NS))
    assert counted == due
    cycles.restart()
    clock.ns += 10 * PERIOD_NS
    assert cycles.due(PERIOD_NS) == 1  # a new OP session starts its cycles at its first frame
