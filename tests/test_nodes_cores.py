"""The ROS-free cores of the nodes: player, comparison, simulated and Dynamixel benches, fit jobs."""

import dataclasses
import json
import math
import time
from pathlib import Path

import numpy as np
import pytest

from actuator_bench.comparison import StateComparison
from actuator_models.bench import BenchParams, JointSample
from actuator_drivers.dynamixel.bench import DynamixelBench
from actuator_drivers.dynamixel_emulator.bench import open_emulated
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
from actuator_drivers.serial_bus_emulator.bench import open_on_emulator
from actuator_bench.fit_job import FitJob, FitRequest, request_from_fields
from actuator_models.identification import DEFAULT_TRIALS
from actuator_models.logs import read_logs
from actuator_models.splits import Dataset
from actuator_bench.messages import BenchInfo, Command, command_from_fields
from actuator_bench.player import ARM_PATHS, Prepare, Schedule, TrajectoryPlayer, schedule
from actuator_sim.bench import SimBench, SimClock, SimSettings
from actuator_drivers.dynamixel.errors import JointLimitError
from actuator_models.trajectories import TRAJECTORIES, trajectory

PENDULUM = BenchInfo("xl330", mass=0.49, length=0.1, vin=7.4)


# ----------------------------------------------------------------------------- player
def test_player_plays_an_identification_trajectory_then_releases():
    player = TrajectoryPlayer(("pendulum",), PENDULUM)
    assert player.tick(0.0).command is None and player.running is None
    plan = player.start("lift_and_drop", 400.0, now=10.0)
    info = player.info
    assert plan.duration == 6.0 and (info.trajectory, info.kp, info.mass) == ("lift_and_drop", 400.0, 0.49)
    step = player.tick(11.0)
    assert step.info == info  # the run's info comes with its first command
    assert player.tick(11.5).info is None
    assert step.command.goal_position == pytest.approx((float(trajectory("lift_and_drop").goal(1.0)),))
    assert step.command.torque_enable == (True,) and step.command.kp == (400.0,)
    assert player.tick(13.0).command.torque_enable == (False,)  # the trajectory's own release at 2 s
    end = player.tick(16.5)
    assert end.command.torque_enable == (False,) and end.info.trajectory == ""
    assert player.running is None and player.tick(17.0) == player.stop()


def test_player_moves_to_the_first_waypoint_before_a_prepared_run():
    """The pre-move: a cubic from the given position to the first waypoint (midpoint halfway,
    zero end velocities), held; the run's t = 0 is the tick after the hold, its info comes then."""
    player = TrajectoryPlayer(("pendulum",), PENDULUM)
    first = float(trajectory("sin_sin").goal(0.0))
    player.start("sin_sin", 400.0, prepare=Prepare(move=2.0, hold=1.0))
    assert player.running == "sin_sin"
    steps = {now: player.tick(now, [1.0]) for now in (5.0, 6.0, 6.2, 7.5)}
    assert [steps[now].command.goal_position[0] for now in (5.0, 6.0, 7.5)] == pytest.approx([1.0, (1.0 + first) / 2, first])
    s = 0.6  # 6.2 s: 1.2 s of the 2 s move
    assert steps[6.2].command.goal_position[0] == pytest.approx(1.0 + (first - 1.0) * (3 * s**2 - 2 * s**3))
    assert all(step.info is None and step.command.torque_enable == (True,) and step.command.kp == (400.0,)
               for step in steps.values())
    held = player.tick(8.0, [0.0])  # the hold's end (the position is read only at the move's start)
    assert held.command.goal_position == pytest.approx((first,)) and held.info is None
    started = player.tick(8.01, [0.0])  # t = 0: the run's first command, with its info
    assert started.info.trajectory == "sin_sin" and started.command.goal_position == pytest.approx((first,))
    assert player.tick(8.02).info is None
    assert player.tick(9.01).command.goal_position == pytest.approx((float(trajectory("sin_sin").goal(1.0)),))
    with pytest.raises(ValueError, match=">= 0"):
        Prepare(-1.0, 0.0)
    player.start("sin_sin", 400.0, prepare=Prepare(1.0, 0.0))
    with pytest.raises(ValueError, match="positions"):
        player.tick(0.0)


def test_a_prepared_run_starts_at_rest_at_its_first_waypoint():
    """MuJoCo pendulum: without the pre-move a run starts where the last left the joint; with it,
    at rest at its first waypoint (less the P controller's offset under gravity)."""
    from actuator_bench.loop import BenchLoop

    target = 0.5
    hold = Schedule("hold", 0.5, lambda t: np.full(1, target), lambda t: np.ones(1, dtype=bool))
    first_samples = {}
    for prepare in (None, Prepare(2.0, 1.0)):
        sim = SimBench.open(BenchParams(mass=0.49, length=0.1))
        loop = BenchLoop(sim, TrajectoryPlayer(sim.joints, PENDULUM))
        cycles = []
        loop.run(hold, 400.0, 200.0, cycles.append, prepare=prepare)
        (begin,) = [i for i, c in enumerate(cycles) if c.info is not None and c.info.trajectory == "hold"]
        # the run's t = 0 (the cycle its info comes with), and its end: 0.5 s later, holding the same goal
        first_samples[prepare] = cycles[begin].sample, [c.sample for c in cycles if c.sample][-1]
        assert cycles[begin].command.goal_position == (target,) and cycles[begin].time == cycles[begin].sample.time
    (unprepared, _), (prepared, end) = first_samples.values()
    assert unprepared.position[0] == pytest.approx(0.0, abs=1e-3)  # hanging where it was
    assert prepared.position[0] > target / 2 and abs(prepared.velocity[0]) < 0.02  # lifted, at rest:
    assert prepared.position[0] == pytest.approx(end.position[0], abs=2e-3)  # where holding the goal leaves it


def test_player_stop_and_errors():
    player = TrajectoryPlayer(("a", "b"), PENDULUM)
    with pytest.raises(ValueError, match="unknown trajectory"):
        player.start("zigzag", 8.0, 0.0)
    with pytest.raises(ValueError, match="positive"):
        player.start("sin_sin", 0.0, 0.0)
    player.start("sin_sin", 8.0, 0.0)
    command = player.tick(1.0).command
    assert command.name == ("a", "b") and command.goal_position[0] == command.goal_position[1]
    stopped = player.stop()
    assert stopped.command.torque_enable == (False, False) and stopped.info.trajectory == ""
    with pytest.raises(ValueError, match="2R arm"):
        schedule("circle", 1)
    assert set(TRAJECTORIES).isdisjoint(ARM_PATHS)


@pytest.mark.parametrize("times, expected", [
    ((1.0, 0.0, -1.0), r"end_time -1\.0: must be a finite number of seconds >= 0"),
    ((1.0, 0.0, math.nan), r"end_time nan"), ((1.0, 0.0, math.inf), r"end_time inf"),
    ((math.nan, 0.0, 0.0), r"start_time nan"), ((math.inf, 0.0, 0.0), r"start_time inf"),
    ((-1.0, 0.0, 0.0), r"start_time -1\.0"), ((1.0, math.nan, 0.0), r"release_time nan"),
    ((0.0, 2.0, 0.0), r"release_time 2\.0: counts from start_time, which is 0"),
    ((0.0, 0.0, 6.0), r"end_time 6\.0: counts from start_time"),
])
def test_the_times_of_a_run_named_on_the_control_node_are_checked(times, expected):
    """announce_run took a NaN or negative end_time (start_time, release_time) as none, kept a run
    waiting for ever on an infinite one, and dropped a release or end without a start_time."""
    from actuator_bench.control_goals import check_run_times

    with pytest.raises(ValueError, match=expected):
        check_run_times(*times)
    check_run_times(1.7e9, 2.0, 6.0)  # the control player's
    check_run_times(0.0, 0.0, 0.0)  # named now, ended by start=false


def test_a_run_named_after_its_start_is_refused():
    """The control node named a run whose start_time had passed (a busy host: the control
    player's service call came late): its bench_info and its release came late against the goal."""
    from actuator_bench.control_goals import check_run_times

    with pytest.raises(ValueError, match=r"start_time 100\.0: 0\.250 s past when the run was named"):
        check_run_times(100.0, 2.0, 6.0, now=100.25)
    with pytest.raises(ValueError, match=r"start_time 100\.0: 0\.000 s past"):
        check_run_times(100.0, 2.0, 6.0, now=100.0)
    check_run_times(100.0, 2.0, 6.0, now=99.99)
    check_run_times(0.0, 0.0, 0.0, now=100.0)  # no start_time: named now


def test_arm_paths_follow_the_end_effector_path():
    from actuator_sim.arm import ARMS, link_lengths, workspace
    from actuator_sim.kinematics import forward
    from actuator_sim.models import read_model
    import mujoco

    lengths = link_lengths(mujoco.MjModel.from_xml_string(read_model(ARMS["mx"].mjcf)))
    (cy, cz), half = workspace(*lengths)
    plan = schedule("circle", 2, "mx")
    for t in (1.0, 2.5, 4.0):  # 1 s rest, then 6 s of motion
        y, z = forward(*plan.goal(t), *lengths)
        assert math.hypot(y - cy, z - cz) == pytest.approx(half)
    player = TrajectoryPlayer(("shoulder", "elbow"), BenchInfo("mx106"), arm="mx")
    assert player.start("square", 32.0, 0.0).duration == 8.0


def test_commands_are_checked():
    with pytest.raises(ValueError, match="2 goal positions for 1 joints"):
        Command(("a",), (0.0, 1.0))
    with pytest.raises(ValueError, match="torque_enable"):
        Command(("a", "b"), (0.0, 1.0), (True,))
    with pytest.raises(ValueError, match="finite"):
        command_from_fields(["a"], [math.nan])
    assert command_from_fields(["a"], [0.5], [], []).torque_enable == ()


# ----------------------------------------------------------------------------- comparison
def test_comparison_pairs_joints_by_name():
    compare = StateComparison(max_age=0.1)
    compare.real_info("sin_sin", 9.0), compare.sim_info("sin_sin", 109.0)  # each bench its own clock
    assert compare.update_real(JointSample.of(8.99, ["elbow"], [0.7])) == []  # before the run: never paired
    real = JointSample.of(10.0, ["elbow", "shoulder"], [0.1, 0.2], [1.0, 2.0], [0.5, 0.6])
    assert compare.update_real(real) == []  # nothing simulated yet: kept until the simulation gets there
    (error,) = compare.update_sim(JointSample.of(110.02, ["shoulder", "elbow", "extra"], [0.25, 0.0, 9.0], [2.5, 0.5, 0.0]))
    assert error.name == ("elbow", "shoulder") and error.time == 10.0
    assert error.position == pytest.approx((-0.1, 0.05)) and error.velocity == pytest.approx((-0.5, 0.5))
    assert error.motor_torque == ()  # the simulated state has no effort
    compare.update_sim(JointSample.of(110.5, ["elbow"], [0.0]))
    assert compare.update_real(JointSample.of(10.25, ["elbow"], [0.0])) == []  # no simulated state within 0.1 s
    assert compare.update_real(JointSample.of(10.5, ["other"], [0.0])) == []
    with pytest.raises(ValueError):
        StateComparison(max_age=0.0)


# ----------------------------------------------------------------------------- simulated bench
@pytest.fixture
def sim() -> SimBench:
    return SimBench.open(BenchParams(mass=0.49, length=0.1, command_timeout=0.2))


def test_sim_bench_starts_released_and_holds_commands(sim):
    assert sim.joints == ("pendulum",) and not sim.sample().torque_enable[0]
    sim.apply(Command(("pendulum",), (0.5,), (True,), (800.0,)))
    sample = sim.advance(0.1)
    assert sim.time == pytest.approx(0.1) and sample.time == pytest.approx(0.1)
    assert sample.torque_enable == (True,) and sample.position[0] > 0.1
    assert sample.input_voltage == (7.4,) and math.isnan(sample.temperature[0]) and sample.comm_errors == (0,)
    assert sim.sim.kp[0] == 800.0
    for _ in range(10):  # commands every 0.1 s keep the torque on
        sim.apply(Command(("pendulum",), (0.5,)))
        sample = sim.advance(sim.time + 0.1)
    assert sample.torque_enable == (True,) and 0.3 < sample.position[0] <= 0.5  # sags under gravity
    # the watchdog (0.2 s) is judged as each advance starts: one advance of 0.5 s holds the last
    # command throughout (a host that stalled), the next one finds the silence and lets go
    held = sim.advance(sim.time + 0.5)
    assert held.torque_enable == (True,) and 0.3 < held.position[0] <= 0.5
    assert sim.advance(sim.time + 0.01).torque_enable == (False,)
    with pytest.raises(ValueError, match="unknown joint"):
        sim.apply(Command(("elbow",), (0.0,)))


def test_an_infinite_gain_is_refused_by_the_bench_node_and_the_control_node(sim):
    """RunTrajectory kp=inf: the bench node played at 'kp inf' and the control node took it as the
    gain of every joint (NaN, 0 and negative gains were refused already)."""
    from actuator_bench.hardware import HardwareSettings, TopicHardware

    with pytest.raises(ValueError, match="gain inf: must be positive"):
        TrajectoryPlayer(("a",), PENDULUM).start("sin_sin", math.inf, 0.0)
    hardware = TopicHardware(sim, HardwareSettings((400.0,)))
    with pytest.raises(ValueError, match="gain inf: must be positive"):
        hardware.set_gain(math.inf)
    assert hardware.kp == {"pendulum": 400.0}
    with pytest.raises(ValueError, match=r"kp \[inf\]"):
        HardwareSettings((math.inf,))


def test_sim_bench_refuses_goals_outside_the_joint_limits_before_applying_anything(sim):
    """The bench contract, as the servo drivers: a goal of 50 rad (a control node's
    joint_commands, a player's) reached the simulated joint, torque on."""
    sim.apply(Command(("pendulum",), (0.5,), (True,), (800.0,)))
    for goal in (50.0, -2.81, math.nan):
        with pytest.raises(ValueError, match=r"joint 'pendulum': goal .* rad is outside the joint limits "
                                             r"\[-2\.8000, 2\.8000\] rad; nothing was sent"):
            sim.apply(Command(("pendulum",), (goal,), (True,), (100.0,)))
    assert sim.sim.kp[0] == 800.0 and sim.sim.goal_position[0] == 0.5


def test_a_joint_command_whose_arrays_differ_in_length_is_refused(sim):
    """joint_commands with 1 name and 2 positions: the control node took the first one."""
    from actuator_bench.hardware import HardwareSettings, TopicHardware

    hardware = TopicHardware(sim, HardwareSettings((400.0,)))
    with pytest.raises(ValueError, match=r"command: 2 positions for 1 joints \['pendulum'\]"):
        hardware.command(["pendulum"], [0.1, 0.2])
    assert hardware.goals == {}


def test_a_goal_the_bench_refuses_costs_the_control_loop_one_cycle(sim):
    """ros2_control's hardware over the MuJoCo bench: a joint command beyond the joint limits is
    refused in the cycle that would send it (nothing sent), then forgotten: the joint holds its
    last goal, torque on, and the following cycles read and write again (they all failed, state
    unpublished, until the next valid command)."""
    from actuator_bench.hardware import HardwareSettings, TopicHardware

    hardware = TopicHardware(sim, HardwareSettings((800.0,)))
    hardware.command(["pendulum"], [0.5])
    assert hardware.tick().command.goal_position == (0.5,)
    hardware.command(["pendulum"], [50.0])
    with pytest.raises(ValueError, match="outside the joint limits"):
        hardware.tick()
    cycle = hardware.tick()
    assert cycle.sample is not None and cycle.command.goal_position == (0.5,) and cycle.command.torque_enable == (True,)
    assert sim.sim.goal_position[0] == 0.5


def test_sim_bench_catches_up_in_bounded_steps(sim):
    sim.advance(1e6)
    assert sim.time == pytest.approx(1000 * 0.005)


def test_sim_bench_of_the_arm():
    arm = SimBench.open(BenchParams(("shoulder", "elbow"), ("mx106", "mx64"), ("mx106/m6", "mx64/m6"), (1, 2),
                                    kp=(32.0, 32.0), vin=(0.0, 0.0), settings=SimSettings(mjcf="arm_mx.xml")))
    clock = SimClock(arm)
    arm.apply(Command(("elbow",), (0.3,), (True,)))
    clock.sleep_until(0.4)  # within the command timeout (0.5 s)
    assert clock.now() == pytest.approx(0.4)
    assert arm.sample().torque_enable == (False, True)


# ----------------------------------------------------------------------------- Dynamixel bench
def test_dynamixel_bench_on_the_emulator():
    params = BenchParams(ids=(1,), joints=("pendulum",), actuators=("xl330",), min_position=(-2.0,),
                         max_position=(2.0,), mass=0.49, length=0.1)
    assert params.models == ("xl330/m6",)
    bench = open_emulated(params)  # the emulator factory: the emulator, then the real bench on its pty
    try:
        assert bench.joints == ("pendulum",)
        bench.apply(Command(("pendulum",), (0.4,), (True,), (800.0,)))
        first = bench.sample()
        assert first.torque_enable == (True,) and 7.0 < first.input_voltage[0] < 7.8
        clock = bench.driver.clock
        while clock.now() < first.time + 1.0:
            bench.apply(Command(("pendulum",), (0.4,)))
            sample = bench.sample()
            clock.sleep(0.01)
        assert 0.25 < sample.position[0] <= 0.4 and sample.time > first.time + 0.9
        assert abs(sample.motor_torque[0]) > 0.05  # holding 0.49 kg at 0.1 m against gravity
        with pytest.raises(JointLimitError):
            bench.apply(Command(("pendulum",), (2.5,)))
        with pytest.raises(ValueError, match="unknown joint"):
            bench.apply(Command(("elbow",), (0.0,)))
    finally:
        bench.close()
    assert not bench.driver.torque[1]


def test_an_emulated_bench_waits_for_a_status_packet_its_host_held_back():
    """The dynamixel_emulator backend's bus (real time, no injected faults) reads through a stall
    of the emulator: every status packet due in a 0.6 s window waits for its end (a host that
    held the emulator's thread back). The read comes late and nothing fails; with a USB adapter's
    16 ms the 11 attempts gave up after ~0.4 s (a control node that could not start on a busy
    host: "ping: There is no status packet! after 11 attempt(s)")."""
    made: list = []

    def make(params: BenchParams, settings, faults) -> DynamixelEmulator:
        made.append(DynamixelEmulator.single("xl330", params.models[0], params.mass, params.length, faults=faults))
        return made[-1]

    params = BenchParams(ids=(1,), joints=("pendulum",), actuators=("xl330",), min_position=(-2.0,),
                         max_position=(2.0,), mass=0.49, length=0.1)
    bench = open_on_emulator(params, make, DynamixelBench)
    try:
        emulator = made[0]
        bench.sample()
        before = dataclasses.replace(bench.driver.counters)
        emulator.set_faults(stalls=((emulator.clock.now(), 0.6),))
        start = time.monotonic()
        sample = bench.sample()
        waited = time.monotonic() - start
        assert 0.5 < waited < 2.0 and sample.torque_enable == (False,)
        assert bench.driver.counters.failures == before.failures  # late, not lost
        assert bench.driver.counters.timeouts > before.timeouts  # it was late: attempts timed out meanwhile
    finally:
        bench.close()


def test_bench_params_are_checked():
    with pytest.raises(ValueError, match=r"ids: 3 values for 2 joints \['a', 'b'\]"):
        BenchParams(ids=(1, 2, 3), joints=("a", "b"), actuators=("xl330",))
    params = BenchParams(ids=(1, 2), joints=("a", "b"), actuators=("mx106", "mx64"), min_position=(-1, -1),
                         max_position=(1, 1), models=("", "mx64/m1"))
    assert params.models == ("mx106/m6", "mx64/m1") and params.kp == (400.0, 400.0)  # one value serves every joint
    with pytest.raises(ValueError, match=r"models 'mx64/m6': a model of the mx64, not of joint 'b''s actuator 'xl330'"):
        BenchParams(joints=("a", "b"), actuators=("mx64", "xl330"), models=("", "mx64/m6"))  # what a bench YAML may say
    with pytest.raises(ValueError, match="no_such.json: no such params file"):
        BenchParams(models=("no_such.json",))


@pytest.mark.parametrize("change, expected", [
    (dict(kp=(0.0,)), r"kp 0\.0: the gain of joint 'pendulum' must be a positive number"),
    (dict(kp=(math.nan,)), r"kp nan"), (dict(kp=(-1.0,)), r"kp -1\.0"), (dict(kp=(math.inf,)), r"kp inf"),
    (dict(vin=(-5.0,)), r"vin -5\.0: the supply"), (dict(vin=(math.nan,)), r"vin nan"),
    (dict(min_position=(1.0,), max_position=(-1.0,)), r"min_position 1\.0, max_position -1\.0"),
    (dict(max_position=(math.inf,)), r"max_position inf"),
    (dict(mass=-1.0), r"mass -1\.0: must be a positive number"), (dict(length=0.0), r"length 0\.0"),
    (dict(arm_mass=math.nan), r"arm_mass nan"), (dict(time_scale=0.0), r"time_scale 0\.0"),
])
def test_bench_values_no_bench_can_run_on_are_refused_by_name(change, expected):
    """The bench node's parameters (and ``record``'s bench) on every backend: a simulation or an
    emulator ran on a NaN or negative gain, a negative supply, a negative mass, and a MuJoCo bench
    on a joint range upside down or a time_scale of 0 (taken as 1)."""
    with pytest.raises(ValueError, match=expected):
        BenchParams(**change)


def test_bench_node_refuses_an_infinite_rate_and_another_servos_model():
    from actuator_bench.bench_core import BenchCore

    with pytest.raises(ValueError, match="rate inf: must be positive Hz"):  # was a period of 0 s
        BenchCore({"backend": "mujoco", "rate": math.inf})
    with pytest.raises(ValueError, match="models 'mx64/m6': a model of the mx64"):  # the sim logged an XL330 moving as an MX-64
        BenchCore({"backend": "mujoco", "models": ["mx64/m6"]})


# ----------------------------------------------------------------------------- fit jobs
def test_fit_request_is_checked(tmp_path, xl330_processed):
    good = dict(logs=str(xl330_processed), actuator="xl330")
    for change, message in ((dict(logs=str(tmp_path / "none")), "does not exist"), (dict(actuator="ax12"), "actuator"),
                            (dict(models=("m7",)), "m7"), (dict(trials=0), "trials"),
                            (dict(validation_fraction=1.0), "validation_fraction")):
        outcome = FitJob(FitRequest(**{**good, **change}), tmp_path).run()
        assert not outcome.success and message in outcome.message
    assert request_from_fields("l", "XL330", ["M1"], 5, 0.5, "").models == ("m1",)
    # the interface's defaults (trials 0, validation_fraction -1) are the engine's, as the CLI's
    defaults = request_from_fields("l", "xl330", [], 0, -1.0, "")
    assert (defaults.trials, defaults.validation_fraction) == (DEFAULT_TRIALS, None)
    assert request_from_fields("l", "xl330", [], 7, 0.0, "").validation_fraction == 0.0


def tree(root: Path) -> list:
    """Every path under ``root`` with its size (empty when ``root`` does not exist)."""
    return sorted((str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*")) if root.exists() else []


def test_a_refused_fit_writes_nothing_and_names_the_interface_fields(tmp_path, xl330_processed):
    """M1 + M6 on 6 training logs: M1 (6 free parameters) could be fitted, M6 (15) needs 8. The
    identification node's action and service both answer with ``FitJob.run`` (a goal or request
    without ``output_dir`` writes under the node's output root): refused before M1 is fitted,
    nothing written, and the message names the FitModels fields, not CLI flags."""
    root = tmp_path / "fits"
    (root / "earlier").mkdir(parents=True)
    (root / "earlier" / "m1.json").write_text("{}")
    before = tree(root)
    request = request_from_fields(str(xl330_processed), "xl330", ["m1", "m6"], 12, 0.5, "")
    outcome = FitJob(request, root).run()
    assert not outcome.success and not outcome.models
    assert "m6" in outcome.message and "force" in outcome.message and "validation_fraction" in outcome.message
    assert "--" not in outcome.message
    assert tree(root) == before
    named = FitJob(request_from_fields(str(xl330_processed), "xl330", ["m1", "m6"], 12, 0.5, str(tmp_path / "out")),
                   root).run()
    assert not named.success and not (tmp_path / "out").exists() and tree(root) == before


def test_a_fit_writes_over_nothing_it_did_not_make(tmp_path, xl330_processed, monkeypatch):
    """FitModels with an output_dir holding a user's m1.json (no studies journal): the fit wrote
    its own over it; an output_dir that is a file gave '[Errno 17] File exists'. A fit continued
    (its journal there) still updates its own outputs, and a second fit into the node's output
    root in the same second gets a folder of its own instead of continuing the first's studies."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "m1.json").write_text('{"mine": true}')
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for out, expected in ((mine, f"output_dir: {mine / 'm1.json'} already exist"), (a_file, "is a file")):
        outcome = FitJob(request_from_fields(str(xl330_processed), "xl330", ["m1"], 12, 0.0, str(out), True),
                         tmp_path).run()
        assert not outcome.success and expected in outcome.message, outcome.message
    assert (mine / "m1.json").read_text() == '{"mine": true}' and sorted(p.name for p in mine.iterdir()) == ["m1.json"]
    ours = request_from_fields(str(xl330_processed), "xl330", ["m1"], 12, 0.0, str(tmp_path / "ours"), True)
    assert FitJob(ours, tmp_path).run().success and FitJob(ours, tmp_path).run().success  # continued
    default = request_from_fields(str(xl330_processed), "xl330", ["m1"], 12, 0.0, "", True)
    monkeypatch.setattr("actuator_bench.fit_job.time.strftime", lambda fmt: "20261127-120000")  # one second
    first = FitJob(default, tmp_path / "root")
    assert first.run().success
    assert FitJob(default, tmp_path / "root").output_dir != first.output_dir


def test_a_fit_that_never_moved_off_its_start_is_flagged():
    """:func:`unmoved_fits` on stand-in reports (only ``result.model.friction`` and
    ``result.train_mae`` are read; the friction models are the real ones): M6 nests M1 and starts
    from it; M2 does not nest in M3."""
    from types import SimpleNamespace

    from actuator_bench.fit_job import unmoved_fits
    from actuator_models.friction import friction_model

    def report(name, mae):
        return SimpleNamespace(result=SimpleNamespace(model=SimpleNamespace(friction=friction_model(name)),
                                                      train_mae=mae))

    (warning,) = unmoved_fits({"m1": report("m1", 0.05), "m6": report("m6", 0.05)}, ("m1", "m6"))
    assert warning.startswith("m6 never moved off the m1 fit") and "trials" in warning
    assert unmoved_fits({"m1": report("m1", 0.05), "m6": report("m6", 0.049)}, ("m1", "m6")) == ()
    assert unmoved_fits({"m6": report("m6", 0.05), "m1": report("m1", 0.05)}, ("m6", "m1")) == ()  # m1 started cold
    assert unmoved_fits({"m2": report("m2", 0.05), "m3": report("m3", 0.05)}, ("m2", "m3")) == ()


def test_fit_job_reports_progress_and_results(tmp_path, xl330_processed):
    request = FitRequest(str(xl330_processed), "xl330", ("m1", "m2"), trials=30, output_dir=str(tmp_path / "fit"))
    job = FitJob(request, tmp_path)
    assert job.progress() is None
    outcome = job.start().result(timeout=600)
    assert outcome.success and outcome.models == ("m1", "m2") and outcome.best_model in ("m1", "m2")
    assert all(Path(p).is_file() for p in outcome.params_files)
    assert all(0 < m < 1.0 for m in outcome.train_mae + outcome.validation_mae)  # rad, after 30 trials
    report = json.loads((Path(outcome.report_dir) / "report.json").read_text())
    assert report["best_model"] == outcome.best_model
    cli_split = Dataset.split(read_logs(xl330_processed), seed=0)  # what `actuator-models fit` holds out
    assert report["validation_logs"] == cli_split.validation_names and len(cli_split.validation) == 4
    progress = job.progress()
    assert (progress.model, progress.trials) == ("m2", 30) and 30 <= progress.trial < 30 + 16  # main search only
    assert progress.best_score == pytest.approx(outcome.train_mae[1])
    unmoved = outcome.train_mae[1] >= outcome.train_mae[0] * (1 - 1e-6)  # m2 starts from m1's fit
    assert bool(outcome.warnings) == unmoved and all(w in outcome.message for w in outcome.warnings)
    again = FitJob(request, tmp_path).run()  # same output folder: the studies are complete already
    assert again.train_mae == outcome.train_mae


def test_fit_job_cancels_after_the_current_generation(tmp_path, xl330_processed):
    job = FitJob(FitRequest(str(xl330_processed), "xl330", ("m6", "m1"), trials=100_000), tmp_path)
    outcome = job.start()
    while job.progress() is None or job.progress().trial == 0:
        time.sleep(0.05)
    job.cancel()
    result = outcome.result(timeout=60)
    assert result.cancelled and not result.success and "m6" in result.message
    assert (job.output_dir / "m6.json").is_file() and not (job.output_dir / "m1.json").exists()


def test_fit_job_on_a_bag(tmp_path):
    from actuator_bench.interfaces import bench_topics
    from actuator_bench.recorder import Recorder
    from actuator_bench.loop import BenchLoop
    from actuator_bench.session import BagSink

    sim = SimBench.open(BenchParams(mass=0.49, length=0.1))
    recorder = Recorder(list(bench_topics("sim").values()))
    recorder.start(tmp_path / "bag")
    loop, sink = BenchLoop(sim, TrajectoryPlayer(sim.joints, PENDULUM)), BagSink(recorder, "sim")
    for name in ("sin_sin", "up_and_down"):
        loop.run(name, 400.0, 200.0, sink)
    recorder.stop()
    request = FitRequest(str(tmp_path / "bag"), "xl330", ("m1",), trials=12, validation_fraction=0.0,
                         output_dir=str(tmp_path / "fit"))  # 2 logs for M1's 6 parameters: refused
    refused = FitJob(request, tmp_path).run()
    assert not refused.success and "force" in refused.message and not (tmp_path / "fit").exists()
    outcome = FitJob(dataclasses.replace(request, force=True), tmp_path).run()
    assert outcome.success and math.isnan(outcome.validation_mae[0])
    assert len(list((Path(outcome.report_dir).parent / "logs").glob("*.json"))) == 2
    assert np.isfinite(outcome.train_mae[0])
