"""A simulated bench: MuJoCo sim node, trajectory player, recorder, identification, robot_state_publisher.

    ros2 launch launch/sim.launch.py
    ros2 service call /sim/run_trajectory actuator_interfaces/srv/RunTrajectory "{start: true}"
    ros2 launch launch/sim.launch.py real_time_factor:=4.0 use_sim_time:=true   # 4x faster

The same topics as bench.launch.py, in ``namespace`` (sim), from the same bench YAML.
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


def generate_launch_description() -> LaunchDescription:
    config = LaunchConfiguration('config')
    namespace = LaunchConfiguration('namespace')
    sim_time = {'use_sim_time': LaunchConfiguration('use_sim_time')}
    return LaunchDescription([
        DeclareLaunchArgument('config', default_value=str(DEFAULT_CONFIG), description='Bench YAML'),
        DeclareLaunchArgument('namespace', default_value='sim', description='Namespace of the bench topics'),
        DeclareLaunchArgument('real_time_factor', default_value='1.0', description='Simulated seconds per wall second'),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Publish the simulated time on /clock and run the other nodes on it'),
        DeclareLaunchArgument('record', default_value='false', description='Start recording a bag at once'),
        DeclareLaunchArgument('player', default_value='true', description='Run a trajectory player for this bench'),
        DeclareLaunchArgument('recorder', default_value='true', description='Run a recorder for this bench'),
        DeclareLaunchArgument('identification', default_value='true', description='Run the identification node'),
        DeclareLaunchArgument('description', default_value='true', description='Run robot_state_publisher'),
        DeclareLaunchArgument('urdf', default_value='pendulum.urdf', description='URDF for robot_state_publisher'),
        Node(package='actuator_bench', executable='sim_node', namespace=namespace,
             parameters=[config, {'real_time_factor': LaunchConfiguration('real_time_factor'),
                                  'publish_clock': LaunchConfiguration('use_sim_time')}]),
        Node(package='actuator_bench', executable='trajectory_node', namespace=namespace,
             parameters=[config, sim_time], condition=IfCondition(LaunchConfiguration('player'))),
        Node(package='actuator_bench', executable='recorder_node', namespace=namespace,
             parameters=[config, sim_time, {'autostart': LaunchConfiguration('record'), 'prefix': namespace}],
             condition=IfCondition(LaunchConfiguration('recorder'))),
        Node(package='actuator_bench', executable='identification_node',
             parameters=[config], condition=IfCondition(LaunchConfiguration('identification'))),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(HERE / 'description.launch.py')),
            launch_arguments={'namespace': namespace, 'urdf': LaunchConfiguration('urdf')}.items(),
            condition=IfCondition(LaunchConfiguration('description'))),
    ])
