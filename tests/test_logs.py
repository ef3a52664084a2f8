"""Log reading, resampling and the one-line errors of malformed logs."""

import json
import math
import re

import numpy as np
import pytest

from actuator_models import load_model
from actuator_models.log_checks import OddLogWarning
from actuator_models.logs import Log, LogError, read_log, read_logs, write_log
from actuator_models.resampling import resample
from actuator_models.simulation import Pendulum, PendulumSimulator, log_maes, simulate_logs


def test_resampling_raw_reproduces_the_published_processed_logs(xl330_raw, xl330_processed):
    for path in sorted(xl330_raw.glob("*.json")):
        ours = resample(read_log(path), 0.005)
        theirs = read_log(xl330_processed / path.name)
        assert len(ours) == len(theirs)
        for column in ("position", "speed", "goal_position"):
            np.testing.assert_allclose(getattr(ours, column), getattr(theirs, column), atol=1e-9)
        for column in ("load", "input_volts", "temp"):
            np.testing.assert_allclose(ours.extra[column], theirs.extra[column], atol=1e-9)
        np.testing.assert_array_equal(ours.torque_enable, theirs.torque_enable)


def test_held_commands_replay_a_loop_that_skipped_cycles_as_the_servo_ran_it():
    """A 100 Hz bench loop whose host skipped 40 % of its cycles logs only the cycles it ran, and
    the servo held each logged goal until the next: the published M6 stepped so at 10 ms is the
    truth. Resampled with ``hold_commands``, the log replays that truth to rounding; resampled as
    the published tool does, its goals ramp across the skipped cycles and the replay does not."""
    model, dt, kp = load_model("xl330/m6"), 0.01, 400.0
    skipped = np.random.default_rng(0).random(600) < 0.4
    skipped[[0, -1]] = False
    servo = PendulumSimulator(model, Pendulum(0.49, 0.1), vin=7.4)
    truth, entries, goal = [], [], 0.0
    for k, skip in enumerate(skipped):
        truth.append(servo.q)
        if not skip:  # the cycle ran: a sample, then the goal sent
            goal = 1.2 * math.sin(2.0 * math.pi * 0.7 * k * dt) * math.sin(2.0 * math.pi * 0.11 * k * dt)
            entries.append((k * dt, servo.q, servo.v, goal))
        servo.step(goal, True, kp, dt)
    t, q, v, goals = map(np.array, zip(*entries))
    raw = Log(mass=0.49, length=0.1, kp=kp, timestamp=t, position=q, speed=v, goal_position=goals,
              torque_enable=np.ones(t.size, bool), vin=7.4, motor="xl330", trajectory="sin_sin")
    held, linear = (simulate_logs(model, [resample(raw, dt, hold)])[0] for hold in (True, False))
    assert held.shape == (600,)
    assert np.abs(held - truth).max() < 1e-9
    assert np.abs(linear - truth).mean() > 0.005, np.abs(linear - truth).mean()


def test_held_commands_replay_the_real_xl330_recordings_closer(xl330_raw):
    """On the 12 real XL330 recordings (entries every 5.3 ms, 2.5 ms off the 5 ms grid), the
    published models, fitted on interpolated goals, replay the logs processed with held commands
    more closely on 11 of 12 (mean MAE M6 0.0709 -> 0.0693 rad): a real servo holds its goal."""
    raws = [read_log(path) for path in sorted(xl330_raw.glob("*.json"))]
    for name in ("xl330/m1", "xl330/m6"):
        maes = [log_maes(load_model(name), [resample(raw, 0.005, hold) for raw in raws]) for hold in (False, True)]
        assert np.sum(maes[1] < maes[0]) >= 10, (name, maes)
        assert maes[1].mean() < maes[0].mean() - 0.001, (name, maes[0].mean(), maes[1].mean())


def test_held_commands_switch_at_the_entry_that_sent_them():
    raw = Log(mass=0.49, length=0.1, kp=400.0, timestamp=np.array([0.0, 0.013, 0.05]), position=np.zeros(3),
              speed=np.zeros(3), goal_position=np.array([0.0, 1.0, 2.0]), torque_enable=np.array([True, True, False]))
    held = resample(raw, 0.01, hold_commands=True)
    np.testing.assert_array_equal(held.goal_position, [0.0, 0.0, 1.0, 1.0, 1.0, 2.0])
    np.testing.assert_array_equal(held.torque_enable, [True] * 5 + [False])
    np.testing.assert_allclose(resample(raw, 0.01).goal_position[1], 10 / 13)  # the published tool's ramp


def test_a_log_that_says_its_commands_were_held_is_resampled_held(tmp_path, xl330_raw):
    """A raw log whose header says ``commands_held`` (this project's recorders) keeps the field
    through writing and reading and is resampled held without being asked; the processed log
    says which way it was made. The published raw logs do not say it: interpolated, as their tool."""
    raw = Log(mass=0.49, length=0.1, kp=400.0, timestamp=np.array([0.0, 0.013, 0.05]), position=np.zeros(3),
              speed=np.zeros(3), goal_position=np.array([0.0, 1.0, 2.0]), torque_enable=np.array([True, True, False]),
              commands_held=True)
    write_log(raw, tmp_path / "ours.json")
    assert json.loads((tmp_path / "ours.json").read_text())["commands_held"] is True
    with pytest.warns(OddLogWarning, match="only 3 samples"):  # too few to fit, enough for this
        again = read_log(tmp_path / "ours.json", allow_odd=True)
    processed = resample(again, 0.01)
    np.testing.assert_array_equal(processed.goal_position, [0.0, 0.0, 1.0, 1.0, 1.0, 2.0])
    assert processed.commands_held
    published = read_log(sorted(xl330_raw.glob("*.json"))[0])
    assert not published.commands_held and not resample(published, 0.005).commands_held
    write_log(resample(published, 0.005), tmp_path / "published.json")
    assert "commands_held" not in json.loads((tmp_path / "published.json").read_text())


def test_header_variants(tmp_path, xl330_processed):
    data = json.loads(next(xl330_processed.glob("*.json")).read_text())
    assert read_log(next(xl330_processed.glob("*.json"))).arm_mass == 0.0
    for key in ("arm_mass", "arm-mass"):
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps({**data, key: 0.2}))
        assert read_log(path).arm_mass == 0.2


def test_write_then_read_round_trip(tmp_path, xl330_processed):
    log = read_logs(xl330_processed)[0]
    write_log(log, tmp_path / "copy.json")
    again = read_log(tmp_path / "copy.json")
    np.testing.assert_array_equal(again.position, log.position)
    np.testing.assert_array_equal(again.torque_enable, log.torque_enable)
    assert (again.mass, again.length, again.kp, again.vin, again.dt) == (log.mass, log.length, log.kp, log.vin, log.dt)


def good_raw():
    return {
        "mass": 1.0, "length": 0.1, "kp": 8, "vin": 15.0, "motor": "mx64", "trajectory": "sin_sin",
        "entries": [
            {"timestamp": 0.001 * i, "position": 0.0, "speed": 0.0, "goal_position": 0.0, "torque_enable": True}
            for i in range(5)
        ],
    }


def broken(mutate):
    data = good_raw()
    mutate(data)
    return data


BAD_LOGS = {
    "missing_key": (broken(lambda d: d["entries"][3].pop("speed")), "entry 3: field 'speed': missing"),
    "nan": (broken(lambda d: d["entries"][2].update(position=math.nan)), "entry 2: field 'position'"),
    "inf": (broken(lambda d: d["entries"][1].update(goal_position=math.inf)), "entry 1: field 'goal_position'"),
    "commands_held": (broken(lambda d: d.update(commands_held="yes")), "field 'commands_held': expected true or false, got 'yes'"),
    "non_monotonic": (broken(lambda d: d["entries"][4].update(timestamp=0.0)), "entry 4: field 'timestamp'"),
    "empty_entry": (broken(lambda d: d["entries"].__setitem__(2, {})), "entry 2: entry is empty"),
    "no_entries": (broken(lambda d: d.update(entries=[])), "field 'entries'"),
    "wrong_type": (broken(lambda d: d["entries"][0].update(speed="fast")), "entry 0: field 'speed'"),
    "header_type": (broken(lambda d: d.update(mass="heavy")), "field 'mass'"),
    "missing_header": (broken(lambda d: d.pop("kp")), "field 'kp': missing"),
}


@pytest.mark.parametrize("case", sorted(BAD_LOGS))
def test_malformed_log_gives_one_line_naming_file_entry_field(case, tmp_path):
    data, expected = BAD_LOGS[case]
    path = tmp_path / f"{case}.json"
    path.write_text(json.dumps(data, allow_nan=True))
    with pytest.raises(LogError) as error:
        read_log(path)
    message = str(error.value)
    assert message.startswith(str(path))
    assert expected in message
    assert "\n" not in message


def test_not_json(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(LogError, match="not valid JSON"):
        read_log(path)


def test_period_is_the_dt_of_a_processed_log_and_an_error_naming_a_raw_one(xl330_raw):
    """Code that needs a fixed step (residuals, the stick/slip reference) reads ``Log.period``:
    a raw log is refused with the file named, not a TypeError from ``float(None)``."""
    from actuator_models.residuals import phase_labels

    path = sorted(xl330_raw.glob("*.json"))[0]
    raw = read_log(path)
    assert raw.dt is None
    with pytest.raises(LogError, match=re.escape(f"{path}: raw log (no 'dt'); process it first")):
        raw.period
    with pytest.raises(LogError, match="raw log"):
        phase_labels(raw)
    assert resample(raw, 0.004).period == 0.004
