"""``actuator-bench record`` and ``record-all`` against emulated servos."""

from __future__ import annotations

import threading
import time

import pytest

from actuator_models import read_logs

from actuator_bench.cli import main
from actuator_bench.recording import RecordSettings
from actuator_drivers.cli import build_parser
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator


def test_record_command_writes_one_log(tmp_path, capsys):
    # real time (a separate driver clock): generous receive timeouts and command timeout (a busy
    # host's stall), the command is what is tested
    with DynamixelEmulator.single("mx64", "mx64/m6", 1.0, 0.15, protocol=1, time_scale=6) as emu:
        status = main(["record", "--port", emu.port, "--protocol", "1", "--actuator", "mx64",
                       "--trajectory", "up_and_down", "--mass", "1.0", "--length", "0.15", "--kp", "16",
                       "--logdir", str(tmp_path), "--time-scale", "6", "--retries", "10", "--latency-ms", "100",
                       "--command-timeout", "5"])
    assert status == 0
    (log,) = read_logs(tmp_path)
    assert (log.trajectory, log.mass, log.kp, log.motor) == ("up_and_down", 1.0, 16, "mx64")
    assert "Hz achieved" in capsys.readouterr().err


def stall_in_the_run(emulator: DynamixelEmulator, duration: float) -> threading.Thread:
    """Hold the servo's status packets for ``duration`` [s of bench time] from 1 s into the
    recorded trajectory: the recording arms the torque, moves to the start and holds there
    (:class:`RecordSettings`), then plays it. The window is placed once the torque is on, on the
    emulator's clock, which starts before the driver's bring-up: a window fixed on that clock
    (2.5 s) fell in the bring-up, with no watchdog armed yet, when a busy host made it longer."""
    prepared = RecordSettings().prepare_time + RecordSettings().settle_time

    def place() -> None:
        servo, deadline = emulator.servo(1), time.monotonic() + 60.0
        while servo.peek("torque_enable") == 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        emulator.set_faults(stalls=((emulator.clock.now() + prepared + 1.0, duration),))

    thread = threading.Thread(target=place, daemon=True)
    thread.start()
    return thread


def test_the_command_timeout_is_the_drivers_watchdog(tmp_path, capsys):
    """A servo silent for 4 s of bench time in the run (its status packets held), 1 s of wall time
    at --time-scale 4, stalls the loop: with the default 0.5 s command timeout (the serial driver's
    watchdog counts wall-clock seconds) the watchdog releases the torque and the recording stops
    (exit 1, the partial log kept); ``--command-timeout 5`` lets the same stall pass."""
    def record(timeout):
        with DynamixelEmulator.single("mx64", "mx64/m6", 1.0, 0.15, time_scale=4) as emu:
            stall_in_the_run(emu, 4.0)
            return main(["record", "--port", emu.port, "--actuator", "mx64", "--trajectory", "up_and_down",
                         "--mass", "1.0", "--length", "0.15", "--kp", "16", "--logdir", str(tmp_path / timeout),
                         "--time-scale", "4", "--retries", "30", "--latency-ms", "100", "--command-timeout", timeout])

    assert record("0.5") == 1
    err = capsys.readouterr().err
    assert "the command watchdog released the torque" in err and list((tmp_path / "0.5" / "partial").glob("*.json"))
    assert record("5") == 0, capsys.readouterr().err
    (log,) = read_logs(tmp_path / "5")
    assert log.torque_enable.all() or log.torque_enable[:-1].all()  # held through the stall


def test_record_command_refuses_a_command_timeout_that_is_not_positive(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:  # argparse's usage error
        main(["record", "--port", "/dev/null", "--actuator", "mx64", "--trajectory", "sin_sin", "--mass", "1",
              "--length", "0.15", "--kp", "32", "--logdir", str(tmp_path), "--command-timeout", "0"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit.value.code == 2 and "--command-timeout: '0' is not a positive number" in err, err
    assert not list(tmp_path.iterdir())


def test_record_all_command_with_in_process_emulator(tmp_path, capsys):
    status = main(["record-all", "--emulate", "xl330/m6", "--actuator", "xl330", "--logdir", str(tmp_path),
                   "--masses", "0.2,0.3", "--lengths", "0.1", "--kps", "400", "--trajectories", "sin_sin",
                   "--unattended", "--lockstep"])
    assert status == 0
    logs = read_logs(tmp_path)
    assert sorted(log.mass for log in logs) == [0.2, 0.3]
    assert [len(log) for log in logs] == [1201, 1201]  # lockstep: every 5 ms tick of the 6 s trajectory
    err = capsys.readouterr().err
    assert "emulator load: 0.3 kg at 0.1 m" in err and "2 logs written" in err


def test_lockstep_needs_an_in_process_emulator(tmp_path, capsys):
    status = main(["record-all", "--port", "/dev/null", "--actuator", "mx64", "--logdir", str(tmp_path), "--lockstep"])
    assert status == 2 and "--lockstep needs --emulate MODEL" in capsys.readouterr().err  # bad input (exit 2), issue 9


def test_record_all_refuses_unattended_load_changes_on_an_external_port(tmp_path, capsys):
    status = main(["record-all", "--port", "/dev/null", "--actuator", "mx64", "--logdir", str(tmp_path), "--unattended"])
    assert status == 2  # bad input (an unusable combination of arguments); 1 is for runtime faults
    assert "--unattended without --emulate cannot change the mass/length" in capsys.readouterr().err


def test_record_errors_are_one_line(tmp_path, capsys):
    status = main(["record", "--port", "/nonexistent/tty", "--actuator", "mx64", "--trajectory", "sin_sin",
                   "--mass", "1", "--length", "0.15", "--kp", "32", "--logdir", str(tmp_path)])
    assert status == 1
    assert capsys.readouterr().err.strip().startswith("actuator-bench: error: cannot open /nonexistent/tty")


def test_dead_servo_at_start_is_a_one_line_error(tmp_path, capsys):
    with DynamixelEmulator.single("mx64", "mx64/m6", 1.0, 0.15, time_scale=4) as emu:
        emu.set_faults(dead=True)
        status = main(["record", "--port", emu.port, "--actuator", "mx64", "--trajectory", "sin_sin", "--mass", "1",
                       "--length", "0.15", "--kp", "32", "--logdir", str(tmp_path), "--latency-ms", "1"])
    assert status == 1
    assert "servo 1: ping: There is no status packet" in capsys.readouterr().err
    assert not list(tmp_path.glob("**/*.json"))


def test_subcommand_registry_is_extensible():
    from actuator_drivers.cli import Command, EMULATOR_COMMANDS
    from actuator_drivers.cli import main as drivers_main

    extra = Command("hello", "say hello", lambda p: p.add_argument("--name", default="bench"), lambda a: 0)
    parser = build_parser(EMULATOR_COMMANDS + (extra,))
    assert parser.parse_args(["hello"]).name == "bench"
    assert drivers_main(["hello"], commands=EMULATOR_COMMANDS + (extra,)) == 0
