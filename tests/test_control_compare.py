"""``compare`` on the control graph: an emulated servo and its identified twin (MuJoCo), each
behind its own controllers (``compare_control.launch.py``: control.launch.py in namespaces
``real`` and ``sim``), one lift_and_drop goal sent to both, and ``/compare/error`` (sim minus
real, paired by bench time since each run's start) reported for the whole run.

Skipped where ROS 2 with the ros2_control add-on or a built workspace is absent (see
test_control_launch). Both sides run the published ``xl330/m6`` on config/xl330_bench.yaml's
pendulum (the emulator with the model's own step, the sim in MuJoCo). What the error measures is
the two simulators and what each graph's controllers sent it, when: ``topic_based_ros2_control``
delivers the trajectory controller's commands over DDS, on a busy host up to ~0.16 s late, at
other instants in each graph (a CI run: sim minus real 0.25 rad during the lift). So no bound
here rests on the host's speed. The test records both control nodes' commands and joint states
(bench time) and checks that

- the error is sim minus real paired by run time (each bench's time since its run's info stamp),
  recomputed here from the recorded joint states by plain interpolation;
- each graph's joint is the servo model driven by that graph's own commands (the published step
  of ``actuator_models.simulation``, as test_control_launch checks one graph, with its bounds),
  so that the error is what the two graphs' commands explain, within the servo model's tracking
  error of each (measured: the error minus the two replays' difference 0.002-0.004 rad median
  quiet and with 2-3 busy loops, 0.023 in a CI run on a busier host).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from test_control_launch import MOVED, XL330, Launch, Recorder, drain, rclpy, replay, run_taken, save, stamp

from actuator_bench.control_goals import goal_plan  # noqa: E402
from actuator_bench.nodes.common import COMMAND_QOS, LATCHED_QOS, SENSOR_QOS  # noqa: E402
from actuator_interfaces.msg import ActuatorCommand, BenchInfo  # noqa: E402
from actuator_bench.nodes.control_player import ControlPlayer, play_all  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

pytestmark = pytest.mark.skipif(not Launch or not hasattr(rclpy, "init"), reason="no ROS 2")

GRAPHS = ("real", "sim")


class Graph:
    """What one control graph's control node published (bench time): its joint states, its
    commands and its bench_info."""

    def __init__(self, recorder: Recorder, namespace: str) -> None:
        hardware = f"/{namespace}/hardware"
        self.samples = recorder.topic(JointState, f"{hardware}/joint_states", SENSOR_QOS)
        self.commands = recorder.topic(ActuatorCommand, f"{hardware}/commands", COMMAND_QOS)
        self.infos = recorder.topic(BenchInfo, f"{hardware}/bench_info", LATCHED_QOS)

    def taken(self, trajectory: str) -> bool:
        """Whether the run ``trajectory`` was taken to its end (:func:`test_control_launch.run_taken`)."""
        return run_taken(self.infos, self.samples, trajectory)

    def start(self, trajectory: str) -> float:
        """The run's t = 0 on this bench's clock [s]: its info's stamp."""
        stamps = [stamp(m) for m in self.infos if m.trajectory == trajectory]
        assert stamps, [m.trajectory for m in self.infos]
        return stamps[-1]

    def run(self, trajectory: str, planned_release: float) -> tuple:
        """(run time [s], measured position, servo model driven by this graph's commands [rad])
        from the run's first commanded sample, and the run's release [s of run time]: its first
        release command, or, where none was recorded, ``planned_release``, the instant at whose
        first cycle the control node releases. A CI run recorded neither of one graph's two
        releases, with no fault in its launch log; a likely cause is the commands' QoS
        (COMMAND_QOS: reliable but keep-last 10 at the writer), which lets a test process more
        than 10 commands behind miss some (not verified)."""
        start = self.start(trajectory)
        commands = [c for c in self.commands if any(c.torque_enable) or c.goal_position]
        releases = [stamp(c) for c in commands if not any(c.torque_enable) and stamp(c) > start]
        release = min(releases) if releases else start + planned_release
        times, measured, simulated = replay(XL330, self.samples, commands, "pendulum")
        return times - start, measured, simulated, release - start


def between_some_two(times: np.ndarray, values: np.ndarray, sim_times: np.ndarray, sim_values: np.ndarray,
                     width: int = 50, tolerance: float = 1e-6) -> np.ndarray:
    """Per time: whether ``values`` there is, to ``tolerance``, what
    :func:`actuator_bench.comparison.interpolate` gives between some sim sample at or before it and
    some after it (each among the ``width`` nearest on its side), or a sim sample after it alone
    (held: the node had none before it, as where a run's first samples reached it before the
    run's ``bench_info``)."""
    last = len(sim_times) - 1
    k = np.searchsorted(sim_times, times, side="right") - 1
    offsets = np.arange(width)
    before = np.clip(k[:, None] + np.arange(-width + 1, width + 1), 0, last)  # after it too: held
    after = np.clip(k[:, None] + 1 + offsets, 0, last)
    ta, qa = sim_times[before][:, :, None], sim_values[before][:, :, None]
    tb, qb = sim_times[after][:, None, :], sim_values[after][:, None, :]
    w = np.clip((times[:, None, None] - ta) / np.where(tb > ta, tb - ta, np.inf), 0.0, 1.0)
    return (np.abs(qa + w * (qb - qa) - values[:, None, None]) < tolerance).any(axis=(1, 2))


def test_compare_reports_sim_minus_real_for_a_goal_played_on_both_graphs(tmp_path):
    launch = Launch(tmp_path, "robot:=pendulum", "backend:=dynamixel_emulator", launch_file="compare_control.launch.py")
    errors = launch.recorder.topic(JointState, "/compare/error", SENSOR_QOS)
    graphs = {ns: Graph(launch.recorder, ns) for ns in GRAPHS}
    node = rclpy.create_node("control_test_sim_client")  # the second player's own node and executor
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    players = [ControlPlayer(launch.node, launch.executor, "real/joint_trajectory_controller", "real/hardware"),
               ControlPlayer(node, executor, "sim/joint_trajectory_controller", "sim/hardware")]
    try:
        for player in players:
            assert player.wait_ready(180.0), launch.output
        plan = goal_plan("lift_and_drop", ("pendulum",))
        played = play_all(players, plan, 0.0, threading.Event())
        assert all(p.error_code == 0 for p in played), ([p.message for p in played], launch.output)

        def done() -> bool:  # one publisher's messages arrive in order
            span = stamp(errors[-1]) - stamp(errors[0]) if errors else 0.0
            return span > plan.duration - 0.5 and all(g.taken(plan.name) for g in graphs.values())

        drain(launch.recorder, done)
        # both graphs' runs taken to their end (or what was taken, said here rather than by a later
        # check that needs the samples)
        assert all(g.taken(plan.name) for g in graphs.values()), {
            ns: (len(g.samples), [m.trajectory for m in g.infos],
                 stamp(g.samples[-1]) - g.start(plan.name) if g.samples and plan.name in [m.trajectory for m in g.infos]
                 else None) for ns, g in graphs.items()}
        assert errors, launch.output
        assert [m.name[0] for m in errors[:1]] == ["pendulum"]
        assert np.ptp([stamp(m) for m in errors]) > plan.duration - 0.5  # the whole run was compared

        assert plan.release is not None
        real, sim = (graphs[ns].run(plan.name, plan.release) for ns in GRAPHS)
        for ns, (run_time, measured, simulated, release) in zip(GRAPHS, (real, sim)):
            held = run_time <= release
            # each servo lifted the load (test_control_launch.MOVED: a CI run's emulated servo was at
            # 0.52 rad of the 1.57 rad lift at its release, 1.03 under three busy loops here) and
            # followed its own commands
            assert held.sum() > 50 and measured[held].min() < -MOVED, (ns, held.sum(), measured[held].min())
            tracking = np.abs(measured - simulated)[held]  # the joint is the model of its own commands
            worst, typical = tracking.max(), np.median(tracking)
            assert typical < 0.03, (ns, worst, typical)
            # the sim graph's MuJoCo bench steps in the control node's own cycle, on the commands it
            # has written. The emulated servo runs the same step as the replay (median 0: exact) in
            # real time on its own thread; a command stamped at its write reaches that thread late
            # by as long as the host stalls it: quiet and with two busy loops 0.009 rad at most, in
            # CI runs here under load 0.37 and 1.8 rad at most (90th percentile 0.98), median 0.
            # test_control_launch bounds the emulated servo's worst tracking, one graph at a time
            if ns == "sim":
                assert worst < 0.1, (ns, worst, typical)

        # the error: each real sample's stamp, minus the real run's start, is its run time
        run_time = np.array([stamp(m) for m in errors]) - graphs["real"].start(plan.name)
        error = np.array([m.position[0] for m in errors])
        known = (run_time >= max(real[0][0], sim[0][0])) & (run_time <= min(real[0][-1], sim[0][-1]))
        # /compare/error is sensor data (best effort): a busy test process loses many (80 of ~600 in
        # a run here with two test workers)
        spans = {ns: (g[0][0], g[0][-1], g[0].size) for ns, g in zip(GRAPHS, (real, sim))}  # run time [s], samples
        assert known.sum() > 20, (known.sum(), run_time.size, run_time[[0, -1]] if run_time.size else None, spans)
        run_time, error = run_time[known], error[known]
        recomputed = np.interp(run_time, sim[0], sim[1]) - np.interp(run_time, real[0], real[1])
        pairing = np.abs(error - recomputed)
        # the comparison node interpolates between the sim samples it received (a sensor QoS,
        # keep-last, drops some on a busy host): the same pairing, not always the same neighbours.
        # How far apart those were depends on the host (a CI run: 90th percentile 0.041 rad off the
        # recomputed neighbours'), so each error is asked to be what some two sim samples around
        # it give, neighbours or not; the recorder may have missed the ones the node used (10 %)
        assert np.median(pairing) < 1e-3, np.median(pairing)
        paired = between_some_two(run_time, error + np.interp(run_time, real[0], real[1]), sim[0], sim[1])
        assert paired.mean() > 0.9, (paired.mean(), np.quantile(pairing, [0.5, 0.9]))
        # the two checks make the error what the two graphs' commands explain: error - (sim's
        # replay - real's replay) = pairing + sim's tracking - real's tracking, each bounded above
        # (a third assertion of that sum would restate them; a tighter bound on it failed CI on a
        # busy host where each graph's tracking, within its own bound, was larger than when quiet)
        # the comparison covered the hold: errors spread over it, however many a busy host let
        # through (a CI run on a loaded host recorded 24 errors in the whole run, 5 in the 2-s hold:
        # its joint states came at ~20 Hz)
        release = min(real[3], sim[3])
        held = run_time <= release
        assert held.sum() >= 3 and np.ptp(run_time[held]) > 0.25 * release, (held.sum(), run_time[held], release)
        assert np.abs(error[held]).max() > 1e-4  # and the error there is not zero: two simulators
    finally:
        launch.recorder.deliver()
        save(tmp_path / "graphs.json", errors=errors, **{f"{ns}_{topic}": getattr(g, topic) for ns, g in graphs.items()
                                                          for topic in ("samples", "commands", "infos")})
        executor.shutdown()
        node.destroy_node()
        launch.close()
