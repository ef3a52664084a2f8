"""What the launch files share: where configs are, and the arguments every bench launch declares.

Configs and launch files are installed into ``share/actuator_bench`` (``config/``, ``launch/``);
:func:`config_file` finds them through the ament index, and falls back to the ``config/`` folder
next to the launch file being run (a source checkout launched by path, where both folders are
siblings at the repository root, as they are in the share folder).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

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


def urdf_file(name: str) -> Path:
    """URDF ``name``: a path as given, else a file of actuator_sim's models folder;
    FileNotFoundError naming where it looked."""
    from ament_index_python.packages import get_package_share_directory

    path = Path(name)
    if path.is_file():
        return path
    models = Path(get_package_share_directory('actuator_sim')) / 'models'
    if (models / name).is_file():
        return models / name
    raise FileNotFoundError(f"not a file, nor one of {models}")


def _nodes(sections: Any, prefix: str = "") -> Iterator[Tuple[str, Any]]:
    """(node path, its ros__parameters) of a parameters file's mapping, as rcl reads it: keys are
    node names or namespaces down to a ``ros__parameters`` key; ValueError where it cannot be one."""
    if not isinstance(sections, dict) or not sections:
        raise ValueError(f"{prefix or 'the file'}: not a mapping of node names to ros__parameters")
    for key, value in sections.items():
        if key == 'ros__parameters':
            if not isinstance(value, dict):
                raise ValueError(f"{prefix}: ros__parameters is not a mapping of parameter names to values")
            yield prefix, value
        else:
            yield from _nodes(value, f"{prefix}/{str(key).strip('/')}")


def check_bench_yaml(path: str) -> None:
    """ValueError (one line) unless ``path`` is a ROS parameters file with a section the bench
    node reads (``/**/bench``, a namespace's ``bench``, or a wildcard) whose every key is a bench
    parameter: the node would ignore a misspelt one (``rat: 100.0``) and run on the default."""
    import yaml

    from actuator_models.parameters import did_you_mean

    from .bench_core import bench_parameters

    try:
        sections = yaml.safe_load(Path(path).read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ValueError(f"not a readable YAML file: {' '.join(str(error).split())}") from None
    benches = [(node, values) for node, values in _nodes(sections) if node.rstrip('/').rpartition('/')[2] == 'bench']
    if not benches and not any(node.rstrip('/').rpartition('/')[2] in ('*', '**') for node, _ in _nodes(sections)):
        raise ValueError("no section for the bench node (/**/bench: ros__parameters: ...): not a bench YAML")
    known = [p.name for p in bench_parameters()]
    for node, values in benches:
        for key in values:
            if key not in known:
                raise ValueError(f"{node}: key {key!r} (value {values[key]!r}) is not a bench parameter"
                                 f"{did_you_mean(str(key), known)}")


#: What a boolean launch argument takes (IfCondition's words, in any case).
BOOLEANS = ('true', 'false', '1', '0')
#: The launch files' boolean arguments.
SWITCHES = ('record', 'recorder', 'identification', 'description', 'rviz')


def _refusal(name: str, value: str, arguments: dict, launch_file: str) -> Optional[str]:
    """Why launch argument ``name`` cannot be ``value`` (None: it can)."""
    if name in SWITCHES and value.strip().lower() not in BOOLEANS:
        return f"not a boolean ({', '.join(BOOLEANS)})"
    if name == 'update_rate' and not (value.strip().isdigit() and int(value) > 0):
        return "must be a whole number of Hz above 0"
    try:
        if name == 'urdf' and arguments.get('description', 'true').strip().lower() not in ('false', '0'):
            urdf_file(value)
        if name == 'config' and value:
            check_bench_yaml(config_file(value, launch_file))
    except (FileNotFoundError, ValueError) as error:
        return str(error)
    return None


def check_arguments(context: Any, launch_file: str) -> list:
    """Refuse, before any node starts, a launch argument no node can run with: ValueError naming
    it and its value (``ros2 launch`` prints it in one line and exits 1). Checked where they are
    set: the booleans, ``update_rate``, ``urdf`` (when ``description`` is on) and ``config`` (a
    bench YAML). A node started before a later action failed would outlive the launch."""
    arguments = dict(context.launch_configurations)
    for name, value in arguments.items():
        why = _refusal(name, value, arguments, launch_file)
        if why is not None:
            raise ValueError(f"{name}:={value!r}: {why}")
    return []


def arguments_checked(launch_file: str) -> object:
    """The action that runs :func:`check_arguments` for ``launch_file``: put it after the
    declarations, before any node."""
    from launch.actions import OpaqueFunction

    return OpaqueFunction(function=partial(check_arguments, launch_file=launch_file))


def _failed(event: Any, context: Any) -> None:
    """On a process's exit: RuntimeError (the launch stops, all of it, and exits 1) for a nonzero
    status before the launch shuts down."""
    if event.returncode != 0 and not context.is_shutdown:
        raise RuntimeError(f"{event.process_name} exited with status {event.returncode}: stopping the whole launch "
                           f"(its own error is above)")


def stop_on_failure() -> object:
    """The action that ends the launch when one of its processes exits with a nonzero status (a
    node refusing its parameters, a spawner failing) before shutdown: the rest of the graph is
    stopped and ``ros2 launch`` exits 1, instead of the others running on without it."""
    from launch.actions import RegisterEventHandler
    from launch.event_handlers import OnProcessExit

    return RegisterEventHandler(OnProcessExit(on_exit=_failed))


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
