"""Comparison node: ``compare/error`` = simulated minus real joint states, for live plots.

Parameter ``benches`` names the real and the simulated bench namespaces (``[real, sim]``). The
node subscribes both benches' ``joint_states`` and ``bench_info`` (both stamped with bench time:
a run's info with its start, its first command's stamp) and publishes, for each real state, a
sensor_msgs/JointState whose position, velocity and effort hold sim minus real per joint, paired
by joint name with the simulated state at the same time since its own trajectory start
(:class:`actuator_bench.comparison.StateComparison`): the start-up offset between the two
benches, and their clocks, do not enter the error.
Service ``run_trajectory`` (actuator_interfaces/RunTrajectory) forwards a request to both benches,
so one call starts (or stops) the same run on each. With ``placement`` (y offsets [m], one per
bench) it places each bench's ``<ns>/base_link`` in frame ``world`` on ``/tf_static`` (latched),
so RViz shows them side by side.
"""

from __future__ import annotations

import threading
import time

from actuator_interfaces.msg import BenchInfo
from actuator_interfaces.srv import RunTrajectory
from geometry_msgs.msg import TransformStamped
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from ..comparison import StateComparison
from .common import LATCHED_QOS, SENSOR_QOS, Activity, joint_state_of, read_only, sample_of, spin, stamp_seconds


class ComparisonNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('comparison', **kwargs)
        max_age = self.declare_parameter('max_age', 0.5, read_only(
            'Largest distance in run time (bench time since each trajectory start) between a real and '
            'the simulated state it is compared with [s]')).value
        real, sim = self.declare_parameter('benches', ['real', 'sim'], read_only(
            'Namespaces of the real and of the simulated bench')).value
        placement = self.declare_parameter('placement', [0.0], read_only(
            'y offset of each bench base_link in frame world [m] (one per bench; [0.0]: no TF)')).value
        self.comparison = StateComparison(max_age)
        self.activity = Activity()  # callbacks on the executor's threads, waited for at shutdown
        self.stopping = threading.Event()
        self.error_pub = self.create_publisher(JointState, 'error', SENSOR_QOS)
        self.create_subscription(JointState, f'/{sim}/joint_states', self.on_sim, SENSOR_QOS)
        self.create_subscription(JointState, f'/{real}/joint_states', self.on_real, SENSOR_QOS)
        for ns, info in ((real, self.comparison.real_info), (sim, self.comparison.sim_info)):
            self.create_subscription(
                BenchInfo, f'/{ns}/bench_info',
                self.guarded(lambda m, f=info: f(m.trajectory, stamp_seconds(m.header.stamp))), LATCHED_QOS)
        group = ReentrantCallbackGroup()
        self.bench_clients = [self.create_client(RunTrajectory, f'/{ns}/run_trajectory', callback_group=group)
                        for ns in (real, sim)]
        self.create_service(RunTrajectory, 'run_trajectory', self.on_run_trajectory, callback_group=group)
        if len(placement) == 2:
            self.tf_pub = self.create_publisher(TFMessage, '/tf_static', LATCHED_QOS)
            self.tf_pub.publish(TFMessage(transforms=[self.placed(ns, y) for ns, y in zip((real, sim), placement)]))

    def placed(self, namespace: str, y: float) -> TransformStamped:
        transform = TransformStamped()
        transform.header.stamp = self.get_clock().now().to_msg()
        transform.header.frame_id, transform.child_frame_id = 'world', f'{namespace}/base_link'
        transform.transform.translation.y = float(y)
        transform.transform.rotation.w = 1.0
        return transform

    def guarded(self, callback):
        """``callback`` counted, as every callback here, by the shutdown's activity watch (all in
        the node's default, mutually exclusive, callback group: one at a time)."""
        def run(msg) -> None:
            with self.activity.running():
                callback(msg)
        return run

    def on_sim(self, msg: JointState) -> None:
        with self.activity.running():
            self.publish_errors(self.comparison.update_sim(sample_of(msg)))

    def on_real(self, msg: JointState) -> None:
        with self.activity.running():
            self.publish_errors(self.comparison.update_real(sample_of(msg)))

    def publish_errors(self, errors) -> None:
        for error in errors:
            self.error_pub.publish(joint_state_of(error))

    def stop_work(self) -> None:
        """Shutdown begins: a forwarded run_trajectory call stops waiting for its answers."""
        self.stopping.set()

    def on_run_trajectory(self, request, response):
        with self.activity.running():
            return self.forward(request, response)

    def forward(self, request, response):
        answers = []
        for client in self.bench_clients:
            if not client.wait_for_service(timeout_sec=2.0):
                answers.append(RunTrajectory.Response(success=False, message=f'{client.srv_name}: no service'))
                continue
            future = client.call_async(request)
            deadline = time.monotonic() + 10.0
            while not future.done() and time.monotonic() < deadline and not self.stopping.is_set():
                time.sleep(0.01)  # answered on another thread of the multi-threaded executor
            answers.append(future.result() if future.done() else RunTrajectory.Response(
                success=False, message=f'{client.srv_name}: no answer'))
        response.success = all(a.success for a in answers)
        response.duration = max(a.duration for a in answers)
        response.message = '; '.join(f'{c.srv_name}: {a.message}' for c, a in zip(self.bench_clients, answers))
        return response


def main(args=None) -> None:
    spin(ComparisonNode, args, MultiThreadedExecutor)


if __name__ == '__main__':
    main()
