"""Comparison node: ``compare/error`` = simulated minus real joint states, for live plots.

Parameter ``benches`` names the real and the simulated bench namespaces (``[real, sim]``). The
node subscribes both ``joint_states`` and publishes, for each real state, a
sensor_msgs/JointState whose position, velocity and effort hold sim minus real per joint, paired
by joint name with the latest simulated state (:class:`actuator_bench.comparison.StateComparison`).
Service ``run_trajectory`` (actuator_interfaces/RunTrajectory) forwards a request to both benches,
so one call starts (or stops) the same run on each. With ``placement`` (y offsets [m], one per
bench) it places each bench's ``<ns>/base_link`` in frame ``world`` on ``/tf_static`` (latched),
so RViz shows them side by side.
"""

from __future__ import annotations

import threading
import time

from actuator_interfaces.srv import RunTrajectory
from geometry_msgs.msg import TransformStamped
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from ..comparison import StateComparison
from .common import LATCHED_QOS, SENSOR_QOS, Activity, joint_state_of, read_only, sample_of, spin


class ComparisonNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('comparison', **kwargs)
        max_age = self.declare_parameter('max_age', 0.5, read_only(
            'Largest stamp difference between a real and a simulated state compared [s]')).value
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

    def on_sim(self, msg: JointState) -> None:
        with self.activity.running():
            self.comparison.update_sim(sample_of(msg))

    def on_real(self, msg: JointState) -> None:
        with self.activity.running():
            error = self.comparison.update_real(sample_of(msg))
            if error is not None:
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
