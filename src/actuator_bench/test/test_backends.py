"""The backend registry: a fifth family, written here as one module plus one entry point (a
distribution's metadata in a temporary folder on ``sys.path``, as ``pip install`` would leave it),
is picked up by the bench node core, the recorder and the CLI with no other change; every
backend publishes the same topics with the same types.

The fake family is a first-order joint, ``dq/dt = (goal - q) / TAU`` while torque is on, solved
exactly between cycles: the recorded logs must satisfy that closed form sample to sample.

The family registry (group ``actuator_bench.families``) the same way: a new serial
family (``clone_family.py``: its table, bus, driver, bench and emulator over the serial-bus core)
installed as that module plus one entry point is picked up by ``actuator-bench emulate`` (the
stock vendor SDK pings its emulator), ``record`` and ``record-all --emulate``; the lockstep
recording follows a direct simulation of its model.
"""

import importlib
import signal
import subprocess
import sys

import numpy as np
import pytest
from family_install import family_distribution_fixture  # noqa: F401 (the family_distribution fixture)

from actuator_bench import cli
from actuator_bench.backends import GROUP, installed_backends
from actuator_bench.bag2json import bag_logs
from actuator_bench.bench_core import BENCH_TOPICS, BenchCore
from actuator_bench.messages import BenchInfo
from actuator_bench.session import RunOutput, record_run
from actuator_models.family import family_of, installed_families
from actuator_models.bench import Bench, BenchParams
from actuator_models.logs import read_log
from actuator_models.resampling import resample
from actuator_models.model import load_model
from actuator_models.simulation import simulate_logs

TAU = 0.05  # s
BUILT_IN = ["dynamixel", "dynamixel_emulator", "erob", "erob_emulator", "feetech", "feetech_emulator", "mujoco"]

#: the whole fifth family: its module ...
MODULE = '''"""A fifth actuator family: a first-order joint, dq/dt = (goal - q) / TAU while torque is on."""

import math
from dataclasses import dataclass, field
from typing import Tuple

from actuator_models.bench import Backend, Command, JointSample

TAU = 0.05  # s


@dataclass
class FirstOrderJoint:
    """A joint reaching its goal with time constant TAU; its clock is itself (sleeping integrates)."""

    joints: Tuple[str, ...]
    t: float = 0.0
    q: float = 0.0
    goal: float = 0.0
    enabled: bool = False
    clock: "FirstOrderJoint" = field(init=False)

    def __post_init__(self) -> None:
        self.clock = self  # now() and sleep_until() below

    def now(self) -> float:
        return self.t

    def sleep_until(self, t: float) -> None:
        if self.enabled and t > self.t:
            self.q = self.goal + (self.q - self.goal) * math.exp(-(t - self.t) / TAU)
        self.t = max(self.t, t)

    def apply(self, command: Command) -> None:
        self.goal = command.goal_position[0]
        self.enabled = command.torque_enable[0] if command.torque_enable else self.enabled

    def sample(self) -> JointSample:
        v = (self.goal - self.q) / TAU if self.enabled else 0.0
        return JointSample(self.t, self.joints, (self.q,), (v,), (0.0,), (0.0,), (7.4,), (25.0,), (self.enabled,), (0,))

    def release(self) -> None:
        self.enabled = False

    def close(self) -> None:
        self.release()


BACKEND = Backend("first_order", "a first-order joint (test)", lambda p: FirstOrderJoint(p.joints))
'''
#: ... and its one entry point, as ``pip install`` writes it for ``entry_points={GROUP: [...]}``
ENTRY_POINTS = f"[{GROUP}]\nfirst_order = first_order_family:BACKEND\n"


@pytest.fixture()
def fifth_family(tmp_path, monkeypatch):
    """Install the family: its module and a dist-info with its entry point on ``sys.path``."""
    (tmp_path / "first_order_family.py").write_text(MODULE)
    info = tmp_path / "first_order_family-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: first-order-family\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield
    importlib.invalidate_caches()


# ---------------------------------------------------------------- tests
def assert_first_order(log) -> None:
    """Between samples k and k+1 the joint relaxes towards goal k (command sent after sample k)."""
    t, q, goal, on = log.timestamp, log.position, log.goal_position, log.torque_enable
    expected = goal[:-1] + (q[:-1] - goal[:-1]) * np.exp(-np.diff(t) / TAU)
    held = on[:-1]
    assert held.sum() > 100
    np.testing.assert_allclose(q[1:][held], expected[held], atol=1e-9)


def test_installed_backends_are_the_entry_points_of_the_installed_packages():
    assert list(installed_backends()) == BUILT_IN


def test_fifth_family_is_installed_as_one_module_and_one_entry_point(fifth_family):
    registry = installed_backends()
    assert list(registry) == sorted(BUILT_IN + ["first_order"])
    assert isinstance(registry.open("first_order", BenchParams()), Bench)
    with pytest.raises(ValueError, match="unknown backend 'nope'.*first_order"):
        registry["nope"]


def test_a_family_whose_sdk_is_missing_leaves_the_others_usable(tmp_path, monkeypatch):
    """An entry point whose module cannot import (its vendor SDK not installed) is left out of the
    registry, every other backend still opens, and naming it says why in one line."""
    (tmp_path / "sdkless_family.py").write_text("import no_such_vendor_sdk_here\n")
    info = tmp_path / "sdkless_family-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sdkless-family\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nsdkless = sdkless_family:BACKEND\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    registry = installed_backends()
    assert list(registry) == BUILT_IN
    with pytest.raises(ValueError, match="backend 'sdkless' is installed but cannot load: .*no_such_vendor_sdk_here"):
        registry["sdkless"]
    importlib.invalidate_caches()


def test_bench_node_core_picks_up_the_fifth_family(fifth_family):
    core = BenchCore({"backend": "first_order", "rate": 50.0, "prepare_time": 0.0, "settle_time": 0.0})  # t = 0 at once
    core.start("up_and_down", 400.0)
    cycles = [core.tick() for _ in range(3)]
    first = cycles[0]  # t = 0: the run's info with its first command, stamped as it
    assert [p.topic for p in first] == ["joint_states", "actuator_states", "commands", "bench_info"]
    assert first[-1].fields["trajectory"] == "up_and_down" and first[-1].time == first[2].time
    assert all([p.topic for p in c] == ["joint_states", "actuator_states", "commands"] for c in cycles[1:])
    assert [p.topic for p in core.close()] == ["commands", "bench_info"]  # release on stop
    assert core.loop.bench.enabled is False


def test_recorder_picks_up_the_fifth_family(tmp_path, fifth_family):
    bench = installed_backends().open("first_order", BenchParams())
    record = record_run(bench, BenchInfo("xl330", mass=0.49, length=0.1), "sin_sin", 400.0, rate=200.0,
                        output=RunOutput(bag=tmp_path / "bag", dt=None))
    (log,) = record.logs
    assert_first_order(log)
    assert log.timestamp[-1] == pytest.approx(6.0, abs=0.01)  # the whole trajectory, t = 0 at the first command
    (from_bag,) = bag_logs(tmp_path / "bag")
    for column in ("timestamp", "position", "speed", "goal_position", "torque_enable"):
        np.testing.assert_array_equal(getattr(from_bag, column), getattr(log, column))


def test_cli_picks_up_the_fifth_family(tmp_path, capsys, fifth_family):
    argv = ["play", "--backend", "first_order", "--trajectory", "lift_and_drop", "--kp", "400", "--rate", "200",
            "--out", str(tmp_path / "logs"), "--raw", "--bag", str(tmp_path / "bag")]
    assert cli.main(argv) == 0
    (path,) = sorted((tmp_path / "logs").glob("*.json"))
    log = read_log(path)
    assert log.trajectory == "lift_and_drop" and log.motor == "xl330" and log.kp == 400.0
    assert_first_order(log)
    assert not log.torque_enable[-1]  # lift_and_drop releases at t > 2 s


def test_cli_without_the_fifth_family_does_not_know_it(tmp_path):
    argv = ["play", "--backend", "first_order", "--trajectory", "lift_and_drop", "--kp", "400", "--out", str(tmp_path)]
    with pytest.raises(SystemExit) as error:
        cli.main(argv)
    assert error.value.code == 2


def test_backends_publish_the_same_topics_and_types(fifth_family):
    """Dynamixel (emulated) and MuJoCo through the node core: same publications per cycle."""
    seen = {}
    for backend in ("dynamixel_emulator", "mujoco", "first_order"):
        core = BenchCore({"backend": backend, "mass": 0.49, "length": 0.1, "time_scale": 4.0})
        try:
            core.start("sin_sin", 400.0)
            pubs = core.tick() + core.tick() + (core.close() or [])
        finally:
            core.loop.bench.close()
        seen[backend] = [(p.topic, p.msgtype, sorted(p.fields)) for p in pubs]
    assert seen["dynamixel_emulator"] == seen["mujoco"] == seen["first_order"]
    assert {topic for topic, *_ in seen["mujoco"]} == set(BENCH_TOPICS)


# ---------------------------------------------------------------- a new serial-bus family
@pytest.fixture()
def clone_family(family_distribution):
    """The new serial family installed (module + entry point); returns the params file of its
    emulated servo's true model."""
    return family_distribution("clone_family", "clone", "p1clone", "P1 clone servo")


def test_families_are_the_entry_points_of_the_installed_packages():
    assert list(installed_families()) == ["dynamixel", "erob", "feetech"]
    assert family_of("sts3215").name == "feetech" and family_of("xl330").name == "dynamixel"
    assert family_of("erob80_100").name == "erob"
    with pytest.raises(ValueError, match="actuator 'p1clone': no installed family"):
        family_of("p1clone")


def test_emulate_and_record_pick_up_a_new_serial_family(tmp_path, clone_family):
    """``emulate --actuator p1clone`` in a subprocess: its description line, then the pty, where
    the stock dynamixel-sdk pings model 4242; ``record --port`` through the family's driver; the
    torque is off afterwards, read back with the stock SDK."""
    import dynamixel_sdk as sdk

    assert family_of("p1clone").name == "clone"
    command = [sys.executable, "-m", "actuator_drivers.cli", "emulate", "--actuator", "p1clone", "--params",
               str(clone_family), "--mass", "0.3", "--length", "0.1", "--time-scale", "4"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner, port = process.stdout.readline(), process.stdout.readline().strip()
        assert banner.startswith("P1 clone emulator: P1 clone servo, ID 1, model ") and port.startswith("/dev/"), banner
        argv = ["record", "--port", port, "--actuator", "p1clone", "--trajectory", "lift_and_drop", "--mass", "0.3",
                "--length", "0.1", "--kp", "32", "--retries", "10", "--latency-ms", "100", "--time-scale", "4",
                "--command-timeout", "5",  # a busy host's stall of the loop (a CI run: 0.54 s) keeps the torque
                "--out", str(tmp_path / "logs")]
        assert cli.main(argv) == 0
        (path,) = (tmp_path / "logs").glob("*.json")
        log = read_log(path)
        assert log.motor == "p1clone" and log.kp == 32 and log.torque_enable.any() and not log.torque_enable[-1]
        assert np.ptp(log.position) > 0.3  # lifted, then dropped
        handler, bus = sdk.PacketHandler(1.0), sdk.PortHandler(port)
        assert bus.openPort()
        model, result, error = next(r for r in (handler.ping(bus, 1) for _ in range(10)) if r[1] == sdk.COMM_SUCCESS)
        torque, result, _ = next(r for r in (handler.read1ByteTxRx(bus, 1, 24) for _ in range(10))
                                 if r[1] == sdk.COMM_SUCCESS)
        bus.closePort()
        assert (model, error, torque) == (4242, 0, 0)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=10)
    assert process.returncode == 0 and "status packets sent" in err


def test_record_all_emulates_a_new_serial_family_in_lockstep(tmp_path, clone_family):
    """``record-all --emulate`` with the family's own default grid (0.3 kg at 0.1 m, kp 32): the
    recording through the family's driver follows a direct simulation of the logged goals."""
    argv = ["record-all", "--emulate", str(clone_family), "--actuator", "p1clone", "--trajectories", "sin_sin",
            "--unattended", "--lockstep", "--out", str(tmp_path / "logs")]
    assert cli.main(argv) == 0
    (path,) = (tmp_path / "logs").glob("*.json")
    log = read_log(path)
    assert (log.motor, log.mass, log.length, log.kp) == ("p1clone", 0.3, 0.1, 32)
    processed = resample(log, 0.005)
    simulated = simulate_logs(load_model(clone_family), [processed])[0]
    mae = float(np.abs(simulated - processed.position).mean())
    assert np.ptp(processed.position) > 0.5 and mae < 0.005, f"recording vs simulation MAE {mae:.4f} rad"
