"""What every bench node shares: QoS profiles, message conversions and the spin loop.

QoS: state streams (``joint_states``, ``actuator_states``, ``compare/error``) use the sensor-data
profile (best effort, keep last 5), commands are reliable (keep last 10), ``bench_info`` is
reliable and transient local (keep last 1) so late joiners and the recorder get it.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

import rclpy
from actuator_interfaces.msg import ActuatorCommand, ActuatorState
from actuator_interfaces.msg import BenchInfo as BenchInfoMsg
from builtin_interfaces.msg import Time
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.exceptions import ParameterException
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState

from ..bench_core import Publication
from ..node_main import STOP_SIGNALS
from ..interfaces import ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE
from ..messages import JointSample, joint_state_fields, sample_from_fields, seconds_to_ns, stamp

#: Longest wait [s] for a stopping node's long callbacks (fits, forwarded calls) at shutdown; the
#: launch files' ``sigterm_timeout`` is larger.
STOP_GRACE = 3.0
#: Spinning [s] after the last long callback, so that its answer (an action result) goes out.
FLUSH = 0.3

SENSOR_QOS = qos_profile_sensor_data
COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: QoS of each kind of :data:`actuator_bench.bench_core.BENCH_TOPICS`.
QOS = {"sensor": SENSOR_QOS, "command": COMMAND_QOS, "latched": LATCHED_QOS}
#: rclpy message class of each bench message type.
MESSAGE_CLASSES = {JOINT_STATE: JointState, ACTUATOR_STATE: ActuatorState, ACTUATOR_COMMAND: ActuatorCommand,
                   BENCH_INFO: BenchInfoMsg}


def read_only(description: str) -> ParameterDescriptor:
    """Descriptor of a parameter fixed at start (set it from the launch file or YAML)."""
    return ParameterDescriptor(description=description, read_only=True)


def time_msg(ns: int) -> Time:
    return Time(**stamp(ns))


def message(publication: Publication, ns: int):
    """The rclpy message of a publication, its header stamped ``ns`` [ns]."""
    msg = MESSAGE_CLASSES[publication.msgtype](**publication.fields)
    msg.header.stamp = time_msg(ns)
    return msg


def stamp_seconds(stamp: Time) -> float:
    """A header stamp in seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def sample_of(msg: JointState) -> JointSample:
    return sample_from_fields(stamp_seconds(msg.header.stamp), msg.name, msg.position,
                              msg.velocity, msg.effort)


def joint_state_of(sample: JointSample) -> JointState:
    msg = JointState(**joint_state_fields(sample))
    msg.header.stamp = time_msg(seconds_to_ns(sample.time))
    return msg


class Activity:
    """Callbacks running now on executor threads, counted so that shutdown waits for them (the
    executor's own worker threads are not joined by rclpy; any thread may use it)."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    @contextmanager
    def running(self) -> Iterator[None]:
        """Wrap a callback's body."""
        with self._changed:
            self._count += 1
        try:
            yield
        finally:
            with self._changed:
                self._count -= 1
                self._changed.notify_all()

    @property
    def busy(self) -> bool:
        return self._count > 0

    def wait_idle(self, timeout: float) -> bool:
        """Wait at most ``timeout`` [s] until no callback runs; whether none does."""
        with self._changed:
            return self._changed.wait_for(lambda: self._count == 0, timeout)


def spin(make_node: Callable[[], Node], args: Optional[list] = None,
         make_executor: Optional[Callable[[], Executor]] = None, grace: float = STOP_GRACE) -> None:
    """Init, spin a node until SIGINT/SIGTERM (or an external shutdown), stop it, destroy it (its
    ``destroy_node`` releases what it holds: torque, bags) and shut down, in that order.

    The signals are handled here, not by rclpy (``SignalHandlerOptions.NO``), from the moment the
    executable began (:mod:`actuator_bench.node_main` holds them pending until here): rclpy's
    handler shuts the context down at once, under callbacks still running (timers then fail with
    "publisher's context is invalid", an action goal is left without a state, cf. ros2/rclpy#398),
    and a worker thread of a multi-threaded executor still waiting on a fit keeps the process
    alive at exit. Here a signal only sets an event, which the loop (0.1 s slices) sees at once;
    then a node with an :class:`Activity` ``activity`` (one with callbacks on executor threads)
    is told to ``stop_work()`` (end its long callbacks: cancel fits), the executor keeps serving
    while it is busy, for at most ``grace`` [s] (results and goal states go out while the
    context is valid), stops, and the callbacks it already started are waited for (the same
    ``grace``); only then the node is destroyed and the context shut down. Nothing publishes
    after shutdown. From the stop on, the signals are ignored: the second Ctrl-C that ``ros2
    launch`` forwards would otherwise kill a node that is already exiting (the interpreter
    restores the default handler at exit: exit code -2). A node that cannot start logs one line
    and exits with status 2 for bad parameters (ValueError, a parameter of the wrong type) and 1
    for a runtime fault.
    """
    stop = threading.Event()
    for number in STOP_SIGNALS:
        signal.signal(number, lambda *_: stop.set())
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # held since the executable began (node_main)
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    node = None
    executor: Optional[Executor] = None
    try:
        try:
            node = make_node()
        except (ValueError, OSError, RuntimeError, ParameterException) as error:
            if stop.is_set():  # interrupted while starting
                return
            rclpy.logging.get_logger('actuator_bench').fatal(f'cannot start: {error}')
            raise SystemExit(2 if isinstance(error, (ValueError, ParameterException)) else 1) from None
        executor = make_executor() if make_executor else SingleThreadedExecutor()
        executor.add_node(node)
        spin_until(executor, stop.is_set)
        activity: Optional[Activity] = getattr(node, 'activity', None)
        if activity is not None:
            getattr(node, 'stop_work', lambda: None)()
            deadline = time.monotonic() + grace
            spin_until(executor, lambda: not activity.busy or time.monotonic() > deadline)
            flushed = time.monotonic() + FLUSH
            spin_until(executor, lambda: time.monotonic() > flushed)  # answers to the last callbacks
        executor.remove_node(node)
        if activity is not None and not activity.wait_idle(grace):  # dispatched before the loop ended
            node.get_logger().warning(f'callbacks still running {grace:g} s after shutdown began')
    except ExternalShutdownException:
        pass
    finally:
        for number in STOP_SIGNALS:  # ignored from now on, also while the interpreter exits: there a
            signal.signal(number, signal.SIG_IGN)  # handler reverts to the default one, death by signal
        if executor is not None:  # its guard conditions destroyed now, while the context is valid: left
            executor.shutdown(timeout_sec=grace)  # to the GC after shutdown, __del__ prints a traceback
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()


def spin_until(executor: Executor, done: Callable[[], bool]) -> None:
    """Spin ``executor`` in 0.1 s slices until ``done()`` or the context is shut down."""
    while not done() and executor.context.ok():
        executor.spin_once(timeout_sec=0.1)
