"""Trajectory player node: plays identification trajectories and 2R paths onto ``commands``.

Service ``run_trajectory`` (actuator_interfaces/RunTrajectory) starts or stops a run; while it
runs, commands go out at ``rate`` Hz. ``bench_info`` (latched) describes the run, with an empty
trajectory when idle. With several ``namespaces`` (``[real, sim]``) the same messages go to
``<ns>/commands`` and ``<ns>/bench_info`` of each bench. The logic is
:class:`actuator_bench.player.TrajectoryPlayer`.
"""

from __future__ import annotations

from actuator_interfaces.msg import ActuatorCommand
from actuator_interfaces.msg import BenchInfo as BenchInfoMsg
from actuator_interfaces.srv import RunTrajectory
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node

from ..messages import BenchInfo
from ..player import Step, TrajectoryPlayer
from .common import COMMAND_QOS, LATCHED_QOS, bench_info_msg, command_msg, read_only, spin


def topic(namespace: str, name: str) -> str:
    return f'{namespace}/{name}' if namespace else name


class TrajectoryNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('trajectory_player', **kwargs)

        joints = self.declare_parameter('joints', ['pendulum'], read_only(
            'Joint names, in trajectory order (shoulder, elbow for 2R paths)')).value
        arm = self.declare_parameter('arm', 'mx', read_only(
            'Shipped 2R arm whose geometry the paths use: mx or erob')).value
        rate = self.declare_parameter('rate', 100.0, read_only('Command rate [Hz]')).value
        bench = BenchInfo(
            actuator=self.declare_parameter('actuator', 'xl330', read_only(
                'actuator_models name of the servos, for bench_info')).value,
            mass=self.declare_parameter('mass', 0.0, read_only('Pendulum mass [kg], for bench_info')).value,
            arm_mass=self.declare_parameter('arm_mass', 0.0, read_only(
                'Mass of the pendulum arm [kg], for bench_info')).value,
            length=self.declare_parameter('length', 0.0, read_only('Pendulum length [m], for bench_info')).value,
            vin=self.declare_parameter('vin', 0.0, read_only(
                'Supply voltage [V], for bench_info; 0 = unknown')).value,
        )
        self.declare_parameter('trajectory', 'sin_sin', ParameterDescriptor(
            description='Trajectory played when a request names none (and at start with autostart)'))
        self.declare_parameter('kp', 400.0, ParameterDescriptor(
            description='Firmware gain used when a request gives none (actuator units)'))
        autostart = self.declare_parameter('autostart', False, read_only(
            'Play the trajectory parameter once at start')).value
        namespaces = self.declare_parameter('namespaces', [''], read_only(
            "Bench namespaces to command, relative to this node's ('' = its own)")).value

        self.player = TrajectoryPlayer(joints, bench, arm)
        self.command_pubs = [self.create_publisher(ActuatorCommand, topic(ns, 'commands'), COMMAND_QOS)
                             for ns in namespaces]
        self.info_pubs = [self.create_publisher(BenchInfoMsg, topic(ns, 'bench_info'), LATCHED_QOS)
                          for ns in namespaces]
        self.publish(Step(info=self.player.info))
        self.create_service(RunTrajectory, 'run_trajectory', self.on_run_trajectory)
        self.create_timer(1.0 / rate, self.on_timer)
        if autostart:
            self.start('', 0.0)

    def now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def start(self, trajectory: str, kp: float) -> float:
        name = trajectory or self.get_parameter('trajectory').value
        gain = kp or self.get_parameter('kp').value
        schedule, info = self.player.start(name, gain, self.now())
        self.publish(Step(info=info))
        self.get_logger().info(f'playing {name} at kp {gain:g} for {schedule.duration:g} s')
        return schedule.duration

    def on_run_trajectory(self, request, response):
        try:
            if request.start:
                response.duration = self.start(request.trajectory, request.kp)
                response.message = f'playing {self.player.running}'
            else:
                self.publish(self.player.stop())
                response.message = 'stopped'
            response.success = True
        except ValueError as error:
            response.success, response.message = False, str(error)
        return response

    def on_timer(self) -> None:
        step = self.player.tick(self.now())
        self.publish(step)
        if step.info is not None:
            self.get_logger().info('run finished: torque released')

    def publish(self, step: Step) -> None:
        if step.command is not None:
            msg = command_msg(step.command, self.get_clock().now().nanoseconds)
            for pub in self.command_pubs:
                pub.publish(msg)
        if step.info is not None:
            msg = bench_info_msg(step.info)
            for pub in self.info_pubs:
                pub.publish(msg)

    def destroy_node(self) -> None:
        self.player.stop()
        super().destroy_node()


def main(args=None) -> None:
    spin(TrajectoryNode, args)


if __name__ == '__main__':
    main()
