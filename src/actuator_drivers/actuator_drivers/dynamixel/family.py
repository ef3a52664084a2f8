"""The Dynamixel family's record (entry point of group ``actuator_bench.families``;
:mod:`actuator_models.family`): its actuators, backends, baud rates, Table I grids (paper Table
I for the MX servos; the shipped XL330 logs' bench for the XL330) and the MX-64 demo. Imports
neither dynamixel-sdk nor the emulator."""

from __future__ import annotations

from actuator_drivers.dynamixel.tables import table_actuators
from actuator_drivers.serial_bus.family import SerialFamily

#: Baud rates dynamixel-sdk's ``PortHandler.setBaudRate`` accepts (:data:`.bus.SDK_BAUDRATES`).
BAUDRATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600,
             1000000, 1152000, 2000000, 2500000, 3000000, 3500000, 4000000)

#: paper Table I, Dynamixel: masses [kg], lengths [m], gains
_MX_GRID = ((0.5, 1.0, 1.5), (0.1, 0.15, 0.2), (4, 8, 16, 32))

FAMILY = SerialFamily(
    "dynamixel", "Dynamixel", table_actuators(),
    backends={"dynamixel": "actuator_drivers.dynamixel.bench:BACKEND",
              "dynamixel_emulator": "actuator_drivers.dynamixel_emulator.bench:BACKEND"},
    real="dynamixel", emulated="dynamixel_emulator",
    grids={"mx64": _MX_GRID, "mx106": _MX_GRID, "xl330": ((0.49,), (0.1,), (100, 200, 800))},
    # the emulated MX-64 (Protocol 1.0) on the elbow of the MX 2R arm
    demo={"reference": "mx64/m6", "actuator": "mx64", "grid": ((0.5, 1.0, 1.5), (0.1, 0.2), (8, 32)),
          "arm": "mx", "partner": "mx106", "fitted_joint": 1, "settings": {"protocol": 1},
          "quick": {"grid": ((0.5, 1.5), (0.15,), (8, 32)), "trials": 1500, "paths": ("circle",)}},
    baudrates=BAUDRATES, default_baudrate=57600,
    bench="actuator_drivers.dynamixel.bench:DynamixelBench",
    emulator="actuator_drivers.dynamixel_emulator.emulator:DynamixelEmulator",
    protocols=(1, 2),
)
