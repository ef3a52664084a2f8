"""The Dynamixel family as the command lines see it (entry point of group
``actuator_drivers.families``; :mod:`actuator_drivers.serial_bus.family`). Imports neither
dynamixel-sdk nor the emulator."""

from __future__ import annotations

from actuator_drivers.dynamixel.tables import table_actuators
from actuator_drivers.serial_bus.family import SerialFamily

#: Baud rates dynamixel-sdk's ``PortHandler.setBaudRate`` accepts (:data:`.bus.SDK_BAUDRATES`).
BAUDRATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600,
             1000000, 1152000, 2000000, 2500000, 3000000, 3500000, 4000000)

FAMILY = SerialFamily(
    "dynamixel", "Dynamixel", table_actuators(), BAUDRATES, 57600,
    bench="actuator_drivers.dynamixel.bench:DynamixelBench",
    emulator="actuator_drivers.dynamixel_emulator.emulator:DynamixelEmulator",
    protocols=(1, 2),
)
