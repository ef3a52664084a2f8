"""Each launch argument of each launch file reaches the nodes it names (issue 23, findings 1 and 4).

The launch files are evaluated by :mod:`launch_harness`: with ROS 2's ``launch``/``launch_ros``
where they are importable (``real``), and always with the harness's double of the launch API
(``double``, see its docstring for what it models). Nothing is started: the nodes each launch
would start are collected with their resolved parameters.
"""

from pathlib import Path

import pytest

from launch_harness import REPO, SIM_SHARE, evaluate

try:
    import launch_ros  # noqa: F401

    HAVE_LAUNCH = True
except ImportError:
    HAVE_LAUNCH = False

IMPLEMENTATIONS = ["double", pytest.param("real", marks=pytest.mark.skipif(
    not HAVE_LAUNCH, reason="launch_ros is part of ROS 2; not installed here"))]


@pytest.fixture(params=IMPLEMENTATIONS)
def launch(request, monkeypatch):
    return lambda launch_file, **arguments: evaluate(request.param, launch_file, arguments, monkeypatch)


def ours(nodes, executable, namespace=None):
    return [n for n in nodes if n.executable == executable and (namespace is None or n.namespace == namespace)]


def one(nodes, executable, namespace=None):
    (node,) = ours(nodes, executable, namespace)
    return node


def actuators(node):
    return node.parameters["actuators"] if "actuators" in node.parameters else None


# ----------------------------------------------------------------------------- compare.launch.py
def test_compare_defaults(launch):
    nodes = launch("compare.launch.py")
    assert one(nodes, "bench_node", "real").parameters["backend"] == "dynamixel_emulator"
    assert one(nodes, "bench_node", "sim").parameters["backend"] == "mujoco"
    assert one(nodes, "recorder_node", "compare").parameters["autostart"] is False
    assert len(ours(nodes, "recorder_node")) == len(ours(nodes, "identification_node")) == 1  # the benches' are off
    assert not ours(nodes, "rviz2")
    assert {n.namespace for n in ours(nodes, "robot_state_publisher")} == {"real", "sim"}
    for node in ours(nodes, "bench_node") + ours(nodes, "comparison_node") + ours(nodes, "identification_node"):
        assert [Path(f).name for f in node.config_files] == ["xl330_bench.yaml"]
        assert node.sigterm_timeout == "10"


def test_compare_record_reaches_the_recorder(launch):
    """Finding 1: the included bench launches set record:=false; scoped, they do not override it."""
    nodes = launch("compare.launch.py", record="true")
    recorder = one(nodes, "recorder_node", "compare")
    assert recorder.parameters["autostart"] is True
    assert "/real/joint_states" in recorder.parameters["topics"] and "/sim/joint_states" in recorder.parameters["topics"]


@pytest.mark.parametrize("backend", ["erob_emulator", "erob"])
def test_compare_backend_configures_both_sides_from_the_real_actuator(launch, backend):
    """Finding 4: an eRob is compared with an eRob model (the sim side, comparison, recorder and
    identification all read erob_bench.yaml), and backend:=... is not overridden by the sim include."""
    nodes = launch("compare.launch.py", backend=backend)
    assert one(nodes, "bench_node", "real").parameters["backend"] == backend
    assert one(nodes, "bench_node", "sim").parameters["backend"] == "mujoco"
    for node in ours(nodes, "bench_node"):
        assert actuators(node) == ["erob80_100"] and node.parameters["mass"] == 3.1
    for name in ("comparison_node", "recorder_node", "identification_node"):
        assert [Path(f).name for f in one(nodes, name).config_files] == ["erob_bench.yaml"]


def test_compare_rviz(launch):
    (rviz,) = ours(launch("compare.launch.py", rviz="true"), "rviz2")
    assert rviz.arguments[0] == "-d" and Path(rviz.arguments[1]).name == "compare.rviz"


def test_compare_config(launch):
    nodes = launch("compare.launch.py", config="mx64_bench.yaml", backend="erob_emulator")
    for node in ours(nodes, "bench_node") + ours(nodes, "recorder_node") + ours(nodes, "identification_node"):
        assert [Path(f).name for f in node.config_files] == ["mx64_bench.yaml"]
    assert actuators(one(nodes, "bench_node", "sim")) == ["mx64"]


def test_compare_description_and_urdf(launch):
    assert not ours(launch("compare.launch.py", description="false"), "robot_state_publisher")
    urdf = SIM_SHARE / "models" / "arm_mx.urdf"
    publishers = ours(launch("compare.launch.py", urdf=str(urdf)), "robot_state_publisher")
    assert len(publishers) == 2
    for node in publishers:
        assert node.parameters["robot_description"] == urdf.read_text()
        assert node.parameters["frame_prefix"] == f"{node.namespace}/"


# ----------------------------------------------------------------------------- bench.launch.py
def test_bench_defaults(launch):
    nodes = launch("bench.launch.py")
    bench = one(nodes, "bench_node", "real")
    assert bench.parameters["backend"] == "dynamixel_emulator" and actuators(bench) == ["xl330"]
    recorder = one(nodes, "recorder_node", "real")
    assert recorder.parameters["autostart"] is False and recorder.parameters["prefix"] == "real"
    assert one(nodes, "identification_node", "real").sigterm_timeout == "10"
    assert one(nodes, "robot_state_publisher", "real").parameters["frame_prefix"] == "real/"


def test_bench_backend_namespace_record(launch):
    nodes = launch("bench.launch.py", backend="erob_emulator", namespace="left", record="true")
    bench = one(nodes, "bench_node", "left")
    assert bench.parameters["backend"] == "erob_emulator" and actuators(bench) == ["erob80_100"]
    recorder = one(nodes, "recorder_node", "left")
    assert recorder.parameters["autostart"] is True and recorder.parameters["prefix"] == "left"
    assert one(nodes, "robot_state_publisher", "left").parameters["frame_prefix"] == "left/"


def test_bench_recorder_identification_description_switches(launch):
    nodes = launch("bench.launch.py", recorder="false", identification="false", description="false")
    assert [n.executable for n in nodes] == ["bench_node"]


def test_bench_config_and_urdf(launch):
    config = REPO / "config" / "mx64_bench.yaml"
    urdf = SIM_SHARE / "models" / "arm_mx.urdf"
    nodes = launch("bench.launch.py", config=str(config), urdf=str(urdf))
    assert one(nodes, "bench_node").config_files == [str(config)]
    assert one(nodes, "robot_state_publisher").parameters["robot_description"] == urdf.read_text()


def test_bench_refuses_an_unknown_backend(launch):
    with pytest.raises(Exception, match="ax12|choice|not in"):
        launch("bench.launch.py", backend="ax12")


# ----------------------------------------------------------------------------- sim.launch.py
def test_sim_defaults_and_every_forwarded_argument(launch):
    nodes = launch("sim.launch.py")
    assert one(nodes, "bench_node", "sim").parameters["backend"] == "mujoco"
    assert one(nodes, "recorder_node", "sim").parameters["autostart"] is False
    assert one(nodes, "robot_state_publisher", "sim")
    nodes = launch("sim.launch.py", namespace="twin", record="true", config="erob_bench.yaml")
    assert actuators(one(nodes, "bench_node", "twin")) == ["erob80_100"]
    assert one(nodes, "recorder_node", "twin").parameters["autostart"] is True
    nodes = launch("sim.launch.py", recorder="false", identification="false", description="false")
    assert [n.executable for n in nodes] == ["bench_node"]
    urdf = SIM_SHARE / "models" / "arm_erob.urdf"
    assert one(launch("sim.launch.py", urdf=str(urdf)), "robot_state_publisher").parameters[
        "robot_description"] == urdf.read_text()


# ----------------------------------------------------------------------------- description.launch.py
def test_description_namespace_and_urdf(launch):
    node = one(launch("description.launch.py"), "robot_state_publisher")
    assert node.namespace == "" and node.parameters["frame_prefix"] == ""
    assert node.parameters["robot_description"] == (SIM_SHARE / "models" / "pendulum.urdf").read_text()
    node = one(launch("description.launch.py", namespace="sim", urdf="arm_mx.urdf"), "robot_state_publisher")
    assert node.namespace == "sim" and node.parameters["frame_prefix"] == "sim/"
    assert node.parameters["robot_description"] == (SIM_SHARE / "models" / "arm_mx.urdf").read_text()


# ----------------------------------------------------------------------------- refused arguments
@pytest.mark.parametrize("launch_file, arguments, named", [
    ("bench.launch.py", {"recorder": "maybe"}, "recorder:='maybe': not a boolean"),
    ("sim.launch.py", {"identification": "yes"}, "identification:='yes': not a boolean"),
    ("compare.launch.py", {"rviz": "on"}, "rviz:='on': not a boolean"),
    ("bench.launch.py", {"urdf": "/no/such.urdf"}, "urdf:='/no/such.urdf': not a file"),
    ("description.launch.py", {"urdf": "nope.urdf"}, "urdf:='nope.urdf': not a file"),
    ("control.launch.py", {"update_rate": "fast"}, "update_rate:='fast': must be a whole number"),
    ("compare_control.launch.py", {"update_rate": "-5"}, "update_rate:='-5': must be a whole number"),
    ("bench.launch.py", {"config": "compare.rviz"}, "config:='compare.rviz': .*not a mapping"),
    ("control.launch.py", {"config": "plotjuggler_compare.xml"}, "config:='plotjuggler_compare.xml': not a readable"),
])
def test_a_bad_argument_is_refused_naming_it_before_any_node(launch, launch_file, arguments, named):
    """A value no node can run with is refused by the check that runs before the nodes, naming
    the argument (a node the launch started before a later action failed outlived ``ros2 launch``)."""
    with pytest.raises(ValueError, match=named):
        launch(launch_file, **arguments)


def test_a_yaml_with_no_bench_section_is_not_a_bench_config(launch, tmp_path):
    recorder_only = tmp_path / "recorder.yaml"
    recorder_only.write_text("/**/recorder:\n  ros__parameters:\n    output_dir: bags\n")
    with pytest.raises(ValueError, match="no section for the bench node"):
        launch("bench.launch.py", config=str(recorder_only))
    nested = tmp_path / "nested.yaml"  # a namespace's bench, rcl's nested form
    nested.write_text("real:\n  bench:\n    ros__parameters:\n      rate: 50.0\n")
    assert one(launch("bench.launch.py", config=str(nested)), "bench_node").config_files == [str(nested)]
    misspelt = tmp_path / "misspelt.yaml"  # the node would ignore it and run on the default rate
    misspelt.write_text("/**/bench:\n  ros__parameters:\n    rat: 50.0\n")
    with pytest.raises(ValueError, match=r"/\*\*/bench: key 'rat' \(value 50.0\) is not a bench parameter "
                                         r"\(did you mean 'rate'\?\)"):
        launch("bench.launch.py", config=str(misspelt))


def test_an_unused_urdf_is_not_checked(launch):
    assert [n.executable for n in launch("bench.launch.py", description="false", urdf="nope.urdf",
                                         recorder="False", identification="0")] == ["bench_node"]
