"""A real servo and its identified twin, each behind the same controllers, compared live.

    ros2 launch actuator_bench compare_control.launch.py                         # real = emulated XL330
    ros2 launch actuator_bench compare_control.launch.py backend:=dynamixel port:=/dev/ttyUSB0
    ros2 run actuator_bench control_player --ros-args -p namespaces:="[real, sim]"   # both at once
    ros2 topic echo /compare/error                                               # sim minus real

control.launch.py twice: its whole graph in namespace ``real`` (backend ``backend``) and in
``sim`` (backend ``mujoco``: the servo model that the bench YAML names, in MuJoCo), each with
its robot_state_publisher, controller manager, joint_state_broadcaster,
joint_trajectory_controller and control node (``/real/hardware``, ``/sim/hardware``), both from
one bench YAML (``config``; empty: the robot's own, for the pendulum the real backend's). The
comparison node (``/compare/error``, :mod:`actuator_bench.nodes.comparison_node`) pairs the two
control nodes' joint states by bench time since each run's start (the ``bench_info`` of
``announce_run``, then the first command). Each include runs in its own launch-configuration
scope (``GroupAction(scoped=True)``).
"""

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, IncludeLaunchDescription, OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from actuator_bench.backends import installed_backends
from actuator_bench.control_description import ROBOTS, hardware_namespace, robot
from actuator_bench.launch_common import (STOP_TIMEOUT, arguments_checked, config_file, launch_file,
                                          stop_on_failure)

GRAPHS = {'real': None, 'sim': 'mujoco'}  # namespace -> backend (None: the backend argument)


def graphs_and_comparison(context: LaunchContext) -> list:
    name, real = LaunchConfiguration('robot').perform(context), LaunchConfiguration('backend').perform(context)
    given = LaunchConfiguration('config').perform(context)
    config = config_file(given or robot(name).config or installed_backends()[real].config, __file__)
    graphs = [GroupAction(scoped=True, actions=[IncludeLaunchDescription(
        PythonLaunchDescriptionSource(launch_file('control.launch.py', __file__)),
        launch_arguments={'robot': name, 'backend': backend or real, 'config': config, 'namespace': ns,
                          'port': LaunchConfiguration('port').perform(context) if backend is None else '',
                          'update_rate': LaunchConfiguration('update_rate'), 'recorder': 'false'}.items())])
        for ns, backend in GRAPHS.items()]
    comparison = Node(package='actuator_bench', executable='comparison_node', namespace='compare',
                      parameters=[config, {'benches': [hardware_namespace(ns) for ns in GRAPHS]}],
                      sigterm_timeout=STOP_TIMEOUT)
    return [*graphs, comparison]


def generate_launch_description() -> LaunchDescription:
    backends = installed_backends()
    return LaunchDescription([
        DeclareLaunchArgument('robot', default_value='pendulum', choices=list(ROBOTS),
                              description='Robot: the pendulum bench, the 2R arm (MX) or the six-joint SO-100'),
        DeclareLaunchArgument('backend', default_value='dynamixel_emulator', choices=list(backends),
                              description=f'Backend of the real servo: {backends.describe()}'),
        DeclareLaunchArgument('config', default_value='',
                              description="Bench YAML of both graphs (empty: the robot's own, for the pendulum the "
                                          "real backend's)"),
        DeclareLaunchArgument('port', default_value='', description="Bus device of the real servo (empty: the config's)"),
        DeclareLaunchArgument('update_rate', default_value='100', description='Controller manager and hardware rate [Hz]'),
        arguments_checked(__file__),
        stop_on_failure(),
        OpaqueFunction(function=graphs_and_comparison),
    ])
