"""The nodes on a real ROS 2 graph (rclpy, in one process): skipped where ROS 2 is absent.

Run with a sourced workspace that has actuator_interfaces built (``colcon build``, then
``source install/setup.bash``); with pytest >= 8 add ``-p no:launch_testing -p no:launch_ros``
(ROS's launch_testing plugins do not load with it). The real bench is the bench node with the
``dynamixel_emulator`` backend; the simulated one the same node with ``mujoco``; the comparison
node starts the same run on both and publishes ``compare/error``, the recorder writes a bag that
converts to logs, and the identification node fits them through its service and its action.

No assertion depends on how fast the host is: the test waits for events (the end of the runs)
with generous timeouts and checks what was recorded, not how many messages arrived.
"""

import json
import math
import os
import threading
import time
from pathlib import Path

import pytest
from graph_turn import graph_turn

rclpy = pytest.importorskip("rclpy", reason="rclpy is absent: source a ROS 2 installation to run the node tests")
interfaces = pytest.importorskip("actuator_interfaces.msg",
                                 reason="actuator_interfaces is not built: colcon build the workspace and source it")

from action_msgs.msg import GoalStatus  # noqa: E402
from actuator_interfaces.action import FitModels  # noqa: E402
from actuator_interfaces.msg import ActuatorCommand, ActuatorState, BenchInfo  # noqa: E402
from actuator_interfaces.srv import FitModels as FitModelsService, RunTrajectory  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402

from actuator_bench.bag2json import bag_logs, find_runs, read_streams  # noqa: E402
from actuator_bench.interfaces import ACTUATOR_STATE, MessageCodec, interfaces_share  # noqa: E402
from actuator_bench.bench_core import Publication  # noqa: E402
from actuator_bench.messages import JointSample, actuator_state_fields  # noqa: E402
from actuator_bench.nodes.bench_node import BenchNode  # noqa: E402
from actuator_bench.nodes.common import LATCHED_QOS, SENSOR_QOS, message  # noqa: E402
from actuator_bench.nodes.comparison_node import ComparisonNode  # noqa: E402
from actuator_bench.nodes.identification_node import IdentificationNode  # noqa: E402
from actuator_bench.nodes.recorder_node import RecorderNode  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "config" / "xl330_bench.yaml"


def test_rosbags_encoding_is_the_rmw_encoding():
    """Bags written without ROS hold exactly the bytes rclpy would publish."""
    sample = JointSample(1.5, ("pendulum",), (0.1,), (0.2,), (0.3,), (1.0,), (7.4,), (31.0,), (True,), (4,))
    ns = 1_700_000_000_123_456_789
    assert MessageCodec().encode(ACTUATOR_STATE, actuator_state_fields(sample), ns) == serialize_message(
        message(Publication("actuator_states", actuator_state_fields(sample)), ns))


def test_rosbags_type_hashes_are_those_of_rosidl():
    """rosbags' RIHS01 hashes of the custom messages equal rosidl's, so ros2 bag accepts our bags."""
    codec = MessageCodec()
    for name in ("ActuatorCommand", "ActuatorState", "BenchInfo"):
        description = json.loads((interfaces_share() / "msg" / f"{name}.json").read_text())
        (entry,) = [h for h in description["type_hashes"] if h["type_name"] == f"actuator_interfaces/msg/{name}"]
        assert codec.typestore.hash_rihs01(f"actuator_interfaces/msg/{name}") == entry["hash_string"]


@pytest.fixture
def graph(tmp_path):
    """real (emulated Dynamixel) + sim (MuJoCo) bench nodes + comparison + recorder + identification,
    in this process, once no other graph of these tests runs on the machine (:mod:`graph_turn`)."""
    with graph_turn():
        yield from _graph(tmp_path)


def _graph(tmp_path):
    rclpy.init(args=["--ros-args", "--params-file", str(CONFIG)])
    executor = MultiThreadedExecutor()
    nodes = [
        BenchNode(namespace="real", parameter_overrides=[Parameter("backend", value="dynamixel_emulator")]),
        BenchNode(namespace="sim", parameter_overrides=[Parameter("backend", value="mujoco")]),
        ComparisonNode(namespace="compare"),
        RecorderNode(namespace="compare", parameter_overrides=[
            Parameter("topics", value=["/real/joint_states", "/real/commands", "/real/bench_info",
                                       "/real/actuator_states", "/sim/joint_states", "/sim/commands",
                                       "/sim/bench_info", "error"]),
            Parameter("output_dir", value=str(tmp_path / "bags"))]),
        IdentificationNode(namespace="compare", parameter_overrides=[
            Parameter("output_root", value=str(tmp_path / "fits")), Parameter("feedback_period", value=0.2)]),
    ]
    client = rclpy.create_node("test_client")
    for node in (*nodes, client):
        executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield client
    executor.shutdown()
    thread.join(timeout=5)
    for node in (*nodes, client):
        node.destroy_node()
    rclpy.try_shutdown()


def call(client, srv_type, name, request, timeout=60.0):
    service = client.create_client(srv_type, name)
    assert service.wait_for_service(timeout_sec=10.0), name
    future = service.call_async(request)
    wait(future.done, timeout)
    return future.result()


def wait(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert condition(), f"not done in {timeout} s"


def collect(client, msg_type, topic, qos=SENSOR_QOS):
    received = []
    client.create_subscription(msg_type, topic, received.append, qos)
    return received


@pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")
def test_graph_plays_records_compares_and_fits(graph):
    client = graph
    real = collect(client, JointState, "/real/joint_states")
    sim = collect(client, JointState, "/sim/joint_states")
    states = collect(client, ActuatorState, "/real/actuator_states")
    errors = collect(client, JointState, "/compare/error")
    commands = collect(client, ActuatorCommand, "/sim/commands", 10)
    infos = {ns: collect(client, BenchInfo, f"/{ns}/bench_info", LATCHED_QOS) for ns in ("real", "sim")}
    assert call(client, SetBool, "/compare/recorder/record", SetBool.Request(data=True)).success

    response = call(client, RunTrajectory, "/compare/run_trajectory",
                    RunTrajectory.Request(start=True, trajectory="up_and_down", kp=400.0))
    assert response.success and response.duration == 6.0, response.message
    ran = {ns: lambda ns=ns: [i.trajectory for i in infos[ns]][-2:] == ["up_and_down", ""] for ns in infos}
    wait(lambda: all(done() for done in ran.values()), 120)  # both runs over (torque released)
    bag = Path(call(client, SetBool, "/compare/recorder/record", SetBool.Request(data=False)).message)

    assert commands and commands[-1].torque_enable == [False]
    assert real and states and states[-1].input_voltage[0] > 7.0
    assert max(m.position[0] for m in real) > 1.0 and max(m.position[0] for m in sim) > 1.0  # raised to ~pi/2
    assert errors and all(e.name == ["pendulum"] for e in errors)
    error = sorted(abs(e.position[0]) for e in errors)
    assert error[len(error) // 2] < 0.1  # median: the same servo model on both sides (they part once released)

    logs = {ns: log for log in bag_logs(bag) for ns in ("real", "sim") if f"_{ns}_000_" in log.source}
    assert set(logs) == {"real", "sim"}
    streams = read_streams(bag)
    for ns, log in logs.items():  # t = 0 at the first command. The 6 s trajectory was played to its end:
        # its run (bench_info) closes at the first cycle past 6 s of bench time. The log ends at a cycle
        # before (the messages carry their samples' bench time: none after the run's end), which a stall
        # of a busy host may put 1 s early or more (the 4x play of test_bench_commands: 4.89 s in CI)
        (run,) = find_runs(f"/{ns}", streams[f"/{ns}"])
        played = run.duration
        assert log.trajectory == "up_and_down" and played > 6.0 and 0.0 < log.timestamp[-1] < min(played, 6.1)
        assert log.position.max() > 1.0

    fit = call(client, FitModelsService, "/compare/fit_models", FitModelsService.Request(
        logs=str(bag), actuator="xl330", models=["m1"], trials=12, validation_fraction=0.0, force=True),
        timeout=300)  # 2 logs for M1's 6 parameters: below the one-log-per-two rule, so forced
    assert fit.success, fit.message
    assert fit.models == ["m1"] and math.isfinite(fit.train_mae[0]) and math.isnan(fit.validation_mae[0])

    action = ActionClient(client, FitModels, "/compare/fit_models")
    assert action.wait_for_server(timeout_sec=10.0)
    feedback = []
    goal = FitModels.Goal(logs=str(bag), actuator="xl330", models=["m1", "m2"], trials=48, validation_fraction=0.0,
                          force=True)
    sent = action.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback))
    wait(sent.done, 60)
    result_future = sent.result().get_result_async()
    wait(result_future.done, 300)
    result = result_future.result().result
    assert result.success and result.models == ["m1", "m2"] and result.best_model in ("m1", "m2")
    assert feedback and {f.model for f in feedback} <= {"m1", "m2"} and all(f.trials == 48 for f in feedback)
    assert Path(result.report_dir, "report.json").is_file()

    feedback.clear()  # a long fit, cancelled once it reports progress
    goal = FitModels.Goal(logs=str(bag), actuator="xl330", models=["m6"], trials=100_000, validation_fraction=0.0,
                          force=True)
    sent = action.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback))
    wait(lambda: sent.done() and feedback, 120)
    cancel = sent.result().cancel_goal_async()
    wait(cancel.done, 10)
    result_future = sent.result().get_result_async()
    wait(result_future.done, 120)
    assert result_future.result().status == GoalStatus.STATUS_CANCELED
    assert "cancelled while fitting m6" in result_future.result().result.message
    action.destroy()


@pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")
def test_bench_info_is_latched_for_late_joiners():
    rclpy.init()
    try:
        player = BenchNode(namespace="late", parameter_overrides=[Parameter("backend", value="mujoco")])
        listener = rclpy.create_node("listener")
        infos = collect(listener, BenchInfo, "/late/bench_info", LATCHED_QOS)
        deadline = time.monotonic() + 5.0
        while not infos and time.monotonic() < deadline:
            rclpy.spin_once(player, timeout_sec=0.05)
            rclpy.spin_once(listener, timeout_sec=0.05)
        assert infos and infos[0].trajectory == "" and infos[0].actuator == "xl330"
        player.destroy_node()
        listener.destroy_node()
    finally:
        rclpy.try_shutdown()


@pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")
def test_the_sim_node_publishes_the_temperature_a_thermal_model_simulates(tmp_path):
    """``actuator_states.temperature`` of the simulated bench is its thermal model's case node,
    started at the node's ``temperature`` parameter (at rest in a 40-degC ambient it stays there);
    the shipped model, without one, publishes NaN as before."""
    from actuator_models.model import new_model, save_model

    params = tmp_path / "thermal.json"
    save_model(new_model("xl330", "m6", additions=("thermal",)).with_values(thermal_ambient=40.0), params)
    rclpy.init()
    try:
        nodes = [BenchNode(namespace=name, parameter_overrides=[Parameter("backend", value="mujoco"), *extra])
                 for name, extra in (("hot", [Parameter("models", value=[str(params)]),
                                              Parameter("temperature", value=40.0)]), ("plain", []))]
        listener = rclpy.create_node("listener")
        states = {node.get_namespace(): collect(listener, ActuatorState, f"{node.get_namespace()}/actuator_states")
                  for node in nodes}
        deadline = time.monotonic() + 10.0
        while not all(states.values()) and time.monotonic() < deadline:
            for node in (*nodes, listener):
                rclpy.spin_once(node, timeout_sec=0.02)
        assert list(states["/hot"][0].temperature) == [40.0]
        assert math.isnan(states["/plain"][0].temperature[0])
        for node in (*nodes, listener):
            node.destroy_node()
    finally:
        rclpy.try_shutdown()


@pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")
def test_the_control_node_refuses_a_run_it_cannot_name_and_keeps_the_one_named():
    """announce_run answered success to an unknown trajectory (bench_info named it, recordings
    carried it), to an end_time of NaN, -1 or inf, to a start_time already past, and a refused request cleared the schedule of the
    run already named; start with no trajectory announced 'idle' instead of the trajectory parameter."""
    from actuator_bench.nodes.control_node import ControlNode

    rclpy.init()
    try:
        node = ControlNode(namespace="named", parameter_overrides=[Parameter("backend", value="mujoco")])
        client = rclpy.create_node("announcer")
        service = client.create_client(RunTrajectory, "/named/announce_run")

        def announce(**fields):
            future = service.call_async(RunTrajectory.Request(start=True, kp=400.0, **fields))
            deadline = time.monotonic() + 10.0
            while not future.done() and time.monotonic() < deadline:
                rclpy.spin_once(node, timeout_sec=0.02)
                rclpy.spin_once(client, timeout_sec=0.02)
            return future.result()

        assert service.wait_for_service(timeout_sec=10.0)
        start = client.get_clock().now().nanoseconds * 1e-9 + 100.0
        assert announce(trajectory="up_and_down", start_time=start, end_time=6.0).success
        named = (node.pending, node.end_at)
        for fields, expected in ((dict(trajectory="zigzag"), "unknown trajectory 'zigzag'"),
                                 (dict(trajectory="up_and_down", start_time=start - 200.0), "s past when the run was named"),
                                 *((dict(trajectory="up_and_down", start_time=start, end_time=bad), f"end_time {bad}")
                                   for bad in (math.nan, -1.0, math.inf))):
            answer = announce(**fields)
            assert not answer.success and expected in answer.message, answer.message
        assert (node.pending, node.end_at) == named and node.core.loop.player.info.trajectory == "up_and_down"
        answer = announce(trajectory="")
        assert answer.success and answer.message == "bench_info: sin_sin", answer.message  # the parameter's
        node.destroy_node()
        client.destroy_node()
    finally:
        rclpy.try_shutdown()


@pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")
def test_the_control_node_keeps_the_torque_on_through_a_stall_of_its_own():
    """The control node (MuJoCo, command timeout 0.5 s) does not run for 0.8 s while a
    controller goes on commanding from another thread: rclpy's executor then runs the node's due
    timer before its subscription. That cycle released the torque (no command taken for 0.8 s);
    the commands waiting in the queue now keep it on. Commands that really stop still release it."""
    from rclpy.executors import SingleThreadedExecutor

    from actuator_bench.nodes.common import COMMAND_QOS
    from actuator_bench.nodes.control_node import ControlNode

    rclpy.init()
    stop = threading.Event()
    try:
        node = ControlNode(namespace="stalled", parameter_overrides=[Parameter("backend", value="mujoco")])
        commander = rclpy.create_node("commander")
        publisher = commander.create_publisher(JointState, "/stalled/joint_commands", COMMAND_QOS)
        joint = node.core.params.joints[0]

        def command() -> None:
            while not stop.is_set():
                publisher.publish(JointState(name=[joint], position=[0.3]))
                time.sleep(0.01)

        thread = threading.Thread(target=command, daemon=True)
        thread.start()
        executor = SingleThreadedExecutor()
        executor.add_node(node)

        def spin(seconds: float) -> None:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                executor.spin_once(timeout_sec=0.01)

        spin(1.0)
        assert node.hardware.driving and node.hardware.timeouts == 0
        time.sleep(0.8)  # the stall: no callback of the node runs
        spin(0.5)
        assert node.hardware.driving and node.hardware.timeouts == 0
        assert bool(node.hardware.bench.sim.torque_enable[0])
        stop.set()
        thread.join(timeout=10)
        spin(1.5)
        assert node.hardware.timeouts == 1 and not node.hardware.driving
        assert not bool(node.hardware.bench.sim.torque_enable[0])
        executor.shutdown()
        node.destroy_node()
        commander.destroy_node()
    finally:
        stop.set()
        rclpy.try_shutdown()


#: the bench parameters of each backend compared (the rest: the node's defaults); the Feetech
#: emulator needs an STS bench (config/sts3215_bench.yaml's values)
BACKEND_PARAMETERS = {
    "dynamixel_emulator": {},
    "mujoco": {},
    "feetech_emulator": {"actuators": ["sts3215"], "models": ["sts3215/m1"], "kp": [32.0], "vin": [7.4],
                         "baudrate": 1000000, "mass": 0.3, "length": 0.1},
}


@pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")
@pytest.mark.parametrize("other", ["mujoco", "feetech_emulator"])
def test_backends_offer_the_same_topics_types_and_qos(other):
    rclpy.init()
    try:
        seen = {}
        for backend in ("dynamixel_emulator", other):
            overrides = [Parameter("backend", value=backend)]
            overrides += [Parameter(name, value=value) for name, value in BACKEND_PARAMETERS[backend].items()]
            node = BenchNode(namespace=backend, parameter_overrides=overrides)
            offered = {}  # the node's own publishers (the graph cache fills asynchronously: not asked)
            for topic, pub in node.pubs.items():
                qos = pub.qos_profile
                assert pub.topic_name == f"/{backend}/{topic}"
                offered[topic] = (pub.msg_type, qos.reliability, qos.durability, qos.history, qos.depth)
            seen[backend] = offered
            node.destroy_node()
        assert seen["dynamixel_emulator"] == seen[other]
        assert {"joint_states", "actuator_states", "commands", "bench_info"} <= set(seen[other])
    finally:
        rclpy.try_shutdown()
