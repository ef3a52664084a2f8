"""Recorder node: bench topics into rosbag2 bags (MCAP storage) with the bench metadata.

Service ``~/record`` (std_srvs/SetBool): ``data: true`` starts a new bag
``<output_dir>/<prefix>_<date>-<time>``, ``false`` closes it once the messages published before
the request are in (a busy recorder takes each topic's backlog at its own pace: closed at once, a
bag lost the last second of a run; see :class:`Drain`); the response message is the bag folder. Messages are taken serialised (no deserialisation) and written with their receive time;
the latest ``bench_info`` opens every bag, stamped with the time recording began. The bag is
closed on shutdown. The logic is :class:`actuator_bench.recorder.Recorder`; ``actuator-bench
bag2json`` turns bags into logs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Dict, Optional, Sequence, Set

from actuator_interfaces.msg import ActuatorCommand, ActuatorState, BenchInfo
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.task import Future
from rclpy.qos import HistoryPolicy, QoSProfile
from sensor_msgs.msg import JointState
from std_srvs.srv import SetBool

from ..interfaces import ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE, topic_type
from ..recorder import Recorder, default_bag_name
from .common import COMMAND_QOS, LATCHED_QOS, SENSOR_QOS, read_only, spin

#: Reader history of every subscription: a run's messages at the bench's highest rate (60 s at
#: 500 Hz). With the publishers' own depth (10 commands, 5 samples, 1 bench_info) a recorder that
#: falls behind on a busy host lost the oldest of them before it took them; bench_info opening a
#: run could be replaced by the one closing it.
RECORD_DEPTH = 30_000


def deep(qos: QoSProfile) -> QoSProfile:
    """``qos`` (the publishers' reliability and durability) with :data:`RECORD_DEPTH` history."""
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=RECORD_DEPTH, reliability=qos.reliability,
                      durability=qos.durability)


#: A topic that delivered nothing for this long [s] while draining has no backlog left.
DRAIN_QUIET = 0.25
#: A stop waits at most this long [s] for the backlog.
DRAIN_LIMIT = 10.0


@dataclass
class Drain:
    """A stop requested at ``since`` [ns, system clock: that of the messages' source timestamps].
    Each topic is drained once it delivered a message published from then on (its backlog before
    it is in: a topic's messages arrive in order), or nothing for :data:`DRAIN_QUIET`; the stop
    waits at most :data:`DRAIN_LIMIT`."""

    since: int
    topics: Sequence[str]
    done: Future = field(default_factory=Future)
    started: float = field(default_factory=time.monotonic)  # [s]
    caught_up: Set[str] = field(default_factory=set)
    last_taken: Dict[str, float] = field(default_factory=dict)  # monotonic [s]

    def taken(self, topic: str, source_ns: int) -> bool:
        """A message of ``topic`` published at ``source_ns``; whether it belongs in the bag."""
        self.last_taken[topic] = time.monotonic()
        if source_ns >= self.since:
            self.caught_up.add(topic)
            return False
        return True

    def check(self) -> None:
        """Complete :attr:`done` when every topic is drained or the limit passed."""
        now = time.monotonic()
        quiet = {t for t in self.topics if now - self.last_taken.get(t, self.started) > DRAIN_QUIET}
        if not self.done.done() and (self.caught_up | quiet >= set(self.topics) or now - self.started > DRAIN_LIMIT):
            self.done.set_result(True)


#: rclpy message class and subscription QoS of each bench message type.
SUBSCRIPTIONS = {
    JOINT_STATE: (JointState, deep(SENSOR_QOS)),
    ACTUATOR_STATE: (ActuatorState, deep(SENSOR_QOS)),
    ACTUATOR_COMMAND: (ActuatorCommand, deep(COMMAND_QOS)),
    BENCH_INFO: (BenchInfo, deep(LATCHED_QOS)),
}


class RecorderNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('recorder', **kwargs)
        topics = self.declare_parameter(
            'topics', ['joint_states', 'actuator_states', 'commands', 'bench_info'], read_only(
                'Topics to record (relative names resolve in the node namespace); the type follows '
                'from the last name: joint_states, actuator_states, commands, bench_info, error')).value
        self.output_dir = Path(self.declare_parameter('output_dir', 'bags', read_only(
            'Folder of the bags (relative: to the working directory)')).value).resolve()
        self.prefix = self.declare_parameter('prefix', 'bench', read_only('Bag name prefix')).value
        version = self.declare_parameter('bag_version', 9, read_only(
            'rosbag2 metadata version: 9 (Jazzy), 8 (readable by Humble)')).value
        autostart = self.declare_parameter('autostart', False, read_only('Start a bag at once')).value

        resolved = [self.resolve_topic_name(topic) for topic in topics]
        self.recorder = Recorder(resolved, version=version)
        for topic in resolved:
            msg_class, qos = SUBSCRIPTIONS[topic_type(topic)]
            self.create_subscription(msg_class, topic, partial(self.on_message, topic), qos, raw=True)
        self.drain: Optional[Drain] = None
        self.drain_timer = self.create_timer(0.05, self.check_drain)  # runs while a stop drains
        self.drain_timer.cancel()  # (reset and cancelled, never destroyed: the executor may hold it)
        # a group of its own: the stop awaits the drain while the subscriptions and the timer run
        self.create_service(SetBool, '~/record', self.on_record, callback_group=MutuallyExclusiveCallbackGroup())
        if autostart:
            self.start()

    def start(self) -> Path:
        path = self.recorder.start(self.output_dir / default_bag_name(self.prefix), self.get_clock().now().nanoseconds)
        self.get_logger().info(f'recording {", ".join(self.recorder.types)} into {path}')
        return path

    def on_message(self, topic: str, data: bytes, info: dict) -> None:
        if self.drain is None or self.drain.taken(topic, info['source_timestamp']):
            self.recorder.receive(topic, self.get_clock().now().nanoseconds, data)

    def check_drain(self) -> None:
        if self.drain is not None:
            self.drain.check()

    async def on_record(self, request, response):
        try:
            if request.data:
                response.message = str(self.start())
            else:
                if self.recorder.recording:  # what was published before the request goes in first
                    self.drain = Drain(time.time_ns(), list(self.recorder.types))
                    self.drain_timer.reset()
                    try:
                        await self.drain.done
                    finally:
                        self.drain_timer.cancel()
                        self.drain = None
                path = self.recorder.stop()
                response.message = str(path) if path else 'not recording'
                if path:
                    self.get_logger().info(f'closed {path}: {self.recorder.counts}')
            response.success = True
        except (RuntimeError, OSError, ValueError) as error:
            response.success, response.message = False, str(error)
        return response

    def destroy_node(self) -> None:
        self.recorder.stop()
        super().destroy_node()


def main(args=None) -> None:
    spin(RecorderNode, args)


if __name__ == '__main__':
    main()
