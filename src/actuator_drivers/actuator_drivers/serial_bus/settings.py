"""The bench settings of a serial-bus family (``Backend.settings`` of its backends): each field a
bench-node parameter and a ``record`` / ``record-all`` option (:func:`actuator_models.bench.option`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from actuator_models.bench import option


@dataclass(frozen=True)
class SerialBusSettings:
    """A serial bus: ``port`` (device), ``baudrate`` [bit/s] (0: the family's default),
    ``protocol`` (a family with one ignores it), ``latency_ms`` (USB latency timer [ms]) and
    ``retries`` (extra attempts per transaction)."""

    port: str = field(default="/dev/ttyUSB0", metadata=option(
        "Device of the bus (serial port, emulator pty; network interface for EtherCAT)", "--port"))
    baudrate: int = field(default=0, metadata=option("Bus speed [bit/s]; 0 = the family's default", "--baud"))
    protocol: int = field(default=2, metadata=option("Firmware protocol (Dynamixel: 1 or 2; ignored by a family with one)"))
    latency_ms: float = field(default=16.0, metadata=option(
        "USB latency timer of the adapter, used in receive timeouts [ms] (1 for low-latency adapters)"))
    retries: int = field(default=3, metadata=option("Extra attempts per bus transaction (emulated bus: 10)"))


@dataclass(frozen=True)
class EmulatedSerialSettings(SerialBusSettings):
    """A serial bus on an in-process emulator: 10 retries by default and, without injected faults,
    a latency of at least 100 ms (the emulator shares the host's CPUs: on a busy host it answers
    late; :data:`~actuator_drivers.serial_bus_emulator.bench.EMULATOR_LATENCY_MS`), and the
    emulator's fault injection (fractions of status packets ``drop`` -ped or ``corrupt`` -ed,
    extra ``delay`` [s] before each)."""

    retries: int = 10
    drop: float = field(default=0.0, metadata=option("Emulator: fraction of status packets dropped"))
    corrupt: float = field(default=0.0, metadata=option("Emulator: fraction of status packets with a bad checksum"))
    delay: float = field(default=0.0, metadata=option("Emulator: extra delay before each status packet [s]"))
