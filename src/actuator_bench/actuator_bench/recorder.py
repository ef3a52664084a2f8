"""Recording of bench topics into rosbag2 bags with MCAP storage, without ROS.

A :class:`Recorder` receives serialised (CDR) messages, as an rclpy subscription created with
``raw=True`` delivers them or as :class:`~actuator_bench.interfaces.MessageCodec` encodes them,
and writes them while a recording is running. Each recording is a rosbag2 folder
(``metadata.yaml`` + one ``.mcap`` file) that ``ros2 bag info/play``, PlotJuggler and the
``rosbags``/``mcap`` libraries read; message definitions are embedded (``ros2msg`` schemas),
those of the custom messages taken from ``actuator_interfaces``' ``.msg`` files.

The latest message of each latched topic (``bench_info``) is kept while idle and written at the
start of every recording, stamped with the time recording began (as ``ros2 bag record`` receives
a latched message when it subscribes), so each bag carries the bench metadata (actuator, mass,
length, gain) even when it was published long before, and the bag's start (``ros2 bag info``:
``starting_time``, ``duration``) is when recording began, not when that message was published. Latched topics are recorded with a
transient-local offered QoS, so ``ros2 bag play`` latches them again.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Dict, Literal, Optional, Sequence, Tuple

from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from rosbags.interfaces import Connection
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys.store import Typestore

from .interfaces import bench_typestore, is_latched, topic_type

_INFINITE = QosTime(sec=0x7FFFFFFF, nsec=0xFFFFFFFF)
#: Offered QoS recorded for latched topics (transient local, reliable, keep last 1).
LATCHED_QOS = Qos(
    QosHistory.KEEP_LAST, 1, QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL,
    _INFINITE, _INFINITE, QosLiveliness.AUTOMATIC, _INFINITE, False,
)
#: rosbag2 metadata versions: 9 for Jazzy and later, 8 for Humble's ``ros2 bag``.
BAG_VERSIONS = (8, 9)


def bag_version(version: int) -> Literal[8, 9]:
    """``version`` if it is one of :data:`BAG_VERSIONS`, else ValueError."""
    if version == 8:
        return 8
    if version == 9:
        return 9
    raise ValueError(f"bag version {version}: expected one of {BAG_VERSIONS}")


def default_bag_name(prefix: str = "bench") -> str:
    """``<prefix>_YYYYmmdd-HHMMSS`` in local time."""
    return f"{prefix}_{time.strftime('%Y%m%d-%H%M%S')}"


class Recorder:
    """Writes fixed bench topics into bags; :meth:`start` and :meth:`stop` delimit a bag.

    Args:
        topics: fully qualified topic names (``/real/joint_states``...); each type follows from
            the topic's last name (:data:`~actuator_bench.interfaces.TOPIC_TYPES`).
        typestore: types with the bench messages (read from ``actuator_interfaces`` by default).
        version: rosbag2 metadata version (9: Jazzy; 8: readable by Humble's ``ros2 bag``).
    """

    def __init__(self, topics: Sequence[str], typestore: Optional[Typestore] = None, version: int = 9) -> None:
        self.version = bag_version(version)
        if not topics:
            raise ValueError("no topic to record")
        self.types: Dict[str, str] = {topic: topic_type(topic) for topic in topics}
        self.typestore = typestore or bench_typestore()
        self.counts: Dict[str, int] = {}
        self._writer: Optional[Writer] = None
        self._connections: Dict[str, Connection] = {}
        self._latched: Dict[str, Tuple[int, bytes]] = {}

    @property
    def recording(self) -> bool:
        return self._writer is not None

    @property
    def path(self) -> Optional[Path]:
        """Folder of the bag being written, None when idle."""
        return self._writer.path if self._writer else None

    def start(self, path: Path, start_ns: Optional[int] = None) -> Path:
        """Open a new bag folder ``path`` (must not exist) and record from now on; ``start_ns``
        [ns]: the time recording begins, on the clock of the receive stamps (None: the system
        clock, as a node's ROS clock), the stamp of the latched messages written first."""
        if self._writer is not None:
            raise RuntimeError(f"already recording into {self._writer.path}")
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        writer = Writer(path, version=self.version, storage_plugin=StoragePlugin.MCAP)
        writer.open()
        self._connections = {
            topic: writer.add_connection(
                topic, msgtype, typestore=self.typestore,
                offered_qos_profiles=[LATCHED_QOS] if is_latched(topic) else [],
            )
            for topic, msgtype in self.types.items()
        }
        self._writer = writer
        self.counts = {topic: 0 for topic in self.types}
        begin = time.time_ns() if start_ns is None else int(start_ns)
        for topic, (_, data) in self._latched.items():
            self._write(writer, topic, begin, data)
        return path

    def receive(self, topic: str, stamp_ns: int, data: bytes) -> None:
        """A serialised message of ``topic`` received at ``stamp_ns`` [ns]; written if recording."""
        if topic not in self.types:
            raise ValueError(f"topic {topic!r} is not recorded (recorded: {', '.join(self.types)})")
        if is_latched(topic):
            self._latched[topic] = (stamp_ns, bytes(data))
        if self._writer is not None:
            self._write(self._writer, topic, stamp_ns, data)

    def stop(self) -> Optional[Path]:
        """Close the bag (its ``metadata.yaml`` is written now); returns its folder, None if idle."""
        writer, self._writer = self._writer, None
        if writer is None:
            return None
        writer.close()
        return writer.path

    def _write(self, writer: Writer, topic: str, stamp_ns: int, data: bytes) -> None:
        writer.write(self._connections[topic], int(stamp_ns), data)
        self.counts[topic] += 1
