"""The recorder's core: rosbag2 folders with MCAP storage, read back by the rosbags reader."""

from pathlib import Path

import pytest
from rosbags.highlevel import AnyReader
from rosbags.interfaces import QosDurability
from rosbags.rosbag2 import Reader

from actuator_bench.interfaces import (
    ACTUATOR_COMMAND, BENCH_INFO, JOINT_STATE, MessageCodec, bench_topics, interfaces_share, message_definitions,
    topic_type,
)
from actuator_bench.messages import BenchInfo, Command, bench_info_fields, command_fields
from actuator_bench.recorder import Recorder

TOPICS = bench_topics("real")


@pytest.fixture(scope="module")
def codec() -> MessageCodec:
    return MessageCodec()


def info(codec, trajectory="sin_sin") -> bytes:
    return codec.encode(BENCH_INFO, bench_info_fields(BenchInfo("mx64", trajectory, 1.0, 0.0, 0.15, 32.0, 15.0)))


def command(codec, goal, ns) -> bytes:
    return codec.encode(ACTUATOR_COMMAND, command_fields(Command(("j",), (goal,), (True,), (32.0,))), ns)


def test_topic_types_follow_the_last_name():
    assert topic_type("/real/joint_states") == JOINT_STATE
    assert topic_type("compare/error") == JOINT_STATE
    assert topic_type("/sim/bench_info") == BENCH_INFO
    with pytest.raises(ValueError, match="not a bench topic"):
        topic_type("/real/odom")
    assert bench_topics("") == {b: f"/{b}" for b in ("joint_states", "actuator_states", "commands", "bench_info")}


def test_message_definitions_come_from_the_interface_package():
    definitions = message_definitions()
    names = ("ActuatorCommand", "ActuatorState", "BenchInfo")
    assert set(definitions) == {f"actuator_interfaces/msg/{n}" for n in names}
    assert (interfaces_share() / "package.xml").is_file()


def test_only_messages_between_start_and_stop_are_written(tmp_path, codec):
    recorder = Recorder(list(TOPICS.values()), codec.typestore)
    recorder.receive(TOPICS["commands"], 1, command(codec, 0.1, 1))  # before start: dropped
    path = recorder.start(tmp_path / "a")
    assert recorder.recording and recorder.path == path
    for k in range(3):
        recorder.receive(TOPICS["commands"], 10 + k, command(codec, 0.2 * k, 10 + k))
    assert recorder.stop() == path and recorder.stop() is None
    recorder.receive(TOPICS["commands"], 99, command(codec, 9.0, 99))  # after stop: dropped

    with AnyReader([path]) as reader:
        goals = [reader.deserialize(raw, c.msgtype).goal_position[0] for c, _, raw in reader.messages()]
        assert goals == pytest.approx([0.0, 0.2, 0.4])
        assert reader.topics[TOPICS["commands"]].msgcount == 3
        assert reader.topics[TOPICS["joint_states"]].msgcount == 0


def test_latched_bench_info_opens_every_bag_with_transient_local_qos(tmp_path, codec):
    recorder = Recorder(list(TOPICS.values()), codec.typestore)
    recorder.receive(TOPICS["bench_info"], 5, info(codec))
    for name in ("first", "second"):
        recorder.start(tmp_path / name)
        recorder.stop()
        with Reader(tmp_path / name) as reader:
            (connection,) = [c for c in reader.connections if c.topic == TOPICS["bench_info"]]
            messages = list(reader.messages([connection]))
            assert len(messages) == 1 and messages[0][1] == 5
            qos = connection.ext.offered_qos_profiles
            assert qos and qos[0].durability == QosDurability.TRANSIENT_LOCAL
            decoded = codec.decode(BENCH_INFO, messages[0][2])
            assert (decoded.actuator, decoded.trajectory, decoded.kp) == ("mx64", "sin_sin", 32.0)


@pytest.mark.parametrize("version", [8, 9])
def test_bag_versions_and_storage(tmp_path, codec, version):
    recorder = Recorder([TOPICS["commands"]], codec.typestore, version=version)
    path = recorder.start(tmp_path / "bag")
    recorder.receive(TOPICS["commands"], 1, command(codec, 0.5, 1))
    recorder.stop()
    metadata = (path / "metadata.yaml").read_text()
    assert f"version: {version}" in metadata and "storage_identifier: mcap" in metadata
    assert [p.suffix for p in Path(path).iterdir() if p.name != "metadata.yaml"] == [".mcap"]


def test_recorder_refuses_misuse(tmp_path, codec):
    with pytest.raises(ValueError, match="not a bench topic"):
        Recorder(["/real/odom"], codec.typestore)
    with pytest.raises(ValueError, match="bag version"):
        Recorder([TOPICS["commands"]], codec.typestore, version=5)
    recorder = Recorder([TOPICS["commands"]], codec.typestore)
    with pytest.raises(ValueError, match="not recorded"):
        recorder.receive("/sim/commands", 1, b"")
    recorder.start(tmp_path / "bag")
    with pytest.raises(RuntimeError, match="already recording"):
        recorder.start(tmp_path / "other")
    recorder.stop()
