"""The compiled rollout kernel against the numpy rollout (the oracle) and the published figures."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from actuator_models import kernel
from actuator_models.actuators import ARMATURE, KT, Q_OFFSET, R, CurrentControlled
from actuator_models.friction import FRICTION_MODELS
from actuator_models.logs import read_logs
from actuator_models.model import Model, load_model
from actuator_models.objective import Objective

sys.path.insert(0, str(Path(__file__).parent))
from kernel_oracle import ADDITION_SETS, LAWS, short_logs  # noqa: E402

@pytest.fixture(scope="module")
def oracle(xl330_processed):
    """Every combination compared in one process whose numpy uses its baseline (libm) loops."""
    found = np.show_config(mode="dicts")["SIMD Extensions"]["found"]
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(found)}
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("kernel_oracle.py")), str(xl330_processed)],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("integrator", ["bam", "semi-implicit"])
@pytest.mark.parametrize("friction", sorted(FRICTION_MODELS))
@pytest.mark.parametrize("law", sorted(LAWS))
def test_kernel_matches_numpy_rollout(oracle, law, friction, integrator):
    positions, maes = oracle[f"{law}|{friction}|{integrator}"]
    assert positions <= 1e-12 and maes <= 1e-12


@pytest.mark.parametrize("additions", ["+".join(a) for a in ADDITION_SETS])
@pytest.mark.parametrize("integrator", ["bam", "semi-implicit"])
@pytest.mark.parametrize("law", sorted(LAWS))
def test_kernel_matches_numpy_rollout_with_additions(oracle, law, integrator, additions):
    """Latency, backlash, heating and release (random values within their bounds) run the same arithmetic."""
    positions, maes = oracle[f"{law}|m6|{integrator}|{additions}"]
    assert positions <= 1e-12 and maes <= 1e-12


def test_kernel_reproduces_published_mae(xl330_processed, reference_mae_file):
    reference = json.loads(reference_mae_file.read_text())["models"]
    logs = read_logs(xl330_processed)
    for name, per_file in reference.items():
        model = load_model(f"xl330/{name}")
        objective = Objective(model, logs)
        assert objective.compiled
        got = objective.of_model(model)
        expected = [per_file[log.source.split("/")[-1]] for log in logs]
        assert np.max(np.abs(got - expected)) < 1e-12, name


def test_unsupported_models_fall_back_to_numpy(xl330_processed):
    logs = short_logs(xl330_processed)
    class Custom(CurrentControlled):  # a user-defined law: not the kernel's exact class
        pass

    custom = Custom("custom", "custom", (KT, R, ARMATURE, Q_OFFSET), max_current=3.0)
    model = Model(custom, FRICTION_MODELS["m2"], {}, "bam")
    assert not kernel.supports(custom, model.friction)
    objective = Objective(model, logs)
    assert not objective.compiled
    same = Objective(Model(LAWS["current"], FRICTION_MODELS["m2"], {}, "bam"), logs)
    assert same.compiled
    np.testing.assert_allclose(objective.of_model(model), same.of_model(model), rtol=0, atol=1e-12)


def test_a_fresh_process_runs_the_built_kernel_without_numba(tmp_path, xl330_processed, reference_mae_file):
    """A fresh process loads the C kernel built at install (no compiler, no JIT, no numba: the
    ~0.8 s numba took to import and load its cached code at every command is gone) and computes
    the published figures with it."""
    code = (
        "import json, sys; import numpy as np\n"
        "from actuator_models.logs import read_logs; from actuator_models.model import load_model\n"
        "from actuator_models.objective import Objective; from actuator_models import kernel\n"
        f"logs = read_logs({str(xl330_processed)!r}); m = load_model('xl330/m6')\n"
        f"ref = json.load(open({str(reference_mae_file)!r}))['models']['m6']\n"
        "objective = Objective(m, logs); assert objective.compiled\n"
        "got = objective.of_model(m)\n"
        "print(json.dumps([max(abs(g - ref[l.source.split('/')[-1]]) for g, l in zip(got, logs)),\n"
        "                  'numba' in sys.modules, kernel.compiled.cache_info().currsize]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    difference, numba_loaded, loaded = json.loads(done.stdout)
    assert difference < 1e-12
    assert not numba_loaded
    assert loaded == 1  # the compiled kernel ran, not the numpy step


def test_a_kernel_not_built_is_one_error_saying_how_to_build_it(monkeypatch):
    """A source tree run without its install has no ``_servo_kernel``: the fit stops with one line
    saying how to build it. (The missing file is simulated at the import system's lookup: deleting
    the real one would pull it from under the other test workers sharing this tree.)"""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name.endswith("._servo_kernel") else real(name, *a))
    kernel.compiled.cache_clear()
    try:
        with pytest.raises(kernel.KernelError, match=r"not built: reinstall actuator_models .*make install; needs gcc"):
            kernel.compiled()
    finally:
        monkeypatch.undo()
        kernel.compiled.cache_clear()
    assert kernel.compiled() is not None
