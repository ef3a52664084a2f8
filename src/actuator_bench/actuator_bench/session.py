"""The recording pipeline without ROS: the bench node's control loop, its sample stream, and
the two recordings made from it.

:func:`record_run` plays one trajectory through :class:`~actuator_bench.loop.BenchLoop` (the loop
the bench node runs) and hands every :class:`~actuator_bench.loop.Cycle` to sinks:

* :class:`BagSink`: the messages the bench node would publish (same topics, fields and types,
  stamped with bench time) into an MCAP bag (:class:`~actuator_bench.recorder.Recorder`), which
  ``actuator-bench bag2json`` converts;
* :class:`StreamSink`: the same cycles straight into :class:`~actuator_bench.bag2json.BenchStreams`,
  turned into JSON logs by the very code that converts bags
  (:func:`~actuator_bench.bag2json.streams_logs`).

So a JSON recording and an MCAP recording of the same run give the same logs, and a bag made by
the ROS graph (bench node + recorder node) converts the same way.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence

from actuator_models.bench import Bench
from actuator_models.logs import Log
from actuator_models.outputs import check_folder, refuse_existing

from .bag2json import DEFAULT_DT, BenchStreams, streams_logs, write_logs
from .bench_core import publications
from .interfaces import MessageCodec, bench_topics
from .loop import BenchLoop, Cycle, Sink
from .messages import BenchInfo, seconds_to_ns
from .player import TrajectoryPlayer
from .recorder import Recorder


class BagSink:
    """Cycles into a recorder of :func:`~actuator_bench.interfaces.bench_topics` (``namespace``),
    as the bench node publishes them, stamped and received at the cycle's bench time."""

    def __init__(self, recorder: Recorder, namespace: str = "", codec: Optional[MessageCodec] = None) -> None:
        self.recorder = recorder
        self.topics = bench_topics(namespace)
        self.codec = codec or MessageCodec(recorder.typestore)

    def __call__(self, cycle: Cycle) -> None:
        ns = seconds_to_ns(cycle.time)
        for pub in publications(cycle):
            data = self.codec.encode(pub.msgtype, pub.fields, ns)
            self.recorder.receive(self.topics[pub.topic], ns, data)


class StreamSink:
    """Cycles into bench streams (namespace ``namespace``), without encoding anything."""

    def __init__(self, namespace: str = "") -> None:
        self.namespace = bench_topics(namespace)["joint_states"].rpartition("/")[0]
        self.streams: Dict[str, BenchStreams] = {self.namespace: BenchStreams()}

    def __call__(self, cycle: Cycle) -> None:
        ns = seconds_to_ns(cycle.time)
        for pub in publications(cycle):
            self.streams[self.namespace].add(pub.topic, ns, ns, pub.fields.__getitem__)

    def logs(self, name: str) -> List[Log]:
        """Raw logs of the runs seen so far (names prefixed with ``name``)."""
        return streams_logs(self.streams, name)


def tee(*sinks: Sink) -> Sink:
    """One sink feeding several."""
    def each(cycle: Cycle) -> None:
        for sink in sinks:
            sink(cycle)

    return each


@contextmanager
def bag_sink(bag: Optional[Path]) -> Iterator[Optional[BagSink]]:
    """A :class:`BagSink` into a new MCAP bag folder ``bag`` (of the root namespace's bench
    topics), closed on exit whatever happens; None when ``bag`` is None."""
    if bag is None:
        yield None
        return
    recorder = Recorder(list(bench_topics("").values()))
    recorder.start(Path(bag))
    try:
        yield BagSink(recorder)
    finally:
        recorder.stop()


@dataclass(frozen=True)
class RunRecord:
    """A recorded run: raw logs (one per joint), where they were written, the bag, ticks."""

    logs: List[Log]
    paths: List[Path]
    bag: Optional[Path]
    ticks: int


@dataclass(frozen=True)
class RunOutput:
    """Where :func:`record_run` writes: the logs into ``logdir`` (none if None), resampled at ``dt``
    [s] (None: raw), named after ``name``; with ``bag``, an MCAP bag of the same cycles (a new
    folder). Existing logs of the same names are refused unless ``overwrite``."""

    logdir: Optional[Path] = None
    bag: Optional[Path] = None
    dt: Optional[float] = DEFAULT_DT
    name: str = "run"
    overwrite: bool = False


def record_run(bench: Bench, info: BenchInfo, trajectory: str, kp: float, *, rate: float = 100.0,
               output: RunOutput = RunOutput(), arm: str = "mx",
               joints: Optional[Sequence[str]] = None) -> RunRecord:
    """Play ``trajectory`` at gain ``kp`` on ``bench`` at ``rate`` [Hz] of bench time; write the
    logs and the bag as ``output`` says. ``info`` describes the bench (actuator, pendulum) for the
    logs. Existing logs of the same names are refused before anything is played, unless
    ``output.overwrite``."""
    logdir, bag, dt, name, overwrite = output.logdir, output.bag, output.dt, output.name, output.overwrite
    player = TrajectoryPlayer(joints or bench.joints, info, arm)
    check_folder(logdir, "logdir")  # before the run: a run whose logs cannot be written is refused
    if logdir is not None and not overwrite:  # names follow from the run: check the joints' ones now
        refuse_existing(Path(logdir).glob(f"{name}_000_{trajectory}_*.json"), overwrite)
    loop = BenchLoop(bench, player)
    stream = StreamSink()
    with bag_sink(bag) as to_bag:
        ticks = loop.run(trajectory, kp, rate, tee(stream, to_bag) if to_bag else stream)
    logs = stream.logs(name)
    paths = write_logs(logs, Path(logdir), dt, overwrite) if logdir is not None else []
    return RunRecord(logs, paths, bag, ticks)
