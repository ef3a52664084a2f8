"""Real and simulated bench side by side (bench.launch.py twice), compared live.

    ros2 launch actuator_bench compare.launch.py                      # real = emulated Dynamixel
    ros2 launch actuator_bench compare.launch.py backend:=dynamixel rviz:=true
    ros2 launch actuator_bench compare.launch.py backend:=erob_emulator record:=true
    ros2 service call /compare/run_trajectory actuator_interfaces/srv/RunTrajectory "{start: true}"
    ros2 topic echo /compare/error                                    # sim minus real, per joint
    ros2 action send_goal /compare/fit_models actuator_interfaces/action/FitModels "{logs: bags/<bag>, actuator: xl330}"

The real bench runs in namespace ``real`` (backend ``backend``), the simulation in ``sim``
(MuJoCo); the comparison node starts a run on both, publishes ``compare/error`` and places the
two benches side by side in TF (``/tf_static``); one recorder records both (``record:=true``:
from the start), one identification node serves ``/compare/fit_models``.

Every node, the simulated bench included, reads one bench YAML: ``config``, or the real
backend's own (``erob_bench.yaml`` for ``erob*``), so an eRob is compared with an eRob model.
Each bench include runs in its own launch-configuration scope (``GroupAction(scoped=True)``):
the arguments it sets (``record:=false``, ``backend:=mujoco``) stay its own.
"""

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, IncludeLaunchDescription, OpaqueFunction
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from actuator_bench.backends import installed_backends
from actuator_bench.launch_common import (STOP_TIMEOUT, arguments_checked, bench_config, common_arguments,
                                          config_file, launch_file, stop_on_failure)

BENCHES = {'real': None, 'sim': 'mujoco'}  # namespace -> backend (None: the backend argument)
TOPICS = ('joint_states', 'actuator_states', 'commands', 'bench_info')
RECORDED = [f'/{ns}/{topic}' for ns in BENCHES for topic in TOPICS]


def shared_nodes(config: str, record: bool) -> list:
    return [
        Node(package='actuator_bench', executable='comparison_node', namespace='compare',
             parameters=[config, {'benches': list(BENCHES), 'placement': [-0.15, 0.15]}],
             sigterm_timeout=STOP_TIMEOUT),
        Node(package='actuator_bench', executable='recorder_node', namespace='compare',
             parameters=[config, {'topics': [*RECORDED, 'error'], 'prefix': 'compare', 'autostart': record}],
             sigterm_timeout=STOP_TIMEOUT),
        Node(package='actuator_bench', executable='identification_node', namespace='compare', parameters=[config],
             sigterm_timeout=STOP_TIMEOUT),
        Node(package='rviz2', executable='rviz2', arguments=['-d', config_file('compare.rviz', __file__)],
             condition=IfCondition(LaunchConfiguration('rviz'))),
    ]


def benches_and_nodes(context: LaunchContext) -> list:
    """Both benches, each include scoped, and the shared nodes, all from the real backend's YAML."""
    config = bench_config(context, __file__)
    real = LaunchConfiguration('backend').perform(context)
    shared = {'config': config, 'description': LaunchConfiguration('description'), 'urdf': LaunchConfiguration('urdf')}
    benches = [GroupAction(scoped=True, actions=[IncludeLaunchDescription(
        PythonLaunchDescriptionSource(launch_file('bench.launch.py', __file__)),
        launch_arguments={**shared, 'namespace': ns, 'backend': backend or real,
                          'recorder': 'false', 'identification': 'false', 'record': 'false'}.items())])
        for ns, backend in BENCHES.items()]
    return [*benches, *shared_nodes(config, IfCondition(LaunchConfiguration('record')).evaluate(context))]


def generate_launch_description() -> LaunchDescription:
    backends = installed_backends()  # every installed family (entry points)
    return LaunchDescription([
        DeclareLaunchArgument('backend', default_value='dynamixel_emulator', choices=list(backends),
                              description=f'Backend of the real bench: {backends.describe()}'),
        DeclareLaunchArgument('rviz', default_value='false', description='Open RViz with config/compare.rviz'),
        *common_arguments(),
        arguments_checked(__file__),
        stop_on_failure(),
        OpaqueFunction(function=benches_and_nodes),
    ])
