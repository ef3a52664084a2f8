"""The no-ROS demo: the whole pipeline in one process, no hardware.

1. an emulated Dynamixel (the protocol emulator on a pseudo-terminal) whose shaft is a
   reference model, driven by the real dynamixel-sdk driver;
2. the four identification trajectories recorded over a small configuration grid;
3. the raw logs processed at 5 ms;
4. M1-M6 identified (CMA-ES), with a validation report;
5. figures: MAE bars, measured vs simulated trajectory, drive/backdrive diagrams, and a MuJoCo
   2R arm driven by the fitted models against a "real" arm driven by the reference models.

Everything is written under the output folder; progress goes to stderr.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from actuator_drivers.emulated import emulated_dynamixel
from actuator_drivers.record_grid import Grid, record_all
from actuator_drivers.recording import Recording
from actuator_models.identification import Objective
from actuator_models.logs import Log, read_log, read_logs, resample, write_log
from actuator_models.recording_quality import RecordingQuality
from actuator_models.model import Model, load_model
from actuator_models.report import ModelReport, fit_models
from actuator_models.splits import split_logs
from actuator_models.simulation import simulate_logs


@dataclass(frozen=True)
class DemoSettings:
    """What the demo records and how hard it searches.

    Attributes:
        reference: the emulated servo's true model. actuator: its actuator name.
        grid: configurations to record. time_scale: emulator speed-up over real time; None
            (default): lockstep with the driver, so the recordings and the numbers are the same
            on any machine.
        trials: CMA-ES trials per friction model (early stop on convergence).
        paths: 2R end-effector paths compared in MuJoCo (low gain); empty = all of them.
    """

    reference: str = "mx64/m6"
    actuator: str = "mx64"
    grid: Grid = Grid((0.5, 1.0, 1.5), (0.1, 0.2), (8, 32))
    time_scale: Optional[float] = None
    trials: int = 6000
    paths: Sequence[str] = ()


FULL = DemoSettings()
QUICK = replace(FULL, grid=Grid((0.5, 1.5), (0.15,), (8, 32)), trials=1500, paths=("circle",))


def say(text: str) -> None:
    print(f"[demo] {text}", file=sys.stderr, flush=True)


def record_logs(settings: DemoSettings, raw_dir: Path) -> List[Path]:
    """Record the grid through the real driver against the emulator; returns the raw log paths."""
    count = len(settings.grid)
    done: List[Path] = []

    def finished(recording: Recording) -> None:
        done.append(recording.path)
        say(f"recorded {len(done)}/{count}: {recording.path.name} ({recording.cycles} cycles: {recording.quality.summary()})")

    first_mass, first_length = settings.grid.groups()[0]
    with emulated_dynamixel(settings.actuator, settings.reference, first_mass, first_length,
                            protocol=1, time_scale=settings.time_scale) as (emulator, driver):
        def change_bench(mass: float, length: float) -> bool:
            emulator.set_bench(mass, length, 0.0)
            return True

        record_all(driver, settings.grid, settings.actuator, raw_dir, change_bench,
                   on_recording=finished, prepare_time=1.0, return_time=1.0)
    return done


def process(raw: Sequence[Path], out_dir: Path, dt: float = 0.005) -> List[Log]:
    """Resample raw logs at ``dt`` [s] into ``out_dir``."""
    from actuator_models.logs import read_log

    logs = []
    for path in raw:
        log = resample(read_log(path), dt)
        write_log(log, out_dir / path.name)
        logs.append(replace(log, source=str(out_dir / path.name)))
    return logs


def true_validation_mae(reference: Model, logs: Sequence[Log]) -> float:
    """The reference model's own validation MAE (its recording noise floor) [rad]."""
    _, validation = split_logs(logs)
    values = {k: np.array([v]) for k, v in reference.values.items()}
    return float(Objective(reference, validation)(values)[0])


def figures(reports: Dict[str, ModelReport], logs: Sequence[Log], settings: DemoSettings, out: Path) -> List[Path]:
    """Trajectory, drive/backdrive and 2R figures (the MAE bars are in the report)."""
    from actuator_sim.drive_backdrive import drive_backdrive, stall_torque
    from actuator_sim.experiment import compare_arm
    from actuator_sim.arm import ARMS
    from actuator_sim.paths import PATHS
    from actuator_sim.plots import plot_drive_backdrive, plot_mae_bars, plot_trajectory

    written = []
    best = min(reports, key=lambda m: reports[m].result.validation_mae)
    _, validation = split_logs(logs)
    shown = next((log for log in validation if log.trajectory == "lift_and_drop"), validation[0])
    simulated = {
        name.upper(): simulate_logs(reports[name].result.model, [shown])[0][: len(shown)] for name in ("m1", best)
    }
    written.append(plot_trajectory(shown.timestamp, shown.position, simulated, out / "trajectory.png",
                                   goal=shown.goal_position, title=f"{Path(shown.source).name} (validation)"))
    fitted = {name.upper(): r.result.model for name, r in reports.items() if name in ("m1", "m3", best)}
    torque = 0.8 * stall_torque(next(iter(fitted.values())))
    panels = {name: drive_backdrive(model, torque) for name, model in fitted.items()}
    written.append(plot_drive_backdrive(panels, out / "drive_backdrive.png", title="fitted models"))

    paths = tuple(settings.paths) or tuple(PATHS)
    say(f"MuJoCo 2R arm: {len(paths)} path(s), 'real' arm = mx106/m6 + {settings.reference}")
    arm = ARMS["mx"]
    real = (load_model("mx106/m6"), load_model(settings.reference))
    candidates = {
        "M1": (load_model("mx106/m1"), reports["m1"].result.model),
        best.upper(): (load_model(f"mx106/{best}"), reports[best].result.model),
    }
    table = compare_arm(arm, real, candidates, paths)
    (out / "arm_2r.json").write_text(json.dumps(table, indent=2) + "\n")
    written.append(plot_mae_bars(table, out / "arm_2r.png", title="2R arm, low gain: joint MAE vs the 'real' arm"))
    for group, row in table.items():
        say(f"2R {group}: " + ", ".join(f"{k} {v:.4f} rad" for k, v in row.items()))
    return written


def run_demo(out: Path, quick: bool = False) -> int:
    """Run the demo into ``out``; returns an exit status."""
    settings = QUICK if quick else FULL
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    say(f"{'quick' if quick else 'full'} demo into {out}: emulated {settings.actuator} with model "
        f"{settings.reference}, {len(settings.grid)} recordings "
        f"{'in lockstep' if settings.time_scale is None else f'at {settings.time_scale:g}x real time'}")
    raw = record_logs(settings, out / "logs" / "raw")
    logs = process(raw, out / "logs" / "processed")
    say(f"processed {len(logs)} logs at 5 ms ({time.perf_counter() - start:.0f} s so far); identifying M1-M6")
    reports = fit_models(logs, settings.actuator, out_dir=out / "params", trials=settings.trials, seed=0)
    reference = load_model(settings.reference)
    floor = true_validation_mae(reference, logs)
    say("drawing figures")
    plots = figures(reports, logs, settings, out / "plots")
    content = json.loads((out / "params" / "report" / "report.json").read_text())
    print()
    print(f"Validation MAE [rad] on {len(content['validation_logs'])} held-out logs "
          f"({len(content['train_logs'])} used for fitting):")
    print(f"  {'model':<8}{'train':>10}{'validation':>12}")
    for name, row in content["models"].items():
        print(f"  {name.upper():<8}{row['train_mae']:>10.4f}{row['validation_mae']:>12.4f}")
    print(f"  {'true':<8}{'':>10}{floor:>12.4f}   (the emulator's own model: the recording noise floor)")
    best = content["best_model"]
    print(f"best model: {best.upper()}, {content['improvement_over_m1']:.2f}x lower validation MAE than M1")
    quality = [RecordingQuality.from_dict(read_log(path).recording) for path in raw]
    print(f"recordings: {len(quality)}, {min(q.achieved_rate for q in quality):.0f}-{max(q.achieved_rate for q in quality):.0f} Hz "
          f"achieved ({quality[0].requested_rate:.0f} Hz asked), {sum(q.gaps for q in quality)} gaps > "
          f"{2000 / quality[0].requested_rate:.0f} ms (longest {1000 * max(q.longest_gap for q in quality):.1f} ms), "
          f"{sum(q.retries for q in quality)} retries, {sum(q.comm_errors for q in quality)} comm errors")
    print(f"report: {out / 'params' / 'report' / 'report.md'}")
    print("plots: " + ", ".join(str(p) for p in [out / "params" / "report" / "mae.png", *plots]))
    print(f"done in {time.perf_counter() - start:.0f} s")
    return 0
