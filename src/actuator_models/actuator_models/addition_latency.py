"""``latency`` [s]: a transport delay of the commands (a model addition, :mod:`.addition`).

The goal position and the torque enable reach the firmware ``latency`` late. On a bench the host
writes goals over a serial bus (or EtherCAT) and reads the position back the same way; both delays
lie outside the servo's own position loop, and for a time-invariant plant delaying every input by
``d`` is delaying the response by ``d``: one parameter stands for the command and the read-back
delay together. In steps of ``dt``, with ``d = latency / dt``, ``n = floor(d)``, ``f = d - n``::

    goal_k   = goal[k - n] + f (goal[k - n - 1] - goal[k - n])     (linear interpolation)
    enable_k = enable[k - ceil(d)]                                   (the last command sent)

with indices below 0 clamped to 0 (the first command holds before the log starts). The goal is
interpolated so that the cost is continuous in ``latency`` (a zero-order hold would make it a
staircase CMA-ES cannot descend); the enable is a switch, held.

Its per-step state is the recent commands (a ring of ``max(n) + 2`` slots per servo) and the step
count: the same state for one servo (floats) and for a batch (arrays), so a step-by-step simulator
and the batched rollout run the same arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np

from .addition import Addition
from .parameters import Parameter, ParamValues, Value

LATENCY = Parameter("latency", 0.0, 0.0, 0.05, "s", "transport delay of goal and torque-enable commands", "td")


def delay_steps(latency: Value, dt: Value) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, f, n_enable)``: whole steps, fraction and whole steps of the held enable of a delay
    of ``latency`` [s] at step ``dt`` [s] (arrays, broadcast)."""
    delay = np.asarray(latency / dt, dtype=float)
    whole = np.floor(delay)
    fraction = delay - whole
    return whole.astype(np.int64), fraction, (whole + (fraction > 0)).astype(np.int64)


@dataclass
class CommandRing:
    """The commands sent so far, as far back as the delay reaches: ``goals``/``enables`` of shape
    ``(..., slots)``, written at slot ``k % slots``; ``k`` the next step; ``delay`` from
    :func:`delay_steps`."""

    goals: np.ndarray
    enables: np.ndarray
    k: int
    delay: Tuple[np.ndarray, np.ndarray, np.ndarray]


class Latency(Addition):
    name = "latency"
    title = "command latency"
    parameters = (LATENCY,)
    kernel_columns = ("latency",)
    continuous_hooks = ("on_command",)  # dt -> 0: every command reaches the firmware `latency` late

    def start(self, q: Value, p: ParamValues, dt: Value) -> Any:
        delay = delay_steps(p["latency"], dt)
        slots = int(np.max(delay[0])) + 2
        shape = np.broadcast_shapes(np.shape(q), np.shape(delay[0]))
        return CommandRing(np.zeros(shape + (slots,)), np.zeros(shape + (slots,), dtype=bool), 0, delay)

    def on_command(self, state: Any, goal: Value, enable: Value, p: ParamValues, dt: Value
                   ) -> Tuple[Any, Value, Value]:
        ring: CommandRing = state
        slots = ring.goals.shape[-1]
        k = ring.k
        ring.goals[..., k % slots] = goal
        ring.enables[..., k % slots] = enable
        whole, fraction, held = ring.delay

        def back(items: np.ndarray, steps: np.ndarray) -> np.ndarray:
            at = np.broadcast_to(np.maximum(k - steps, 0) % slots, items.shape[:-1])
            return np.take_along_axis(items, at[..., None], axis=-1)[..., 0]

        g0 = back(ring.goals, whole)
        goal = g0 + fraction * (back(ring.goals, whole + 1) - g0)
        enable = back(ring.enables, held)
        ring.k = k + 1
        if np.ndim(goal) == 0:
            return ring, float(goal), bool(enable)
        return ring, goal, enable

    def command_delay(self, p: ParamValues) -> float:
        return float(p["latency"])

    def describe(self, value: float) -> str:
        return f"latency {1000 * value:.3g} ms"


LATENCY_ADDITION = Latency()
