"""The bench settings of the eRob family (``Backend.settings`` of ``erob`` and ``erob_emulator``):
each field a bench-node parameter and a ``record`` / ``record-all`` option
(:func:`actuator_models.bench.option`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from actuator_models.bench import option


@dataclass(frozen=True)
class ErobSettings:
    """An EtherCAT line of eRob drives: ``port`` (the network interface), the process-data
    ``cycle_time`` [s], distributed clocks (``dc``), ``stepped`` pacing (cycles back to back,
    emulators only), the ``rated_current`` of the per-mille values [A] (0: read 0x6075 from the
    drive) and ``max_lost`` consecutive lost cycles before stopping."""

    port: str = field(default="eth0", metadata=option(
        "Device of the bus (serial port, emulator pty; network interface for EtherCAT)", "--port", "--ethercat"))
    cycle_time: float = field(default=0.001, metadata=option("EtherCAT process-data period (PD law rate) [s]"))
    dc: bool = field(default=True, metadata=option(
        "EtherCAT distributed clocks (--no-dc: the drive follows the frames)", "--no-dc"))
    stepped: bool = field(default=False, metadata=option(
        "EtherCAT: clock the bench by process-data cycles run back to back (emulators only; hardware needs "
        "the default real-time loop)"))
    rated_current: float = field(default=0.0, metadata=option(
        "eRob rated current of the 0x6071/0x6077 per-mille values [A]; 0 = read 0x6075 from the drive"))
    max_lost: int = field(default=20, metadata=option("EtherCAT: consecutive lost cycles before stopping"))


@dataclass(frozen=True)
class EmulatedErobSettings(ErobSettings):
    """eRob drives on the EtherCAT emulator (a veth pair and an emulator process): the link's
    fault injection (fractions of frames ``drop`` -ped or ``corrupt`` -ed)."""

    drop: float = field(default=0.0, metadata=option("Emulator: fraction of status packets dropped"))
    corrupt: float = field(default=0.0, metadata=option("Emulator: fraction of status packets with a bad checksum"))
