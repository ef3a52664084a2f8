"""Bench node: one bench of any backend, its trajectory player, one control loop.

Parameter ``backend`` picks the hardware (``dynamixel``, ``dynamixel_emulator``, ``mujoco``, and
any backend of :mod:`actuator_bench.backends`); everything else is the same graph: one timer at
``rate`` Hz reads the joints, asks the trajectory player for the command of that instant and
writes it (read -> update -> write, as ros2_control), then publishes ``joint_states``,
``actuator_states``, ``commands`` (what was sent) and ``bench_info`` (latched). Service
``run_trajectory`` (actuator_interfaces/RunTrajectory) starts or stops a run; stopping, the end
of a run and shutdown release the torque. The logic is :class:`actuator_bench.bench_core.BenchCore`.
"""

from __future__ import annotations

from typing import Iterable, Optional

from actuator_interfaces.srv import RunTrajectory
from rclpy.node import Node

from ..backends import BackendRegistry, installed_backends
from ..bench_core import BENCH_TOPICS, BenchCore, Publication, bench_parameters
from ..messages import seconds_to_ns
from .common import QOS, MESSAGE_CLASSES, message, read_only, spin


class BenchNode(Node):

    def __init__(self, registry: Optional[BackendRegistry] = None, **kwargs) -> None:
        super().__init__('bench', **kwargs)
        registry = registry if registry is not None else installed_backends()  # every installed family
        first = bench_parameters(registry)[0]  # the backend, whose settings' defaults the others take
        backend = self.declare_parameter(first.name, first.default, read_only(first.description)).value
        values = {p.name: self.declare_parameter(p.name, p.default, read_only(p.description)).value
                  for p in bench_parameters(registry, backend)[1:]}
        values[first.name] = backend
        self.core = BenchCore(values, registry)
        self.pubs = {topic: self.create_publisher(MESSAGE_CLASSES[msgtype], topic, QOS[qos])
                     for topic, (msgtype, qos) in BENCH_TOPICS.items()}
        self.publish(self.core.announce())
        self.create_service(RunTrajectory, 'run_trajectory', self.on_run_trajectory)
        self.create_timer(self.core.period, self.on_timer)
        self.get_logger().info(f'{self.core.backend} bench {list(self.core.params.joints)} at '
                               f'{1 / self.core.period:g} Hz')
        if self.core.autostart:
            self.start('', 0.0)

    def start(self, trajectory: str, kp: float) -> float:
        schedule, pubs = self.core.start(trajectory, kp)
        self.publish(pubs)
        self.get_logger().info(f'playing {schedule.name} at kp {self.core.info.kp:g} for {schedule.duration:g} s')
        return schedule.duration

    def on_run_trajectory(self, request, response):
        try:
            if request.start:
                response.duration = self.start(request.trajectory, request.kp)
                response.message = f'playing {self.core.loop.player.running}'
            else:
                self.publish(self.core.stop())
                response.message = 'stopped: torque released'
            response.success = True
        except ValueError as error:
            response.success, response.message = False, str(error)
        return response

    def on_timer(self) -> None:
        try:
            pubs = self.core.tick()
        except (OSError, RuntimeError, ValueError) as error:  # bus faults: the driver released the torque
            self.get_logger().error(f'control cycle failed: {error}', throttle_duration_sec=1.0)
            return
        self.publish(pubs)
        if any(p.topic == 'bench_info' for p in pubs):
            self.get_logger().info('run finished: torque released')

    def publish(self, pubs: Iterable[Publication]) -> None:
        """Each publication stamped with its cycle's bench time (as the no-ROS bag), not the node
        clock at publish time: a comparison pairs the benches' samples by bench time."""
        for pub in pubs:
            self.pubs[pub.topic].publish(message(pub, seconds_to_ns(pub.time)))

    def destroy_node(self) -> None:
        last = self.core.close()  # torque released even when the context is already shut down
        if last and self.context.ok():
            self.publish(last)
        super().destroy_node()


def main(args=None) -> None:
    spin(BenchNode, args)


if __name__ == '__main__':
    main()
