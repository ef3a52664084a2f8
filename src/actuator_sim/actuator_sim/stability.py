"""A MuJoCo servo simulation that diverged is refused, never published as a joint state.

A params file with nonsense but finite values (``kt = 1e6``) makes the explicit step overshoot
more each step: the simulated bench (the sim node, the ros2_control twin, ``play --backend
mujoco``) published positions of 1e10 rad, or MuJoCo reset the diverging state to the model's
start without a word (its bad-acceleration warning) and the bench went on from there.

The rule is :mod:`actuator_models.divergence`'s for the MuJoCo replay, with the goal for the
logged position: a joint diverged when its position is not finite or more than
:data:`~actuator_models.divergence.DIVERGED_DISTANCE` (1000 rad) from its goal, or its speed is
not finite or :data:`~actuator_models.divergence.CLIP_SHARE` of the reference step's velocity
clip (:data:`~actuator_models.simulation.MAX_SPEED`, 100 rad/s) or more (the shipped models move
the shipped benches at 14 rad/s at most); and the simulation diverged when MuJoCo warned that it
is unstable (:data:`UNSTABLE`: kt = 1e6 made its control huge at the first step, then the
joint sat 5e4 rad away, its speed near zero at every other step).

Two places: :func:`probe` when a bench opens (a throwaway copy of its simulation holds a goal
:data:`~actuator_models.divergence.PROBE_STEP` away for
:data:`~actuator_models.divergence.PROBE_TIME`, at the bench's gains and step: values it cannot
integrate are refused before anything runs, one line, exit 2 in the commands and nodes), and
:func:`check` after every advance of a running bench (a gain set later can diverge too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

import mujoco
import numpy as np
from actuator_models.divergence import PROBE_STEP, PROBE_TIME, DivergentStep, breaks_rule, suspects
from actuator_models.simulation import MAX_SPEED

if TYPE_CHECKING:
    from actuator_sim.joint_sim import JointSimulation


#: MuJoCo's warnings of an unstable simulation: a position, velocity or acceleration not finite or
#: huge (MuJoCo then resets the state to the model's start), a control not finite or huge
UNSTABLE = (mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL, mujoco.mjtWarning.mjWARN_BADQACC,
            mujoco.mjtWarning.mjWARN_BADCTRL)


def resets(sim: "JointSimulation") -> int:
    """How many of MuJoCo's :data:`UNSTABLE` warnings ``sim`` has raised (each state reset is one)."""
    return sum(int(sim.data.warning[w].number) for w in UNSTABLE)


def check(sim: "JointSimulation", resets_before: int, sources: Optional[Sequence[str]] = None) -> None:
    """Raise :class:`~actuator_models.divergence.DivergentStep` when ``sim`` diverged: a joint
    breaks the module's rule now, or MuJoCo reset it since it counted ``resets_before``
    (:func:`resets`). The message names the joint (MuJoCo's reset: every joint), its model (as
    the user gave it where ``sources``, servo order, says: a params file or a library name), the
    time, the gain and step, and the values most likely to blame."""
    q, v = sim.position, sim.velocity
    bad = breaks_rule(q, sim.goal_position, np.where(np.isnan(v), np.inf, np.abs(v)), MAX_SPEED)  # NaN: diverged
    if bad.any():
        i = int(np.argmax(bad))
        joints = [i]
        when = (f"at t = {sim.data.time:.3f} s (position {float(q[i]):.3g} rad for a goal of "
                f"{float(sim.goal_position[i]):.3g}, speed {float(v[i]):.3g} rad/s)")
    elif resets(sim) > resets_before:
        joints = list(range(len(sim.servos)))
        when = "(MuJoCo's warning of an unstable simulation)"
    else:
        return
    named = ", ".join(f"{sources[i] + ': ' if sources else ''}joint {sim.servos[i].joint!r} "
                      f"({sim.servos[i].model.name}) at kp {sim.kp[i]:g}" for i in joints)
    blamed = dict.fromkeys(suspects(sim.servos[i].model.parameters, sim.servos[i].model.values) for i in joints)
    raise DivergentStep(f"{named}: its MuJoCo simulation diverged {when} with a {sim.timestep:g} s step: the explicit "
                        f"step cannot integrate these values; {'; '.join(blamed)}")


def probe(sim: "JointSimulation", sources: Sequence[str]) -> None:
    """Raise :class:`~actuator_models.divergence.DivergentStep` (:func:`check`) when ``sim`` (a
    throwaway copy: it is stepped and left so) diverges holding every joint's goal
    ``PROBE_STEP`` [rad] from where it starts for ``PROBE_TIME`` [s] (:mod:`actuator_models.divergence`), torque on."""
    before = resets(sim)
    sim.command(sim.position + PROBE_STEP, True)
    for _ in range(max(1, round(PROBE_TIME / sim.timestep))):
        sim.step()
        check(sim, before, sources)
