"""What the launch files share: where configs are, and the arguments every bench launch declares.

Configs and launch files are installed into ``share/actuator_bench`` (``config/``, ``launch/``);
:func:`config_file` finds them through the ament index, and falls back to the ``config/`` folder
next to the launch file being run (a source checkout launched by path, where both folders are
siblings at the repository root, as they are in the share folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

PACKAGE = "actuator_bench"
#: ``sigterm_timeout`` of the project's nodes [s, as launch takes it]: how long ``ros2 launch``
#: waits after SIGINT before SIGTERM (default 5). A node stops within ``STOP_GRACE`` (3 s) plus
#: its cleanup (:func:`actuator_bench.nodes.common.spin`); a busy machine gets the rest.
STOP_TIMEOUT = "10"


def share_dir() -> Optional[Path]:
    """``share/actuator_bench`` of the sourced workspace, None when it is not installed there."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    except ImportError:
        return None
    try:
        return Path(get_package_share_directory(PACKAGE))
    except (PackageNotFoundError, LookupError, ValueError):
        return None


def config_file(name: str, launch_file: str) -> str:
    """Path of config ``name``: a path as given, else the installed one, else the one next to
    ``launch_file``'s folder (a checkout); FileNotFoundError naming where it looked."""
    if Path(name).is_file():
        return str(Path(name).resolve())
    share = share_dir()
    candidates = ([share / "config" / name] if share else []) + [Path(launch_file).resolve().parent.with_name("config") / name]
    for path in candidates:
        if path.is_file():
            return str(path)
    raise FileNotFoundError(f"config {name!r}: not found in {', '.join(map(str, candidates))}")


def bench_config(context: object, launch_file: str) -> str:
    """Path of the launch's ``config`` argument, or, when it is empty, of the bench YAML of its
    ``backend`` argument (its :attr:`~actuator_models.bench.Backend.config`: each backend names
    its own, ``xl330_bench.yaml`` by default)."""
    from launch.substitutions import LaunchConfiguration

    from .backends import installed_backends

    name = LaunchConfiguration('config').perform(context)
    return config_file(name or installed_backends()[LaunchConfiguration('backend').perform(context)].config, launch_file)


def launch_file(name: str, launch_file: str) -> str:
    """Path of the sibling launch file ``name`` (same folder as ``launch_file``)."""
    return str(Path(launch_file).resolve().with_name(name))


def common_arguments() -> List[object]:
    """DeclareLaunchArgument actions every bench launch file has: config, record, description, urdf."""
    from launch.actions import DeclareLaunchArgument

    return [
        DeclareLaunchArgument('config', default_value='',
                              description="Bench YAML (a path, or a file of share/actuator_bench/config); "
                                          "empty: the backend's own (its Backend.config: erob_bench.yaml "
                                          "for erob*, xl330_bench.yaml for dynamixel*, ...)"),
        DeclareLaunchArgument('record', default_value='false', description='Start recording a bag at once'),
        DeclareLaunchArgument('description', default_value='true', description='Run robot_state_publisher'),
        DeclareLaunchArgument('urdf', default_value='pendulum.urdf', description='URDF for robot_state_publisher'),
    ]
