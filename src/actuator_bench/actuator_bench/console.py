"""The ``actuator-bench`` console script.

The command's modules (numpy, optuna, MuJoCo, the SDKs) take seconds to import on a busy
machine; a Ctrl-C in that time used to end in a ``KeyboardInterrupt`` traceback and exit -2.
Nothing is open or written yet then, so it is said in one line and the exit status is 130, as
for any interrupted command. Only the standard library is imported here.
"""

from __future__ import annotations

import sys

#: exit status of an interrupted command (actuator_models.exit_codes says the same)
INTERRUPTED = 130


def main() -> int:
    try:
        from actuator_bench.cli import main as run
    except KeyboardInterrupt:
        print("actuator-bench: interrupted while starting; nothing was opened or written", file=sys.stderr)
        return INTERRUPTED
    return run()
