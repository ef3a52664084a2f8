"""Dynamixel driver node: ``joint_states`` and ``actuator_states`` at ``rate`` Hz, ``commands`` in.

With ``emulate`` true the bus is the Dynamixel emulator (an emulated pendulum per servo), driven
through the same driver code: the hardware-free bench. Torque is released on shutdown, on bus
faults and when commands stop for ``command_timeout`` seconds. The logic is
:class:`actuator_bench.driver_bench.DriverBench`.
"""

from __future__ import annotations

from actuator_drivers.dynamixel_errors import DynamixelError
from actuator_interfaces.msg import ActuatorCommand, ActuatorState
from rclpy.node import Node
from sensor_msgs.msg import JointState

from ..driver_bench import DriverBench, DriverConfig
from .common import (
    COMMAND_QOS, SENSOR_QOS, actuator_state_msg, command_of, joint_state_msg, read_only, spin,
)


class DynamixelDriverNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('dynamixel_driver', **kwargs)
        ids = self.declare_parameter('ids', [1], read_only('Dynamixel IDs of the servos')).value
        config = DriverConfig(
            ids=tuple(ids),
            joints=tuple(self.declare_parameter('joints', ['pendulum'], read_only(
                'Joint name of each servo')).value),
            actuators=tuple(self.declare_parameter('actuators', ['xl330'], read_only(
                'Actuator of each servo: mx64, mx106 or xl330')).value),
            models=tuple(self.declare_parameter('models', [''], read_only(
                'Servo model of each servo for the torque estimate and the emulator (params file or '
                'library name such as xl330/m6); empty = <actuator>/m6')).value),
            min_position=tuple(self.declare_parameter('min_position', [-2.8], read_only(
                'Lower joint limit of each servo [rad]')).value),
            max_position=tuple(self.declare_parameter('max_position', [2.8], read_only(
                'Upper joint limit of each servo [rad]')).value),
            port=self.declare_parameter('port', '/dev/ttyUSB0', read_only('Serial device of the bus')).value,
            baudrate=self.declare_parameter('baudrate', 57600, read_only('Bus speed [bit/s]')).value,
            protocol=self.declare_parameter('protocol', 2, read_only('Dynamixel protocol: 1 or 2')).value,
            command_timeout=self.declare_parameter('command_timeout', 0.5, read_only(
                'Torque is released when no command came for this long [s]')).value,
            latency_ms=self.declare_parameter('latency_ms', 16.0, read_only(
                'USB latency timer of the adapter [ms]')).value,
            emulate=self.declare_parameter('emulate', False, read_only(
                'Talk to the Dynamixel emulator instead of hardware')).value,
            mass=self.declare_parameter('emulator.mass', 1.0, read_only('Emulated pendulum mass [kg]')).value,
            length=self.declare_parameter('emulator.length', 0.15, read_only(
                'Emulated pendulum length [m]')).value,
            arm_mass=self.declare_parameter('emulator.arm_mass', 0.0, read_only(
                'Emulated pendulum arm mass [kg]')).value,
        )
        rate = self.declare_parameter('rate', 100.0, read_only('State publishing and bus read rate [Hz]')).value

        self.bench = DriverBench.open(config)
        bus = f'emulator on {self.bench.emulator.port}' if self.bench.emulator else config.port
        self.get_logger().info(f'servos {list(config.ids)} ({", ".join(self.bench.joints)}) on {bus}')
        self.joint_pub = self.create_publisher(JointState, 'joint_states', SENSOR_QOS)
        self.state_pub = self.create_publisher(ActuatorState, 'actuator_states', SENSOR_QOS)
        self.create_subscription(ActuatorCommand, 'commands', self.on_command, COMMAND_QOS)
        self.create_timer(1.0 / rate, self.on_timer)

    def on_command(self, msg: ActuatorCommand) -> None:
        try:
            self.bench.apply(command_of(msg))
        except (ValueError, DynamixelError) as error:
            self.get_logger().error(f'command refused: {error}', throttle_duration_sec=1.0)

    def on_timer(self) -> None:
        try:
            sample = self.bench.sample()
        except DynamixelError as error:
            self.get_logger().error(f'bus read failed (torque released): {error}', throttle_duration_sec=1.0)
            return
        ns = self.get_clock().now().nanoseconds
        self.joint_pub.publish(joint_state_msg(sample, ns))
        self.state_pub.publish(actuator_state_msg(sample, ns))

    def destroy_node(self) -> None:
        self.bench.close()
        super().destroy_node()


def main(args=None) -> None:
    spin(DynamixelDriverNode, args)


if __name__ == '__main__':
    main()
