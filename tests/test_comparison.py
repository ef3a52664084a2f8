"""Issue 33: the comparison pairs a real and a simulated bench by bench time since each one's
trajectory start, so the start-up offset between the two benches, their clocks and their
``time_scale`` never enter sim minus real.

A real simulated run (the ``mujoco`` backend paced by the wall clock times ``time_scale``, through
the bench node's core and its publications, each stamped with its cycle's bench time) is compared
with itself as the comparison node receives two benches: the "real" copy on a clock 12.5 s ahead
and started 0.37 s of wall time after the "sim" one, the messages of both delivered in wall-clock
order. Every pair is the same sample, so every error is zero (up to the rounding of the stamps'
differences); the same streams paired by arrival (the latest simulated state, as before) give
errors of the size of the motion, which the test checks too, so that it could fail.
"""

from __future__ import annotations

import dataclasses
from typing import List, Tuple

import pytest

from actuator_bench.bench_core import BenchCore, Publication, publications
from actuator_bench.comparison import StateComparison
from actuator_bench.messages import sample_from_fields

DELAY, CLOCK_OFFSET = 0.37, 12.5  # the "real" copy: started later [s of wall time], its clock ahead [s]


def sim_run(time_scale: float) -> List[Publication]:
    """What the bench node publishes during one run of sin_sin on the MuJoCo bench (100 Hz)."""
    core = BenchCore({"backend": "mujoco", "time_scale": time_scale})
    out: List[Publication] = []
    try:
        core.loop.run("sin_sin", 400.0, 100.0, lambda cycle: out.extend(publications(cycle)))
    finally:
        core.close()
    return out


def delivered(pubs: List[Publication], time_scale: float) -> List[Tuple[float, str, Publication]]:
    """(arrival [s of wall time], bench, publication) of both copies, in arrival order."""
    t0 = pubs[0].time
    sim = [((p.time - t0) / time_scale, "sim", p) for p in pubs]
    real = [((p.time - t0) / time_scale + DELAY, "real", dataclasses.replace(p, time=p.time + CLOCK_OFFSET))
            for p in pubs]
    return sorted(sim + real, key=lambda event: event[0])


def compare(events: List[Tuple[float, str, Publication]]) -> list:
    """The errors StateComparison gives for the events, as the comparison node feeds it."""
    comparison, errors = StateComparison(max_age=0.05), []
    for _, bench, pub in events:
        if pub.topic == "bench_info":
            (comparison.real_info if bench == "real" else comparison.sim_info)(pub.fields["trajectory"], pub.time)
        elif pub.topic == "joint_states":
            sample = sample_from_fields(pub.time, **{k: pub.fields[k] for k in ("name", "position", "velocity", "effort")})
            errors += (comparison.update_real if bench == "real" else comparison.update_sim)(sample)
    return errors


def by_arrival(events: List[Tuple[float, str, Publication]]) -> float:
    """Largest |sim - real| position [rad] pairing each real state with the latest simulated one."""
    latest, worst = None, 0.0
    for _, bench, pub in events:
        if pub.topic == "joint_states":
            if bench == "sim":
                latest = pub.fields["position"]
            elif latest is not None:
                worst = max(worst, abs(latest[0] - pub.fields["position"][0]))
    return worst


@pytest.mark.parametrize("time_scale", [1.0, 4.0])
def test_a_sim_compared_with_itself_is_zero_at_any_start_offset_and_time_scale(time_scale):
    pubs = sim_run(time_scale)
    states = [p for p in pubs if p.topic == "joint_states"]
    assert len(states) > 100  # sin_sin is 6 s at 100 Hz of bench time (a late cycle is not made up)
    events = delivered(pubs, time_scale)
    errors = compare(events)
    assert len(errors) >= len(states) - 2  # every real state but the first (before its start) is paired
    assert max(abs(x) for e in errors for x in (*e.position, *e.velocity)) < 1e-9
    assert errors[0].time == pytest.approx(states[1].time + CLOCK_OFFSET)  # stamped with the real stamps
    assert by_arrival(events) > 0.01  # paired by arrival, the start-up offset is in the error
