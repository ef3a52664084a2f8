"""Package metadata, launch files and bench YAML checked against the code, without ROS.

* package.xml files parse (format 3) and list the real dependencies: every non-standard import of
  actuator_bench and of the launch files is declared, and every declared dependency is used;
* the interface package generates exactly its .msg/.srv/.action files and depends on what they use;
* every actuator_bench executable named in a launch file is a console_scripts entry point whose
  module defines ``main``;
* every parameter a YAML section or a launch file sets is one the node declares (read from the
  node modules with ``ast``), and every launch argument passed to an included file is declared
  there.
"""

import ast
import re
import runpy
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "src" / "actuator_bench"
INTERFACES = REPO / "src" / "actuator_interfaces"
LAUNCH_FILES = sorted((REPO / "launch").glob("*.launch.py"))
CONFIGS = sorted((REPO / "config").glob("*.yaml"))
#: Python modules that are not ROS packages: rosdep key, or None when installed with pip (setup.py).
PYTHON_DEPENDENCIES = {"numpy": "python3-numpy", "yaml": "python3-yaml", "rosbags": None, "optuna": None, "mujoco": None}
#: Dependencies used only through the launch files (packages of Node actions and the launch tools).
LAUNCH_ONLY = {"ros2launch", "robot_state_publisher", "joint_state_broadcaster", "joint_trajectory_controller",
               "topic_based_ros2_control"}  # controller plugins loaded by ros2_control_node
#: Launch-file packages that are optional (not in package.xml): rviz2 only runs with rviz:=true.
OPTIONAL = {"rviz2"}
#: Parameters every rclpy node declares itself.
BUILTIN_PARAMETERS = {"use_sim_time"}


def package_xml(folder: Path) -> ET.Element:
    root = ET.parse(folder / "package.xml").getroot()
    assert root.tag == "package" and root.get("format") == "3"
    assert root.findtext("name") == folder.name
    for tag in ("version", "description", "license"):
        assert root.findtext(tag)
    assert root.find("maintainer").get("email")
    return root


def depends(root: ET.Element, *tags: str) -> set:
    return {e.text for tag in tags for e in root.findall(tag)}


def imports(path: Path) -> set:
    """Top-level names of the absolute imports of a Python file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def calls(tree: ast.AST, name: str) -> list:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)]


def keyword(call: ast.Call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def setup_keywords(folder: Path) -> dict:
    """The keyword arguments a package's setup.py gives setuptools.setup."""
    import os

    import setuptools

    captured = {}
    original, cwd = setuptools.setup, os.getcwd()
    setuptools.setup = lambda **kw: captured.update(kw)
    try:
        os.chdir(folder)
        runpy.run_path(str(folder / "setup.py"))
    finally:
        setuptools.setup = original
        os.chdir(cwd)
    return captured



@pytest.fixture(scope="module")
def setup_kwargs():
    """The keyword arguments actuator_bench's setup.py gives setuptools.setup."""
    return setup_keywords(BENCH)


@pytest.fixture(scope="module")
def entry_points(setup_kwargs) -> dict:
    """Console script name -> (module, function)."""
    out = {}
    for line in setup_kwargs["entry_points"]["console_scripts"]:
        name, target = (s.strip() for s in line.split("="))
        module, function = target.split(":")
        out[name] = (module, function)
    return out


def node_modules() -> list:
    """(node name, module path, declared parameter names) of each node module, read with ``ast``
    (the bench node and the control node declare those of
    :func:`actuator_bench.bench_core.bench_parameters`; both are named ``bench``: one YAML section)."""
    from actuator_bench.bench_core import bench_parameters

    out = []
    for path in sorted((BENCH / "actuator_bench" / "nodes").glob("*_node.py")):
        tree = ast.parse(path.read_text())
        (init,) = [c for c in calls(tree, "__init__") if isinstance(c.func.value, ast.Call)]  # super().__init__
        declared = {literal(c.args[0]) for c in calls(tree, "declare_parameter")} - {None}
        if "bench_parameters" in {getattr(c.func, "id", None) for c in calls(tree, "bench_parameters")}:
            declared |= {p.name for p in bench_parameters()}
        out.append((literal(init.args[0]), path, declared))
    return out


def declared_by_name() -> dict:
    """Node name -> the parameters every node of that name declares."""
    out: dict = {}
    for name, _, declared in node_modules():
        out[name] = out[name] & declared if name in out else declared
    return out


def declared_arguments(tree: ast.AST) -> set:
    """Launch arguments a launch file declares, its own and those of ``common_arguments``."""
    names = {literal(c.args[0]) for c in calls(tree, "DeclareLaunchArgument")}
    if calls(tree, "common_arguments"):
        common = ast.parse((BENCH / "actuator_bench" / "launch_common.py").read_text())
        names |= {literal(c.args[0]) for c in calls(common, "DeclareLaunchArgument")}
    return names


def declared_by_module() -> dict:
    """Module dotted name -> declared parameters."""
    return {f"actuator_bench.nodes.{path.stem}": declared for _, path, declared in node_modules()}


def flatten(params: dict, prefix: str = "") -> set:
    keys = set()
    for key, value in params.items():
        keys |= flatten(value, f"{prefix}{key}.") if isinstance(value, dict) else {f"{prefix}{key}"}
    return keys


# ----------------------------------------------------------------------------- packages
def test_actuator_bench_package_xml_lists_the_real_dependencies(setup_kwargs):
    root = package_xml(BENCH)
    assert root.find("export/build_type").text == "ament_python"
    declared = depends(root, "depend", "exec_depend")
    used = set()
    for path in [*sorted((BENCH / "actuator_bench").rglob("*.py")), *LAUNCH_FILES]:
        used |= {name for name in imports(path) if name not in sys.stdlib_module_names and name != "actuator_bench"}
    ros_imports = {name for name in used if name not in PYTHON_DEPENDENCIES}
    rosdep_keys = {PYTHON_DEPENDENCIES[name] for name in used if PYTHON_DEPENDENCIES.get(name)}
    launch_packages = {literal(keyword(c, "package")) for path in LAUNCH_FILES
                       for c in calls(ast.parse(path.read_text()), "Node")} - {"actuator_bench"}
    assert ros_imports | rosdep_keys <= declared, "imported but not in package.xml"
    assert launch_packages - OPTIONAL <= declared, "launched but not in package.xml"
    assert declared <= ros_imports | rosdep_keys | LAUNCH_ONLY | launch_packages, "declared but unused"
    pip_only = {name for name, key in PYTHON_DEPENDENCIES.items() if key is None and name in used}
    requires = {re.split(r"[<>=]", r)[0] for r in setup_kwargs["install_requires"]}
    assert pip_only <= requires
    assert {"actuator_models", "actuator_drivers", "actuator_sim"} <= requires & declared


def test_interface_package_generates_its_files():
    root = package_xml(INTERFACES)
    assert root.find("export/build_type").text == "ament_cmake"
    assert depends(root, "member_of_group") == {"rosidl_interface_packages"}
    assert "rosidl_default_generators" in depends(root, "buildtool_depend")
    assert "rosidl_default_runtime" in depends(root, "exec_depend")
    cmake = (INTERFACES / "CMakeLists.txt").read_text()
    listed = set(re.findall(r'"((?:msg|srv|action)/\w+\.(?:msg|srv|action))"', cmake))
    files = {str(p.relative_to(INTERFACES)) for kind in ("msg", "srv", "action") for p in (INTERFACES / kind).glob("*")}
    assert listed == files
    used_packages = set()
    for path in files:
        for line in (INTERFACES / path).read_text().splitlines():
            words = line.split("#")[0].split()
            if words and "/" in words[0] and words[0] != "---":
                used_packages.add(words[0].split("/")[0])
    assert used_packages <= depends(root, "depend")
    assert used_packages <= set(re.search(r"DEPENDENCIES ([\w ]+)", cmake).group(1).split())


def test_every_launched_executable_is_an_entry_point(entry_points):
    nodes = [c for path in LAUNCH_FILES for c in calls(ast.parse(path.read_text()), "Node")]
    launched = {literal(keyword(c, "executable")) for c in nodes if literal(keyword(c, "package")) == "actuator_bench"}
    assert launched and launched <= set(entry_points)
    for module, function in entry_points.values():
        source = REPO / "src" / "actuator_bench" / Path(*module.split(".")).with_suffix(".py")
        assert function in {f.name for f in ast.parse(source.read_text()).body if isinstance(f, ast.FunctionDef)}
    nodes = {name for name, (module, _) in entry_points.items() if name.endswith("_node") or module.endswith("node_main")}
    assert {entry_points[name] for name in nodes} == {("actuator_bench.node_main", name) for name in nodes}
    main_module = ast.parse((BENCH / "actuator_bench" / "node_main.py").read_text())
    runs = {ast.unparse(c.args[0]).strip("'\"") for c in calls(main_module, "run")}  # node_main.<name> runs nodes/<name>
    assert runs == nodes
    assert set(declared_by_module()) == {f"actuator_bench.nodes.{name}" for name in nodes if name.endswith("_node")}
    for name in nodes:
        assert "main" in {f.name for f in ast.parse((BENCH / "actuator_bench" / "nodes" / f"{name}.py").read_text()).body
                          if isinstance(f, ast.FunctionDef)}


def test_every_node_declares_parameters_with_a_description():
    for name, path, declared in node_modules():
        tree = ast.parse(path.read_text())
        for call in calls(tree, "declare_parameter"):
            assert len(call.args) == 3, f"{path.name}: {ast.unparse(call.args[0])} has no descriptor"
        assert declared, name


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_yaml_sets_only_declared_parameters(config):
    nodes = declared_by_name()
    sections = yaml.safe_load(config.read_text())
    assert sections
    for key, section in sections.items():
        name = key.rsplit("/", 1)[-1]
        assert key.startswith("/**/") and name in nodes, f"{config.name}: {key} is not one of {sorted(nodes)}"
        unknown = flatten(section["ros__parameters"]) - nodes[name] - BUILTIN_PARAMETERS
        assert not unknown, f"{config.name}: {name} does not declare {sorted(unknown)}"


def dict_keys(node: ast.AST, assignments: dict) -> set:
    """Keys of a dict literal, or of a dict literal assigned to a name."""
    if isinstance(node, ast.Name):
        node = assignments.get(node.id)
    if isinstance(node, ast.Dict):
        return {literal(k) for k in node.keys if k is not None}
    return set()


@pytest.mark.parametrize("launch_file", LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_files_set_only_declared_parameters(launch_file, entry_points):
    tree = ast.parse(launch_file.read_text())
    assignments = {t.id: n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                   if isinstance(t, ast.Name)}
    declared = declared_by_module()
    for call in calls(tree, "Node"):
        if literal(keyword(call, "package")) != "actuator_bench":
            continue
        executable = literal(keyword(call, "executable"))
        assert executable in entry_points
        module = f"actuator_bench.nodes.{executable}"  # what node_main.<executable> runs
        parameters = keyword(call, "parameters")
        keys = set().union(*(dict_keys(p, assignments) for p in parameters.elts)) if parameters else set()
        # (control_manager passes its parameters file on to ros2_control_node: it declares none itself)
        assert keys - BUILTIN_PARAMETERS <= declared.get(module, set()), f"{launch_file.name}: {module}"


@pytest.mark.parametrize("launch_file", LAUNCH_FILES, ids=lambda p: p.name)
def test_included_launch_files_declare_the_arguments_they_get(launch_file):
    tree = ast.parse(launch_file.read_text())
    assignments = {t.id: n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                   if isinstance(t, ast.Name)}
    for call in calls(tree, "IncludeLaunchDescription"):
        target = re.search(r"'(\w+\.launch\.py)'", ast.unparse(call.args[0])).group(1)
        arguments = declared_arguments(ast.parse((REPO / "launch" / target).read_text()))
        given = keyword(call, "launch_arguments").func.value  # {...}.items()
        keys = {literal(k) for k in given.keys if k is not None}
        keys |= set().union(*(dict_keys(v, assignments) for k, v in zip(given.keys, given.values) if k is None))
        assert keys <= arguments, f"{launch_file.name} -> {target}: {sorted(keys - arguments)}"


def test_launch_descriptions_build():
    pytest.importorskip("launch_ros", reason="launch_ros is part of ROS 2; not installed here")
    from launch.launch_description_sources import get_launch_description_from_python_launch_file

    for path in LAUNCH_FILES:
        description = get_launch_description_from_python_launch_file(str(path))
        assert description.get_launch_arguments()


@pytest.mark.parametrize("package", ["actuator_bench", "hybrid_sim", "actuator_sim", "actuator_drivers",
                                     "actuator_models"])
def test_colcon_test_runs_each_python_package_with_pytest(package):
    """colcon runs pytest (JUnit XML) only for a package whose setup.py lists pytest as a test
    dependency (else unittest, which writes no result file: issue 23, finding 7); pytest, run from
    the package folder, takes the package's test files of tests/ (conftest.py: package_tests)."""
    import configparser

    from conftest import LAYERS, owner

    folder = REPO / "src" / package
    assert "pytest" in setup_keywords(folder)["extras_require"]["test"]
    assert "python3-pytest" in depends(package_xml(folder), "test_depend")
    ini = configparser.ConfigParser()
    ini.read(folder / "setup.cfg")
    assert "../../tests" in ini["tool:pytest"]["testpaths"].split()
    assert ini["tool:pytest"]["package_tests"] == package
    assert package in LAYERS
    assert any(owner(path) == package for path in (REPO / "tests").glob("test_*.py"))


def test_make_test_runs_every_package_s_tests():
    """``make test`` passes src/actuator_bench/test too, so pytest takes that package's setup.cfg
    as its ini; its ``package_tests`` filters only where colcon runs pytest (from the package)."""
    import subprocess

    # one file of tests/ (collecting all of it imports optuna, MuJoCo and Warp: minutes on 2 busy
    # cores) beside the package's folder: the same common root, so the same ini file decides
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             "-k", "test_contact_start_has_zero_energy_and_zero_wrench", "tests/test_tire_model.py",
                             "src/actuator_bench/test"],
                            cwd=REPO, capture_output=True, text=True, timeout=300)
    assert "test_contact_start_has_zero_energy_and_zero_wrench" in result.stdout, result.stdout[-2000:]  # hybrid_sim's
