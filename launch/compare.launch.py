"""Real and simulated bench side by side, driven by one trajectory player, compared live.

    ros2 launch launch/compare.launch.py driver:=emulator rviz:=true
    ros2 service call /run_trajectory actuator_interfaces/srv/RunTrajectory "{start: true, trajectory: sin_sin}"
    ros2 topic echo /compare/error                      # sim minus real, per joint
    plotjuggler --layout config/plotjuggler_compare.xml

The real bench runs in namespace ``real`` (bench.launch.py), the simulation in ``sim``
(sim.launch.py); the player publishes the same commands to both, the comparison node publishes
``compare/error``, the recorder can record everything (``record:=true``).
"""

from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

HERE = Path(__file__).resolve().parent
DEFAULT_CONFIG = HERE.parent / 'config' / 'xl330_bench.yaml'
BENCHES = ('real', 'sim')
TOPICS = ('joint_states', 'actuator_states', 'commands', 'bench_info')
RECORDED = [f'{ns}/{topic}' for ns in BENCHES for topic in TOPICS]


def generate_launch_description() -> LaunchDescription:
    config = LaunchConfiguration('config')
    shared = {'config': config, 'player': 'false', 'recorder': 'false', 'identification': 'false',
              'description': LaunchConfiguration('description'), 'urdf': LaunchConfiguration('urdf')}
    return LaunchDescription([
        DeclareLaunchArgument('driver', default_value='dynamixel', choices=['dynamixel', 'emulator'],
                              description='Real bench: dynamixel hardware or emulator'),
        DeclareLaunchArgument('config', default_value=str(DEFAULT_CONFIG), description='Bench YAML'),
        DeclareLaunchArgument('record', default_value='false', description='Start recording a bag at once'),
        DeclareLaunchArgument('description', default_value='true', description='Run a robot_state_publisher per bench'),
        DeclareLaunchArgument('urdf', default_value='pendulum.urdf', description='URDF for robot_state_publisher'),
        DeclareLaunchArgument('rviz', default_value='false', description='Open RViz with config/compare.rviz'),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(HERE / 'bench.launch.py')),
            launch_arguments={**shared, 'namespace': 'real', 'driver': LaunchConfiguration('driver')}.items()),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(HERE / 'sim.launch.py')),
            launch_arguments={**shared, 'namespace': 'sim'}.items()),
        Node(package='actuator_bench', executable='trajectory_node',
             parameters=[config, {'namespaces': list(BENCHES)}]),
        Node(package='actuator_bench', executable='comparison_node', parameters=[config]),
        Node(package='actuator_bench', executable='recorder_node',
             parameters=[config, {'topics': [*RECORDED, 'compare/error'], 'prefix': 'compare',
                                  'autostart': LaunchConfiguration('record')}]),
        Node(package='actuator_bench', executable='identification_node', parameters=[config]),
        *(Node(package='tf2_ros', executable='static_transform_publisher', name=f'{ns}_placement',
               arguments=['--y', offset, '--frame-id', 'world', '--child-frame-id', f'{ns}/base_link'],
               condition=IfCondition(LaunchConfiguration('description')))
          for ns, offset in (('real', '-0.15'), ('sim', '0.15'))),
        Node(package='rviz2', executable='rviz2', arguments=['-d', str(HERE.parent / 'config' / 'compare.rviz')],
             condition=IfCondition(LaunchConfiguration('rviz'))),
    ])
