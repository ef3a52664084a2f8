"""The compiled kernel's OpenMP threads sleep when idle unless the environment says otherwise
(kernel.compiled sets OMP_WAIT_POLICY before numba starts libgomp), and the policy changes no
number. Each case runs in a fresh interpreter: libgomp reads the variable once, when loaded."""

import json
import os
import subprocess
import sys
from typing import Optional

import pytest

SCRIPT = """
import json, os, numpy as np
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.objective import Objective
logs = read_logs({folder!r})[:2]
model = new_model("xl330", "m6", "bam", ("thermal",))
costs = Objective(model, logs)({{k: np.full(4, v) * np.linspace(0.9, 1.1, 4) for k, v in model.values.items()}})
import numba
loaded = "libgomp" in open("/proc/self/maps").read()
print(json.dumps({{"policy": os.environ.get("OMP_WAIT_POLICY"), "gomp": loaded, "layer": numba.threading_layer(),
                  "costs": costs.tolist()}}))
"""


def run(folder: str, policy: Optional[str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(folder=folder)], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_idle_threads_sleep_unless_told_otherwise(xl330_processed) -> None:
    default = run(str(xl330_processed), None)
    told = run(str(xl330_processed), "ACTIVE")
    if default["layer"] == "omp":  # numba's OpenMP layer (GNU libgomp) ran the loop: the setting applies
        assert default["gomp"] and told["gomp"]
    assert default["policy"] == "PASSIVE"
    assert told["policy"] == "ACTIVE"
    assert default["costs"] == told["costs"]  # bit for bit (JSON floats round-trip exactly)
    assert len(set(default["costs"])) == 4
