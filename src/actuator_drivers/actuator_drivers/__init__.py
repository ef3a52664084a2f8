"""actuator_drivers: servo drivers and their emulators (no ROS import here).

Dynamixel: :mod:`.dynamixel_driver` (the driver, on dynamixel-sdk), :mod:`.dynamixel_emulator`
(a protocol-faithful emulated bus on a pseudo-terminal). eRob: :mod:`.erob_driver` (pysoem),
:mod:`.erob_bench`. Recording trajectories through them is ``actuator_bench.recording``.
Units: rad, rad/s, V, A, degC, s.
"""
