"""End to end without ROS: an emulated Dynamixel plays identification trajectories, the recorder's
core writes a rosbag2/MCAP bag, an independent reader (Foxglove's ``mcap`` + ``mcap_ros2``)
decodes every message from the definitions embedded in the bag, and the bag converts to JSON
logs that ``actuator-models fit`` identifies.

Nothing is mocked: the real driver talks to the emulator over a pseudo-terminal (bench time 4x
wall time), the player and recorder are the nodes' cores.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from actuator_bench.bag2json import convert
from actuator_drivers.dynamixel.bench import DynamixelBench
from actuator_bench.interfaces import bench_topics, interfaces_share
from actuator_bench.messages import BenchInfo
from actuator_bench.player import TrajectoryPlayer
from actuator_bench.recorder import Recorder
from actuator_bench.loop import BenchLoop
from actuator_bench.session import BagSink
from actuator_drivers.dynamixel_emulator.emulated import Emulation, emulated_dynamixel
from actuator_models.logs import read_log
from actuator_models.model import load_model

mcap_reader = pytest.importorskip("mcap.reader", reason="the independent reader needs the mcap package")
mcap_decoder = pytest.importorskip("mcap_ros2.decoder", reason="the independent reader needs mcap-ros2-support")

TRAJECTORIES = ("sin_sin", "lift_and_drop")
BENCH = BenchInfo("xl330", mass=0.49, length=0.1, vin=7.4)
KP = 400.0


def msg_lines(text: str) -> list:
    """The ``type name`` lines of a message definition, comments and blank lines dropped."""
    return [" ".join(line.split("#")[0].split()) for line in text.splitlines() if line.split("#")[0].strip()]


def msg_file(name: str) -> list:
    return msg_lines((interfaces_share() / "msg" / f"{name}.msg").read_text())


@pytest.fixture(scope="module")
def bag(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bags") / "emulated"
    model = load_model("xl330/m6")
    emulation = Emulation(time_scale=4.0, command_timeout=5.0)  # a busy host's stall keeps the torque
    with emulated_dynamixel("xl330", model, BENCH.mass, BENCH.length, emulation=emulation) as (emulator, driver):
        bench = DynamixelBench(driver, [model])
        recorder = Recorder(list(bench_topics("real").values()))
        recorder.start(path)
        loop, sink = BenchLoop(bench, TrajectoryPlayer(bench.joints, BENCH)), BagSink(recorder, "real")
        try:
            for name in TRAJECTORIES:
                loop.run(name, KP, 100.0, sink)
        finally:
            recorder.stop()
    return path


def decoded_messages(bag: Path) -> dict:
    """Every message of the bag's MCAP file, decoded by mcap_ros2, by topic."""
    (mcap_file,) = bag.glob("*.mcap")
    out = {}
    with mcap_file.open("rb") as stream:
        reader = mcap_reader.make_reader(stream, decoder_factories=[mcap_decoder.DecoderFactory()])
        for schema, channel, _, message in reader.iter_decoded_messages():
            assert schema.encoding == "ros2msg" and channel.message_encoding == "cdr"
            out.setdefault(channel.topic, (schema, []))[1].append(message)
    return out


def test_independent_reader_decodes_custom_messages(bag):
    topics = decoded_messages(bag)
    assert set(topics) == {"/real/joint_states", "/real/actuator_states", "/real/commands", "/real/bench_info"}
    for topic, msgtype in (("/real/actuator_states", "ActuatorState"), ("/real/commands", "ActuatorCommand"),
                           ("/real/bench_info", "BenchInfo")):
        schema, messages = topics[topic]
        assert schema.name == f"actuator_interfaces/msg/{msgtype}"
        own_definition = schema.data.decode().split("=" * 80)[0]
        assert msg_lines(own_definition) == msg_file(msgtype)
        fields = [line.split()[1] for line in msg_file(msgtype)]
        assert all(list(m.__slots__) == fields for m in messages)

    infos = topics["/real/bench_info"][1]
    assert [i.trajectory for i in infos] == ["sin_sin", "", "lift_and_drop", ""]
    assert {(i.actuator, i.mass, i.length, i.kp, i.vin) for i in infos[::2]} == {("xl330", 0.49, 0.1, KP, 7.4)}
    states = topics["/real/actuator_states"][1]
    assert len(states) > 2 * 100  # at least 2 x 6 s at 100 Hz would be 1200; a loaded host skips late cycles
    joints = {tuple(m.name) for m in topics["/real/joint_states"][1]}
    assert len(joints) == 1 and {tuple(s.name) for s in states} == joints
    assert all(len(s.comm_errors) == len(s.name) == 1 for s in states)
    assert 7.0 < states[-1].input_voltage[0] < 7.8  # the emulated supply, read from the servo
    commands = topics["/real/commands"][1]
    assert {c.kp[0] for c in commands if c.kp} == {KP}
    assert commands[-1].torque_enable == [False]


def test_bag_converts_to_logs_that_fit(bag, tmp_path):
    paths = convert(bag, tmp_path / "logs")
    assert len(paths) == len(TRAJECTORIES)
    logs = [read_log(p) for p in paths]
    assert [log.trajectory for log in logs] == list(TRAJECTORIES)
    for log in logs:
        assert log.dt == 0.005 and (log.motor, log.mass, log.length, log.kp, log.vin) == ("xl330", 0.49, 0.1, KP, 7.4)
        assert 1150 <= len(log) <= 1210
        assert {"control", "input_volts", "temp"} <= set(log.extra)
    drop = logs[1]
    assert drop.torque_enable[:350].all() and not drop.torque_enable[450:].any()

    out = tmp_path / "m1.json"
    fit = subprocess.run(
        [sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(tmp_path / "logs"), "--actuator", "xl330",
         "--model", "m1", "--trials", "24", "--validation-fraction", "0", "--out", str(out), "--quiet",
         "--force"],  # 2 logs for M1's 6 parameters: below one log per two parameters
        capture_output=True, text=True,
    )
    assert fit.returncode == 0, fit.stderr
    assert load_model(out).friction.name == "m1"
    assert re.search(r"M1: train MAE [0-9.]+ rad", fit.stdout)
