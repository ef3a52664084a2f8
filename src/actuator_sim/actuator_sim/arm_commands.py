"""``actuator-sim arm``, ``arm-compare`` and ``transfer``: 2R arms on end-effector paths
(joint positions in rad, MAE in rad)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np

from actuator_models.exit_codes import json_alone
from actuator_models.model import Model
from actuator_models.outputs import refuse_existing

from .cli_params import print_json, resolve_params


def arm_model(text: str, actuator: str, option: str, allow_mismatch: bool) -> Model:
    """``text`` (a params file, a library name, or m1..m6 of ``actuator``) as the model of an arm's
    joint whose servo is ``actuator``, given as ``option``: a model of another servo is a
    ValueError unless ``allow_mismatch`` (the arm's gains are in its servos' units)."""
    model = resolve_params(text, actuator)
    if model.actuator.name != actuator and not allow_mismatch:
        raise ValueError(f"{option} {text}: a model of the {model.actuator.name}, not of the joint's {actuator} (the "
                         "arm's gains are in its units); pass --allow-mismatch to use it anyway")
    return model


@json_alone
def cmd_arm(args: argparse.Namespace) -> int:
    from .arm import arm, joint_mae, run_path

    a = arm(args.arm)
    if bool(args.reference_shoulder) != bool(args.reference_elbow):  # all checked before any run
        raise ValueError("give both --reference-shoulder and --reference-elbow")
    if args.out:
        refuse_existing([args.out], args.force)
    shoulder = arm_model(args.shoulder, a.shoulder, "--shoulder", args.allow_mismatch)
    elbow = arm_model(args.elbow, a.elbow, "--elbow", args.allow_mismatch)
    references = None
    if args.reference_shoulder:
        references = (arm_model(args.reference_shoulder, a.shoulder, "--reference-shoulder", args.allow_mismatch),
                      arm_model(args.reference_elbow, a.elbow, "--reference-elbow", args.allow_mismatch))
    run = run_path(a, shoulder, elbow, args.path, args.gain, viscous=args.viscous)
    out: Dict[str, object] = {"arm": a.name, "path": args.path, "gain": a.gain(args.gain),
                              "shoulder": args.shoulder, "elbow": args.elbow, **run.to_dict()}
    tracking = np.mean(np.abs(run.position - run.goal), axis=0)
    print(f"arm {a.name}, path {args.path}, gain {args.gain} (kp {a.gain(args.gain):g}): "
          f"tracking MAE shoulder {tracking[0]:.5f} rad, elbow {tracking[1]:.5f} rad")
    summary: Dict[str, float] = {}
    if references is not None:
        reference = run_path(a, *references, args.path, args.gain, viscous=args.viscous)
        mae = joint_mae(run, reference)
        summary = {"mae_shoulder": float(mae[0]), "mae_elbow": float(mae[1]), "mae": float(mae.mean())}
        out.update(reference={"shoulder": args.reference_shoulder, "elbow": args.reference_elbow,
                              "position": reference.position.tolist()}, **summary)
        print(f"MAE against the reference run: shoulder {mae[0]:.5f} rad, elbow {mae[1]:.5f} rad, "
              f"mean {mae.mean():.5f} rad")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(out))
        print(f"joint trajectories written to {args.out}")
    if args.json:
        print_json(summary, args.json_stream)
    return 0


def _candidates(args: argparse.Namespace) -> List[Tuple[str, str, str]]:
    if args.candidate:
        return [tuple(c) for c in args.candidate]
    return [(f"M{i}", f"m{i}", f"m{i}") for i in range(1, 7)]


def cmd_arm_compare(args: argparse.Namespace) -> int:
    from .arm import arm
    from .experiment import compare_arm

    a = arm(args.arm)
    if args.out:
        refuse_existing([args.out], args.force)
    allow = args.allow_mismatch
    real = (arm_model(args.real_shoulder, a.shoulder, "--real-shoulder", allow),
            arm_model(args.real_elbow, a.elbow, "--real-elbow", allow))
    candidates = {label: (arm_model(s, a.shoulder, f"--candidate {label}", allow),
                          arm_model(e, a.elbow, f"--candidate {label}", allow)) for label, s, e in _candidates(args)}
    maes = compare_arm(a, real, candidates, args.paths, args.gain, args.viscous)
    print(f"arm {a.name}: joint MAE [rad] against the 'real' arm ({real[0].name} + {real[1].name})")
    _print_table(maes, list(candidates))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"arm": a.name, "real": [real[0].name, real[1].name], "maes": maes}, indent=2))
        print(f"MAE table written to {args.out}")
    return 0


def _print_table(maes: Dict[str, Dict[str, float]], labels: Sequence[str]) -> None:
    width = max(12, *(len(label) + 2 for label in labels))
    first = max(len("path"), *(len(group) for group in maes))  # the longest path name sets the first column
    print(f"{'path':<{first}}" + "".join(f"{label:>{width}}" for label in labels))
    for group, row in maes.items():
        print(f"{group:<{first}}" + "".join(f"{row[label]:>{width}.5f}" for label in labels))
    print(f"{'mean':<{first}}" + "".join(f"{np.mean([r[label] for r in maes.values()]):>{width}.5f}" for label in labels))


def cmd_transfer(args: argparse.Namespace) -> int:
    from .arm import arm
    from .transfer import transfer_experiment

    a = arm(args.arm)
    if args.out_dir:
        refuse_existing([Path(args.out_dir) / "transfer.json"], args.force)
    result = transfer_experiment(a, args.paths, args.gain, trials=args.trials, seed=args.seed,
                                 log=lambda text: print(text, flush=True))
    print("validation MAE on the virtual bench [rad] (shoulder, elbow), each with its own integrator:")
    for label, (shoulder, elbow) in result.validation.items():
        print(f"  {label:<20} {shoulder:.5f}  {elbow:.5f}")
    print(f"arm {a.name}: joint MAE [rad] against the 'real' arm ({a.shoulder}/m6 + {a.elbow}/m6) in MuJoCo")
    _print_table({g: dict(r) for g, r in result.maes.items()}, list(result.fitted))
    if args.out_dir:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        result.save(out)
        summary = {"arm": a.name, "trials": args.trials, "validation": result.validation, "maes": result.maes}
        (out / "transfer.json").write_text(json.dumps(summary, indent=2))
        print(f"fitted params and transfer.json written to {out}")
    return 0
