"""actuator_sim: MuJoCo joint simulation with extended friction models (no ROS in the core class).

pip-installable (``pip install -e src/actuator_sim``) and an ament_python package.
"""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "actuator_sim"

setup(
    name=PACKAGE,
    version="0.1.0",
    description="MuJoCo simulation of servo joints with friction models M1-M6, pendulum and 2R arm models",
    license="Apache-2.0",
    packages=find_packages(exclude=["test"]),
    package_data={PACKAGE: ["models/*.xml", "models/*.urdf"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/models", glob(f"{PACKAGE}/models/*")),
    ],
    python_requires=">=3.10",
    install_requires=["actuator_models", "numpy>=1.24", "mujoco>=3.2", "matplotlib>=3.7"],
    extras_require={
        "test": ["pytest"],  # colcon test runs pytest (JUnit XML) when listed here
        # the servo step on MuJoCo Warp (actuator_sim.warp_servo); `make install` installs it
        "warp": ["mujoco-warp>=4.0", "warp-lang>=1.19"],
    },
    zip_safe=False,
    maintainer="actuator_bench developers",
    maintainer_email="actuator-bench@example.org",
    entry_points={
        "console_scripts": ["actuator-sim = actuator_sim.cli:main"],
        # bench backends of this package, found by actuator_bench.backends.installed_backends
        "actuator_bench.backends": [
            "mujoco = actuator_sim.bench:BACKEND",
        ],
        # `actuator-models evaluate --backend NAME`: MuJoCo with the servo step in the loop, the
        # native export in plain MuJoCo, MuJoCo Warp (mjwarp needs the warp extra)
        "actuator_models.evaluation_backends": [
            "mujoco = actuator_sim.replay:log_maes",
            "mujoco-native = actuator_sim.native:log_maes",
            "mjwarp = actuator_sim.warp_evaluate:log_maes",
        ],
    },
)
