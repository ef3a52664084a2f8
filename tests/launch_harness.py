"""Evaluate a launch file with arguments and collect the nodes it would start, without starting them.

Two implementations of the launch API run the same launch files:

* ``real``: ROS 2's ``launch`` / ``launch_ros`` (present in a sourced ROS 2 environment). The
  launch entities are visited depth first, as ``LaunchService`` does; only the process part of
  ``launch_ros.actions.Node`` is replaced (its ``execute`` records the node instead of spawning it).
* ``double``: a test double of the subset of the launch API the project's launch files use,
  written from the Jazzy semantics (where ``launch`` is absent, as in ``make test``). It is a
  double, not the library: what it models is that ``IncludeLaunchDescription`` sets its
  arguments in the current launch-configuration scope (Jazzy's includes are not scoped: the
  included file's declarations and arguments leak into the including one), that
  ``GroupAction(scoped=True)`` restores the scope after its actions, that
  ``DeclareLaunchArgument`` keeps a given value and checks ``choices``, and conditions. The
  same tests run on both where ROS is present, which checks the double against the library.

In both, a recorded node's parameters are resolved here (YAML files: the ``/**/<node name>``
section; dicts: substitutions performed and YAML-parsed, as ``launch_ros`` does).
"""

from __future__ import annotations

import runpy
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import yaml

REPO = Path(__file__).resolve().parents[1]
LAUNCH = REPO / "launch"
#: Where the double's ament index finds actuator_sim's share folder (its models/ as installed).
SIM_SHARE = REPO / "src" / "actuator_sim" / "actuator_sim"


@dataclass
class LaunchedNode:
    """What a Node action would start: package, executable, namespace, resolved parameters."""

    package: str
    executable: str
    namespace: str
    parameters: Dict[str, Any]
    config_files: List[str] = field(default_factory=list)
    arguments: List[str] = field(default_factory=list)
    sigterm_timeout: Optional[str] = None


def perform(value: Any, context: Any) -> Any:
    """A substitution (or a list of them) performed; plain values as they are."""
    if hasattr(value, "perform"):
        return value.perform(context)
    if isinstance(value, (list, tuple)) and any(hasattr(v, "perform") for v in value):
        return "".join(str(perform(v, context)) for v in value)
    return value


def node_record(kwargs: Dict[str, Any], context: Any) -> LaunchedNode:
    name = kwargs["executable"].removesuffix("_node")
    parameters: Dict[str, Any] = {}
    files = []
    for item in kwargs.get("parameters") or []:
        if isinstance(item, dict):
            for key, value in item.items():
                performed = perform(value, context)
                parameters[key] = yaml.safe_load(performed) if hasattr(value, "perform") else performed
        else:
            path = str(perform(item, context))
            files.append(path)
            section = yaml.safe_load(Path(path).read_text()).get(f"/**/{name}", {})
            parameters = {**section.get("ros__parameters", {}), **parameters}
    return LaunchedNode(kwargs["package"], kwargs["executable"], str(perform(kwargs.get("namespace", ""), context) or ""),
                        parameters, files, [str(perform(a, context)) for a in kwargs.get("arguments") or []],
                        kwargs.get("sigterm_timeout"))


def visit(entity: Any, context: Any) -> None:
    for child in entity.visit(context) or []:
        visit(child, context)


def evaluate(implementation: str, launch_file: str, arguments: Dict[str, str], monkeypatch) -> List[LaunchedNode]:
    """The nodes ``launch_file`` starts with ``arguments`` (as ``name:=value`` on the command line)."""
    launched: List[LaunchedNode] = []
    if implementation == "double":
        install_double(monkeypatch, launched)
        from launch import LaunchContext
    else:
        import launch_ros.actions
        from launch import LaunchContext

        class RecordedNode(launch_ros.actions.Node):
            """launch_ros's Node whose execute records the node instead of spawning a process."""

            def __init__(self, **kwargs: Any) -> None:
                super().__init__(**kwargs)
                self.recorded_kwargs = kwargs

            def execute(self, context: Any) -> None:
                launched.append(node_record(self.recorded_kwargs, context))

        monkeypatch.setattr(launch_ros.actions, "Node", RecordedNode)
    from launch.launch_description_sources import PythonLaunchDescriptionSource

    context = LaunchContext()
    context.launch_configurations.update(arguments)
    visit(PythonLaunchDescriptionSource(str(LAUNCH / launch_file)).get_launch_description(context), context)
    return launched


# ----------------------------------------------------------------------------- the double
class _Context:
    def __init__(self) -> None:
        self.launch_configurations: Dict[str, str] = {}
        self.scopes: List[Dict[str, str]] = []


class _Entity:
    def __init__(self, *, condition: Any = None, **_: Any) -> None:
        self.condition = condition

    def visit(self, context: _Context) -> Optional[list]:
        if self.condition is None or self.condition.evaluate(context):
            return self.execute(context)
        return None

    def execute(self, context: _Context) -> Optional[list]:
        return None


class _LaunchDescription:
    def __init__(self, entities: list = ()) -> None:
        self.entities = list(entities)

    def visit(self, context: _Context) -> list:
        return self.entities

    def get_launch_arguments(self) -> list:
        return [e for e in self.entities if isinstance(e, _DeclareLaunchArgument)]


class _DeclareLaunchArgument(_Entity):
    def __init__(self, name: str, *, default_value: Any = None, choices: Optional[list] = None,
                 description: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.name, self.default_value, self.choices = name, default_value, choices

    def execute(self, context: _Context) -> None:
        configurations = context.launch_configurations
        if self.name not in configurations:
            if self.default_value is None:
                raise RuntimeError(f"required launch argument {self.name!r} not given")
            configurations[self.name] = str(perform(self.default_value, context))
        if self.choices is not None and configurations[self.name] not in self.choices:
            raise RuntimeError(f"argument {self.name}: {configurations[self.name]!r} not in {self.choices}")


class _IncludeLaunchDescription(_Entity):
    def __init__(self, source: Any, *, launch_arguments: Any = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source, self.launch_arguments = source, list(launch_arguments)

    def execute(self, context: _Context) -> list:
        performed = [(str(perform(k, context)), str(perform(v, context))) for k, v in self.launch_arguments]
        context.launch_configurations.update(performed)  # Jazzy: the current scope, not a new one
        return [self.source.get_launch_description(context)]


class _Scope(_Entity):
    def __init__(self, push: bool) -> None:
        super().__init__()
        self.push = push

    def execute(self, context: _Context) -> None:
        if self.push:
            context.scopes.append(dict(context.launch_configurations))
        else:
            context.launch_configurations = context.scopes.pop()


class _GroupAction(_Entity):
    def __init__(self, actions: list, *, scoped: bool = True, forwarding: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        assert forwarding, "the double models forwarding=True only"
        self.actions, self.scoped = list(actions), scoped

    def execute(self, context: _Context) -> list:
        return [_Scope(True), *self.actions, _Scope(False)] if self.scoped else self.actions


class _OpaqueFunction(_Entity):
    def __init__(self, *, function: Callable, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.function = function

    def execute(self, context: _Context) -> Optional[list]:
        return self.function(context)


class _RegisterEventHandler(_Entity):
    """Registers a handler of process events: none occur here (nothing is started)."""

    def __init__(self, event_handler: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)


class _OnProcessExit:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


class _LaunchConfiguration:
    def __init__(self, name: str, default: Optional[str] = None) -> None:
        self.name, self.default = name, default

    def perform(self, context: _Context) -> str:
        value = context.launch_configurations.get(self.name, self.default)
        if value is None:
            raise RuntimeError(f"launch configuration {self.name!r} does not exist")
        return value


class _IfCondition:
    def __init__(self, predicate: Any) -> None:
        self.predicate = predicate

    def evaluate(self, context: _Context) -> bool:
        text = str(perform(self.predicate, context)).strip().lower()
        if text not in ("true", "1", "false", "0"):
            raise RuntimeError(f"condition {text!r} is not a boolean")
        return text in ("true", "1")


class _PythonLaunchDescriptionSource:
    def __init__(self, path: str) -> None:
        self.path = path

    def get_launch_description(self, context: Any) -> _LaunchDescription:
        return runpy.run_path(self.path)["generate_launch_description"]()


class _PackageNotFoundError(KeyError):
    pass


def _share_directory(package: str) -> str:
    if package == "actuator_sim":
        return str(SIM_SHARE)
    raise _PackageNotFoundError(package)


def install_double(monkeypatch, launched: List[LaunchedNode]) -> None:
    """Put the double's modules in ``sys.modules`` (for this test only)."""

    class _Node(_Entity):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(condition=kwargs.get("condition"))
            self.kwargs = kwargs

        def execute(self, context: _Context) -> None:
            launched.append(node_record(self.kwargs, context))

    modules = {
        "launch": dict(LaunchContext=_Context, LaunchDescription=_LaunchDescription),
        "launch.actions": dict(DeclareLaunchArgument=_DeclareLaunchArgument, GroupAction=_GroupAction,
                               IncludeLaunchDescription=_IncludeLaunchDescription, OpaqueFunction=_OpaqueFunction,
                               RegisterEventHandler=_RegisterEventHandler),
        "launch.event_handlers": dict(OnProcessExit=_OnProcessExit),
        "launch.conditions": dict(IfCondition=_IfCondition),
        "launch.substitutions": dict(LaunchConfiguration=_LaunchConfiguration),
        "launch.launch_description_sources": dict(PythonLaunchDescriptionSource=_PythonLaunchDescriptionSource),
        "launch_ros": {},
        "launch_ros.actions": dict(Node=_Node),
        "ament_index_python": {},
        "ament_index_python.packages": dict(get_package_share_directory=_share_directory,
                                            PackageNotFoundError=_PackageNotFoundError),
    }
    for name, attributes in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(attributes)
        monkeypatch.setitem(sys.modules, name, module)
