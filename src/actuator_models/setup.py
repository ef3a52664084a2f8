"""actuator_models: friction models, actuator models and bench simulation (no ROS).

pip-installable (``pip install -e src/actuator_models``) and an ament_python package.
"""

from setuptools import find_packages, setup

PACKAGE = "actuator_models"

setup(
    name=PACKAGE,
    version="0.1.0",
    description="Extended friction models (M1-M6) for servo actuators: simulation and identification",
    license="Apache-2.0",
    packages=find_packages(exclude=["test"]),
    package_data={PACKAGE: ["library/*/*.json", "library/*.md"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
    ],
    python_requires=">=3.10",
    # scipy: least-squares fit of the Dahl loading branch (dahl_identification)
    # numba: the compiled rollout kernel of identification (kernel.py)
    install_requires=["numpy>=1.24", "optuna>=3.6,<6", "numba>=0.59", "matplotlib>=3.7", "pyyaml>=6",
                      "scipy>=1.10"],
    extras_require={"test": ["pytest"]},  # colcon test runs pytest (JUnit XML) when listed here
    zip_safe=True,
    maintainer="actuator_bench developers",
    maintainer_email="actuator-bench@example.org",
    entry_points={"console_scripts": ["actuator-models = actuator_models.cli:console_main"]},
)
