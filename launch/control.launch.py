"""ros2_control for a bench or an arm: the same URDF and controllers drive a servo or its model.

    ros2 launch actuator_bench control.launch.py robot:=pendulum backend:=mujoco
    ros2 launch actuator_bench control.launch.py robot:=pendulum backend:=dynamixel_emulator
    ros2 launch actuator_bench control.launch.py robot:=arm2r backend:=dynamixel config:=arm_mx.yaml
    ros2 launch actuator_bench control.launch.py robot:=so100 backend:=feetech_emulator
    ros2 launch actuator_bench control.launch.py robot:=so100 backend:=mujoco
    ros2 launch actuator_bench control.launch.py robot:=pendulum backend:=mock   # no servo

Starts robot_state_publisher (``robot_description``: the robot's URDF with its ``<ros2_control>``
tag, :mod:`actuator_bench.control_description`), ``ros2_control_node`` at ``update_rate`` Hz
(through ``control_manager``, which deactivates the controllers before stopping it),
the spawners of ``joint_state_broadcaster`` (``/joint_states``) and ``joint_trajectory_controller``
(``/joint_trajectory_controller/follow_joint_trajectory``; their parameters in a controllers YAML
written to a temporary folder, removed once the controller manager has exited), and, unless ``backend:=mock``, the
control node in namespace ``hardware``: the bench of ``backend`` behind the topic-based system's
``/hardware/joint_commands`` and ``/hardware/joint_states``, with its bench topics and a recorder
(``record:=true`` records from the start). Parameters come from ``config`` (a bench YAML), by
default the robot's (arm_mx.yaml, so100_arm.yaml) or, for the pendulum, the backend's.
``namespace:=NS`` puts the whole graph in ``NS`` (``/NS/controller_manager``,
``/NS/joint_trajectory_controller``, ``/NS/joint_states``, the control node in ``NS/hardware``):
two graphs side by side, as compare_control.launch.py runs them.
"""

import shutil
import tempfile
from pathlib import Path

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction, RegisterEventHandler
from launch.conditions import IfCondition
from launch.event_handlers import OnProcessExit
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from actuator_bench.backends import installed_backends
from actuator_bench.control_description import (MOCK, ROBOTS, UPDATE_RATE, check_backend, controllers_yaml,
                                                hardware_namespace, robot, robot_description)
from actuator_bench.launch_common import STOP_TIMEOUT, arguments_checked, config_file, stop_on_failure


def nodes(context: LaunchContext) -> list:
    name, backend = LaunchConfiguration('robot').perform(context), LaunchConfiguration('backend').perform(context)
    chosen = robot(name)
    check_backend(chosen, backend)
    rate = int(LaunchConfiguration('update_rate').perform(context))
    folder = Path(tempfile.mkdtemp(prefix='actuator_bench_control_'))
    controllers = folder / 'controllers.yaml'
    controllers.write_text(controllers_yaml(name, rate))
    namespace = LaunchConfiguration('namespace').perform(context).strip('/')
    manager = '/'.join(('', namespace, 'controller_manager')) if namespace else '/controller_manager'
    spawn = ['--controller-manager', manager, '--param-file', str(controllers)]
    # ros2_control_node, stopped after its controllers are deactivated (actuator_bench.nodes.control_manager);
    # the controllers YAML is removed once it has exited (its stop reads the file again: rclpy.init)
    manager_node = Node(package='actuator_bench', executable='control_manager', namespace=namespace,
                        parameters=[str(controllers)], sigterm_timeout=STOP_TIMEOUT)
    launched = [
        Node(package='robot_state_publisher', executable='robot_state_publisher', namespace=namespace,
             parameters=[{'robot_description': robot_description(name, backend == MOCK, namespace)}]),
        manager_node,
        RegisterEventHandler(OnProcessExit(target_action=manager_node,
                                           on_exit=lambda event, context: shutil.rmtree(folder, ignore_errors=True))),
        Node(package='controller_manager', executable='spawner', namespace=namespace,
             arguments=['joint_state_broadcaster', *spawn]),
        Node(package='controller_manager', executable='spawner', namespace=namespace,
             arguments=['joint_trajectory_controller', *spawn]),
    ]
    if backend == MOCK:
        return launched
    given = LaunchConfiguration('config').perform(context)
    config = config_file(given or chosen.config or installed_backends()[backend].config, __file__)
    port = LaunchConfiguration('port').perform(context)
    bench = {'backend': backend, 'rate': float(rate), **({'port': port} if port else {})}
    return launched + [
        Node(package='actuator_bench', executable='control_node', namespace=hardware_namespace(namespace),
             parameters=[config, bench], sigterm_timeout=STOP_TIMEOUT),
        Node(package='actuator_bench', executable='recorder_node', namespace=hardware_namespace(namespace),
             parameters=[config, {'autostart': LaunchConfiguration('record'),
                                  'prefix': hardware_namespace(namespace).replace('/', '_')}],
             condition=IfCondition(LaunchConfiguration('recorder')), sigterm_timeout=STOP_TIMEOUT),
    ]


def generate_launch_description() -> LaunchDescription:
    backends = installed_backends()
    return LaunchDescription([
        DeclareLaunchArgument('robot', default_value='pendulum', choices=list(ROBOTS),
                              description='Robot: the pendulum bench, the 2R arm (MX) or the six-joint SO-100'),
        DeclareLaunchArgument('backend', default_value='dynamixel_emulator', choices=[*backends, MOCK],
                              description=f'Hardware behind the controllers: {backends.describe()}, '
                                          f'or {MOCK} (ros2_control mock system, no servo)'),
        DeclareLaunchArgument('config', default_value='',
                              description="Bench YAML (a path, or a file of share/actuator_bench/config); empty: "
                                          "the robot's own, for the pendulum the backend's"),
        DeclareLaunchArgument('port', default_value='', description="Bus device (empty: the config's)"),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of the whole control graph (compare_control.launch.py: real, '
                                          'sim); empty: the root'),
        DeclareLaunchArgument('update_rate', default_value=str(UPDATE_RATE),
                              description='Controller manager and hardware rate [Hz]'),
        DeclareLaunchArgument('recorder', default_value='true', description='Run a recorder of the hardware topics'),
        DeclareLaunchArgument('record', default_value='false', description='Start recording a bag at once'),
        arguments_checked(__file__),
        stop_on_failure(),
        OpaqueFunction(function=nodes),
    ])
