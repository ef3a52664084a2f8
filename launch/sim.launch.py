"""A simulated bench: bench.launch.py with the MuJoCo backend in namespace ``sim``.

    ros2 launch actuator_bench sim.launch.py
    ros2 service call /sim/run_trajectory actuator_interfaces/srv/RunTrajectory "{start: true}"

The same graph as a real bench (one parameter changed), from the same bench YAML.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration

from actuator_bench.launch_common import arguments_checked, common_arguments, launch_file

FORWARDED = ('namespace', 'recorder', 'identification', 'config', 'record', 'description', 'urdf')


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription([
        DeclareLaunchArgument('namespace', default_value='sim', description='Namespace of the bench topics'),
        DeclareLaunchArgument('recorder', default_value='true', description='Run a recorder for this bench'),
        DeclareLaunchArgument('identification', default_value='true', description='Run the identification node'),
        *common_arguments(),
        arguments_checked(__file__),
        GroupAction(scoped=True, actions=[IncludeLaunchDescription(
            PythonLaunchDescriptionSource(launch_file('bench.launch.py', __file__)),
            launch_arguments={'backend': 'mujoco',
                              **{name: LaunchConfiguration(name) for name in FORWARDED}}.items())]),
    ])
