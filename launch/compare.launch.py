"""Real and simulated bench side by side (bench.launch.py twice), compared live.

    ros2 launch actuator_bench compare.launch.py                      # real = emulated Dynamixel
    ros2 launch actuator_bench compare.launch.py backend:=dynamixel rviz:=true
    ros2 service call /compare/run_trajectory actuator_interfaces/srv/RunTrajectory "{start: true}"
    ros2 topic echo /compare/error                                    # sim minus real, per joint
    ros2 action send_goal /compare/fit_models actuator_interfaces/action/FitModels "{logs: bags/<bag>, actuator: xl330}"

The real bench runs in namespace ``real`` (backend ``backend``), the simulation in ``sim``
(MuJoCo); the comparison node starts a run on both, publishes ``compare/error`` and places the
two benches side by side in TF (``/tf_static``); one recorder records both, one identification
node serves ``/compare/fit_models``.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from actuator_bench.backends import installed_backends
from actuator_bench.launch_common import bench_config, common_arguments, config_file, launch_file

BENCHES = {'real': None, 'sim': 'mujoco'}  # namespace -> backend (None: the backend argument)
TOPICS = ('joint_states', 'actuator_states', 'commands', 'bench_info')
RECORDED = [f'/{ns}/{topic}' for ns in BENCHES for topic in TOPICS]


def shared_nodes(context) -> list:
    config = bench_config(context, __file__)
    return [
        Node(package='actuator_bench', executable='comparison_node', namespace='compare',
             parameters=[config, {'benches': list(BENCHES), 'placement': [-0.15, 0.15]}]),
        Node(package='actuator_bench', executable='recorder_node', namespace='compare',
             parameters=[config, {'topics': [*RECORDED, 'error'], 'prefix': 'compare',
                                  'autostart': LaunchConfiguration('record')}]),
        Node(package='actuator_bench', executable='identification_node', namespace='compare', parameters=[config]),
        Node(package='rviz2', executable='rviz2', arguments=['-d', config_file('compare.rviz', __file__)],
             condition=IfCondition(LaunchConfiguration('rviz'))),
    ]


def generate_launch_description() -> LaunchDescription:
    shared = {name: LaunchConfiguration(name) for name in ('config', 'description', 'urdf')}
    backends = installed_backends()  # every installed family (entry points)
    return LaunchDescription([
        DeclareLaunchArgument('backend', default_value='dynamixel_emulator', choices=list(backends),
                              description=f'Backend of the real bench: {backends.describe()}'),
        DeclareLaunchArgument('rviz', default_value='false', description='Open RViz with config/compare.rviz'),
        *common_arguments(),
        *(IncludeLaunchDescription(
            PythonLaunchDescriptionSource(launch_file('bench.launch.py', __file__)),
            launch_arguments={**shared, 'namespace': ns, 'backend': backend or LaunchConfiguration('backend'),
                              'recorder': 'false', 'identification': 'false', 'record': 'false'}.items())
          for ns, backend in BENCHES.items()),
        OpaqueFunction(function=shared_nodes),
    ])
