"""A toy actuator family for test_toy_family.py, written as a user would write one: servos on an
in-process simulated bus, neither serial nor EtherCAT, installed by the test as this module plus
one entry point of group ``actuator_bench.families`` (nothing else of the project changes).

The bus is a test double at a boundary that cannot exist here (a bus nobody builds): each servo is
the project's own :class:`~actuator_models.simulation.PendulumSimulator` of its model, stepped every
``toy_step`` seconds up to the bench clock; goals, gains and torque enables act from the step
after they are written, as on a servo that reads its registers once per control period. Its
actuator, ``toyservo``, is a user-described voltage-law servo (``toyservo.json`` beside this
module, written by the test), its model of record ``toyservo_m1.json``, so the actuator and params
libraries are not touched either.

Two backends: ``toybus`` (the bus paced by the wall clock times ``time_scale``, like hardware) and
``toybus_emulator`` (the same bus; ``time_scale`` None: lockstep, the servos step only when the
control loop sleeps; it changes its load with ``set_load``). No stand-alone ``emulate``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Tuple

from actuator_models.bench import Backend, BenchParams, Command, JointSample, WallClock, option
from actuator_models.family import Family
from actuator_models.model import load_model
from actuator_models.simulation import Pendulum, PendulumSimulator

HERE = Path(__file__).parent
ACTUATOR = "toyservo"
TEMPERATURE = 25.0  # degC, what the toy servos report


@dataclass(frozen=True)
class ToyBusSettings:
    """The toy bus's own bench setting: the physics step of its servos [s]."""

    toy_step: float = field(default=0.005, metadata=option("Toy bus: physics step of its servos [s]"))


class LoopClock:
    """Bench time [s] that moves only when the control loop sleeps; the bus steps up to it."""

    def __init__(self, bus: "ToyBus") -> None:
        self.bus, self.t = bus, 0.0

    def now(self) -> float:
        return self.t

    def sleep_until(self, t: float) -> None:
        if t > self.t:
            self.t = t
            self.bus.advance(t)


class ToyBus:
    """The servos of one toy bus, addressed by joint name (a :class:`actuator_models.bench.Bench`)."""

    def __init__(self, params: BenchParams, lockstep: bool) -> None:
        self.joints: Tuple[str, ...] = params.joints
        self.step = params.settings_as(ToyBusSettings).toy_step
        self.command_timeout = params.command_timeout
        pendulum = Pendulum(params.mass, params.length, params.arm_mass)
        self.sims: List[PendulumSimulator] = [PendulumSimulator(load_model(m), pendulum, vin=v or None)
                                              for m, v in zip(params.models, params.vin)]
        n = len(self.joints)
        self.goal, self.enable, self.kp = [0.0] * n, [False] * n, list(params.kp)
        self.steps, self.last_command = 0, 0.0
        self.clock = LoopClock(self) if lockstep else WallClock(params.time_scale or 1.0)

    def advance(self, t: float) -> None:
        """Step every servo up to bench time ``t`` [s]; the watchdog releases them when no
        command came for the command timeout."""
        target = math.floor(t / self.step + 1e-9)
        while self.steps < target:
            if self.steps * self.step - self.last_command > self.command_timeout:
                self.enable = [False] * len(self.enable)
            for i, sim in enumerate(self.sims):
                sim.step(self.goal[i], self.enable[i], self.kp[i], self.step)
            self.steps += 1

    def apply(self, command: Command) -> None:
        unknown = [j for j in command.name if j not in self.joints]
        if unknown:
            raise ValueError(f"command for unknown joint(s) {unknown}; this bench has {list(self.joints)}")
        self.advance(self.clock.now())
        for k, name in enumerate(command.name):
            i = self.joints.index(name)
            self.goal[i] = command.goal_position[k]
            if command.torque_enable:
                self.enable[i] = command.torque_enable[k]
            if command.kp:
                self.kp[i] = command.kp[k]
        self.last_command = self.clock.now()

    def sample(self) -> JointSample:
        now = self.clock.now()
        self.advance(now)
        s = self.sims
        torque = [float(x.model.actuator.torque(x.control, e, x.v, x.model.values, x.vin)) for x, e in zip(s, self.enable)]
        return JointSample(now, self.joints, tuple(x.q for x in s), tuple(x.v for x in s), tuple(torque),
                           tuple(x.control for x in s), tuple(x.vin for x in s), (TEMPERATURE,) * len(s),
                           tuple(self.enable), (0,) * len(s))

    def release(self) -> None:
        self.enable = [False] * len(self.enable)

    def close(self) -> None:
        self.release()

    def set_load(self, mass: float, length: float, arm_mass: float = 0.0) -> None:
        """A new pendulum on every servo (the user changing the load), the state kept."""
        pendulum = Pendulum(mass, length, arm_mass)
        self.sims = [PendulumSimulator(x.model, pendulum, vin=x.vin, q=x.q, v=x.v) for x in self.sims]


BUS = Backend("toybus", "toy servos on an in-process simulated bus, paced by the wall clock",
              lambda params: ToyBus(params, lockstep=False), settings=ToyBusSettings)
EMULATED = Backend("toybus_emulator", "toy servos on an in-process simulated bus (time_scale None: lockstep)",
                   lambda params: ToyBus(params, lockstep=params.time_scale is None), settings=ToyBusSettings)

#: the family's one entry point: ``toy = toy_family:FAMILY`` in group ``actuator_bench.families``
FAMILY = Family(
    "toy", "Toy bus", (ACTUATOR,),
    backends={"toybus": "toy_family:BUS", "toybus_emulator": "toy_family:EMULATED"},
    real="toybus", emulated="toybus_emulator",
    descriptions={ACTUATOR: str(HERE / "toyservo.json")},
    grids={ACTUATOR: ((0.3, 0.6), (0.1,), (16, 32))},
    models={ACTUATOR: str(HERE / "toyservo_m1.json")},
    demo={"reference": str(HERE / "toyservo_m1.json"), "actuator": ACTUATOR, "grid": ((0.3, 0.6), (0.1,), (16, 32)),
          "arm": "mx", "partner": ACTUATOR, "fitted_joint": 1, "trials": 600,
          "quick": {"trials": 300, "paths": ("circle",)}},
)
