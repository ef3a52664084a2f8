"""actuator_bench: ROS 2 nodes (driver, sim, trajectory player, recorder, identification,
comparison) over ROS-free cores, and the ``actuator-bench`` command.

An ament_python package; also pip-installable (``pip install -e src/actuator_bench``) for the
ROS-free parts (bags, conversion, sessions) and the command line.
"""

from glob import glob
from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "actuator_bench"
NODES = ("bench_node", "recorder_node", "identification_node", "comparison_node", "control_node",
         "control_player", "control_manager")
HERE = Path(__file__).resolve().parent


def shared(folder: str, pattern: str) -> tuple:
    """``(share/actuator_bench/<folder>, files)`` of the repository's top-level ``folder``.

    The launch files and configs live at the repository root (the project's layout); paths are
    relative to this file's folder, as setuptools wants them, so ``pip install src/actuator_bench``
    and colcon's ament_python build both install them into the package's share folder.
    """
    return (f"share/{PACKAGE}/{folder}", sorted(glob(f"../../{folder}/{pattern}", root_dir=HERE)))

setup(
    name=PACKAGE,
    version="0.1.0",
    description="ROS 2 layer of the actuator bench: nodes, recording to MCAP bags, bag to JSON logs",
    license="Apache-2.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        shared("launch", "*.launch.py"),
        shared("config", "*.yaml"),
        shared("config", "*.rviz"),
        shared("config", "*.xml"),
    ],
    python_requires=">=3.10",
    install_requires=[
        "actuator_models", "actuator_drivers", "actuator_sim",
        "numpy>=1.24", "rosbags>=0.10", "optuna>=3.6", "mujoco>=3.2",
    ],
    extras_require={"test": ["pytest"]},  # colcon test runs the test/ folder with pytest when listed here
    zip_safe=True,
    maintainer="actuator_bench developers",
    maintainer_email="actuator-bench@example.org",
    entry_points={
        "console_scripts": [
            "actuator-bench = actuator_bench.console:main",  # Ctrl-C while importing: one line, 130
            # node_main: without ROS 2 one line (exit 2); with it, stop signals held until the node spins
            *(f"{node} = {PACKAGE}.node_main:{node}" for node in NODES),  # runs nodes/<node>.py's main
        ]
    },
)
