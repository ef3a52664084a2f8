"""Control node: one bench of any backend as the hardware of a ros2_control topic-based system.

``topic_based_ros2_control/TopicBasedSystem`` publishes the controllers' position commands on
``joint_commands`` (sensor_msgs/JointState) and reads ``joint_states``; this node is the other end
(both relative to its namespace, ``hardware`` in control.launch.py). One timer at ``rate`` Hz
reads the bench and writes the latest commands (:class:`actuator_bench.hardware.TopicHardware`),
then publishes the bench topics (``joint_states`` stamped with the sample's bench time,
``actuator_states``, ``commands``, ``bench_info``) that the recorder records. Services:
``torque_enable`` (std_srvs/SetBool: release now, or re-arm after a command timeout) and
``announce_run`` (actuator_interfaces/RunTrajectory: start=true names the run being played
through the controllers and sets its gain in bench_info, as recordings need; with a
``start_time`` (the ROS time at which the controller starts the goal: a goal stamped so) the
run's bench_info is published at the first cycle at or after that instant, so that the run's
first command, its t = 0 for bag2json and the comparison node, is the trajectory's start and not
the hold before it (a start_time already past is refused: the run would begin late); with a
``release_time`` the node releases the torque itself at the first cycle that long after
``start_time``, on its own clock, so that every graph playing the goal releases at the same run
time; with an ``end_time`` (the trajectory's duration) the run ends at the first cycle after
that long: bench_info goes idle there, stamped as that cycle, as the bench node's own runs end,
however late the goal's result and start=false come on a busy host; start=false ends the run if
still named and releases the torque). Shutdown, Ctrl-C, SIGTERM and a command timeout release
the torque.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Optional

from actuator_interfaces.srv import RunTrajectory
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_srvs.srv import SetBool

from ..backends import BackendRegistry, installed_backends
from ..bench_core import BENCH_TOPICS, BenchCore, Publication, bench_parameters, publications
from ..control_goals import check_run_times
from ..hardware import HardwareSettings, TopicHardware
from ..loop import Cycle
from ..messages import seconds_to_ns
from ..player import known_trajectory
from .common import COMMAND_QOS, MESSAGE_CLASSES, QOS, message, read_only, spin


class ControlNode(Node):

    def __init__(self, registry: Optional[BackendRegistry] = None, **kwargs) -> None:
        super().__init__('bench', **kwargs)  # the bench YAML's /**/bench section
        registry = registry if registry is not None else installed_backends()
        values = {p.name: self.declare_parameter(p.name, p.default, read_only(p.description)).value
                  for p in bench_parameters(registry)}
        self.core = BenchCore(values, registry)  # opens the bench (its player stays idle)
        self.hardware = TopicHardware(self.core.loop.bench,
                                      HardwareSettings(self.core.params.kp, self.core.params.command_timeout))
        self.pubs = {topic: self.create_publisher(MESSAGE_CLASSES[msgtype], topic, QOS[qos])
                     for topic, (msgtype, qos) in BENCH_TOPICS.items()}
        self.create_subscription(JointState, 'joint_commands', self.on_command, COMMAND_QOS)
        self.create_service(SetBool, 'torque_enable', self.on_torque)
        self.create_service(RunTrajectory, 'announce_run', self.on_announce)
        self.publish(self.core.announce())
        self.pending: Optional[float] = None  # bench time [s] at which the announced run starts
        self.release_at: Optional[float] = None  # bench time [s] at which the run's torque is released
        self.end_at: Optional[float] = None  # bench time [s] after which the run ends (bench_info idle)
        self.create_timer(self.core.period, self.on_timer)
        self.get_logger().info(f'{self.core.backend} hardware {list(self.core.params.joints)} at '
                               f'{1 / self.core.period:g} Hz, command timeout {self.core.params.command_timeout:g} s')

    def on_command(self, msg: JointState) -> None:
        try:
            self.hardware.command(msg.name, msg.position)
        except ValueError as error:
            self.get_logger().error(f'command refused: {error}', throttle_duration_sec=1.0)

    def on_torque(self, request, response):
        try:
            released = self.hardware.set_torque(request.data)
        except (OSError, RuntimeError) as error:  # a bus fault: the cycles try the release again
            self.get_logger().error(f'torque release failed: {error}')
            response.success, response.message = False, f'torque release failed: {error}'
            return response
        if released is not None:
            now = self.hardware.bench.clock.now()
            self.publish(publications(Cycle(now, command=released)))
        response.success, response.message = True, 'armed' if request.data else 'torque released'
        return response

    def on_announce(self, request, response):
        player = self.core.loop.player
        ros_now = self.get_clock().now().nanoseconds * 1e-9
        try:
            if request.start:  # checked first: a refused request leaves the run as it was
                trajectory = known_trajectory(request.trajectory or self.core.trajectory)
                check_run_times(request.start_time, request.release_time, request.end_time, ros_now)
                kp = request.kp or self.core.run_kp
                self.hardware.set_gain(kp)
            self.pending = self.release_at = self.end_at = None
            if request.start:
                player.info = replace(player.info, trajectory=trajectory, kp=float(kp))
            else:
                self.on_torque(SetBool.Request(data=False), SetBool.Response())
                player.info = replace(player.info, trajectory='')
            now = self.hardware.bench.clock.now()
            if request.start and request.start_time > 0:  # named when the controller starts it
                self.pending = now + request.start_time - self.get_clock().now().nanoseconds * 1e-9
                if request.release_time > 0:
                    self.release_at = self.pending + request.release_time
                if request.end_time > 0:
                    self.end_at = self.pending + request.end_time
            else:
                self.publish(publications(Cycle(now, info=player.info)))
            response.success, response.message = True, f'bench_info: {player.info.trajectory or "idle"}'
        except ValueError as error:
            response.success, response.message = False, str(error)
        return response

    def on_timer(self) -> None:
        if self.release_at is not None and self.hardware.bench.clock.now() >= self.release_at:
            self.release_at = None  # the trajectory's release: this cycle's, after its sample
            self.hardware.disarm()
        timeouts = self.hardware.timeouts
        try:
            cycle = self.hardware.tick()
        except (OSError, RuntimeError, ValueError) as error:  # bus faults: the driver released the torque
            self.get_logger().error(f'control cycle failed: {error}', throttle_duration_sec=1.0)
            return
        player = self.core.loop.player
        if self.pending is not None and cycle.time >= self.pending:  # the run starts with this cycle's command
            self.pending = None
            cycle = replace(cycle, info=player.info)  # stamped as the run's first command
        elif self.end_at is not None and cycle.time > self.end_at + 1e-6:  # end_at is after the start
            self.end_at = None  # the run's end (the bench player's rule: a cycle on the last instant is in it)
            player.info = replace(player.info, trajectory='')
            cycle = replace(cycle, info=player.info)
        self.publish(publications(cycle))
        if self.hardware.timeouts > timeouts:
            self.get_logger().warning('no command within the command timeout: torque released')

    def publish(self, pubs: Iterable[Publication]) -> None:
        """Publish, each stamped with its bench time (the bench clock's, as the bench node)."""
        for pub in pubs:
            self.pubs[pub.topic].publish(message(pub, seconds_to_ns(pub.time)))

    def destroy_node(self) -> None:
        self.hardware.close()  # torque released even when the context is already shut down
        super().destroy_node()


def main(args=None) -> None:
    spin(ControlNode, args)


if __name__ == '__main__':
    main()
