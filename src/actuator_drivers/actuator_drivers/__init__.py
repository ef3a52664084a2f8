"""actuator_drivers: servo drivers and their emulators, one subpackage per actuator family (no ROS
import here).

* :mod:`.common`: what every family shares (clocks, driver errors, EtherCAT AL codes, the
  one-driver bench base); :mod:`.safe_stop`: Ctrl-C / SIGTERM never cut a transaction short.
* :mod:`.dynamixel`: Dynamixel servos on dynamixel-sdk (bus, driver, tables, errors, bench);
  :mod:`.dynamixel_emulator`: its protocol-faithful emulated bus on a pseudo-terminal.
* :mod:`.erob`: eRob drives over EtherCAT with pysoem (line bring-up, CiA 402 drive cycle,
  units, bench); :mod:`.ethercat_emulator`: an EtherCAT slave in software on a veth pair.
* :mod:`.cli`, :mod:`.erob_cli`: the command line (emulate, veth, the driver options).

A family's subpackage never imports its emulator: the emulator subpackages open the real bench
on an emulator (their ``bench`` modules). Every family's bench is registered as an entry point
of group ``actuator_bench.backends``. Recording through them is ``actuator_bench.recording``.
Units: rad, rad/s, V, A, degC, s.
"""
