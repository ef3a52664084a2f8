"""An exact stick/slip reference for the project's pendulum bench, and the discretisation error of
the fixed-step simulators (``bam`` and ``semi-implicit``) measured against it.

Continuous model (the dt -> 0 limit of the published step, ``actuator_models.simulation``):
``J q'' = tm + te + tf`` with ``te = -(m + m_arm/2) g l sin(q + q_offset)``, ``tm`` the actuator
law (control recomputed continuously from q, v and the firmware's setpoint), and the friction ``tf``:

* SLIDE+ (v > 0): ``tf = -budget(tm, te, v)``; SLIDE- (v < 0): ``tf = +budget(tm, te, v)``;
* STICK (v = 0, q fixed): the joint stays at rest while ``|tm + te| <= budget(tm, te, 0)``, the
  at-rest budget (the published step's rule: friction up to the budget cancels the stopping
  torque ``tm + te``).

Boundaries: in SLIDE+/- the velocity reaching 0 (``v``, ``-v``); in STICK the breakaway
``budget(tm, te, 0) - |tm + te|``; in every chart the next command time ``t_{k+1} - t``. The
command (the log's goal position and torque enable) is piecewise constant, held from one log
sample time ``t_k = k dt_log`` to the next: a time event is a state-only transition (bookkeeping
states ``goal``, ``enable``, ``k``) that also re-decides stick/slide when the joint is at rest.
At v = 0 the next chart is decided by the at-rest rule: stick if the budget holds, else slide in
the direction of ``tm + te``.

The setpoint is the actuator's declared law's (:meth:`~actuator_models.actuators.Actuator.firmware`):
the held goal, or, for a law with a firmware state (the target-speed limit of
``SpeedLimitedVoltage``), that state run from its value at the last command time ``t_k`` over
``t - t_k``: the speed-limited target moves towards the held goal at most ``target_speed_limit (t - t_k)``,
exactly what the fixed-step rollout's steps add up to. The state at ``t_k`` (bookkeeping state
``target``) is carried over at each command time while torque stays on, and restarts from the
shaft's position otherwise (a disabled firmware's target follows the shaft).

The servo is the project's one servo model (:mod:`actuator_models.servo`): its additions act
through their declared hooks, each in its ``dt -> 0`` limit (``Addition.continuous_hooks``):

* on the motor's values (``heating``: ``R`` at the log's temperature, the input held between its
  sample times like the command);
* on the command as a transport delay ``L`` (``latency``: ``Addition.command_delay``): command
  ``k`` takes effect at ``t_k + L`` (the first from ``t = 0``), the firmware's elapsed time counts
  from there, and the command boundary fires at ``t_{k+1} + L``;
* on the output as a hysteresis (``backlash``): its state (one float, bookkeeping) is stored at
  every transition; within an epoch the drive moves monotonically (SLIDE+, SLIDE-) or not at all
  (STICK), so the output is the hook applied once from the stored state to the drive's current
  position. The control law, the firmware and gravity see that output ``y``; the motor's back-EMF
  and the friction the drive's ``v``, as in the fixed-step step. The output is recorded as ``y``.

* on the joint (``release``: the armature and the friction budget scaled by the torque enable in
  force, a pure function of it): the enable is a bookkeeping state, so both change at a command
  time and the velocity stays continuous, as in the fixed-step step.

* on its own state, following the motor current (``thermal``: ``Addition.rate``, the state's
  time derivative): the winding and case temperatures are continuous states after ``q, v``,
  integrated in every chart (the stalled servo heats too), started at the log's first ``temp``
  reading, else the model's ``thermal_initial``.

An addition acting through a hook it declares no continuous form of is refused with an error
naming it, never ignored.

The fixed-step simulators get the same held command: at step time ``t = n dt`` the goal is the
log sample ``floor(t / dt_log)``; they run through ``actuator_models.simulation.simulate_logs``
(the project's own rollout, unmodified) on a log resampled that way. The velocity clip at
100 rad/s of the published step is not modelled (never reached on the bench logs).

Frames and units: q [rad] from the hanging position, v [rad/s], torques [N m], t [s].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Dict, Mapping, Sequence, Tuple

import numpy as np

from actuator_models.addition import JointValues
from actuator_models.additions import REFERENCE_TEMPERATURE
from actuator_models.logs import Log
from actuator_models.model import Model
from actuator_models.servo import Drive, Servo, ServoState, joint, motor_torque, motor_values
from actuator_models.simulation import Pendulum, simulate_logs

from .engine import simulate
from .model import Boundary, HybridModel, Transition
from .result import HybridResult
from .settings import RunSettings

SLIDE_POS, SLIDE_NEG, STICK = range(3)
CHART_NAMES = ("SLIDE+", "SLIDE-", "STICK")
B_STOP, B_BREAKAWAY, B_COMMAND = range(3)
INTEGRATORS = ("bam", "semi-implicit")

#: integration settings of the reference: errors well below the 1 ms steps' discretisation error
REFERENCE_SETTINGS = RunSettings(tolerance=1e-10, max_time_step=1e-3, stop_precision=1e-12,
                                 max_chart_count=1_000_000)


#: units of the reference's states (the bookkeeping ``enable``, ``k`` have none)
STATE_UNITS = MappingProxyType({"q": "rad", "v": "rad/s", "Tw": "degC", "Tc": "degC", "goal": "rad", "target": "rad"})


@dataclass(frozen=True)
class Command:
    """The held command: sample times ``t`` [s] (``t[k] = k dt``), goal [rad], enable (bool), and
    the additions' inputs by name, one value per sample (``temperature`` [degC])."""

    t: np.ndarray
    goal: np.ndarray
    enable: np.ndarray
    inputs: Mapping[str, np.ndarray] = field(default_factory=dict)


def continuous_servo(model: Model) -> Servo:
    """The model's servo, or a ValueError naming an addition acting through a hook it declares no
    continuous form of (``Addition.continuous_hooks``)."""
    servo = Servo.of(model)
    for addition in servo.additions:
        discrete = [h for h in addition.acts_on if h not in addition.continuous_hooks]
        if discrete:
            raise ValueError(f"addition {addition.name!r} acts through {', '.join(discrete)}, which it declares no "
                             f"continuous form of: the stick/slip reference cannot run it")
    return servo


class PendulumStickSlip(HybridModel):
    """Charts SLIDE+, SLIDE-, STICK of the pendulum bench (module docstring).

    State ``[q, v, goal, enable, k, target, *outputs]``: the drive's q [rad], v [rad/s] continuous;
    the held goal [rad], torque enable (0/1), the command index k, the firmware state at command
    k's time (target [rad], see the module docstring) and the output additions' states at the last
    transition are bookkeeping states. A model carrying ``thermal`` adds the winding and case
    temperatures [degC] as continuous states after v: ``[q, v, Tw, Tc, goal, ...]``.
    """

    chart_names = CHART_NAMES

    def __init__(self, model: Model, bench: Pendulum, kp: float, vin: float, command: Command) -> None:
        self.model, self.bench, self.kp, self.vin, self.command = model, bench, kp, vin, command
        self.servo = continuous_servo(model)
        self.p = model.values
        self.offset = float(self.p.get("q_offset", 0.0))
        self.delay = sum(a.command_delay(self.p) for a in self.servo.additions if "on_command" in a.acts_on)
        self.outputs = tuple(a for a in self.servo.additions if "on_output" in a.acts_on)
        #: the additions with a continuous state of their own (their index among the servo's additions)
        self.heated = [i for i, a in enumerate(self.servo.additions) if "on_current" in a.acts_on]
        self.n_continuous = 2 + 2 * len(self.heated)
        self.G, self.E, self.K, self.T = (self.n_continuous + i for i in range(4))  # bookkeeping indices
        self.state_names = ("q", "v", *(("Tw", "Tc") if self.heated else ()), "goal", "enable", "k", "target") + \
            tuple(a.name for a in self.outputs)
        self.state_units = STATE_UNITS

    def parameters(self) -> Mapping[str, float]:
        return {**{k: float(v) for k, v in self.p.items()}, "mass": float(self.bench.mass),
                "length": float(self.bench.length), "arm_mass": float(self.bench.arm_mass),
                "kp": self.kp, "vin": self.vin}

    # ----------------------------------------------------------------- commands and output
    def command_time(self, k: int) -> float:
        """When command ``k`` reaches the firmware [s]: ``t_k`` plus the delay (the first at 0)."""
        return float(self.command.t[k]) + self.delay if k > 0 else 0.0

    def inputs_at(self, t: float) -> Dict[str, float]:
        """The additions' inputs at time ``t``: the log's sample in force (not delayed)."""
        j = int(np.searchsorted(self.command.t, t + 1e-9, side="right")) - 1
        j = min(max(j, 0), len(self.command.t) - 1)
        return {name: float(column[j]) for name, column in self.command.inputs.items()}

    def output_states(self, x: np.ndarray) -> Tuple[float, ...]:
        """The output additions' states with the drive at ``x[0]``: each hook applied once from
        its state at the last transition (rate-independent, module docstring)."""
        return tuple(float(a.on_output(s, x[0], self.p)) for a, s in zip(self.outputs, x[self.T + 1:]))

    def output(self, x: np.ndarray) -> float:
        """What the encoder reads [rad] with the drive at ``x[0]``."""
        y = float(x[0])
        for a, s in zip(self.outputs, self.output_states(x)):
            y = float(a.output(s, y))
        return y

    # ----------------------------------------------------------------- torques
    def firmware(self, t: float, x: np.ndarray) -> Tuple[float, float]:
        """``(firmware state, setpoint)`` [rad] at time ``t``: the actuator's firmware run from
        its state when the command in force reached it over the time since (module docstring)."""
        elapsed = max(t - self.command_time(int(x[self.K])), 0.0)
        state, setpoint = self.model.actuator.firmware(x[self.T], x[self.G], self.output(x), bool(x[self.E] > 0.5), elapsed, self.p)
        return float(state), float(setpoint)

    def servo_state(self, x: np.ndarray) -> ServoState:
        """The additions' states with continuous forms in ``x`` (the thermal nodes; None else)."""
        states: list = [None] * len(self.servo.additions)
        for n, i in enumerate(self.heated):
            states[i] = (float(x[2 + 2 * n]), float(x[3 + 2 * n]))
        return ServoState(float(x[self.T]), None, states)

    def heat_rates(self, t: float, x: np.ndarray, tm: float) -> list:
        """Time derivatives [K/s] of the thermal states at motor torque ``tm`` [N m]."""
        state = self.servo_state(x)
        motor = motor_values(self.servo, self.p, self.inputs_at(t), state)
        current = tm / motor["kt"]
        return [float(r) for i in self.heated for r in self.servo.additions[i].rate(state.additions[i], current, motor)]

    def torques(self, t: float, x: np.ndarray, v: float) -> Tuple[float, float, float]:
        """Motor torque, external (gravity) torque and friction budget [N m] at velocity ``v``."""
        y = self.output(x)
        drive = Drive(x[self.G], bool(x[self.E] > 0.5), self.kp, self.vin, 0.0, self.inputs_at(t))
        control = self.model.actuator.control(self.firmware(t, x)[1], y, v, self.kp, self.vin)
        tm = float(motor_torque(self.servo, control, drive.enable, v, self.p, drive, self.servo_state(x)))
        te = float(self.bench.gravity_torque(y + self.offset))
        return tm, te, float(self.model.friction.budget(tm, te, v, self.p) * self.joint(x).friction_scale)

    def joint(self, x: np.ndarray) -> JointValues:
        """The joint's armature and friction-budget factor at the torque enable in force."""
        return joint(self.servo, self.p, float(x[self.E] > 0.5))

    def at_rest_chart(self, t: float, x: np.ndarray) -> int:
        """The chart of a joint at rest: STICK if the at-rest budget holds ``tm + te``."""
        tm, te, budget = self.torques(t, x, 0.0)
        if abs(tm + te) <= budget:
            return STICK
        return SLIDE_POS if tm + te > 0.0 else SLIDE_NEG

    # ----------------------------------------------------------------- hybrid model
    def vector_field(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        if chart == STICK:
            return np.array([0.0, 0.0, *(self.heat_rates(t, x, self.torques(t, x, 0.0)[0]) if self.heated else [])])
        tm, te, budget = self.torques(t, x, x[1])
        friction = -budget if chart == SLIDE_POS else budget
        inertia = float(self.bench.inertia(self.joint(x).armature))
        return np.array([x[1], (tm + te + friction) / inertia, *(self.heat_rates(t, x, tm) if self.heated else [])])

    def boundaries(self, chart: int) -> Sequence[Boundary]:
        first = Boundary(B_BREAKAWAY) if chart == STICK else Boundary(B_STOP)
        return (first, Boundary(B_COMMAND))

    def boundary(self, t: float, x: np.ndarray, chart: int, index: int) -> float:
        if index == B_COMMAND:
            k = int(x[self.K])
            return self.command_time(k + 1) - t if k + 1 < len(self.command.t) else math.inf
        if index == B_STOP:
            return x[1] if chart == SLIDE_POS else -x[1]
        tm, te, budget = self.torques(t, x, 0.0)
        return budget - abs(tm + te)

    def transition(self, t: float, x: np.ndarray, chart: int, index: int) -> Transition:
        new = np.array(x, dtype=float)
        new[self.T + 1:] = self.output_states(x)  # the output hysteresis' states at this transition
        if index == B_COMMAND:
            k = int(x[self.K]) + 1
            stays_on = x[self.E] > 0.5 and bool(self.command.enable[k])
            new[self.T] = self.firmware(t, x)[0] if stays_on else self.output(x)  # the firmware state at command k
            new[self.G], new[self.E], new[self.K] = self.command.goal[k], float(self.command.enable[k]), k
            return Transition(self.at_rest_chart(t, new) if chart == STICK else chart, new)
        new[1] = 0.0  # the velocity reached zero (B_STOP), or the joint breaks away from rest
        return Transition(self.at_rest_chart(t, new), new)

    def initial_chart(self, t: float, x: np.ndarray) -> Transition:
        new = np.array(x, dtype=float)
        if new[1] > 0.0:
            return Transition(SLIDE_POS, new)
        if new[1] < 0.0:
            return Transition(SLIDE_NEG, new)
        return Transition(self.at_rest_chart(t, new), new)

    def aux_names(self):
        return ("t", "q", "v", "goal", "y")

    def auxiliary(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        return np.array([t, x[0], x[1], x[self.G], self.output(x)])


def log_command(log: Log) -> Command:
    """The log's goal and torque enable, held between its sample times ``k dt``."""
    if log.dt is None:
        raise ValueError(f"{log.source}: raw log (no 'dt'); process it first")
    n = len(log)
    temperature = np.asarray(log.extra.get("temp", np.full(n, REFERENCE_TEMPERATURE)), float)
    return Command(np.arange(n) * log.dt, np.asarray(log.goal_position, float), np.asarray(log.torque_enable, bool),
                   {"temperature": temperature})


def bench_of(log: Log) -> Pendulum:
    return Pendulum(float(log.mass), float(log.length), float(log.arm_mass))


def exact_rollout(model: Model, log: Log, record_period: float,
                  settings: RunSettings = REFERENCE_SETTINGS) -> HybridResult:
    """The stick/slip reference on a log's bench and command, from its first position and speed."""
    command = log_command(log)
    vin = model.actuator.default_vin if log.vin is None else float(log.vin)
    hybrid = PendulumStickSlip(model, bench_of(log), float(log.kp), vin, command)
    q0 = float(log.position[0])
    outputs = [float(a.start(q0, hybrid.p, log.period)) for a in hybrid.outputs]  # e.g. the play centred
    reading = log.extra.get("temp")
    start = float(reading[0]) if reading is not None and len(reading) else float(model.values.get("thermal_initial", 0.0))
    x0 = [q0, float(log.speed[0]), *((start, start) * len(hybrid.heated)), command.goal[0], float(command.enable[0]), 0.0,
          q0, *outputs]  # the firmware state starts at the first position, as in the rollout
    run = replace(settings, final_time=float(command.t[-1]), record_period=record_period)
    return simulate(hybrid, x0, run)


def reference_output(result: HybridResult) -> np.ndarray:
    """What the encoder reads [rad] at the reference's recorded samples (the drive's ``q`` unless
    an output addition such as ``backlash`` stands between)."""
    return result.aux[result.aux_names.index("y")]


def held_log(log: Log, dt: float) -> Log:
    """The log resampled at step ``dt`` with the command held from its own samples (zero order)."""
    n = int(math.floor(log.duration / dt + 1e-9)) + 1
    t = np.arange(n) * dt
    j = np.minimum(np.floor(t / log.period + 1e-9).astype(int), len(log) - 1)
    return replace(log, dt=dt, timestamp=t, goal_position=log.goal_position[j], torque_enable=log.torque_enable[j],
                   position=np.interp(t, log.timestamp - log.timestamp[0], log.position),
                   speed=np.interp(t, log.timestamp - log.timestamp[0], log.speed),
                   extra={name: np.asarray(column)[j] for name, column in log.extra.items()})


def discrete_rollout(model: Model, log: Log, dt: float, integrator: str) -> Tuple[np.ndarray, np.ndarray]:
    """``(t, q)`` of the project's fixed-step rollout at step ``dt`` on the held command."""
    resampled = held_log(log, dt)
    q = simulate_logs(model, [resampled], integrator)[0]
    return resampled.timestamp, q


@dataclass(frozen=True)
class ErrorRow:
    """Discretisation error of one log: MAE [rad] against the exact reference per (integrator, dt)."""

    log: str
    trajectory: str
    kp: float
    mae: Mapping[Tuple[str, float], float]
    reference_vs_log: float
    transitions: int
    stick_time: float  # [s] spent in STICK by the reference


def discretisation_errors(model: Model, log: Log, dts: Sequence[float] = (0.001, 0.005, 0.01),
                          integrators: Sequence[str] = INTEGRATORS,
                          settings: RunSettings = REFERENCE_SETTINGS) -> ErrorRow:
    """MAE between each fixed-step rollout and the exact reference at the steps' sample times.
    The fixed-step rollouts run first: one that diverged is refused
    (:class:`~actuator_models.divergence.DivergentStep`) before the reference spends its step
    budget on the same values (``kt = 1e6``: 30 s, then "step budget exhausted")."""
    base = min(dts)
    for dt in dts:
        if abs(dt / base - round(dt / base)) > 1e-9:
            raise ValueError(f"step {dt} s is not a multiple of the smallest step {base} s")
    rollouts = {(integrator, dt): discrete_rollout(model, log, dt, integrator) for integrator in integrators for dt in dts}
    reference = exact_rollout(model, log, base, settings)
    if not reference.success:
        raise RuntimeError(f"{log.source}: reference run failed: {reference.message}")
    q_ref = reference_output(reference)
    mae: Dict[Tuple[str, float], float] = {}
    for integrator in integrators:
        for dt in dts:
            t, q = rollouts[(integrator, dt)]
            idx = np.rint(t / base).astype(int)
            keep = idx < q_ref.size
            mae[(integrator, dt)] = float(np.mean(np.abs(q[keep] - q_ref[idx[keep]])))
    log_t = np.arange(len(log)) * log.period
    ref_at_log = np.interp(log_t, reference.t, q_ref)
    stick = float(np.sum(np.diff(reference.t) * (reference.chart[:-1] == STICK)))
    return ErrorRow(log.source, log.trajectory, float(log.kp), mae,
                    float(np.mean(np.abs(ref_at_log - log.position))), len(reference.events), stick)
