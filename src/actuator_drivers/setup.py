"""actuator_drivers: Dynamixel, Feetech STS (on one serial-bus core) and eRob (EtherCAT) drivers, their emulators and bench recording (no ROS in these modules).

pip-installable (``pip install -e src/actuator_drivers``) and an ament_python package.
"""

from setuptools import find_packages, setup

PACKAGE = "actuator_drivers"

setup(
    name=PACKAGE,
    version="0.1.0",
    description="Servo drivers (Dynamixel via dynamixel-sdk), a pseudo-terminal Dynamixel emulator and bench recording",
    license="Apache-2.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
    ],
    python_requires=">=3.10",
    # pysoem: the EtherCAT master (SOEM) for eRob, manylinux wheels; pyroute2: veth pairs over
    # netlink for the EtherCAT emulator without relying on the `ip` binary being installed;
    # feetech-servo-sdk: the Feetech STS SDK LeRobot installs (module scservo_sdk, docs/FEETECH.md)
    install_requires=["actuator_models", "numpy>=1.24", "dynamixel-sdk>=3.7.31", "pyserial>=3.5",
                      "pysoem>=1.1.13", "pyroute2>=0.7", "feetech-servo-sdk>=1.0.0"],
    package_data={"actuator_drivers.feetech_emulator": ["*.json"]},
    extras_require={"test": ["pytest"]},  # colcon test runs pytest (JUnit XML) when listed here
    zip_safe=True,
    maintainer="actuator_bench developers",
    maintainer_email="actuator-bench@example.org",
    # ``actuator-bench`` (package actuator_bench) includes these subcommands; this entry serves a
    # stand-alone install and avoids two packages claiming the same script.
    entry_points={
        "console_scripts": ["actuator-drivers = actuator_drivers.cli:main"],
        # the actuator families of this package (their bench backends, grids, demo, emulator), found
        # by actuator_models.family.installed_families; their backends by actuator_bench.backends
        "actuator_bench.families": [
            "dynamixel = actuator_drivers.dynamixel.family:FAMILY",
            "erob = actuator_drivers.erob.family:FAMILY",
            "feetech = actuator_drivers.feetech.family:FAMILY",
        ],
    },
)
