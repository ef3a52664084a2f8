"""The backend registry: a fifth family, written here as one module plus one entry point (a
distribution's metadata in a temporary folder on ``sys.path``, as ``pip install`` would leave it),
is picked up by the bench node core, the recorder and the CLI with no other change; every
backend publishes the same topics with the same types.

The fake family is a first-order joint, ``dq/dt = (goal - q) / TAU`` while torque is on, solved
exactly between cycles: the recorded logs must satisfy that closed form sample to sample.
"""

import importlib

import numpy as np
import pytest

from actuator_bench import cli
from actuator_bench.backends import GROUP, installed_backends
from actuator_bench.bag2json import bag_logs
from actuator_bench.bench_core import BENCH_TOPICS, BenchCore
from actuator_bench.messages import BenchInfo
from actuator_bench.session import record_run
from actuator_models.bench import Bench, BenchParams
from actuator_models.logs import read_log

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
    core = BenchCore({"backend": "first_order", "rate": 50.0})
    schedule, started = core.start("up_and_down", 400.0)
    assert [p.topic for p in started] == ["bench_info"] and started[0].fields["trajectory"] == "up_and_down"
    cycles = [core.tick() for _ in range(3)]
    assert all([p.topic for p in c] == ["joint_states", "actuator_states", "commands"] for c in cycles)
    assert [p.topic for p in core.close()] == ["commands", "bench_info"]  # release on stop
    assert core.loop.bench.enabled is False


def test_recorder_picks_up_the_fifth_family(tmp_path, fifth_family):
    bench = installed_backends().open("first_order", BenchParams())
    record = record_run(bench, BenchInfo("xl330", mass=0.49, length=0.1), "sin_sin", 400.0, rate=200.0,
                        bag=tmp_path / "bag", dt=None)
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
            _, started = core.start("sin_sin", 400.0)
            pubs = started + core.tick() + core.tick() + (core.close() or [])
        finally:
            core.loop.bench.close()
        seen[backend] = [(p.topic, p.msgtype, p.stamped, sorted(p.fields)) for p in pubs]
    assert seen["dynamixel_emulator"] == seen["mujoco"] == seen["first_order"]
    assert {topic for topic, *_ in seen["mujoco"]} == set(BENCH_TOPICS)
