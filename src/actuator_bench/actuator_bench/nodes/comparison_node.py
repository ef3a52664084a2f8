"""Comparison node: ``compare/error`` = simulated minus real joint states, for live plots.

Subscribes ``real/joint_states`` and ``sim/joint_states`` (remap them for other namespaces) and
publishes, for each real state, a sensor_msgs/JointState whose position, velocity and effort
hold sim minus real per joint, paired by joint name with the latest simulated state. The logic
is :class:`actuator_bench.comparison.StateComparison`.
"""

from __future__ import annotations

from rclpy.node import Node
from sensor_msgs.msg import JointState

from ..comparison import StateComparison
from .common import SENSOR_QOS, joint_state_of, read_only, sample_of, spin


class ComparisonNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('comparison', **kwargs)
        max_age = self.declare_parameter('max_age', 0.5, read_only(
            'Largest stamp difference between a real and a simulated state compared [s]')).value
        self.comparison = StateComparison(max_age)
        self.error_pub = self.create_publisher(JointState, 'compare/error', SENSOR_QOS)
        self.create_subscription(JointState, 'sim/joint_states', self.on_sim, SENSOR_QOS)
        self.create_subscription(JointState, 'real/joint_states', self.on_real, SENSOR_QOS)

    def on_sim(self, msg: JointState) -> None:
        self.comparison.update_sim(sample_of(msg))

    def on_real(self, msg: JointState) -> None:
        error = self.comparison.update_real(sample_of(msg))
        if error is not None:
            self.error_pub.publish(joint_state_of(error))


def main(args=None) -> None:
    spin(ComparisonNode, args)


if __name__ == '__main__':
    main()
