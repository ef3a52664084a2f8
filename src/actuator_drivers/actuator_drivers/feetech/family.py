"""The Feetech STS family's record (entry point of group ``actuator_bench.families``;
:mod:`actuator_models.family`): its actuators, backends, baud rates (STS default 1000000),
bench and emulator, Table I style grid and demo. Imports neither feetech-servo-sdk nor the
emulator."""

from __future__ import annotations

from ..serial_bus.family import SerialFamily
from .tables import SDK_BAUDRATES, feetech_actuators

FAMILY = SerialFamily(
    "feetech", "Feetech", feetech_actuators(),
    backends={"feetech": "actuator_drivers.feetech.bench:BACKEND",
              "feetech_emulator": "actuator_drivers.feetech_emulator.bench:BACKEND"},
    real="feetech", emulated="feetech_emulator",
    # STS3215 at 7.4 V (stall about 1.9 N m): lighter loads than the MX grid, firmware P coefficients
    grids={"sts3215": ((0.2, 0.5, 0.8), (0.1, 0.15), (8, 16, 32))},
    # the emulated servo's truth is the published M1 with load-dependent friction added
    # (feetech_emulator/sts3215_truth_m6.json, not a published model), on both joints of the SO-100-style arm
    demo={"reference_resource": ("actuator_drivers.feetech_emulator", "sts3215_truth_m6.json"), "actuator": "sts3215",
          "grid": ((0.2, 0.5), (0.1, 0.15), (16, 32)), "arm": "so100", "partner": "sts3215", "fitted_joint": 1,
          "quick": {"grid": ((0.2, 0.5), (0.1,), (16, 32)), "trials": 1500, "paths": ("circle",)}},
    example="actuator-bench emulate --actuator sts3215 --params sts3215/m1 --mass 0.3 --length 0.1",
    baudrates=SDK_BAUDRATES, default_baudrate=1_000_000,
    bench="actuator_drivers.feetech.bench:FeetechBench",
    emulator="actuator_drivers.feetech_emulator.emulator:FeetechEmulator",
)
