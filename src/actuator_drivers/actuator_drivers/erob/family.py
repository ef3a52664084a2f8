"""The eRob family's record (entry point of group ``actuator_bench.families``;
:mod:`actuator_models.family`): eRob80 drives over EtherCAT, their backends (``erob`` on a network
interface, ``erob_emulator`` on a veth pair), the paper's Table I grid, the eRob80:100 demo and
the EtherCAT emulator of ``actuator-bench emulate`` (:mod:`actuator_drivers.erob_cli`). Imports
neither pysoem nor the emulator."""

from __future__ import annotations

from actuator_models.family import Family

#: paper Table I, eRob80: masses [kg] at 0.5 m, PD gains [A/rad]
_GRID = ((3.1, 8.2, 12.7, 14.6, 19.6), (0.5,), (10, 25, 50, 100))

FAMILY = Family(
    "erob", "eRob", ("erob80_50", "erob80_100"),
    backends={"erob": "actuator_drivers.erob.bench:BACKEND",
              "erob_emulator": "actuator_drivers.ethercat_emulator.bench:BACKEND"},
    real="erob", emulated="erob_emulator", lockstep=True,  # the emulated line: cycles back to back
    grids={"erob80_50": _GRID, "erob80_100": _GRID},
    # eRob80:100 through the EtherCAT driver and emulator (PD law at 500 Hz, root for the veth
    # pair), shoulder of the eRob arm
    demo={"reference": "erob80_100/m6", "actuator": "erob80_100", "grid": ((3.1, 8.2, 14.6), (0.5,), (25, 100)),
          "arm": "erob", "partner": "erob80_50", "fitted_joint": 0, "settings": {"cycle_time": 0.002},
          "quick": {"grid": ((3.1, 14.6), (0.5,), (25, 100)), "trials": 1500, "paths": ("circle",)}},
    emulate="actuator_drivers.erob_cli:EMULATE",
    commands="actuator_drivers.erob_cli:COMMANDS",  # veth: the virtual EtherCAT cable
    example="actuator-bench emulate --ethercat ecXs --actuator erob80_100 --params erob80_100/m6 --mass 3.1 --length 0.5",
)
