"""``actuator-sim export``: a servo model as native MJCF (:mod:`actuator_sim.native`) and, on
given logs, the MAE that approximation loses against the exact model."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Tuple

from actuator_models.logs import check_motor, read_logs, require_processed
from actuator_models.outputs import refuse_existing

from .arm import arm
from .cli_params import load_params, print_json
from .models import read_model
from .native import (NativeJoint, approximation_loss, describe, export_mjcf, lost_additions, lost_friction, native_servo,
                     servo_temperature)
from .pendulum import PendulumBench, pendulum_mjcf
from .replay import JOINT


#: The pendulum's options of ``export`` and their defaults (mass [kg], length [m], arm mass [kg],
#: MuJoCo timestep [s]): with ``--arm``, the arm's MJCF sets them.
PENDULUM_OPTIONS = {"mass": 1.0, "length": 0.15, "arm_mass": 0.0, "dt": 0.005}


def cmd_export(args: argparse.Namespace) -> int:
    """Write the native MJCF; with ``--logs``, print the approximation's MAE loss."""
    pendulum = [f"--{name.replace('_', '-')}" for name in PENDULUM_OPTIONS if getattr(args, name) is not None]
    if args.arm and pendulum:
        raise ValueError(f"{', '.join(pendulum)}: the pendulum's, not used with --arm (the arm's MJCF sets them)")
    model, = load_params([args.params])
    if args.arm:
        shipped = arm(args.arm)
        if model.actuator.name not in (shipped.shoulder, shipped.elbow) and not args.allow_mismatch:
            raise ValueError(f"--params {args.params}: a model of the {model.actuator.name}, not of arm {shipped.name}'s "
                             f"servos ({shipped.shoulder}, {shipped.elbow}: its gains are in their units); pass "
                             "--allow-mismatch to export it anyway")
        kp = shipped.gain("low") if args.kp is None else args.kp
        joints: Tuple[str, ...] = ("shoulder", "elbow")
        xml = read_model(shipped.mjcf)
    else:
        kp = 400.0 if args.kp is None else args.kp
        value = {name: default if getattr(args, name) is None else getattr(args, name)
                 for name, default in PENDULUM_OPTIONS.items()}
        bench = PendulumBench(value["mass"], value["length"], value["arm_mass"], model.values.get("q_offset", 0.0),
                              value["dt"])
        xml, joints = pendulum_mjcf(bench), (JOINT,)
    logs = None
    if args.logs:  # read before writing: a bad log writes nothing
        logs = require_processed(read_logs(args.logs), args.logs)
        check_motor(logs, model.actuator.name, f"params {args.params}", args.allow_mismatch)
    out = Path(args.out)
    refuse_existing([out], args.force)
    text = export_mjcf(xml, [NativeJoint(joint, model, kp, args.vin, args.temperature) for joint in joints])
    means = None if logs is None else approximation_loss(model, logs).means()  # a refusal writes nothing
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"{out}: {model.name} on joint{'s' if len(joints) > 1 else ''} {', '.join(joints)} at kp {kp:g}")
    servo = native_servo(model, kp, args.vin, args.temperature)
    print("\n".join(describe(servo)))
    print(f"  motor: R {servo.resistance:.4g} ohm, {servo_temperature(model, args.temperature)}")
    friction, additions = lost_friction(model), lost_additions(model)
    if friction or additions:
        print(f"  not carried: {', '.join(friction + [f'addition {name}' for name in additions])}")
    if friction:
        print(f"note: {model.friction.name.upper()}'s friction beyond Coulomb-viscous is lost, and its other parameters "
              "were fitted with it: on plain MuJoCo an M1 fit (fit --model m1), whose friction MuJoCo carries whole, "
              "may do better; compare the two with --logs")
    if logs is None or means is None:
        return 0
    print(f"on {len(logs)} logs of {args.logs} (each at its own bench, gain and voltage; exact = the core "
          "simulator, semi-implicit):")
    print(f"  MAE exact model vs logs:   {means['mae_exact']:.6f} rad")
    print(f"  MAE native MJCF vs logs:   {means['mae_native']:.6f} rad")
    print(f"  lost by the approximation: {means['loss']:.6f} rad (native vs exact: "
          f"{means['mae_native_vs_exact']:.6f} rad)")
    if args.json:
        print_json(means)
    return 0
