"""MuJoCo sim node: the same topics and commands as the driver node, from a simulated bench.

Every ``1 / rate`` s of wall time the physics advances to ``real_time_factor`` times the wall time
elapsed since start; ``joint_states`` and ``actuator_states`` are stamped with the simulated
time (counted from the node's start, or from 0 with ``publish_clock``, which also publishes it
on ``/clock`` for nodes running with ``use_sim_time``: needed when ``real_time_factor`` is not 1).
Torque is off at start and when commands stop for ``command_timeout`` s. The logic is
:class:`actuator_bench.sim_bench.SimBench`.
"""

from __future__ import annotations

from actuator_interfaces.msg import ActuatorCommand, ActuatorState
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState

from ..messages import seconds_to_ns
from ..sim_bench import SimBench, SimConfig
from .common import (
    COMMAND_QOS, SENSOR_QOS, actuator_state_msg, command_of, joint_state_msg, read_only, spin, time_msg,
)


class SimNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('sim', **kwargs)
        config = SimConfig(
            joints=tuple(self.declare_parameter('joints', ['pendulum'], read_only(
                'Servo joints of the MJCF')).value),
            models=tuple(self.declare_parameter('models', ['xl330/m6'], read_only(
                'Servo model of each joint: params file or library name such as xl330/m6')).value),
            kp=tuple(self.declare_parameter('kp', [400.0], read_only(
                'Initial firmware gain of each joint (actuator units); commands may change it')).value),
            vin=tuple(self.declare_parameter('vin', [0.0], read_only(
                "Supply voltage of each joint [V]; 0 = the actuator's default")).value),
            mjcf=self.declare_parameter('mjcf', 'pendulum', read_only(
                'pendulum (generated from mass, length, arm_mass), a shipped model file such as '
                'arm_mx.xml, or an MJCF path')).value,
            mass=self.declare_parameter('mass', 1.0, read_only('Pendulum mass [kg]')).value,
            length=self.declare_parameter('length', 0.15, read_only('Pendulum length [m]')).value,
            arm_mass=self.declare_parameter('arm_mass', 0.0, read_only('Pendulum arm mass [kg]')).value,
            timestep=self.declare_parameter('timestep', 0.005, read_only(
                'Physics step of the generated pendulum [s]')).value,
            command_timeout=self.declare_parameter('command_timeout', 0.5, read_only(
                'Torque is released when no command came for this long [s of simulated time]')).value,
        )
        rate = self.declare_parameter('rate', 100.0, read_only('State publishing rate [Hz of wall time]')).value
        self.factor = self.declare_parameter('real_time_factor', 1.0, read_only(
            'Simulated seconds per wall second')).value
        publish_clock = self.declare_parameter('publish_clock', False, read_only(
            'Publish the simulated time on /clock, and stamp with it from 0')).value

        self.bench = SimBench.from_config(config)
        self.wall = Clock(clock_type=ClockType.STEADY_TIME)
        self.start = self.wall.now()
        self.origin_ns = 0 if publish_clock else self.get_clock().now().nanoseconds
        self.joint_pub = self.create_publisher(JointState, 'joint_states', SENSOR_QOS)
        self.state_pub = self.create_publisher(ActuatorState, 'actuator_states', SENSOR_QOS)
        self.clock_pub = self.create_publisher(ClockMsg, '/clock', 10) if publish_clock else None
        self.create_subscription(ActuatorCommand, 'commands', self.on_command, COMMAND_QOS)
        self.create_timer(1.0 / rate, self.on_timer, clock=self.wall)
        self.get_logger().info(f'simulating {config.mjcf} ({", ".join(config.joints)}) at x{self.factor:g} real time')

    def on_command(self, msg: ActuatorCommand) -> None:
        try:
            self.bench.apply(command_of(msg))
        except ValueError as error:
            self.get_logger().error(f'command refused: {error}', throttle_duration_sec=1.0)

    def on_timer(self) -> None:
        elapsed = (self.wall.now() - self.start).nanoseconds * 1e-9
        sample = self.bench.advance(elapsed * self.factor)
        ns = self.origin_ns + seconds_to_ns(sample.time)
        if self.clock_pub is not None:
            self.clock_pub.publish(ClockMsg(clock=time_msg(ns)))
        self.joint_pub.publish(joint_state_msg(sample, ns))
        self.state_pub.publish(actuator_state_msg(sample, ns))

    def destroy_node(self) -> None:
        self.bench.release()
        super().destroy_node()


def main(args=None) -> None:
    spin(SimNode, args)


if __name__ == '__main__':
    main()
