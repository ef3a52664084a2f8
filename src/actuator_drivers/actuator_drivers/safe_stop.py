"""Safe stops: an interrupt (Ctrl-C, SIGTERM) can never leave a bus transaction half done.

A ``KeyboardInterrupt`` raised between dynamixel-sdk's ``txPacket`` and ``rxPacket`` leaves its
``PortHandler`` marked busy, and every later transaction (the torque release included) is
refused with "Port is in use!"; one raised between an EtherCAT frame's send and its receive
leaves a frame in flight. :class:`InterruptShield` (:mod:`actuator_models.interrupts`) defers SIGINT and SIGTERM while a driver
operation runs and delivers them when it ends, at the control loop's boundary, where the loop
releases the torque:

    shield = InterruptShield()
    with shield:           # reentrant; a no-op outside the main thread (signals go to the main thread)
        bus.transaction()  # a Ctrl-C arriving here is raised when the outermost block ends

:func:`terminate_as_interrupt` makes SIGTERM behave like Ctrl-C (a ``KeyboardInterrupt``) for
the duration of a command, so ``kill PID`` releases the torque like Ctrl-C does (exit 130).
"""

from __future__ import annotations

from actuator_models.exit_codes import terminate_as_interrupt
from actuator_models.interrupts import DEFERRED, InterruptShield

__all__ = ["DEFERRED", "InterruptShield", "terminate_as_interrupt"]  # re-exported: one definition each
