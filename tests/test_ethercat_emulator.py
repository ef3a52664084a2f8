"""The EtherCAT slave emulator below the socket: frames, addressing, working counters, SII, AL
states, CoE SDO, process data; the CiA 402 state machine and the eRob units. No network needed:
frames are built here the way SOEM builds them (ETG.1000.4 layout) and passed to a Segment."""

import struct

import pytest

from actuator_drivers.erob import cia402
from actuator_drivers.ethercat_emulator.coe import (ABORT_NO_OBJECT, ABORT_READ_ONLY, ABORT_STATE, ObjectDictionary, sdo_reply)
from actuator_drivers.ethercat_emulator.drive import EROB_PRODUCT, EROB_VENDOR, chain, shaft
from actuator_drivers.erob.units import ErobUnits
from actuator_drivers.ethercat_emulator.esc import AL_INVALID_OUTPUT_SM, INIT, OP, PREOP, SAFEOP, Segment
from actuator_drivers.ethercat_emulator.frames import Cmd, Datagram, FrameError, datagram_frame, decode, encode


def run(segment, *datagrams):
    """Send datagrams through the segment as one frame (encoded and decoded on the way)."""
    reply = decode(encode(segment.process(decode(encode(datagram_frame(datagrams))))))
    return reply.datagrams


@pytest.fixture
def two_drives():
    drives = chain([shaft("erob80_100/m6", 3.1, 0.5), shaft("erob80_50/m6", 1.0, 0.3)])
    return drives, Segment([d.esc for d in drives])


def test_frame_round_trip_and_rejects():
    frame = datagram_frame([Datagram(Cmd.APRD, 7, 0xFFFF, 0x0130, b"\x00\x00", 0),
                            Datagram(Cmd.LRW, 8, 0x1000, 0x0001, bytes(range(18)), 2)])
    raw = encode(frame)
    assert len(raw) >= 60 and raw[12:14] == b"\x88\xa4"
    back = decode(raw)
    assert back.datagrams == frame.datagrams
    assert back.datagrams[1].logical == 0x00011000
    with pytest.raises(FrameError, match="ethertype"):
        decode(raw[:12] + b"\x08\x00" + raw[14:])
    with pytest.raises(FrameError, match="exceeds"):
        decode(raw[:14] + struct.pack("<H", 0x1000 | 0x7FF) + raw[16:])


def test_broadcast_counts_slaves_and_position_addressing(two_drives):
    drives, segment = two_drives
    (brd,) = run(segment, Datagram(Cmd.BRD, 1, 0, 0x0000, b"\x00\x00"))
    assert brd.wkc == 2 and brd.adp == 2  # every slave answers and increments the address
    for n, adp in enumerate((0x0000, 0xFFFF)):  # auto-increment: 0 = first, -1 = second
        (w,) = run(segment, Datagram(Cmd.APWR, 2, adp, 0x0010, struct.pack("<H", 0x1001 + n)))
        assert w.wkc == 1
    assert [d.esc.station for d in drives] == [0x1001, 0x1002]
    (r,) = run(segment, Datagram(Cmd.FPRD, 3, 0x1002, 0x0010, b"\x00\x00"))
    assert r.wkc == 1 and struct.unpack("<H", r.data)[0] == 0x1002
    (none,) = run(segment, Datagram(Cmd.FPRD, 4, 0x1003, 0x0010, b"\x00\x00"))
    assert none.wkc == 0


def test_broadcast_read_ors_the_slaves(two_drives):
    drives, segment = two_drives
    for n, d in enumerate(drives):
        struct.pack_into("<H", d.esc.mem, 0x0010, 0x1001 + n)
    run(segment, Datagram(Cmd.FPWR, 1, 0x1002, 0x0120, struct.pack("<H", PREOP)))  # second slave only
    (alstat,) = run(segment, Datagram(Cmd.BRD, 2, 0, 0x0130, b"\x00\x00"))
    assert struct.unpack("<H", alstat.data)[0] == INIT | PREOP and alstat.wkc == 2


def test_sii_identity_through_eeprom_registers(two_drives):
    drives, segment = two_drives
    struct.pack_into("<H", drives[0].esc.mem, 0x0010, 0x1001)
    words = []
    for word in (0x0008, 0x000A):  # vendor, product
        run(segment, Datagram(Cmd.FPWR, 1, 0x1001, 0x0502, struct.pack("<HHH", 0x0100, word, 0)))
        (status,) = run(segment, Datagram(Cmd.FPRD, 2, 0x1001, 0x0502, b"\x00\x00"))
        assert struct.unpack("<H", status.data)[0] & 0x8000 == 0  # not busy
        (data,) = run(segment, Datagram(Cmd.FPRD, 3, 0x1001, 0x0508, bytes(4)))
        words.append(struct.unpack("<I", data.data)[0])
    assert words == [EROB_VENDOR, EROB_PRODUCT]


def _configure_process_data(esc, logical_out, logical_in):
    struct.pack_into("<HHBBBB", esc.mem, 0x0800, 0x1000, 128, 0x26, 0, 1, 0)
    struct.pack_into("<HHBBBB", esc.mem, 0x0808, 0x1080, 128, 0x22, 0, 1, 0)
    struct.pack_into("<HHBBBB", esc.mem, 0x0810, 0x1100, 6, 0x64, 0, 1, 0)
    struct.pack_into("<HHBBBB", esc.mem, 0x0818, 0x1180, 12, 0x20, 0, 1, 0)
    struct.pack_into("<IHBBHBBB", esc.mem, 0x0600, logical_out, 6, 0, 7, 0x1100, 0, 2, 1)
    struct.pack_into("<IHBBHBBB", esc.mem, 0x0610, logical_in, 12, 0, 7, 0x1180, 0, 1, 1)


def test_lrw_working_counter_by_state_and_state_machine(two_drives):
    drives, segment = two_drives
    for n, d in enumerate(drives):
        struct.pack_into("<H", d.esc.mem, 0x0010, 0x1001 + n)
        _configure_process_data(d.esc, 6 * n, 12 + 12 * n)
    lrw = Datagram(Cmd.LRW, 1, 0, 0, bytes(36))
    assert run(segment, lrw)[0].wkc == 0  # INIT: no process data
    (bad,) = run(segment, Datagram(Cmd.BWR, 2, 0, 0x0120, struct.pack("<H", SAFEOP)))
    assert [d.esc.state for d in drives] == [INIT, INIT] and drives[0].esc.al_code == 0x0011  # INIT -> SAFE-OP invalid
    run(segment, Datagram(Cmd.BWR, 3, 0, 0x0120, struct.pack("<H", PREOP | 0x10)))
    run(segment, Datagram(Cmd.BWR, 4, 0, 0x0120, struct.pack("<H", SAFEOP)))
    assert [d.esc.state for d in drives] == [SAFEOP, SAFEOP]
    assert run(segment, lrw)[0].wkc == 2  # inputs only (+1 each)
    run(segment, Datagram(Cmd.BWR, 5, 0, 0x0120, struct.pack("<H", OP)))
    (op,) = run(segment, lrw)
    assert op.wkc == 6  # 2 x (read 1 + write 2) = pysoem's expected_wkc for two drives
    second_sw = struct.unpack_from("<H", op.data, 24)[0]
    assert cia402.decode(second_sw) == cia402.State.SWITCH_ON_DISABLED


def test_safe_op_refused_when_sm2_length_disagrees_with_mapping(two_drives):
    drives, segment = two_drives
    esc = drives[0].esc
    _configure_process_data(esc, 0, 6)
    struct.pack_into("<H", esc.mem, 0x0812, 8)  # SM2 8 bytes, mapping says 6
    esc.write(0x0120, struct.pack("<H", PREOP))
    esc.write(0x0120, struct.pack("<H", SAFEOP))
    assert esc.state == PREOP and esc.al_status & 0x10 and esc.al_code == AL_INVALID_OUTPUT_SM


def _upload(od, index, sub, state=PREOP):
    request = struct.pack("<HHBBHBHBI", 10, 0, 0, 0x13, 0x2000, 0x40, index, sub, 0) + bytes(6)
    reply = sdo_reply(request, od, state)
    return reply[8], reply[12:16]


def _download(od, index, sub, data, state=PREOP):
    cmd = 0x23 | ((4 - len(data)) << 2)
    request = struct.pack("<HHBBHBHB", 10, 0, 0, 0x23, 0x2000, cmd, index, sub) + data.ljust(4, b"\x00") + bytes(6)
    reply = sdo_reply(request, od, state)
    return reply[8], struct.unpack_from("<I", reply, 12)[0]


def test_coe_sdo_expedited_sizes_and_aborts(two_drives):
    od: ObjectDictionary = two_drives[0][0].od
    assert _upload(od, 0x1C12, 0)[0] == 0x4F  # 1 byte: SOEM reads it into a 1-byte buffer
    assert _upload(od, 0x6041, 0)[0] == 0x4B  # 2 bytes
    command, data = _upload(od, 0x1018, 1)
    assert command == 0x43 and struct.unpack("<I", data)[0] == EROB_VENDOR
    assert _upload(od, 0x5555, 0) == (0x80, struct.pack("<I", ABORT_NO_OBJECT))
    assert _download(od, 0x6041, 0, b"\x00\x00") == (0x80, ABORT_READ_ONLY)
    assert _download(od, 0x1600, 0, b"\x00", state=SAFEOP) == (0x80, ABORT_STATE)  # remap only in PRE-OP
    assert _download(od, 0x1600, 1, struct.pack("<I", 0x60720010)) == (0x60, 0)
    assert od.mapping(0x1C12)[0] == (0x6072, 0, 16)


def test_cia402_enable_sequence_and_fault_reset_edge():
    state, previous = cia402.State.SWITCH_ON_DISABLED, 0
    sequence = []
    while state != cia402.State.OPERATION_ENABLED and len(sequence) < 10:
        cw = cia402.next_command(state)
        sequence.append(cw)
        state, previous = cia402.transition(state, cw, previous), cw
    assert sequence == [cia402.SHUTDOWN, cia402.SWITCH_ON, cia402.ENABLE_OPERATION]  # ZeroErr's order
    assert cia402.decode(cia402.statusword(state)) == cia402.State.OPERATION_ENABLED
    assert cia402.transition(cia402.State.FAULT, 0x0080, 0x0080) == cia402.State.FAULT  # no edge, no reset
    assert cia402.transition(cia402.State.FAULT, 0x0080, 0x0000) == cia402.State.SWITCH_ON_DISABLED
    table = {0x0250: cia402.State.SWITCH_ON_DISABLED, 0x0231: cia402.State.READY_TO_SWITCH_ON,
             0x0233: cia402.State.SWITCHED_ON, 0x1237: cia402.State.OPERATION_ENABLED,
             0x0217: cia402.State.QUICK_STOP_ACTIVE, 0x0218: cia402.State.FAULT}
    assert {sw: cia402.decode(sw) for sw in table} == table


def test_master_controlword_resets_a_fault_only_while_enabling_and_on_an_edge():
    """cia402.controlword (the master's rule) against cia402.transition (the drive's): enabling a
    faulted drive resets it (a rising edge of bit 7 after a held reset) and reaches operation
    enabled; releasing leaves the fault latched."""
    def run(enable: bool, previous: int) -> list:
        state, states = cia402.State.FAULT, []
        for _ in range(6):
            cw = cia402.controlword(state, enable, previous)
            state, previous = cia402.transition(state, cw, previous), cw
            states.append(state)
        return states

    assert run(False, 0)[-1] == cia402.State.FAULT
    held = run(True, cia402.FAULT_RESET)  # last cycle's controlword held the reset bit: no edge yet
    assert held[0] == cia402.State.FAULT and held[-1] == cia402.State.OPERATION_ENABLED
    assert run(True, 0)[0] == cia402.State.SWITCH_ON_DISABLED


def test_units():
    u = ErobUnits(rated_current=5.4)
    assert u.counts(2 * 3.141592653589793) == 524288
    assert u.rad(u.counts(1.2345)) == pytest.approx(1.2345, abs=2 * 3.1416 / 524288)
    assert u.permille(5.4) == 1000 and u.amps(-500) == pytest.approx(-2.7)
    assert u.permille(1e6) == 32767
    assert ErobUnits.from_drive(3000).rated_current == 3.0
    with pytest.raises(ValueError, match="rated_current"):
        ErobUnits(rated_current=0)


def test_real32_bench_objects_read_as_floats_and_a_download_moves_the_pendulum(two_drives):
    """0x2F00:01-03 are REAL32 (the emulated pendulum): read with ``real``, never as integers; an
    SDO download of a new length rebuilds the shaft's pendulum; a non-positive length is refused
    and leaves the object as it was, as a drive refusing a download does."""
    drive = two_drives[0][0]
    od: ObjectDictionary = drive.od
    assert (od.real((0x2F00, 1)), od.real((0x2F00, 2))) == (pytest.approx(3.1), pytest.approx(0.5))
    with pytest.raises(TypeError, match="0x2F00:01 is a REAL32"):
        od[(0x2F00, 1)]
    assert _download(od, 0x2F00, 2, struct.pack("<f", 0.25)) == (0x60, 0)
    assert drive.sim.bench.length == pytest.approx(0.25) and od.real((0x2F00, 2)) == pytest.approx(0.25)
    assert _download(od, 0x2F00, 2, struct.pack("<f", -1.0)) == (0x80, 0x06090030)
    assert od.real((0x2F00, 2)) == pytest.approx(0.25) and drive.sim.bench.length == pytest.approx(0.25)
