"""The shipped MJCF and URDF files (package data in ``actuator_sim/models``).

``pendulum.xml``/``.urdf`` (default bench, see :mod:`actuator_sim.pendulum`), ``arm_mx.xml``
(MX-106 shoulder + MX-64 elbow), ``arm_erob.xml`` (eRob80:100 + eRob80:50) and ``arm_so100.xml``
(two Feetech STS3215, SO-100 style), each with a URDF
generated from it for RViz, and ``so100.xml``/``.urdf`` (the six-servo SO-100 arm, written by
:mod:`actuator_sim.so100`; its URDF is the ros2_control description of ``control.launch.py``) (:func:`generated_files` regenerates them; a test keeps them in sync).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Dict

import mujoco
from actuator_models.model import load_model
from actuator_models.ratings import ratings

from .pendulum import DEFAULT_BENCH, pendulum_mjcf, pendulum_urdf
from .so100 import JOINT_NAMES, SERVO_MODEL, SUPPLY, so100_mjcf
from .urdf import mjcf_to_urdf

ARM_MJCF = {"mx": "arm_mx.xml", "erob": "arm_erob.xml", "so100": "arm_so100.xml"}
ARM_TITLES = {"mx": "2R arm, Dynamixel MX-106 shoulder + MX-64 elbow", "erob": "2R arm, eRob80:100 shoulder + eRob80:50 elbow",
              "so100": "SO-100-style 2R arm, Feetech STS3215 shoulder + STS3215 elbow"}


def models_dir() -> Path:
    """Folder of the shipped model files."""
    return Path(str(resources.files(__package__) / "models"))


def read_model(name: str) -> str:
    """Text of a shipped model file, e.g. ``"arm_mx.xml"``."""
    path = models_dir() / name
    if not path.is_file():
        raise ValueError(f"no model file {name!r} (shipped: {', '.join(sorted(p.name for p in models_dir().iterdir()))})")
    return path.read_text()


def arm_urdf(arm: str) -> str:
    """URDF of a shipped arm (``"mx"`` or ``"erob"``), generated from its MJCF."""
    model = mujoco.MjModel.from_xml_string(read_model(ARM_MJCF[arm]))
    return mjcf_to_urdf(model, f"arm_{arm}", f"{ARM_TITLES[arm]}. Generated from {ARM_MJCF[arm]} by actuator_sim.")


def generated_files() -> Dict[str, str]:
    """The generated shipped files by name: the default pendulum MJCF, the six-servo SO-100 MJCF
    and all URDFs."""
    files = {"pendulum.xml": pendulum_mjcf(DEFAULT_BENCH), "pendulum.urdf": pendulum_urdf(DEFAULT_BENCH)}
    for arm, mjcf in ARM_MJCF.items():
        files[mjcf.replace(".xml", ".urdf")] = arm_urdf(arm)
    files["so100.xml"] = so100_mjcf()
    rated = ratings(load_model(SERVO_MODEL), SUPPLY)  # effort and velocity limits: the STS3215's
    files["so100.urdf"] = mjcf_to_urdf(mujoco.MjModel.from_xml_string(files["so100.xml"]), "so100",
                                       f"Six-servo SO-100 arm (Feetech STS3215). Generated from so100.xml by actuator_sim; "
                                       f"effort and velocity limits: the {SERVO_MODEL} model's stall torque and "
                                       f"no-load speed at {SUPPLY:g} V.", {j: rated for j in JOINT_NAMES})
    return files


def write_generated_files(directory: Path) -> None:
    """Write :func:`generated_files` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in generated_files().items():
        (directory / name).write_text(text)
