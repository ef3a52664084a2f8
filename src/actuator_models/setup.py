"""actuator_models: friction models, actuator models and bench simulation (no ROS).

pip-installable (``pip install -e src/actuator_models``) and an ament_python package.
"""

from setuptools import Extension, find_packages, setup

PACKAGE = "actuator_models"

setup(
    name=PACKAGE,
    version="0.1.0",
    description="Extended friction models (M1-M6) for servo actuators: simulation and identification",
    license="Apache-2.0",
    packages=find_packages(exclude=["test"]),
    # the compiled twin of the servo step (kernel.py loads it with ctypes: a plain C library, no
    # Python API): the numpy step's operations in its order, so no contraction into fused
    # multiply-adds and no fast-math; POSIX threads share out the (parameter set, log) jobs
    ext_modules=[Extension(f"{PACKAGE}._servo_kernel", [f"{PACKAGE}/servo_kernel.c"],
                           extra_compile_args=["-O2", "-std=c11", "-ffp-contract=off", "-fno-fast-math", "-pthread"],
                           extra_link_args=["-pthread"], libraries=["m"])],
    package_data={PACKAGE: ["library/*/*.json", "library/*.md"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
    ],
    python_requires=">=3.10",
    # scipy: least-squares fit of the Dahl loading branch (dahl_identification)
    install_requires=["numpy>=1.24", "optuna>=3.6,<6", "matplotlib>=3.7", "pyyaml>=6",
                      "scipy>=1.10", "threadpoolctl>=3"],
    extras_require={"test": ["pytest"]},  # colcon test runs pytest (JUnit XML) when listed here
    zip_safe=True,
    maintainer="actuator_bench developers",
    maintainer_email="actuator-bench@example.org",
    entry_points={"console_scripts": ["actuator-models = actuator_models.cli:console_main"]},
)
