"""Kernel vs numpy rollout on every control law x M1-M6 x integrator; run as a script it prints
the largest differences as JSON (tests/test_kernel.py runs it with numpy's SIMD kernels off).

numpy's own AVX-512 exp and pow differ from libm's (which the compiled kernel calls) in the last
bit of about 5 % of values; the comparison is of the simulation's arithmetic, so it runs with
numpy dispatching to its baseline (libm) loops: ``NPY_DISABLE_CPU_FEATURES``.
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from actuator_models import kernel
from actuator_models.actuators import ACTUATORS, ARMATURE, KT, Q_OFFSET, R, CurrentControlled
from actuator_models.friction import FRICTION_MODELS
from actuator_models.logs import read_logs
from actuator_models.model import Model
from actuator_models.simulation import LogBatch, mean_absolute_errors, rollout

#: One actuator per control law (the generic current law has no registry entry: made here).
LAWS = {
    "voltage (xl330)": ACTUATORS["xl330"],
    "voltage (mx64)": ACTUATORS["mx64"],
    "current PD (erob80_50)": ACTUATORS["erob80_50"],
    "current": CurrentControlled("generic", "generic current servo", (KT, R, ARMATURE, Q_OFFSET), max_current=3.0),
}


def short_logs(xl330_processed):
    """Four real logs cut to different lengths (the batch pads the shorter ones), each with its
    torque released for 40 steps from step 120 (so every law's torque-off step, and ``release``,
    is compared: the logs' own release comes after these cuts)."""
    logs = read_logs(xl330_processed)[::3]
    cut = [replace(log, **{f: getattr(log, f)[:n] for f in ("timestamp", "position", "speed", "goal_position", "torque_enable")},
                   extra={k: v[:n] for k, v in log.extra.items()})
           for log, n in zip(logs, (400, 250, 320, 180))]
    for log in cut:
        log.torque_enable[120:160] = False
    return cut


def stable_sets(model, batch, rng, count):
    """``count`` random parameter sets within the bounds for which the explicit step is stable:
    the back-EMF damping ``kt^2 / R`` [N m s/rad] times ``dt / J`` below 1 (above 2 the step
    diverges, and a simulation that blows up amplifies the last-bit differences between numpy's
    SIMD exp/pow and libm's, which the kernel uses, to any size)."""
    sets = []
    damping = getattr(model.actuator, "damping", 0.0) * np.sqrt(np.max(batch.kp))  # CurrentPD's D term [A s/rad]
    while len(sets) < count:
        values = {p.name: rng.uniform(p.lower, p.upper) for p in model.parameters}
        inertia = np.min(batch.bench.inertia(values["armature"]))
        emf = values["kt"] ** 2 / values["R"] + damping * values["kt"]
        if emf * np.max(batch.dt) / inertia < 1:
            sets.append(values)
    return {name: np.array([s[name] for s in sets]) for name in sets[0]}


#: Addition sets compared on every control law (with M6 and each integrator).
ADDITION_SETS = (("latency",), ("backlash",), ("heating",), ("release",), ("latency", "backlash", "heating", "release"))


def compare(short_logs, law, friction, integrator, additions=()):
    """(largest position difference [rad], largest MAE difference [rad]) of one combination."""
    actuator = LAWS[law]
    model = Model(actuator, FRICTION_MODELS[friction], {}, integrator, additions)
    if law.startswith("current"):  # an eRob-sized bench (5 kg at 0.3 m) and gains in A/rad
        short_logs = [replace(log, mass=5.0, length=0.3, kp=log.kp / 100) for log in short_logs]
    batch = LogBatch.from_logs(short_logs, actuator.default_vin)
    values = stable_sets(model, batch, np.random.default_rng(7), 3)
    expected = rollout(actuator, model.friction, values, batch, integrator)
    maes, positions = kernel.run(actuator, model.friction, values, batch, integrator, positions=True)
    assert positions.shape == expected.shape == (3, 4, 400)
    only_maes = kernel.run(actuator, model.friction, values, batch, integrator)[0]  # stops at each log's end
    return (float(np.max(np.abs(positions - expected))),
            float(max(np.max(np.abs(maes - mean_absolute_errors(expected, batch))), np.max(np.abs(only_maes - maes)))))


if __name__ == "__main__":
    logs = short_logs(Path(sys.argv[1]))
    found = {f"{law}|{f}|{i}": compare(logs, law, f, i) for law in LAWS for f in FRICTION_MODELS
             for i in ("bam", "semi-implicit")}
    found.update({f"{law}|m6|{i}|{'+'.join(a)}": compare(logs, law, "m6", i, a) for law in LAWS
                  for i in ("bam", "semi-implicit") for a in ADDITION_SETS})
    print(json.dumps(found))


