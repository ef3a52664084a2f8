"""The hexapod's rc file, terrains, turning controllers and run-time controller changes (SimSect
manual 5.2, 5.4, Tables 2-3), and the run settings measurePeriod / rkPower (2.4.2)."""

from __future__ import annotations

import numpy as np
import pytest

from hybrid_sim import RunSettings, simulate
from hybrid_sim.cli import main
from hybrid_sim.hexapod import CONTROL, F, Hexapod, HexapodParameters

SETTINGS = RunSettings(final_time=1.5, record_period=0.01, tolerance=1e-5, max_time_step=1e-3,
                       max_chart_count=100000)


def walk(final_time=SETTINGS.final_time, **kw):
    model = Hexapod(HexapodParameters(**kw))
    from dataclasses import replace

    result = simulate(model, model.standing_state(), replace(SETTINGS, final_time=final_time))
    assert result.success, result.message
    return model, result, dict(zip(result.aux_names, result.aux))


def test_param_output_reads_back_as_config_and_table2_symbols_are_accepted(tmp_path, capsys):
    # until issue 25: "unknown symbol 'rho0_k'" for the run's own .param file
    base = tmp_path / "run"
    assert main(["hexapod", "--final-time", "0.05", "--out", str(base)]) == 0
    assert main(["hexapod", "--final-time", "0.05", "--config", str(base) + ".param", "--out",
                 str(tmp_path / "again")]) == 0
    assert (tmp_path / "again.data").read_text() == (tmp_path / "run.data").read_text()
    rc = tmp_path / "table2.rc"
    lines = ('rho3_k = 700', 'attach1_y = 0.01', 'J_22 = 0.1', 'KP = 12', 'q_rt = 0.18', 'terrain_type = "sloped"',
             'terrain_arg1 = 0', 'terrain_arg2 = 0', 'terrain_arg3 = 0', 'control_type = "open-loop"',
             'measurePeriod = 0.02', 'rkPower = 0.33', 'finalTime = 0.05')
    rc.write_text("".join(f"{line};\n" for line in lines))
    capsys.readouterr()
    assert main(["hexapod", "--config", str(rc), "--out", str(tmp_path / "rc")]) == 0
    err = capsys.readouterr().err
    assert "note: q_rt: Table 2 symbols this model does not use" in err
    assert "note: rkPower = 0.33: not used" in err
    assert "t = 0.02 s," in err and "t = 0.04 s," in err  # measurePeriod progress lines
    written = (tmp_path / "rc.param").read_text()
    for line in ("rho3_k = 700.0;", "attach1_y = 0.01;", "J_22 = 0.1;", "kp = 12.0;", 'terrain_type = "sloped";'):
        assert line in written
    rc.write_text('terrain_type = "moon";\n')
    assert main(["hexapod", "--config", str(rc)]) == 2
    assert "terrain_type 'moon' is not one of flat, sinusoid, sloped" in capsys.readouterr().err
    rc.write_text("rho9_k = 1;\n")
    assert main(["hexapod", "--config", str(rc)]) == 2


@pytest.mark.parametrize("kind, args", [("sinusoid", (0.01, 5.0, 5.0)), ("sloped", (0.0, -0.1, 0.0))])
def test_terrains_of_table3_carry_the_toes(kind, args):
    model, result, aux = walk(1.0, terrain_type=kind, terrain_arg1=args[0], terrain_arg2=args[1],
                              terrain_arg3=args[2])
    terrain = model.terrain
    assert aux["y"][-1] < -0.15  # it walks on
    touchdowns = [e for e in result.events if e.boundary < CONTROL and e.boundary % 2]
    assert len(touchdowns) >= 4
    for e in touchdowns:  # each toe lands on the terrain surface, not on z = 0
        leg = e.boundary // 2
        toe = e.state_after[13 + 3 * leg: 16 + 3 * leg]
        assert toe[2] == pytest.approx(terrain.height(toe[0], toe[1]), abs=1e-12)
    heights = np.array([terrain.height(x, y) for x, y in zip(aux["x"], aux["y"])])
    assert np.all(aux["z"] - heights > 0.1)  # the body stays above the ground under it
    if kind == "sloped":  # walking towards -y leaves the slope (y > 0 only): the start is on z = 0
        assert heights[0] == 0.0


def test_turning_in_place_at_the_default_sweep_angle(tmp_path, capsys):
    # issue 35: an rc file asking for turn-in-place and nothing else ran at the running sweep 0.75
    # and stopped at 0.97 s ("discontinuous boundary?"); now it gets 0.5, written to .param
    from hybrid_sim.hexapod_parts import TURN_IN_PLACE_SWEEP

    rc = tmp_path / "turn.rc"
    rc.write_text('control_type = "turn-in-place";\n')
    base = tmp_path / "turn"
    assert main(["hexapod", "--config", str(rc), "--final-time", "0.05", "--out", str(base)]) == 0
    assert "sweep_angle = 0.5;" in (tmp_path / "turn.param").read_text()
    assert main(["hexapod", "--config", str(base) + ".param", "--final-time", "0.05", "--out",
                 str(tmp_path / "again")]) == 0
    assert (tmp_path / "again.data").read_text() == (tmp_path / "turn.data").read_text()
    capsys.readouterr()
    # running keeps 0.75, an explicit sweep_angle is kept
    assert HexapodParameters.from_symbols({}).sweep_angle == 0.75
    assert HexapodParameters.from_symbols({"control_type": "turn-in-place", "sweep_angle": 0.6}).sweep_angle == 0.6
    params = HexapodParameters.from_symbols({"control_type": "turn-in-place"})
    assert params.sweep_angle == TURN_IN_PLACE_SWEEP == 0.5
    model = Hexapod(params)
    result = simulate(model, model.standing_state(), SETTINGS)  # 1.5 s: past the 0.97 s where 0.75 stopped
    assert result.success, result.message
    aux = dict(zip(result.aux_names, result.aux))
    assert aux["yaw"][-1] < -0.5  # turn_polarity 1: clockwise seen from above, as documented
    assert np.hypot(aux["x"][-1], aux["y"][-1]) < 0.05  # in place


def test_turning_in_place_both_ways_and_differential_turning():
    # manual 5.2.2: contralateral legs run opposite ways (sweep 0.5 rad: the default 0.75 makes a
    # stance leg lag its reference past pi after about 1 s, where the hip torque jumps)
    _, _, left = walk(turn_polarity=1.0, control_type="turn-in-place", sweep_angle=0.5)
    _, _, right = walk(turn_polarity=-1.0, control_type="turn-in-place", sweep_angle=0.5)
    assert left["yaw"][-1] < -0.5 and right["yaw"][-1] > 0.5
    assert left["yaw"][-1] == pytest.approx(-right["yaw"][-1], rel=1e-3)
    for aux in (left, right):
        assert np.hypot(aux["x"][-1], aux["y"][-1]) < 0.05  # in place
    # differential: left phi_o + 0.1, right phi_o - 0.1 against the straight gait (which drifts 0.01 rad)
    _, _, straight = walk()
    _, _, turning = walk(delta_offset=0.1)
    assert turning["yaw"][-1] - straight["yaw"][-1] > 0.03  # 0.043 rad in 1.5 s
    assert -turning["y"][-1] > 0.2  # still running forward


def test_controller_parameters_change_during_a_run(tmp_path, capsys):
    import json

    assert main(["hexapod", "--final-time", "1.0", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert main(["hexapod", "--final-time", "1.0", "--json", "--change", "0.5:cycle_time=0.8,flight_time=0.3"]) == 0
    changed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    before = [e for e in plain["events"] if e["t"] <= 0.5]
    assert [e for e in changed["events"] if e["t"] <= 0.5] == before  # the same run up to the change
    assert changed["events"] != plain["events"]
    phase_times = [e["t"] for e in changed["events"] if e["event"].startswith("phase") and e["t"] > 0.5]
    # slow phase of the new gait: t_s / 2 = 0.25 s after its start; the first new phase end is sooner
    assert phase_times and phase_times[0] < 0.5 + 0.4 + 1e-9
    assert main(["hexapod", "--final-time", "1.0", "--change", "0.505:kp=5"]) == 2
    assert "not a multiple of the record period" in capsys.readouterr().err
    assert main(["hexapod", "--change", "0.5:body_mass=5"]) == 2


def test_sloped_terrain_is_continuous_and_carries_a_walk_across_its_crease():
    # Table 3's sloped terrain, a1 x + a2 y + a3 for y > 0 and a3 elsewhere, jumps by a1 x at y = 0;
    # until issue 35 a walk with a1 = 0.1 stopped at 0.64 s ("flight toe underground")
    from hybrid_sim.hexapod_parts import Terrain

    terrain = Terrain("sloped", 0.1, -0.2, 0.01)
    for x in (-0.3, 0.0, 0.25):
        # closed form: the plane's value on the line y = 0 from both sides, a1 x + a3
        assert terrain.height(x, 1e-12) == pytest.approx(0.1 * x + 0.01, abs=1e-12)
        assert terrain.height(x, -1e-12) == pytest.approx(0.1 * x + 0.01, abs=1e-12)
        assert terrain.height(x, 0.5) == pytest.approx(0.1 * x - 0.1 + 0.01)
        np.testing.assert_allclose(terrain.normal(x, -1.0), np.array([-0.1, 0.0, 1.0]) / np.sqrt(1.01))
    model, result, aux = walk(0.5, terrain_type="sloped", terrain_arg1=0.1, terrain_arg2=0.0, terrain_arg3=0.0)
    touchdowns = [e for e in result.events if e.boundary < CONTROL and e.boundary % 2]
    assert touchdowns
    for e in touchdowns:  # each toe lands on the plane z = 0.1 x (within the contact skin)
        leg = e.boundary // 2
        toe = e.state_after[F][[3 * leg, 3 * leg + 2]]
        assert toe[1] == pytest.approx(0.1 * toe[0], abs=1e-9)
