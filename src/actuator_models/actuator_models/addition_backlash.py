"""``backlash`` [rad]: gear play between the drive and the output (a model addition, :mod:`.addition`).

The standard play ("deadzone") model: the simulated state ``(q, v)`` is the drive train (motor,
gears and the arm in contact, all the inertia as before); the output (the arm: where the encoder
reads, where gravity acts, what the log records) stays where it is until the drive has crossed the
play::

    q_out <- clip(q_out, q - backlash / 2, q + backlash / 2)         (after each step)

starting centred (``q_out = q``): that output is its per-step state. The firmware's control law and
the gravity torque see ``q_out``; the motor's back-EMF and the friction see the drive's velocity
``v``. The output is kinematic (held by its friction while in the gap): this does not model an
output that gravity throws across the gap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .addition import Addition
from .parameters import Parameter, ParamValues, Value, clip

BACKLASH = Parameter("backlash", 0.0, 0.0, 0.1, "rad", "gear play between drive and output", "bl")


def play(q_out: Value, q: Value, backlash: Value) -> Value:
    """The output position [rad] after the drive moved to ``q`` [rad]: unchanged while within
    the play ``backlash`` [rad], else dragged at its edge."""
    half = 0.5 * backlash
    return clip(q_out, q - half, q + half)


class Backlash(Addition):
    name = "backlash"
    title = "gear backlash"
    parameters = (BACKLASH,)
    kernel_columns = ("backlash",)
    continuous_hooks = ("on_output",)  # the play is a hysteresis: rate-independent, one float of state

    def start(self, q: Value, p: ParamValues, dt: Value) -> Any:
        shape = np.broadcast_shapes(np.shape(q), np.shape(p["backlash"]))
        return float(q) if shape == () else np.broadcast_to(q, shape).copy()

    def output(self, state: Any, q: Value) -> Value:
        return state

    def on_output(self, state: Any, q: Value, p: ParamValues) -> Any:
        return play(state, q, p["backlash"])


BACKLASH_ADDITION = Backlash()
