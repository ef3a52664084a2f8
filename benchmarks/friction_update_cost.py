"""Cost of updating the friction model every step in MuJoCo: steps/s with and without updates.

For the pendulum bench and the MX 2R arm, in one run:

* ``mujoco``: ``mj_step`` alone (constant motor torque), the engine's own cost;
* ``servo, fixed friction``: the servo control law every step, frictionloss/damping set once
  (the same model without per-step updates, a Coulomb-viscous approximation);
* ``servo + friction update``: the control law and the friction budget (M6) every step.

Prints steps/s per variant and the ratio (with updates / without updates).
Usage: ``python benchmarks/friction_update_cost.py [--steps N]``.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable, Dict

import mujoco
import numpy as np

from actuator_models import load_model
from actuator_sim.arm import arm, arm_simulation
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.pendulum import PendulumBench, pendulum_mjcf


def rate(run: Callable[[int], None], steps: int) -> float:
    """Steps per second of ``run(steps)`` (best of 3)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run(steps)
        best = min(best, time.perf_counter() - start)
    return steps / best


def driven(sim: JointSimulation) -> Callable[[int], None]:
    """Run a simulation with a sinusoidal goal, one command per step."""
    amplitude = np.full(len(sim.servos), 0.8)

    def run(steps: int) -> None:
        for k in range(steps):
            sim.set_goal(amplitude * np.sin(k * sim.timestep * 2.0))
            sim.step()

    return run


def raw(sim: JointSimulation) -> Callable[[int], None]:
    """``mj_step`` alone on the same model."""
    model, data = sim.model, sim.data
    data.ctrl[:] = 0.1

    def run(steps: int) -> None:
        for _ in range(steps):
            mujoco.mj_step(model, data)

    return run


def benchmark(name: str, build: Callable[[bool], JointSimulation], steps: int) -> Dict[str, float]:
    rates = {
        "mujoco": rate(raw(build(True)), steps),
        "servo, fixed friction": rate(driven(build(False)), steps),
        "servo + friction update": rate(driven(build(True)), steps),
    }
    for variant, value in rates.items():
        print(f"{name:<10} {variant:<26} {value:>12,.0f} steps/s")
    ratio = rates["servo + friction update"] / rates["servo, fixed friction"]
    print(f"{name:<10} {'ratio update / fixed':<26} {ratio:>12.2f}")
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000, help="steps per measurement (default 5000)")
    args = parser.parse_args()
    print(f"MuJoCo {mujoco.__version__}, {args.steps} steps per measurement, best of 3")
    pendulum_xml = pendulum_mjcf(PendulumBench(1.0, 0.15))
    model = load_model("mx64/m6")
    benchmark("pendulum",
              lambda update: JointSimulation.from_xml(pendulum_xml, [Servo("pendulum", model, 8.0)],
                                                      update_friction=update), args.steps)
    a = arm("mx")
    shoulder, elbow = load_model("mx106/m6"), load_model("mx64/m6")
    benchmark("2R arm", lambda update: arm_simulation(a, shoulder, elbow, 4.0, update_friction=update), args.steps)


if __name__ == "__main__":
    main()
