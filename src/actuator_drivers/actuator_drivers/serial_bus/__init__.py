"""The family-neutral core of the Protocol-1.0-style serial-bus servo families (ROS-free): a
family (its own subpackage: control tables, vendor SDK, status-error bits, units) subclasses
:mod:`.bus` (SDK transactions, retries, error counters, Ctrl-C deferral), :mod:`.driver` (SI
units, limits before sending, command watchdog, torque release read back) and :mod:`.bench` (the
driver as a bench); :mod:`.tables` (registers and control tables as data), :mod:`.servo` (a
servo's configuration and reading) and :mod:`.family` (what a family offers the command lines,
found through the ``actuator_bench.families`` entry points) are shared."""
