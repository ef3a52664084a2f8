"""A real bench: Dynamixel driver, trajectory player, recorder, identification, robot_state_publisher.

    ros2 launch launch/bench.launch.py                       # servos on config's port
    ros2 launch launch/bench.launch.py driver:=emulator      # no hardware: emulated servos
    ros2 service call /real/run_trajectory actuator_interfaces/srv/RunTrajectory \
        "{start: true, trajectory: sin_sin, kp: 400}"

Topics live in ``namespace`` (real): joint_states, actuator_states, commands, bench_info.
Parameters come from ``config`` (a bench YAML of config/).
"""

from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PythonExpression
from launch_ros.actions import Node

HERE = Path(__file__).resolve().parent
DEFAULT_CONFIG = HERE.parent / 'config' / 'xl330_bench.yaml'


def generate_launch_description() -> LaunchDescription:
    config = LaunchConfiguration('config')
    namespace = LaunchConfiguration('namespace')
    emulate = PythonExpression(["'", LaunchConfiguration('driver'), "' == 'emulator'"])
    return LaunchDescription([
        DeclareLaunchArgument('driver', default_value='dynamixel', choices=['dynamixel', 'emulator'],
                              description='dynamixel: servos on the configured port; emulator: emulated servos'),
        DeclareLaunchArgument('config', default_value=str(DEFAULT_CONFIG), description='Bench YAML'),
        DeclareLaunchArgument('namespace', default_value='real', description='Namespace of the bench topics'),
        DeclareLaunchArgument('record', default_value='false', description='Start recording a bag at once'),
        DeclareLaunchArgument('player', default_value='true', description='Run a trajectory player for this bench'),
        DeclareLaunchArgument('recorder', default_value='true', description='Run a recorder for this bench'),
        DeclareLaunchArgument('identification', default_value='true', description='Run the identification node'),
        DeclareLaunchArgument('description', default_value='true', description='Run robot_state_publisher'),
        DeclareLaunchArgument('urdf', default_value='pendulum.urdf', description='URDF for robot_state_publisher'),
        Node(package='actuator_bench', executable='driver_node', namespace=namespace,
             parameters=[config, {'emulate': emulate}]),
        Node(package='actuator_bench', executable='trajectory_node', namespace=namespace,
             parameters=[config], condition=IfCondition(LaunchConfiguration('player'))),
        Node(package='actuator_bench', executable='recorder_node', namespace=namespace,
             parameters=[config, {'autostart': LaunchConfiguration('record'), 'prefix': namespace}],
             condition=IfCondition(LaunchConfiguration('recorder'))),
        Node(package='actuator_bench', executable='identification_node',
             parameters=[config], condition=IfCondition(LaunchConfiguration('identification'))),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(HERE / 'description.launch.py')),
            launch_arguments={'namespace': namespace, 'urdf': LaunchConfiguration('urdf')}.items(),
            condition=IfCondition(LaunchConfiguration('description'))),
    ])
