"""Bench node: one bench of any backend, its trajectory player, one control loop.

Parameter ``backend`` picks the hardware (``dynamixel``, ``dynamixel_emulator``, ``mujoco``, and
any backend of :mod:`actuator_bench.backends`); everything else is the same graph: one control loop at
``rate`` Hz reads the joints, asks the trajectory player for the command of that instant and
writes it (read -> update -> write, as ros2_control), then publishes ``joint_states``,
``actuator_states``, ``commands`` (what was sent) and ``bench_info`` (latched). Service
``run_trajectory`` (actuator_interfaces/RunTrajectory) starts or stops a run; stopping, the end
of a run and shutdown release the torque. A run starts at rest at its first waypoint, as
``record``'s and the control player's do: the loop first moves the joints there in
``prepare_time`` and holds them ``settle_time`` (:class:`~actuator_bench.player.Prepare`);
the run's t = 0 is the cycle after that hold, and its ``bench_info`` comes with that cycle's
command, stamped as it (bench time). The logic is :class:`actuator_bench.bench_core.BenchCore`.

The loop runs in a thread of its own on absolute wall-clock deadlines
(:class:`actuator_bench.pacing.LoopThread`), not in an rclpy timer: the executor's work per timer
callback would take a third of the period at 500 Hz. The executor thread serves the service
and parameters; a run's start and stop take the loop's lock, so they fall between two cycles and
their messages keep their order with the cycles'. A cycle's bus fault is logged and the loop goes
on (the driver released the torque); any other error out of a cycle ends the loop and is raised
again in the executor thread (guard condition): the node ends as on an error in a callback, its
``destroy_node`` releasing the torque.
"""

from __future__ import annotations

from typing import Iterable, Optional

from actuator_interfaces.srv import RunTrajectory
from rclpy.node import Node

from ..backends import BackendRegistry, installed_backends
from ..bench_core import BENCH_TOPICS, BenchCore, Publication, bench_parameters
from ..messages import seconds_to_ns
from ..pacing import LoopThread
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
        self.loop_error: Optional[BaseException] = None
        self.loop_failed = self.create_guard_condition(self.on_loop_failed)
        self.loop_thread = LoopThread(self.core.period, self.on_cycle, self.stop_loop, name=f'{self.get_name()} loop')
        self.get_logger().info(f'{self.core.backend} bench {list(self.core.params.joints)} at '
                               f'{1 / self.core.period:g} Hz')
        if self.core.autostart:
            self.start('', 0.0)
        self.loop_thread.start()

    def start(self, trajectory: str, kp: float) -> float:
        with self.loop_thread.lock:
            schedule = self.core.start(trajectory, kp)
        before = f' after {self.core.prepare.move + self.core.prepare.hold:g} s to its start' if self.core.prepare else ''
        self.get_logger().info(f'playing {schedule.name} at kp {self.core.info.kp:g} for {schedule.duration:g} s{before}')
        return schedule.duration

    def on_run_trajectory(self, request, response):
        try:
            if request.start:
                response.duration = self.start(request.trajectory, request.kp)
                response.message = f'playing {self.core.loop.player.running}'
            else:
                with self.loop_thread.lock:
                    self.publish(self.core.stop())
                response.message = 'stopped: torque released'
            response.success = True
        except ValueError as error:
            response.success, response.message = False, str(error)
        return response

    def on_cycle(self) -> None:
        """One control cycle (loop thread): read, update, write, publish."""
        if not self.context.ok():  # shut down under the node: no cycles, as an executor's timer
            return
        try:
            pubs = self.core.tick()
        except (OSError, RuntimeError, ValueError) as error:  # bus faults: the driver released the torque
            self.get_logger().error(f'control cycle failed: {error}', throttle_duration_sec=1.0)
            return
        self.publish(pubs)
        if any(p.topic == 'bench_info' and not p.fields['trajectory'] for p in pubs):  # a run's start comes too
            self.get_logger().info('run finished: torque released')

    def stop_loop(self, error: BaseException) -> None:
        """The loop ended on ``error`` (loop thread): handed to the executor thread."""
        self.loop_error = error
        self.loop_failed.trigger()

    def on_loop_failed(self) -> None:
        if self.loop_error is not None:
            raise self.loop_error

    def publish(self, pubs: Iterable[Publication]) -> None:
        """Each publication stamped with its cycle's bench time (as the no-ROS bag), not the node
        clock at publish time: a comparison pairs the benches' samples by bench time."""
        for pub in pubs:
            self.pubs[pub.topic].publish(message(pub, seconds_to_ns(pub.time)))

    def destroy_node(self) -> None:
        self.loop_thread.stop()  # the cycle under way ends first: none after this
        last = self.core.close()  # torque released even when the context is already shut down
        if last and self.context.ok():
            self.publish(last)
        super().destroy_node()


def main(args=None) -> None:
    spin(BenchNode, args)


if __name__ == '__main__':
    main()
