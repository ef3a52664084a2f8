"""The servo as ros2_control hardware without ROS (``actuator_bench.hardware.TopicHardware``).

Real drivers on the lockstep emulators (Dynamixel over dynamixel-sdk, Feetech over
feetech-servo-sdk) and real MuJoCo, paced on the bench clock (no wall-clock timing): position
commands drive the servo, and the torque is read back from the emulated servo's control table
(or the simulation) after a command timeout, a release and a close.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from actuator_models.bench import BenchParams
from actuator_models.model import load_model
from actuator_models.simulation import Pendulum, PendulumSimulator

from actuator_bench.hardware import HardwareSettings, TopicHardware

PERIOD = 0.01  # [s] the controller manager's 100 Hz
GOAL = 0.6     # [rad]


class Rig:
    """A bench of one backend and how to read its servo's torque enable back."""

    def __init__(self, backend: str) -> None:
        self.emulator = None
        if backend == "mujoco":
            from actuator_sim.bench import SimBench

            params = BenchParams(actuators=("xl330",), models=("xl330/m6",), kp=(400.0,), vin=(7.4,), mass=0.49,
                                 length=0.1, time_scale=None)
            self.bench = SimBench.open(params)  # simulated time: sleeping steps the physics
            self.torque = lambda: bool(self.bench.sim.torque_enable[0])
            self.params = params
            return
        if backend == "dynamixel":
            from actuator_drivers.dynamixel.bench import DynamixelBench as Bench
            from actuator_drivers.dynamixel.tables import control_table
            from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator as Emulator
            from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo as Servo
            params = BenchParams(actuators=("xl330",), models=("xl330/m6",), kp=(400.0,), vin=(7.4,), mass=0.49,
                                 length=0.1, time_scale=None)
            table = control_table("xl330", 2)
        else:
            from actuator_drivers.feetech.bench import FeetechBench as Bench
            from actuator_drivers.serial_bus.settings import SerialBusSettings
            from actuator_drivers.feetech.tables import control_table
            from actuator_drivers.feetech_emulator.emulator import FeetechEmulator as Emulator
            from actuator_drivers.feetech_emulator.firmware import StsServo as Servo
            params = BenchParams(actuators=("sts3215",), models=("sts3215/m1",), kp=(32.0,), vin=(7.4,), mass=0.3,
                                 length=0.1, time_scale=None, settings=SerialBusSettings(baudrate=1_000_000))
            table = control_table("sts3215")
        self.emulator = Emulator([Servo(table, load_model(params.models[0]), Pendulum(params.mass, params.length),
                                        servo_id=1)], time_scale=None, seed=0).start()
        self.bench = Bench.open(params, self.emulator.port, self.emulator.clock)
        self.torque = lambda: self.emulator.servo(1).peek("torque_enable") == 1
        self.params = params

    def held(self, goal: float, kp: float, seconds: float) -> float:
        """Where the servo model holds ``goal`` [rad] after ``seconds`` (the reference: the
        published step of ``actuator_models.simulation``, another code path than the benches)."""
        sim = PendulumSimulator(load_model(self.params.models[0]), Pendulum(self.params.mass, self.params.length),
                                vin=self.params.vin[0])
        for _ in range(int(round(seconds / 0.001))):
            sim.step(goal, True, kp, 0.001)
        return sim.q

    def stop(self) -> None:
        try:
            self.bench.close()
        finally:
            if self.emulator is not None:
                self.emulator.stop()


@pytest.fixture(params=["dynamixel", "feetech", "mujoco"])
def rig(request):
    made = Rig(request.param)
    yield made
    made.stop()


def hardware_of(rig: Rig, timeout: float = 0.3) -> TopicHardware:
    return TopicHardware(rig.bench, HardwareSettings(rig.params.kp, command_timeout=timeout))


def run(hardware: TopicHardware, seconds: float, goal=None) -> list:
    """Cycles at 100 Hz of bench time; ``goal`` [rad] commanded before each one (None: no command)."""
    clock, cycles = hardware.bench.clock, []
    start = clock.now()
    for k in range(int(round(seconds / PERIOD))):
        if goal is not None:
            hardware.command(["pendulum"], [goal])
        cycles.append(hardware.tick())
        clock.sleep_until(start + (k + 1) * PERIOD)
    return cycles


def test_commands_drive_the_servo_and_a_timeout_releases_it(rig):
    hardware = hardware_of(rig)
    cycles = run(hardware, 2.0, GOAL)
    assert rig.torque() and all(c.command.torque_enable == (True,) for c in cycles)
    position = np.array([c.sample.position[0] for c in cycles])
    held = rig.held(GOAL, rig.params.kp[0], 2.0)
    assert position[0] < 0.05 and abs(position[-1] - held) < 0.02  # held where the servo model holds it (gravity sag)
    assert np.all(np.diff([c.time for c in cycles]) > 0)          # every sample stamped with bench time

    quiet = run(hardware, 0.5)  # no command: the last goal held until the timeout (0.3 s), then released
    released = [c.time for c in quiet if c.command is not None and c.command.torque_enable == (False,)]
    assert len(released) == 1 and all(c.command is None for c in quiet if c.time > released[0])
    assert 0.3 <= released[0] - cycles[-1].time <= 0.3 + 2 * PERIOD
    assert not rig.torque() and hardware.timeouts == 1

    run(hardware, 0.2, GOAL)    # commands again: the torque stays off until re-armed
    assert not rig.torque()
    hardware.set_torque(True)
    run(hardware, 0.2, GOAL)
    assert rig.torque()
    hardware.close()
    assert not rig.torque()


def test_a_stall_of_the_node_itself_is_no_command_timeout(rig):
    """The node did not run for 0.6 s (a busy host) while the controller went on: its commands
    wait in the node's queue, and rclpy runs the due timer first. That first cycle drives the last
    goal; the commands then taken keep the torque on. A controller that had stopped before the
    stall is noticed at the cycle after."""
    hardware = hardware_of(rig)
    clock = hardware.bench.clock
    run(hardware, 0.5, GOAL)
    clock.sleep_until(clock.now() + 0.6)  # no cycle, no command taken: the node stalled
    first = hardware.tick()
    assert first.command is not None and first.command.torque_enable == (True,)
    cycles = run(hardware, 0.3, GOAL)  # the waiting commands, then the controller's next ones
    assert rig.torque() and hardware.timeouts == 0 and all(c.command.torque_enable == (True,) for c in cycles)

    clock.sleep_until(clock.now() + 0.6)  # the controller stopped, and the node stalled
    assert hardware.tick().command.torque_enable == (True,)  # the last goal: no sign yet that none came
    assert hardware.tick().command.torque_enable == (False,) and hardware.timeouts == 1 and not rig.torque()
    hardware.close()


def test_set_torque_off_releases_while_commands_go_on_and_close_releases(rig):
    hardware = hardware_of(rig, timeout=1.0)
    run(hardware, 1.0, GOAL)
    assert rig.torque()
    release = hardware.set_torque(False)
    assert release.torque_enable == (False,) and not rig.torque()
    dropped = run(hardware, 0.5, GOAL)  # commands keep coming (a controller holds the goal): ignored
    assert not rig.torque() and all(c.command is None for c in dropped)
    assert dropped[-1].sample.position[0] < dropped[0].sample.position[0] - 0.05  # the pendulum falls back
    hardware.set_torque(True)
    run(hardware, 0.3, GOAL)
    assert rig.torque()
    hardware.close()
    assert not rig.torque()


def test_a_release_the_bus_did_not_take_is_sent_again_at_each_cycle():
    """A release that fails (the bus silent: the emulated servo answers nothing) leaves the servo
    driving; each cycle sends it again until it goes through, whatever commands keep coming (a
    released flag set before the write, as it was, left the torque on for good)."""
    rig = Rig("dynamixel")
    try:
        hardware = hardware_of(rig, timeout=1.0)
        run(hardware, 0.5, GOAL)
        assert rig.torque()
        rig.emulator.set_faults(dead=True)
        with pytest.raises(RuntimeError, match="no status packet"):
            hardware.set_torque(False)
        rig.emulator.set_faults(dead=False)
        assert rig.torque()  # the release never reached the servo
        cycles = run(hardware, 0.1, GOAL)  # a controller still holding its goal
        assert cycles[0].command is not None and cycles[0].command.torque_enable == (False,)
        assert not rig.torque() and all(c.command is None for c in cycles[1:])
    finally:
        rig.stop()


def test_nan_goals_are_ignored_and_unknown_joints_refused(rig):
    hardware = hardware_of(rig)
    hardware.command(["pendulum"], [math.nan])  # the topic-based system before a controller claims the joint
    assert hardware.tick().command is None and not rig.torque()
    with pytest.raises(ValueError, match="unknown joint.*'elbow'"):
        hardware.command(["elbow"], [0.1])
    with pytest.raises(ValueError, match="kp: 2 gains for 1 joints"):
        TopicHardware(rig.bench, HardwareSettings((1.0, 2.0)))
    with pytest.raises(ValueError, match="command_timeout 0"):
        HardwareSettings((1.0,), command_timeout=0)
    hardware.close()


def test_disarm_releases_after_the_next_sample_stamped_with_it(rig):
    """A run's scheduled release (the control node's ``release_time``): the next cycle reads,
    then releases, and the release carries that cycle's time, as its goals would."""
    hardware = hardware_of(rig, timeout=1.0)
    run(hardware, 1.0, GOAL)
    hardware.disarm()
    hardware.command(["pendulum"], [GOAL])
    cycle = hardware.tick()
    assert cycle.command.torque_enable == (False,) and cycle.time == cycle.sample.time
    assert cycle.sample.torque_enable == (True,) and not rig.torque()  # sampled before, read back off after
    after = run(hardware, 0.5, GOAL)  # the controller goes on commanding: ignored until re-armed
    assert all(c.command is None and c.time >= cycle.time for c in after) and hardware.timeouts == 0
    assert after[-1].sample.position[0] < cycle.sample.position[0] - 0.05  # the pendulum falls back
    hardware.close()


def test_a_release_after_a_stall_is_not_stamped_after_the_sample_that_shows_it():
    """MuJoCo paced by the wall clock (the ``mujoco`` backend) steps its physics up to the clock
    at each sample, so a sample's time is the simulation's, up to a step behind the clock. After a
    stall of the host (here 0.3 s without a cycle), a release written before the cycle's sample
    (stamped by the clock) was simulated over the whole stall and then sampled, stamped a step
    earlier than the release: a fallen pendulum 'before' the release (a CI run: 1.3 rad, a log's
    replay off by as much). Disarmed, the cycle samples the stall with the torque on, then
    releases, at the sample's time."""
    import time

    from actuator_sim.bench import open_realtime

    params = BenchParams(actuators=("xl330",), models=("xl330/m6",), kp=(400.0,), vin=(7.4,), mass=0.49,
                         length=0.1, time_scale=None)
    bench = open_realtime(params)
    hardware = TopicHardware(bench, HardwareSettings(params.kp, command_timeout=1.0))
    try:
        for _ in range(50):
            hardware.command(["pendulum"], [-1.2])  # lifted well out of its rest
            held = hardware.tick()
            time.sleep(PERIOD)
        hardware.command(["pendulum"], [-1.2])
        time.sleep(0.3)  # the stall
        hardware.disarm()
        cycle = hardware.tick()
        assert cycle.command.torque_enable == (False,) and cycle.time == cycle.sample.time
        assert abs(cycle.sample.position[0] - held.sample.position[0]) < 0.01  # still held at the release
        time.sleep(0.3)
        fallen = hardware.tick()
        assert fallen.time > cycle.time and fallen.sample.position[0] > cycle.sample.position[0] + 0.5
    finally:
        hardware.close()
