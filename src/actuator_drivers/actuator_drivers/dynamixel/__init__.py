"""Dynamixel servos on dynamixel-sdk: :mod:`.bus` (transactions, retries, counters), :mod:`.driver`
(SI units, limits, watchdog, safe release), :mod:`.tables` (control tables), :mod:`.errors`,
:mod:`.bench` (the bench of the ``dynamixel`` backend). Never imports its emulator."""
