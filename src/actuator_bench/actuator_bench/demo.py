"""The no-ROS demo: the whole pipeline in one process, no hardware.

1. an emulated servo (its family's emulated backend: the protocol emulator on a pseudo-terminal,
   the EtherCAT emulator on a veth pair, ...) whose shaft is a reference model, driven by the
   real driver over its vendor SDK (the family of ``--actuator`` and its demo are found by
   registry, the bench is opened through the backend registry);
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
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union


from actuator_models.actuators import actuator
from actuator_models.bench import BenchParams, set_load
from actuator_models.family import family_of
from actuator_models.fit_cli import ProgressPrinter
from actuator_models.fit_data import FitSettings
from actuator_models.fit_outputs import FitOutputs
from actuator_models.fit_spec import ALL_MODELS, FitSpec
from actuator_models.fitting import ModelReport, fit
from actuator_models.objective import Objective
from actuator_models.logs import PROCESSED_DT, Log, read_log, write_log
from actuator_models.resampling import resample
from actuator_models.recording_quality import RecordingQuality
from actuator_models.model import Model, load_model
from actuator_models.splits import Dataset
from actuator_models.simulation import simulate_logs

from . import demo_titles
from .backends import installed_backends
from .demo_settings import DemoSettings, demo_settings
from .record_grid import record_all
from .recording import Recording, RecordSettings


def say(text: str) -> None:
    print(f"[demo] {text}", file=sys.stderr, flush=True)


def record_logs(settings: DemoSettings, raw_dir: Path) -> List[Path]:
    """Record the grid through the real driver against the emulator; returns the raw log paths."""
    count = len(settings.grid)
    done: List[Path] = []

    def finished(recording: Recording) -> None:
        assert recording.path is not None  # recorded with a log folder: written
        done.append(recording.path)
        say(f"recorded {len(done)}/{count}: {recording.path.name} ({recording.cycles} cycles: {recording.quality.summary()})")

    first_mass, first_length = settings.grid.groups()[0]
    registry = installed_backends()
    backend = registry[family_of(settings.actuator).backend(emulated=True)]
    params = BenchParams(joints=("joint1",), actuators=(settings.actuator,), models=(settings.reference,),
                         mass=first_mass, length=first_length, time_scale=settings.time_scale,
                         settings=backend.settings_from(settings.settings))
    bench = registry.open(backend.name, params)

    def change_load(mass: float, length: float) -> bool:
        set_load(bench, mass, length)
        return True

    try:
        record_all(bench, settings.grid, settings.actuator, raw_dir, change_load,
                   on_recording=finished, settings=RecordSettings(prepare_time=1.0, return_time=1.0))
    finally:  # the driver releases the torque, then the emulator stops (also after Ctrl-C) and is read back
        bench.close()
        state = getattr(bench, "emulated_state", lambda: None)()
        if state:
            say(state)
    return done


def process(raw: Sequence[Path], out_dir: Path, dt: float = PROCESSED_DT) -> List[Log]:
    """Resample raw logs at ``dt`` [s] into ``out_dir`` (the recorder's logs say their commands
    were held: :func:`~actuator_models.resampling.resample` holds them)."""
    from actuator_models.logs import read_log

    logs = []
    for path in raw:
        log = resample(read_log(path), dt)
        write_log(log, out_dir / path.name)
        logs.append(replace(log, source=str(out_dir / path.name)))
    return logs


def true_validation_mae(reference: Model, data: Union[Dataset, Sequence[Log]]) -> float:
    """The reference model's own MAE on the validation logs of a dataset (of the default split
    of logs) [rad]: the recording noise floor."""
    validation = (data if isinstance(data, Dataset) else Dataset.split(data, seed=0)).validation
    return float(Objective(reference, validation).of_model(reference).mean())


def _validation_mae(report: ModelReport) -> float:
    """A fit's MAE on its validation logs [rad]."""
    mae = report.result.validation_mae
    assert mae is not None  # the demo's fits hold out validation logs (its grid records more than it trains on)
    return mae


def figures(reports: Dict[str, ModelReport], logs: Sequence[Log], settings: DemoSettings, out: Path) -> List[Path]:
    """Trajectory, drive/backdrive and 2R figures (the MAE bars are in the report)."""
    from actuator_sim.drive_backdrive import drive_backdrive, stall_torque
    from actuator_sim.experiment import compare_arm
    from actuator_sim.arm import ARMS
    from actuator_sim.paths import PATHS
    from actuator_models.plots import plot_drive_backdrive, plot_mae_bars, plot_trajectory

    written = []
    best = min(reports, key=lambda m: _validation_mae(reports[m]))
    title = actuator(settings.actuator).title
    truth = f"emulated {title}, true model {settings.reference}"
    dataset = next(iter(reports.values())).result.dataset
    assert dataset is not None  # a fit run here keeps its dataset (only a result read back has none)
    validation = dataset.validation  # the fit's own split
    shown = next((log for log in validation if log.trajectory == "lift_and_drop"), validation[0])
    fitted_label = {name: f"fitted {name.upper()} (params/{name}.json)" for name in reports}
    simulated = {
        fitted_label[name]: simulate_logs(reports[name].result.model, [shown])[0][: len(shown)] for name in ("m1", best)
    }
    written.append(plot_trajectory(
        shown.timestamp, shown.position, simulated, out / "trajectory.png", goal=shown.goal_position,
        title=demo_titles.trajectory(title, settings.reference, shown)))
    fitted = {fitted_label[name]: r.result.model for name, r in reports.items() if name in ("m1", "m3", best)}
    torque = 0.8 * stall_torque(next(iter(fitted.values())))
    panels = {name: drive_backdrive(model, torque) for name, model in fitted.items()}
    written.append(plot_drive_backdrive(
        panels, out / "drive_backdrive.png",
        title=f"Drive/backdrive limits of the {title}: models fitted on the demo's recordings ({truth})"))

    paths = tuple(settings.paths) or tuple(PATHS)
    partner = settings.partner

    def joints(other, emulated):  # (shoulder, elbow)
        return (emulated, other) if settings.fitted_joint == 0 else (other, emulated)

    same = partner == settings.actuator  # an arm of one servo type: both joints are the emulated servo
    real_names = joints(settings.reference if same else f"{partner}/m6", settings.reference)
    say(f"MuJoCo 2R arm: {len(paths)} path(s), 'real' arm = {real_names[0]} + {real_names[1]}")
    arm = ARMS[settings.arm]
    real = (load_model(real_names[0]), load_model(real_names[1]))

    def other(name: str):  # the other joint's model in a candidate arm
        return reports[name].result.model if same else load_model(f"{partner}/{name}")

    mate = "fitted" if same else partner + "/"
    candidates = {
        f"M1 ({mate}{' ' if same else ''}m1 + fitted m1)": joints(other("m1"), reports["m1"].result.model),
        f"{best.upper()} ({mate}{' ' if same else ''}{best} + fitted {best})": joints(other(best), reports[best].result.model),
    }
    table = compare_arm(arm, real, candidates, paths)
    (out / "arm_2r.json").write_text(json.dumps({"real": list(real_names), "maes": table}, indent=2) + "\n")
    written.append(plot_mae_bars(
        table, out / "arm_2r.png",
        title=demo_titles.arm(real_names)))
    caveat = demo_titles.arm_caveat(best, same)
    if caveat:
        say(caveat)
    for group, row in table.items():
        say(f"2R {group}: " + ", ".join(f"{k} {v:.4f} rad" for k, v in row.items()))
    return written


def _pace(time_scale: Optional[float]) -> str:
    return "in lockstep with the driver's cycle" if time_scale is None else f"at {time_scale:g}x real time"


def fit_spec(settings: DemoSettings, logs: Sequence[Log], folder: Path) -> FitSpec:
    """The demo's fit: every model of ``settings.actuator`` on the processed ``logs``, seed 0,
    ``settings.trials`` each, params and report into ``folder``; all else as ``actuator-models fit``."""
    return FitSpec(logs, settings.actuator, ALL_MODELS, FitSettings(settings.trials, seed=0),
                   outputs=FitOutputs.in_folder(folder, ALL_MODELS))


def run_demo(out: Path, quick: bool = False, actuator: str = "mx64") -> int:
    """Run the demo into ``out`` with an emulated ``actuator`` (``mx64``, or ``erob80_100``: root
    for its veth pair); returns an exit status."""
    settings = demo_settings()[actuator][1 if quick else 0]
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    say(f"{'quick' if quick else 'full'} demo into {out}: emulated {settings.actuator} with model "
        f"{settings.reference}, {len(settings.grid)} recordings "
        + _pace(settings.time_scale))
    raw = record_logs(settings, out / "logs" / "raw")
    logs = process(raw, out / "logs" / "processed")
    say(f"processed {len(logs)} logs at 5 ms ({time.perf_counter() - start:.0f} s so far); identifying M1-M6")
    report = fit(fit_spec(settings, logs, out / "params"), progress=ProgressPrinter(settings.actuator, every=5.0, prefix="[demo] "))
    reference = load_model(settings.reference)
    floor = true_validation_mae(reference, report.dataset)
    say("drawing figures")
    plots = figures(report.models, logs, settings, out / "plots")
    print()
    print(f"Validation MAE [rad] on {len(report.dataset.validation)} held-out logs "
          f"({len(report.dataset.train)} used for fitting):")
    print(f"  {'model':<8}{'train':>10}{'validation':>12}")
    for name, rep in report.models.items():
        print(f"  {name.upper():<8}{rep.result.train_mae:>10.4f}{rep.result.validation_mae:>12.4f}")
    print(f"  {'true':<8}{'':>10}{floor:>12.4f}   (the emulator's own model: the recording noise floor)")
    print(f"best model: {report.best_model.upper()}, {report.improvement_over_m1:.2f}x lower validation MAE than M1")
    quality = [RecordingQuality.from_dict(read_log(path).recording) for path in raw]
    print(f"recordings: {len(quality)}, {min(q.achieved_rate for q in quality):.0f}-{max(q.achieved_rate for q in quality):.0f} Hz "
          f"achieved ({quality[0].requested_rate:.0f} Hz asked), {sum(q.gaps for q in quality)} gaps > "
          f"{2000 / quality[0].requested_rate:.0f} ms (longest {1000 * max(q.longest_gap for q in quality):.1f} ms), "
          f"{sum(q.retries for q in quality)} retries, {sum(q.comm_errors for q in quality)} comm errors")
    print(f"report: {out / 'params' / 'report' / 'report.md'}")
    print("plots: " + ", ".join(str(p) for p in [out / "params" / "report" / "mae.png", *plots]))
    print(f"done in {time.perf_counter() - start:.0f} s")
    return 0
