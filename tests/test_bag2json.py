"""Bag to JSON logs: runs, held commands, headers, namespaces, the command line."""

import math
import shutil
import subprocess
import sys

import numpy as np
import pytest

from actuator_bench.bag2json import bag_logs, convert, is_bag
from actuator_bench.interfaces import (
    ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE, MessageCodec, bench_topics, bench_typestore,
    interfaces_share,
)
from actuator_bench.messages import (
    BenchInfo, Command, JointSample, actuator_state_fields, bench_info_fields, command_fields, joint_state_fields,
    seconds_to_ns,
)
from actuator_bench.recorder import Recorder
from actuator_models.logs import read_log

T0 = 1_700_000_000.0  # bag clock at the start of the recording [s]
RATE = 100.0


class BagBuilder:
    """Writes bench messages into a bag through the recorder core, at given receive times [s]."""

    def __init__(self, path, namespaces=("real",), clock_offset=0.0, typestore=None):
        self.clock_offset = clock_offset  # bag time minus the stamps' (bench) time [s]
        self.codec = MessageCodec(typestore)
        self.topics = {ns: bench_topics(ns) for ns in namespaces}
        self.recorder = Recorder([t for topics in self.topics.values() for t in topics.values()], self.codec.typestore)
        self.recorder.start(path)

    def put(self, ns, base, msgtype, fields, t, delay=0.0):
        """A message stamped ``t`` (bench time: bag time minus the offset), received ``delay`` [s] later."""
        data = self.codec.encode(msgtype, fields, seconds_to_ns(t - self.clock_offset))
        self.recorder.receive(self.topics[ns][base], seconds_to_ns(t + delay), data)

    def info(self, ns, t, trajectory, kp=8.0, vin=12.0, delay=0.0):
        self.put(ns, "bench_info", BENCH_INFO, bench_info_fields(BenchInfo("mx64", trajectory, 1.5, 0.1, 0.2, kp, vin)),
                 t, delay)

    def command(self, ns, t, goal, enable=(True,), kp=(8.0,), delay=0.0):
        self.put(ns, "commands", ACTUATOR_COMMAND, command_fields(Command(("j1",), (goal,), enable, kp)), t, delay)

    def sample(self, ns, t, position, temperature=30.0, speed=0.0):
        sample = JointSample(t, ("j1",), (position,), (speed,), (0.0,), (1.0,), (11.5,), (temperature,), (True,), (0,))
        self.put(ns, "joint_states", JOINT_STATE, joint_state_fields(sample), t)
        self.put(ns, "actuator_states", ACTUATOR_STATE, actuator_state_fields(sample), t)

    def run(self, ns, start, trajectory, cycles, **info):
        """A player run: info, then a command and a sample per cycle, then release and idle info."""
        self.info(ns, start, trajectory, **info)
        for k in range(1, cycles + 1):
            t = start + k / RATE
            self.command(ns, t, 0.01 * k, (k < cycles / 2,) if trajectory == "lift_and_drop" else ())
            self.sample(ns, t + 0.001, 0.02 * k, speed=0.02 * RATE)  # the position's slope, as a bench logs it
        end = start + (cycles + 1) / RATE
        self.command(ns, end, 0.0, (False,), ())
        self.info(ns, end, "")
        return end

    def close(self):
        self.recorder.stop()


def legacy_typestore(tmp_path):
    """The typestore of earlier versions, whose BenchInfo had no header."""
    share = tmp_path / "legacy_interfaces"
    shutil.copytree(interfaces_share() / "msg", share / "msg")
    info = share / "msg" / "BenchInfo.msg"
    text = info.read_text()
    assert "std_msgs/Header header" in text
    info.write_text("\n".join(line for line in text.splitlines() if "header" not in line and not line.startswith("  ")))
    return bench_typestore(share)


@pytest.fixture(params=["stamped", "legacy"])
def bag(tmp_path, request):
    """Two runs on /real, one on /sim, recorded in order; ``legacy``: as earlier versions wrote
    them (bench_info without a header, read by receive order)."""
    typestore = legacy_typestore(tmp_path) if request.param == "legacy" else None
    builder = BagBuilder(tmp_path / "session", ("real", "sim"), typestore=typestore)
    builder.sample("real", T0 - 0.5, 0.0)  # idle, before any run: not in a log
    end = builder.run("real", T0, "sin_sin", 200)
    for k in range(50):  # idle samples between runs
        builder.sample("real", end + (k + 0.5) / RATE, 0.5)
    builder.run("real", end + 1.0, "lift_and_drop", 100, kp=0.0, vin=0.0)
    builder.run("sim", T0, "up_and_down", 80)
    builder.close()
    return tmp_path / "session"


def test_a_run_ends_at_its_idle_info_when_stamps_are_bench_time(tmp_path):
    """A ROS bench stamps bench time (seconds since it started), the bag its own clock: the run
    still ends where the next bench_info says, not at the next run's first command (the player's
    release goes with the idle info, inside the run), so no idle time between runs enters a log."""
    builder = BagBuilder(tmp_path / "bench_time", ("real",), clock_offset=T0 - 3.0)
    builder.info("real", T0, "sin_sin")
    for k in range(1, 201):
        builder.command("real", T0 + k / RATE, 0.01 * k)
        builder.sample("real", T0 + k / RATE + 0.001, 0.02 * k, speed=0.02 * RATE)
    end = T0 + 201 / RATE
    builder.command("real", end - 0.0005, 0.0, (False,), ())  # the release, received before the idle info
    builder.info("real", end, "")
    for k in range(300):  # 3 s idle, torque off, between the runs
        builder.sample("real", end + (k + 0.5) / RATE, 0.5)
    builder.run("real", end + 3.0, "up_and_down", 100)
    builder.close()
    first, second = bag_logs(tmp_path / "bench_time")
    assert (first.trajectory, second.trajectory) == ("sin_sin", "up_and_down")
    assert len(first) == 200 and first.timestamp[-1] < 2.01  # the samples from the first command to the release
    assert first.position == pytest.approx(0.02 * np.arange(1, 201))  # none of the idle ones (0.5 rad)
    assert len(second) == 100


def test_a_run_is_its_stamps_whatever_order_the_recorder_received_it_in(tmp_path):
    """A busy recorder takes each topic's backlog at its own pace: here the last 0.4 s of a run's
    commands (its release included) arrive after the info that closes it, and a pre-move command
    stamped before the run arrives after the info that opens it. The run is still its stamps:
    every command of it, none of the pre-move (by receive order, the run was cut at 1.6 s)."""
    builder = BagBuilder(tmp_path / "late", ("real",), clock_offset=T0 - 3.0)
    builder.command("real", T0 - 0.005, 0.7, delay=0.05)  # the pre-move's last, received after the info
    builder.info("real", T0, "sin_sin")
    for k in range(1, 201):
        late = 0.5 if k > 160 else 0.0
        builder.command("real", T0 + k / RATE, 0.01 * k, delay=late)
        builder.sample("real", T0 + k / RATE + 0.001, 0.02 * k, speed=0.02 * RATE)
    end = T0 + 201 / RATE
    builder.command("real", end, 0.0, (False,), (), delay=0.5)  # the release, stamped as the idle info
    builder.sample("real", end, 2.5)
    builder.info("real", end, "")
    builder.sample("real", end + 0.5 / RATE, 0.5)  # idle
    builder.close()
    (log,) = bag_logs(tmp_path / "late")
    assert len(log) == 200 and log.timestamp[0] == pytest.approx(0.001, abs=1e-6)
    assert log.timestamp[-1] == pytest.approx(1.991, abs=1e-6)  # up to the release: none of its cycle, no idle one
    assert log.goal_position == pytest.approx(0.01 * np.arange(1, 201))  # the late ones too
    assert log.torque_enable.all()


def test_one_log_per_run_and_namespace(bag):
    assert is_bag(bag)
    logs = bag_logs(bag)
    names = [log.source for log in logs]
    assert names == ["session_real_000_sin_sin_j1.json", "session_real_001_lift_and_drop_j1.json",
                     "session_sim_000_up_and_down_j1.json"]
    assert [log.source for log in bag_logs(bag, "/sim")] == names[2:]


def test_entries_start_at_the_first_command_and_hold_its_goal(bag):
    log = bag_logs(bag, "/real")[0]
    assert len(log) == 200  # the samples from the first command to the release
    assert log.timestamp[0] == pytest.approx(0.001, abs=1e-6) and np.all(np.diff(log.timestamp) > 0)
    assert log.goal_position == pytest.approx(0.01 * np.arange(1, 201))
    assert log.position == pytest.approx(0.02 * np.arange(1, 201))
    assert log.torque_enable.all()  # no torque_enable in the commands: torque stays enabled
    assert (log.motor, log.trajectory, log.mass, log.arm_mass, log.length, log.kp, log.vin) == (
        "mx64", "sin_sin", 1.5, 0.1, 0.2, 8.0, 12.0)
    assert log.extra["control"] == pytest.approx(1.0) and log.extra["temp"] == pytest.approx(30.0)


def test_gain_and_voltage_from_commands_and_states_when_bench_info_lacks_them(bag):
    drop = bag_logs(bag, "/real")[1]
    assert drop.kp == 8.0 and drop.vin == pytest.approx(11.5)
    assert drop.torque_enable[:49].all() and not drop.torque_enable[50:].any()


def test_processed_logs_read_back(bag, tmp_path):
    paths = convert(bag, tmp_path / "logs")
    logs = [read_log(p) for p in paths]
    assert [log.dt for log in logs] == [0.005] * 3
    assert logs[0].duration == pytest.approx(1.99)  # samples up to 1.991 s
    raw = [read_log(p) for p in convert(bag, tmp_path / "raw", dt=None)]
    assert [log.dt for log in raw] == [None] * 3 and len(raw[0]) == 200


def test_columns_with_unknown_values_are_left_out(tmp_path):
    builder = BagBuilder(tmp_path / "b")
    builder.info("real", T0, "sin_sin")
    for k in range(1, 5):
        builder.command("real", T0 + k / RATE, 0.0)
        builder.sample("real", T0 + k / RATE, 0.0, temperature=math.nan)  # a simulator has no temperature
    builder.close()
    (log,) = bag_logs(tmp_path / "b")
    assert "temp" not in log.extra and "input_volts" in log.extra


def test_a_bag_without_runs_is_an_error(tmp_path):
    builder = BagBuilder(tmp_path / "idle")
    builder.sample("real", T0, 0.0)
    builder.close()
    with pytest.raises(ValueError, match="no trajectory run"):
        convert(tmp_path / "idle", tmp_path / "logs")


def test_command_line(bag, tmp_path):
    out = tmp_path / "cli"
    result = subprocess.run([sys.executable, "-m", "actuator_bench.cli", "bag2json", str(bag), "--out", str(out),
                             "--namespace", "/real"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.split()) == 2 and sorted(p.name for p in out.iterdir()) == sorted(
        p.rsplit("/", 1)[-1] for p in result.stdout.split())
    missing = subprocess.run([sys.executable, "-m", "actuator_bench.cli", "bag2json", str(tmp_path / "none"), str(out)],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "error" in missing.stderr  # bad input (issue 9: one exit-code convention)
