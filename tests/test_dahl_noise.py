"""Dahl identification under measurement noise (issue 35, point 6), on records from an
independent integration of the ODE (scipy DOP853, tests/dahl_reference.py): the reference
values are the simulated experiment's known Fc and rho, not the project's output.

Before: 1 % noise on x was refused in 3 of 20 seeds and 5 % in 20 of 20 ("x is not
wave-periodic"); 5 % noise on F put eqs. 39-41 up to 56 % off and the command recommended the
least-squares rho whatever its spread; rho = 1e6 came back as 830914 with exit 0."""

import json

import numpy as np
import pytest

from actuator_models.cli import main
from actuator_models.dahl_cli import write_record
from actuator_models.dahl_experiments import PaperExperiments
from actuator_models.dahl_identification import DahlDataError, Record, identify
from dahl_reference import cosine_record, ramp_record

FC, RHO, AMPLITUDE = 1.0, 1.0, 1.0


@pytest.fixture(scope="module")
def clean():
    """The paper's experiments (section 3): x = t for 30 s, x = -cos t for 6 periods, 100 Hz."""
    return ramp_record(1.0, FC, RHO, 30.0), cosine_record(AMPLITUDE, 1.0, FC, RHO, periods=6)


@pytest.mark.parametrize("level", [0.01, 0.05])
def test_noise_on_displacement_and_force_is_tolerated(clean, level):
    """Acceptance: white noise of ``level`` times the amplitude on x and of ``level`` Fc on F,
    20 seeds: never refused, Fc within 2 %, the recommended rho within 10 %, and within its
    reported uncertainty's reach (4 sd plus 2 %)."""
    (t1, x1, f1), (t2, x2, f2) = clean
    for seed in range(20):
        rng = np.random.default_rng(seed)
        noisy = [rng.normal(0.0, level * scale, n) for scale, n in
                 ((AMPLITUDE, t1.size), (FC, t1.size), (AMPLITUDE, t2.size), (FC, t2.size))]
        ramp = Record(t1, x1 + noisy[0], f1 + noisy[1], "ramp")
        wave = Record(t2, x2 + noisy[2], f2 + noisy[3], "wave")
        result = identify(ramp, wave)
        h = result.hysteresis
        assert result.fc == pytest.approx(FC, rel=0.02), seed
        assert result.rho == pytest.approx(RHO, rel=0.10), (seed, h.method)
        sd = h.uncertainty[h.method]
        assert np.isfinite(sd) and abs(result.rho - RHO) <= 4.0 * sd + 0.02 * RHO, (seed, sd)
        assert h.x_noise == pytest.approx(level * AMPLITUDE, rel=0.2)
        # the recommended estimate has the smallest finite uncertainty of those offered
        assert all(sd <= u for u in h.uncertainty.values() if np.isfinite(u)) or h.method == "rho_fit"


def test_an_unresolvable_rho_is_refused(tmp_path, capsys):
    """rho = 1e6 at 100 Hz: the force reaches Fc within 3e-6 rad of the reversal, less than one
    sample (x moves 5e-5 rad in the first sample after the minimum of -cos t; the force here is
    the project's exact Dahl update, the refusal needs no reference value), so the record only
    bounds rho from below; the command says so and exits 2 instead of printing a number."""
    experiments = PaperExperiments(rho=1e6, ramp_time=1.0, periods=4)  # exact update (a stiff ODE for scipy)
    ramp, wave = experiments.constant_velocity(), experiments.periodic()
    a, b = tmp_path / "A.csv", tmp_path / "B.csv"
    write_record(a, *ramp)
    write_record(b, *wave)
    with pytest.raises(DahlDataError, match="rho is not resolved"):
        identify(Record(*ramp), Record(*wave))
    assert main(["dahl", "identify", "--constant-velocity", str(a), "--periodic", str(b)]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and "B.csv: rho is not resolved" in err and "Traceback" not in err


def test_command_reports_each_uncertainty(tmp_path, clean, capsys):
    """The JSON names the recommended method and carries an uncertainty per estimate."""
    (t1, x1, f1), (t2, x2, f2) = clean
    rng = np.random.default_rng(7)
    paths = []
    for name, (t, x, f) in (("A.csv", (t1, x1, f1)), ("B.csv", (t2, x2, f2))):
        f = f + rng.normal(0.0, 0.05 * FC, t.size)
        path = tmp_path / name
        path.write_text("t,x,F\n" + "\n".join(f"{p:.12g},{q:.12g},{r:.12g}" for p, q, r in zip(t, x, f)) + "\n")
        paths.append(str(path))
    assert main(["dahl", "identify", "--constant-velocity", paths[0], "--periodic", paths[1], "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["rho_method"] in summary["uncertainty"]
    assert summary["rho"] == summary[summary["rho_method"]]
    assert summary["rho"] == pytest.approx(RHO, rel=0.10)
    best = summary["uncertainty"][summary["rho_method"]]
    assert all(best <= u for u in summary["uncertainty"].values() if u is not None)
