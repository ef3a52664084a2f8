"""The hybrid engine's event rules, checked against closed forms (bouncing ball, linear flows)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hybrid_sim import Boundary, HybridModel, RunSettings, Side, Transition, simulate
from hybrid_sim.crossing import locate_crossing
from hybrid_sim.errors import SimulationError
from hybrid_sim.symbols import output_paths, parse_symbols, read_symbols, write_outputs

G = 9.81
RESTITUTION = 0.8


class Ball(HybridModel):
    """A ball dropped on the floor: y'' = -g; at y = 0, v -> -e v (one chart, state-only change)."""

    state_names = ("y", "v", "bounces")
    n_continuous = 2
    chart_names = ("FLIGHT",)

    def vector_field(self, t, x, chart):
        return np.array([x[1], -G])

    def boundaries(self, chart):
        return [Boundary(0, Side.RIGHT)]

    def boundary(self, t, x, chart, index):
        return x[0]

    def transition(self, t, x, chart, index):
        return Transition(0, np.array([x[0], -RESTITUTION * x[1], x[2] + 1.0]))

    def parameters(self):
        return {"g": G, "restitution": RESTITUTION}


def ball_bounce_times(h0: float, n: int) -> np.ndarray:
    """Closed form: first impact at sqrt(2 h0 / g), then flights of 2 e^k sqrt(2 h0 / g)."""
    t1 = math.sqrt(2.0 * h0 / G)
    return t1 + np.concatenate(([0.0], np.cumsum([2.0 * RESTITUTION ** k * t1 for k in range(1, n)])))


class Line(HybridModel):
    """x' = 1 in every chart; boundary i of chart 0 is ``levels[i] - x``; each leads to chart i+1."""

    state_names = ("x",)
    n_continuous = 1

    def __init__(self, levels, side=Side.RIGHT, same_chart=False):
        self.levels = tuple(levels)
        self.side = side
        self.same_chart = same_chart
        self.chart_names = tuple(f"C{i}" for i in range(len(self.levels) + 1))

    def vector_field(self, t, x, chart):
        return np.array([1.0])

    def boundaries(self, chart):
        return [Boundary(i, self.side) for i in range(len(self.levels))] if chart == 0 or self.same_chart else []

    def boundary(self, t, x, chart, index):
        return self.levels[index] - x[0] ** 3 if self.levels[index] < 0.7 else self.levels[index] - x[0]

    def transition(self, t, x, chart, index):
        return Transition(chart if self.same_chart else index + 1, x.copy())


def test_ball_bounces_at_closed_form_times_and_records_exact_multiples():
    settings = RunSettings(final_time=3.0, record_period=0.01, tolerance=1e-10, max_chart_count=50)
    result = simulate(Ball(), [1.0, 0.0, 0.0], settings)
    assert result.success, result.message
    times = np.array([e.t for e in result.events])
    np.testing.assert_allclose(times, ball_bounce_times(1.0, len(times)), atol=1e-8)
    assert len(times) == 6  # the 7th impact is at 3.17 s
    # samples at exact multiples k * period (bit for bit), strictly increasing, the last at final time
    assert np.array_equal(result.t, np.arange(301) * 0.01)
    assert result.t[-1] == 3.0
    # between bounces the samples follow the parabola of the current flight
    k = np.searchsorted(times, result.t, side="right")
    t_start = np.concatenate(([0.0], times))[k]
    v_start = np.concatenate(([0.0], [e.state_after[1] for e in result.events]))[k]
    y_expected = v_start * (result.t - t_start) - 0.5 * G * (result.t - t_start) ** 2 + (k == 0) * 1.0
    np.testing.assert_allclose(result.state("y"), y_expected, atol=1e-7)
    np.testing.assert_array_equal(result.state("bounces"), k)  # bookkeeping state changes only at events


def test_every_step_recording_has_strictly_increasing_times_across_events():
    result = simulate(Ball(), [1.0, 0.0, 0.0], RunSettings(final_time=2.0, tolerance=1e-8))
    assert result.success
    assert np.all(np.diff(result.t) > 0.0)
    # the sample at an event time is the post-transition state (epochs are [t_i, t_{i+1}))
    for event in result.events:
        i = np.flatnonzero(result.t == event.t)
        assert i.size == 1 and result.y[1, i[0]] == event.state_after[1] > 0.0


def test_earliest_crossing_wins_when_several_cross_in_one_step():
    # boundary 0 (x = 0.9) is listed first but boundary 1 (x^3 = 0.3) crosses earlier; one step
    # covers both (the field is constant, max step 10 s)
    settings = RunSettings(final_time=2.0, max_time_step=10.0, max_chart_count=5)
    result = simulate(Line([0.9, 0.3]), [0.0], settings)
    assert result.success
    first = result.events[0]
    assert (first.chart_from, first.chart_to, first.boundary) == (0, 2, 1)
    assert first.t == pytest.approx(0.3 ** (1.0 / 3.0), abs=1e-9)
    assert len(result.events) == 1  # chart 2 has no boundary


@pytest.mark.parametrize("side", [Side.LEFT, Side.RIGHT])
@pytest.mark.parametrize("precision", [1e-3, 1e-12])
def test_stop_precision_is_honoured_on_the_boundary_side(side, precision):
    settings = RunSettings(final_time=2.0, stop_precision=precision, max_time_step=0.5)
    result = simulate(Line([0.3], side=side), [0.0], settings)
    event = result.events[0]
    value = 0.3 - event.state_before[0] ** 3
    root = 0.3 ** (1.0 / 3.0)
    if side is Side.LEFT:
        assert 0.0 < value <= precision and event.t < root
    else:
        assert -precision <= value <= 0.0 and event.t >= root
    # |h'| = 3 x^2 = 1.34 at the root: the time error is at most precision / 1.34
    assert abs(event.t - root) <= precision / 1.3


def test_chart_count_limit_stops_with_an_error_and_keeps_the_data():
    settings = RunSettings(final_time=3.0, record_period=0.01, tolerance=1e-10, max_chart_count=3)
    result = simulate(Ball(), [1.0, 0.0, 0.0], settings)
    bounces = ball_bounce_times(1.0, 4)
    assert result.status == -1 and "chart count limit 3" in result.message
    assert len(result.events) == 3
    # everything up to the 4th impact was recorded, nothing after it
    assert bounces[2] < result.t[-1] < bounces[3] <= result.t[-1] + 0.01
    assert result.aux.shape == (4, result.t.size)


def test_a_boundary_already_crossed_on_entry_does_not_fire_again_nor_is_passed():
    # a state-only transition back into the same chart leaves the boundary at (0, precision]
    # (LEFT side): it must not fire at once (it would until the chart count limit otherwise);
    # the flow still points out of the patch, so it is not integrated past either (until issue 25
    # it was, silently, to x = 2): the run stops there as chattering
    settings = RunSettings(final_time=2.0, max_chart_count=10)
    result = simulate(Line([0.9], side=Side.LEFT, same_chart=True), [0.0], settings)
    assert result.status == -2 and "fell below -stop_precision" in result.message
    assert len(result.events) == 1
    assert result.y[0].max() <= 0.9 + 2e-10


def test_a_discontinuous_boundary_fails_with_a_message_and_keeps_the_data():
    class Jump(Line):
        def boundary(self, t, x, chart, index):
            return 1.0 if x[0] < 0.5 else -1.0

    result = simulate(Jump([0.0]), [0.0], RunSettings(final_time=2.0, stop_precision=1e-3))
    assert result.status == -1 and "not located to stop precision" in result.message
    assert result.t.size > 0 and result.t[-1] < 0.5


def test_locate_crossing_counts_iterations():
    with pytest.raises(SimulationError):
        locate_crossing(lambda t: 0.5 - t, 0.0, 0.5, 1.0, -0.5, Side.RIGHT, 1e-12, 0)
    t = locate_crossing(lambda t: math.cos(t), 0.0, 1.0, 3.0, math.cos(3.0), Side.LEFT, 1e-13, 64)
    assert 0.0 < math.cos(t) <= 1e-13


def test_min_time_step_violation_fails_the_run():
    result = simulate(Ball(), [1.0, 0.0, 0.0], RunSettings(final_time=1.0, max_time_step=0.2, min_time_step=0.1))
    assert result.status == -1 and "min_time_step" in result.message


def test_output_files_round_trip_and_are_not_overwritten(tmp_path):
    result = simulate(Ball(), [1.0, 0.0, 0.0], RunSettings(final_time=1.0, record_period=0.1))
    base = tmp_path / "ball"
    write_outputs(base, result, [1.0, 0.0, 0.0], Ball().parameters())
    data_path, initial_path, param_path = output_paths(base)
    data = np.loadtxt(data_path)
    np.testing.assert_array_equal(data, result.aux.T)
    assert read_symbols(initial_path) == {"y": 1.0, "v": 0.0, "bounces": 0.0}
    assert read_symbols(param_path) == {"g": G, "restitution": RESTITUTION}
    assert "y = 1.0;" in initial_path.read_text()
    with pytest.raises(FileExistsError, match="ball.data"):
        write_outputs(base, result, [1.0, 0.0, 0.0], {})
    write_outputs(base, result, [1.0, 0.0, 0.0], {}, force=True)


def test_symbol_parser_reads_the_manuals_example_and_names_bad_lines():
    text = '### comment\nrecordPeriod = 0.01;\ndataBaseName = "hexapod";\nfinalTime = 5;\n'
    assert parse_symbols(text) == {"recordPeriod": 0.01, "dataBaseName": "hexapod", "finalTime": 5.0}
    settings = RunSettings().with_symbols(parse_symbols(text))
    assert settings.final_time == 5.0 and settings.record_period == 0.01
    with pytest.raises(ValueError, match="rc:2"):
        parse_symbols("a = 1;\nb = oops;\n", "rc")


def test_an_event_at_a_step_end_and_a_sample_time_gives_one_sample_there():
    """scipy #15262/#17066: an event root at a step end duplicated a time in solve_ivp's output.
    Here x' = 1 crosses x = 0.5 at t = 0.5, a step end (steps of 0.1 s) and a sample time."""

    class Level(Line):
        def boundary(self, t, x, chart, index):
            return self.levels[index] - x[0]

    settings = RunSettings(final_time=1.0, record_period=0.1, max_time_step=0.1, stop_precision=1e-12)
    result = simulate(Level([0.5]), [0.0], settings)
    assert result.events[0].t == pytest.approx(0.5, abs=1e-12)
    assert np.array_equal(result.t, np.arange(11) * 0.1)
    # one sample per time; each from the epoch containing it ([t_i, t_{i+1}): the RIGHT-side event
    # time is at or just after 0.5, so the sample at 0.5 is the state reaching the boundary)
    np.testing.assert_array_equal(result.chart, (result.t >= result.events[0].t).astype(int))
    assert result.y[0, 5] == pytest.approx(0.5, abs=1e-12)
    every_step = simulate(Level([0.5]), [0.0], RunSettings(final_time=1.0, max_time_step=0.1))
    assert np.all(np.diff(every_step.t) > 0.0) and np.count_nonzero(np.isclose(every_step.t, 0.5)) == 1


def test_plot_of_a_run_is_a_png(tmp_path):
    from hybrid_sim.plot import plot_run

    result = simulate(Ball(), [1.0, 0.0, 0.0], RunSettings(final_time=1.0, record_period=0.01))
    path = plot_run(result, tmp_path / "ball.png", ("y", "v"))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- Zeno points and chattering (issue 25)
def ball_zeno_time(h0: float) -> float:
    """Closed form: the bounce times accumulate at t1 (1 + e) / (1 - e), t1 = sqrt(2 h0 / g)."""
    return math.sqrt(2.0 * h0 / G) * (1.0 + RESTITUTION) / (1.0 - RESTITUTION)


class RestingBall(Ball):
    """The ball with a declared resting chart: on the floor at rest once the bounces accumulate."""

    chart_names = ("FLIGHT", "REST")

    def vector_field(self, t, x, chart):
        return np.array([x[1], -G]) if chart == 0 else np.zeros(2)

    def boundaries(self, chart):
        return [Boundary(0, Side.RIGHT)] if chart == 0 else []

    def rest(self, t, x, chart, index):
        return Transition(1, np.array([0.0, 0.0, x[2]]))


ZENO_SETTINGS = RunSettings(final_time=5.0, record_period=1e-3, stop_precision=1e-13, tolerance=1e-10,
                            max_chart_count=1000)


def test_bouncing_ball_stops_at_the_zeno_time_and_never_falls_through_the_floor():
    # before issue 25 the boundary, disarmed after each bounce until it rose above the precision,
    # was never re-armed once a bounce rose less than that: the ball fell through the floor
    # (y = -0.66 m at 5 s) and the run said "reached final time"
    result = simulate(Ball(), [1.0, 0.0, 0.0], ZENO_SETTINGS)
    times = np.array([e.t for e in result.events])
    np.testing.assert_allclose(times[:20], ball_bounce_times(1.0, 20), rtol=0.0, atol=1e-9)
    assert result.status == -2 and not result.success
    assert "Zeno" in result.message and "fell below -stop_precision" in result.message
    assert result.zeno_time == pytest.approx(ball_zeno_time(1.0), abs=1e-6)
    assert abs(result.t_final - ball_zeno_time(1.0)) < 1e-3  # the last sample, on the 1 ms grid
    assert times[-1] < ball_zeno_time(1.0) and len(times) > 50
    assert result.state("y").min() >= -1e-13
    assert min(e.state_before[0] for e in result.events) >= -1e-13


def test_bouncing_ball_rests_on_the_floor_in_a_declared_resting_chart():
    result = simulate(RestingBall(), [1.0, 0.0, 0.0], ZENO_SETTINGS)
    assert result.success, result.message
    assert result.t_final == 5.0
    rest = result.events[-1]
    assert (rest.chart_from, rest.chart_to) == (0, 1)
    assert rest.t == pytest.approx(ball_zeno_time(1.0), abs=2e-6)  # the fall is caught within 4 flights
    y, chart = result.state("y"), result.chart
    assert y.min() >= -1e-13
    assert np.all(y[chart == 1] == 0.0) and np.all(result.t[chart == 1] > rest.t - 1e-3)


def test_a_transition_sooner_than_min_event_interval_is_chattering():
    settings = RunSettings(final_time=5.0, stop_precision=1e-13, tolerance=1e-10, max_chart_count=1000,
                           min_event_interval=1e-3)
    result = simulate(Ball(), [1.0, 0.0, 0.0], settings)
    assert result.status == -2 and "below min_event_interval" in result.message
    intervals = np.diff([e.t for e in result.events])
    # the first flight shorter than 1 ms: 2 e^k t1 < 1e-3 from k = 31, so impact 32 is refused
    assert intervals.min() >= 1e-3 and len(result.events) == 31
    assert result.zeno_time == pytest.approx(ball_zeno_time(1.0), abs=1e-9)
