"""robot_state_publisher for one bench, its TF frames prefixed with the bench namespace.

    ros2 launch launch/description.launch.py namespace:=sim urdf:=pendulum.urdf

``urdf`` is a file of actuator_sim's models folder (pendulum.urdf, arm_mx.urdf, arm_erob.urdf)
or a path. Included by bench.launch.py and sim.launch.py.
"""

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from actuator_bench.launch_common import arguments_checked, urdf_file


def robot_state_publisher(context: LaunchContext) -> list:
    namespace = LaunchConfiguration('namespace').perform(context)
    return [Node(
        package='robot_state_publisher',
        executable='robot_state_publisher',
        namespace=namespace,
        parameters=[{
            'robot_description': urdf_file(LaunchConfiguration('urdf').perform(context)).read_text(),
            'frame_prefix': f'{namespace}/' if namespace else '',
        }],
    )]


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription([
        DeclareLaunchArgument('namespace', default_value='', description='Bench namespace (real, sim)'),
        DeclareLaunchArgument('urdf', default_value='pendulum.urdf',
                              description="URDF: a file of actuator_sim's models folder, or a path"),
        arguments_checked(__file__),
        OpaqueFunction(function=robot_state_publisher),
    ])
