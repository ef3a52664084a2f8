"""One bench of any backend: bench node (one control loop), recorder, identification, robot_state_publisher.

    ros2 launch actuator_bench bench.launch.py                                # emulated Dynamixel
    ros2 launch actuator_bench bench.launch.py backend:=dynamixel config:=mx64_bench.yaml   # hardware
    ros2 launch actuator_bench bench.launch.py backend:=mujoco namespace:=sim
    ros2 service call /real/run_trajectory actuator_interfaces/srv/RunTrajectory \
        "{start: true, trajectory: sin_sin, kp: 400}"

Topics live in ``namespace`` (real): joint_states, actuator_states, commands, bench_info; the
identification node serves ``<namespace>/fit_models``. Parameters come from ``config`` (a bench
YAML: a path or a file of share/actuator_bench/config). The description include is scoped
(``GroupAction(scoped=True)``): its arguments do not leak into this file's.
"""

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, IncludeLaunchDescription, OpaqueFunction
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from actuator_bench.backends import installed_backends
from actuator_bench.launch_common import (STOP_TIMEOUT, arguments_checked, bench_config, common_arguments,
                                          launch_file, stop_on_failure)


def nodes(context: LaunchContext) -> list:
    config = bench_config(context, __file__)
    namespace = LaunchConfiguration('namespace')
    return [
        Node(package='actuator_bench', executable='bench_node', namespace=namespace,
             parameters=[config, {'backend': LaunchConfiguration('backend')}], sigterm_timeout=STOP_TIMEOUT),
        Node(package='actuator_bench', executable='recorder_node', namespace=namespace,
             parameters=[config, {'autostart': LaunchConfiguration('record'), 'prefix': namespace}],
             condition=IfCondition(LaunchConfiguration('recorder')), sigterm_timeout=STOP_TIMEOUT),
        Node(package='actuator_bench', executable='identification_node', namespace=namespace,
             parameters=[config], condition=IfCondition(LaunchConfiguration('identification')),
             sigterm_timeout=STOP_TIMEOUT),
    ]


def generate_launch_description() -> LaunchDescription:
    backends = installed_backends()  # every installed family (entry points)
    return LaunchDescription([
        DeclareLaunchArgument('backend', default_value='dynamixel_emulator', choices=list(backends),
                              description=f'Bench backend: {backends.describe()}'),
        DeclareLaunchArgument('namespace', default_value='real', description='Namespace of the bench topics'),
        DeclareLaunchArgument('recorder', default_value='true', description='Run a recorder for this bench'),
        DeclareLaunchArgument('identification', default_value='true', description='Run the identification node'),
        *common_arguments(),
        arguments_checked(__file__),
        stop_on_failure(),
        OpaqueFunction(function=nodes),
        GroupAction(scoped=True, condition=IfCondition(LaunchConfiguration('description')), actions=[
            IncludeLaunchDescription(
                PythonLaunchDescriptionSource(launch_file('description.launch.py', __file__)),
                launch_arguments={'namespace': LaunchConfiguration('namespace'),
                                  'urdf': LaunchConfiguration('urdf')}.items())]),
    ])
