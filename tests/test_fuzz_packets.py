"""Fuzzing the Dynamixel packet parsers, Protocol 1.0 and 2.0, both directions (hypothesis).

Instruction packets (host -> servo: the emulator's parser, then the emulator executing them) and
status packets (servo -> host) are fed as random bytes, as valid packets cut at random places
between random garbage, and as valid packets with random bytes changed. Properties: nothing but
the documented errors is ever raised; every valid packet surrounded by garbage that cannot
contain a header comes out intact; a changed byte never yields a packet whose checksum/CRC is
claimed good but whose bytes differ from a real encoding.

CI runs a fixed, derandomized set (profile ``ci``, 300 inputs per test); a release runs
``HYPOTHESIS_PROFILE=release pytest tests/test_fuzz_packets.py`` (20,000 random inputs per test).
"""

from __future__ import annotations

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from actuator_models import load_model  # noqa: E402
from actuator_models.simulation import Pendulum  # noqa: E402

from actuator_drivers.dynamixel_emulator import packets as pk  # noqa: E402
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator  # noqa: E402
from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo  # noqa: E402
from actuator_drivers.dynamixel.tables import control_table  # noqa: E402

EXAMPLES = settings(max_examples=max(settings().max_examples, 300))  # ci: 300 per test; release: 20,000
PROTOCOLS = st.sampled_from([1, 2])
INSTRUCTIONS = st.sampled_from([pk.PING, pk.READ, pk.WRITE, pk.REG_WRITE, pk.ACTION, pk.FACTORY_RESET, pk.REBOOT,
                                pk.CLEAR, pk.SYNC_READ, pk.SYNC_WRITE, pk.FAST_SYNC_READ, pk.BULK_READ,
                                pk.BULK_WRITE, pk.FAST_BULK_READ]) | st.integers(0, 255)
IDS = st.integers(0, 0xFE)
PARAMS = st.binary(max_size=64) | st.lists(st.sampled_from([0x00, 0xFD, 0xFF]), max_size=24).map(bytes)  # stuffing


def encode(protocol: int, status: bool, servo_id: int, code: int, params: bytes) -> bytes:
    if status:
        return pk.encode_status(protocol, servo_id, code & 0x7F if protocol == 1 else code, params)
    return pk.encode_instruction(protocol, servo_id, code, params)


def parser(protocol: int, status: bool):
    return pk.Protocol1Parser(status=status) if protocol == 1 else pk.Protocol2Parser()


def feed(p, stream: bytes, cuts) -> list:
    """Feed ``stream`` in pieces cut at ``cuts``."""
    out, last = [], 0
    for cut in sorted({c % (len(stream) + 1) for c in cuts}) + [len(stream)]:
        out += p.feed(stream[last:cut])
        last = cut
    return out


def header_free(garbage: bytes) -> bytes:
    """Garbage that cannot start or complete a header (no 0xFF byte)."""
    return bytes(b if b != 0xFF else 0x00 for b in garbage)


@EXAMPLES
@given(PROTOCOLS, st.booleans(), st.binary(max_size=300), st.lists(st.integers(0, 400), max_size=8))
def test_random_bytes_never_crash_a_parser(protocol, status, stream, cuts):
    for packet in feed(parser(protocol, status), stream, cuts):
        assert packet.protocol == protocol and packet.raw in stream


@EXAMPLES
@given(PROTOCOLS, st.booleans(), st.lists(st.tuples(IDS, st.integers(0, 255).filter(lambda c: c != pk.STATUS), PARAMS),
                                          min_size=1, max_size=4),
       st.binary(max_size=20), st.lists(st.integers(0, 600), max_size=10))
def test_valid_packets_between_garbage_come_out_intact(protocol, status, specs, garbage, cuts):
    wires = [encode(protocol, status, *spec) for spec in specs]
    noise = header_free(garbage)
    stream = noise + noise.join(wires)
    packets = feed(parser(protocol, status), stream + b"\x00" * 3, cuts)
    assert [p.raw for p in packets] == wires
    for packet, (servo_id, code, params) in zip(packets, specs):
        assert packet.crc_ok and packet.servo_id == servo_id and packet.params == params
        if protocol == 2 and status:
            assert (packet.instruction, packet.error) == (pk.STATUS, code)
        elif protocol == 1 and status:
            assert packet.error == code & 0x7F
        else:
            assert packet.instruction == code


def reference_crc_ok(protocol: int, raw: bytes) -> bool:
    """The e-manual's definitions, computed bit by bit (independent of the table-driven code)."""
    if protocol == 1:
        return (~sum(raw[2:-1])) & 0xFF == raw[-1]
    crc = 0
    for byte in raw[:-2]:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8005) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc == raw[-2] | raw[-1] << 8


@EXAMPLES
@given(PROTOCOLS, st.booleans(), IDS, st.integers(0, 255), PARAMS,
       st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4))
def test_mutated_packets_are_flagged_by_their_checksum(protocol, status, servo_id, code, params, edits):
    wire = bytearray(encode(protocol, status, servo_id, code, params))
    for index, value in edits:
        wire[index % len(wire)] = value
    for packet in parser(protocol, status).feed(bytes(wire) + b"\x00" * 8):
        assert packet.crc_ok == reference_crc_ok(protocol, packet.raw)
        length = packet.raw[3] if protocol == 1 else packet.raw[5] | packet.raw[6] << 8
        assert len(packet.raw) == (4 if protocol == 1 else 7) + length


def _bus(protocol: int) -> DynamixelEmulator:
    model = load_model("mx64/m6")
    servos = [EmulatedServo(control_table("mx64", protocol), model, Pendulum(1.0, 0.15), servo_id=i) for i in (1, 2)]
    return DynamixelEmulator(servos, time_scale=None)


BUSES = {protocol: _bus(protocol) for protocol in (1, 2)}  # never started: instructions are executed directly


@EXAMPLES
@given(PROTOCOLS, st.sampled_from([1, 2, 3, pk.BROADCAST_ID]), INSTRUCTIONS, PARAMS)
def test_the_emulator_executes_any_instruction_without_crashing(protocol, servo_id, instruction, params):
    """Whatever a host sends, the emulated servo answers with well-formed status packets or nothing."""
    emulator = BUSES[protocol]
    (packet,) = pk.instruction_parser(protocol).feed(pk.encode_instruction(protocol, servo_id, instruction, params))
    replies = emulator._execute(packet)
    status = parser(protocol, True)
    for servo, wire in replies:
        (reply,) = status.feed(wire)
        assert reply.crc_ok and reply.servo_id == servo.servo_id
    for servo in emulator.servos:  # keep the bus usable for the next example (IDs, EEPROM, torque)
        servo.reboot() if protocol == 2 else servo._power_up(keep_eeprom=False)
        servo.poke("id", emulator.servos.index(servo) + 1)
