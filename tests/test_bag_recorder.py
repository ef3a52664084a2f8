"""The recorder's core: rosbag2 folders with MCAP storage, read back by the rosbags reader."""

from pathlib import Path

import numpy as np
import pytest
import yaml
from rosbags.highlevel import AnyReader
from rosbags.interfaces import QosDurability
from rosbags.rosbag2 import Reader

from actuator_bench.interfaces import (
    ACTUATOR_COMMAND, BENCH_INFO, JOINT_STATE, MessageCodec, bench_topics, build_message, interfaces_share,
    message_definitions, topic_type,
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
    for name, start in (("first", 100), ("second", 200)):
        recorder.start(tmp_path / name, start)
        recorder.stop()
        with Reader(tmp_path / name) as reader:
            (connection,) = [c for c in reader.connections if c.topic == TOPICS["bench_info"]]
            messages = list(reader.messages([connection]))
            assert len(messages) == 1 and messages[0][1] == start  # when recording began
            qos = connection.ext.offered_qos_profiles
            assert qos and qos[0].durability == QosDurability.TRANSIENT_LOCAL
            decoded = codec.decode(BENCH_INFO, messages[0][2])
            assert (decoded.actuator, decoded.trajectory, decoded.kp) == ("mx64", "sin_sin", 32.0)


def test_a_bag_starts_when_recording_began_in_ros2_bag_info_metadata(tmp_path, codec):
    """Finding 5: bench_info published 75 s before recording began does not move the bag's start.
    An 11 s recording (80 s .. 91 s) is 11 s long in metadata.yaml (the fields ``ros2 bag info``
    prints) and for the rosbags reader."""
    from actuator_bench.messages import JointSample, joint_state_fields

    second = 1_000_000_000
    recorder = Recorder(list(TOPICS.values()), codec.typestore)
    recorder.receive(TOPICS["bench_info"], 5 * second, info(codec))
    path = recorder.start(tmp_path / "bag", 80 * second)
    for k in range(12):
        ns = (80 + k) * second
        sample = JointSample(k, ("j",), (0.1 * k,), (0.0,), (0.0,), (1.0,), (7.4,), (30.0,), (True,), (0,))
        recorder.receive(TOPICS["joint_states"], ns, codec.encode(JOINT_STATE, joint_state_fields(sample), ns))
    recorder.stop()

    info_yaml = yaml.safe_load((path / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert info_yaml["starting_time"]["nanoseconds_since_epoch"] == 80 * second
    assert info_yaml["duration"]["nanoseconds"] == 11 * second
    assert info_yaml["message_count"] == 13 and info_yaml["storage_identifier"] == "mcap"
    counts = {t["topic_metadata"]["name"]: t["message_count"] for t in info_yaml["topics_with_message_count"]}
    assert counts[TOPICS["joint_states"]] == 12 and counts[TOPICS["bench_info"]] == 1
    (bag_file,) = info_yaml["files"]
    assert bag_file["path"] in info_yaml["relative_file_paths"] and (path / bag_file["path"]).is_file()
    assert bag_file["starting_time"]["nanoseconds_since_epoch"] == 80 * second and bag_file["message_count"] == 13
    with Reader(path) as reader:
        assert (reader.start_time, reader.duration, reader.message_count) == (80 * second, 11 * second + 1, 13)
    with AnyReader([path]) as reader:
        stamps = [t for _, t, _ in reader.messages()]
        assert min(stamps) == 80 * second and max(stamps) == 91 * second


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


def test_build_message_fills_nested_fields_and_names_a_value_of_the_wrong_shape(codec):
    """Nested messages from mappings, numeric arrays as numpy arrays, absent fields zero; a
    nested value that is not a mapping (or an array value that is not a sequence) is a TypeError
    naming the message type and the field."""
    typestore = codec.typestore
    state = build_message(typestore, "sensor_msgs/msg/JointState",
                          {"header": {"stamp": {"sec": 3, "nanosec": 7}}, "name": ["joint1"], "position": [0.25]})
    assert (state.header.stamp.sec, state.header.stamp.nanosec, state.header.frame_id) == (3, 7, "")
    assert state.name == ["joint1"] and state.position.dtype == np.float64 and state.position.tolist() == [0.25]
    assert state.velocity.size == 0
    with pytest.raises(TypeError, match=r"std_msgs/msg/Header\.stamp: expected a mapping of field values, got 3"):
        build_message(typestore, "std_msgs/msg/Header", {"stamp": 3})
    with pytest.raises(TypeError, match=r"sensor_msgs/msg/JointState\.name: expected a sequence, got 5"):
        build_message(typestore, "sensor_msgs/msg/JointState", {"name": 5})
