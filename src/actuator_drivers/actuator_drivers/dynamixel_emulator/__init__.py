"""The emulated Dynamixel bus on a pseudo-terminal, over the serial-bus emulator core
(:mod:`actuator_drivers.serial_bus_emulator`): :mod:`.packets` (Protocol 1.0/2.0 packets),
:mod:`.firmware` (one servo's control table and shaft), :mod:`.emulator` (the bus, fault
injection, lockstep clock), :mod:`.emulated` and :mod:`.bench` (start an emulator, then open the
real driver or bench on it: the ``dynamixel_emulator`` backend)."""
