"""actuator_drivers: servo drivers, their emulators and bench recording (no ROS import here).

Dynamixel: :mod:`.dynamixel_driver` (the driver, on dynamixel-sdk), :mod:`.dynamixel_emulator`
(a protocol-faithful emulated bus on a pseudo-terminal), :mod:`.recording` (identification
trajectories through a driver into JSON logs). Units: rad, rad/s, V, A, degC, s.
"""
