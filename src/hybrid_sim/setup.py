"""hybrid_sim: a SimSect-style hybrid dynamical simulator (charts, events, transitions) on scipy.

pip-installable (``pip install -e src/hybrid_sim``) and an ament_python package; no ROS import.
"""

from setuptools import find_packages, setup

PACKAGE = "hybrid_sim"

setup(
    name=PACKAGE,
    version="0.1.0",
    description="Hybrid dynamical simulation (SimSect-style charts, boundaries, transitions): SLIP, hexapod, "
    "exact stick/slip pendulum reference",
    license="Apache-2.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
    ],
    python_requires=">=3.10",
    # scipy: solve_ivp (adaptive RK with dense output and event location) is the integrator.
    install_requires=["actuator_models", "numpy>=1.24", "scipy>=1.10", "matplotlib>=3.7"],
    # mujoco: only `hybrid-sim wheel --mujoco` (hybrid_sim.wheel_mujoco) runs the wheel in MuJoCo.
    extras_require={"mujoco": ["mujoco>=3.2"],
                    "test": ["pytest"]},  # colcon test runs pytest (JUnit XML) when listed here, not unittest
    zip_safe=False,
    maintainer="actuator_bench developers",
    maintainer_email="actuator-bench@example.org",
    entry_points={"console_scripts": ["hybrid-sim = hybrid_sim.cli:main"]},
)
