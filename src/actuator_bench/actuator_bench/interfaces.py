"""The bench's message types, for encoding and decoding them without ROS.

The custom messages are read from the ``.msg`` files of the ``actuator_interfaces`` package, the
single source of truth: from its installed share folder when a ROS workspace is sourced (ament
index), else from the source tree next to this package (editable ``pip install``). Standard
types (``sensor_msgs/msg/JointState``, ``std_msgs/msg/Header``...) come with ``rosbags``.

Topics of a bench and their types, by the last component of the topic name:
``joint_states`` (sensor_msgs/JointState), ``actuator_states`` (ActuatorState), ``commands``
(ActuatorCommand), ``bench_info`` (BenchInfo) and ``error`` (sensor_msgs/JointState, the
comparison node's ``compare/error``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional

import numpy as np
from rosbags.interfaces import Nodetype
from rosbags.interfaces.typing import FieldDesc
from rosbags.typesys import Stores, get_typestore, get_types_from_msg
from rosbags.typesys.store import Typestore

from .messages import stamp

PACKAGE = "actuator_interfaces"
JOINT_STATE = "sensor_msgs/msg/JointState"
ACTUATOR_STATE = f"{PACKAGE}/msg/ActuatorState"
ACTUATOR_COMMAND = f"{PACKAGE}/msg/ActuatorCommand"
BENCH_INFO = f"{PACKAGE}/msg/BenchInfo"

#: Message type of each bench topic, by the last component of its name.
TOPIC_TYPES: Mapping[str, str] = {
    "joint_states": JOINT_STATE,
    "actuator_states": ACTUATOR_STATE,
    "commands": ACTUATOR_COMMAND,
    "bench_info": BENCH_INFO,
    "error": JOINT_STATE,
}
#: Topics published with transient-local durability (latched), by last name component.
LATCHED_TOPICS = frozenset({"bench_info"})

_NUMPY_TYPES = {
    "bool": np.bool_, "byte": np.uint8, "char": np.uint8, "float32": np.float32, "float64": np.float64,
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
}


def topic_type(topic: str) -> str:
    """Message type of a bench topic such as ``/real/joint_states``; ValueError for others."""
    base = topic.rstrip("/").rsplit("/", 1)[-1]
    try:
        return TOPIC_TYPES[base]
    except KeyError:
        raise ValueError(
            f"topic {topic!r}: not a bench topic (its last name must be one of {', '.join(TOPIC_TYPES)})"
        ) from None


def is_latched(topic: str) -> bool:
    """Whether a bench topic is published with transient-local durability."""
    return topic.rstrip("/").rsplit("/", 1)[-1] in LATCHED_TOPICS


def bench_topics(namespace: str = "") -> Dict[str, str]:
    """Fully qualified topics of a bench by base name: ``{"joint_states": "/real/joint_states", ...}``."""
    prefix = "/" + namespace.strip("/") if namespace.strip("/") else ""
    return {base: f"{prefix}/{base}" for base in ("joint_states", "actuator_states", "commands", "bench_info")}


def interfaces_share() -> Path:
    """Folder holding ``msg/`` of ``actuator_interfaces`` (installed share folder, or source tree)."""
    try:
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory(PACKAGE))
    except (ImportError, LookupError):  # no ROS, or a workspace without actuator_interfaces
        pass
    source = Path(__file__).resolve().parents[2] / PACKAGE
    if (source / "msg").is_dir():
        return source
    raise FileNotFoundError(
        f"cannot find the {PACKAGE} message files: source a ROS workspace that has {PACKAGE}, "
        f"or install actuator_bench from its source tree (pip install -e), next to {source}"
    )


def message_definitions(share: Optional[Path] = None) -> Dict[str, str]:
    """Text of every ``.msg`` of ``actuator_interfaces``, by full type name."""
    folder = (share or interfaces_share()) / "msg"
    return {f"{PACKAGE}/msg/{path.stem}": path.read_text() for path in sorted(folder.glob("*.msg"))}


def bench_typestore(share: Optional[Path] = None, store: Stores = Stores.ROS2_JAZZY) -> Typestore:
    """A rosbags typestore with the standard ROS 2 types and the bench's custom messages."""
    typestore = get_typestore(store)
    for name, text in message_definitions(share).items():
        typestore.register(get_types_from_msg(text, name))
    return typestore


def build_message(typestore: Typestore, msgtype: str, values: Mapping[str, object]) -> object:
    """A typestore message from plain values (nested mappings for nested messages, sequences
    for arrays); fields left out take their zero value."""
    _, fields = typestore.fielddefs[msgtype]
    kwargs: Dict[str, Any] = {}  # each value of the type its field's descriptor declares
    for name, desc in fields:
        kwargs[name] = _field_value(typestore, desc, values.get(name), f"{msgtype}.{name}")
    return typestore.types[msgtype](**kwargs)


def _field_value(typestore: Typestore, desc: FieldDesc, value: object, where: str) -> object:
    """The value of one field described by ``desc`` (a rosbags field descriptor) from a plain one
    (None: the zero value)."""
    match desc:
        case (Nodetype.NAME, str() as msgtype):
            return build_message(typestore, msgtype, _mapping(value, where))
        case (Nodetype.ARRAY | Nodetype.SEQUENCE, ((Nodetype.BASE, (base, _)), _)) if base in _NUMPY_TYPES:
            return np.asarray(value if value is not None else (), dtype=_NUMPY_TYPES[base])
        case (Nodetype.ARRAY | Nodetype.SEQUENCE, ((Nodetype.NAME, str() as msgtype), _)):
            return [build_message(typestore, msgtype, _mapping(v, where)) for v in _items(value, where)]
        case (Nodetype.ARRAY | Nodetype.SEQUENCE, _):
            return list(_items(value, where))
        case (Nodetype.BASE, (base, _)):
            return value if value is not None else ("" if base == "string" else 0)
    raise ValueError(f"{where}: unknown field descriptor {desc!r}")


def _mapping(value: object, where: str) -> Mapping[str, object]:
    """A nested message's plain values (None or empty: every field its zero value)."""
    if not value:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{where}: expected a mapping of field values, got {value!r}")
    return value


def _items(value: object, where: str) -> Iterable[object]:
    """An array field's plain values (None or empty: none)."""
    if not value:
        return ()
    if not isinstance(value, Iterable):
        raise TypeError(f"{where}: expected a sequence, got {value!r}")
    return value


class MessageCodec:
    """CDR encoding and decoding of bench messages with a typestore (no ROS needed)."""

    def __init__(self, typestore: Optional[Typestore] = None) -> None:
        self.typestore = typestore or bench_typestore()

    def encode(self, msgtype: str, fields: Mapping[str, object], stamp_ns: Optional[int] = None) -> bytes:
        """Serialise a message given its fields; ``stamp_ns`` fills ``header.stamp`` [ns]."""
        values = dict(fields)
        if stamp_ns is not None:
            values["header"] = {"stamp": stamp(stamp_ns)}
        message = build_message(self.typestore, msgtype, values)
        return bytes(self.typestore.serialize_cdr(message, msgtype))

    def decode(self, msgtype: str, data: bytes) -> object:
        """Deserialise CDR bytes into a typestore message."""
        return self.typestore.deserialize_cdr(data, msgtype)
