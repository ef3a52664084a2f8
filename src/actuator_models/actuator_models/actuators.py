"""Servo actuator models: a firmware control law and a motor model (paper section IV).

An actuator turns a goal position into a *control signal* (what the firmware applies: a voltage
[V] for the Dynamixel voltage law, a current [A] for current laws) and the control signal into a
motor torque [N m]. Joint positions are in rad, velocities in rad/s, ``kp`` is the firmware's
own proportional gain in its own units (Dynamixel "P Gain" register value, eRob A/rad).

Adding an actuator to the package is one small class (or one instance of an existing law) and
one line in :data:`ACTUATORS`. A user adds one without editing source with an *actuator
description file* (YAML or JSON, see :mod:`.actuator_file`), accepted by :func:`actuator`
wherever a registry name is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Tuple, Union

import numpy as np

from .parameters import Parameter, ParamValues, Value, clip, did_you_mean

#: Parameters every actuator model has, with the bounds used for the Dynamixel MX series.
KT = Parameter("kt", 1.6, 1.0, 3.0, "N m/A", "torque constant (motor and reducer)", "kt")
R = Parameter("R", 2.0, 1.0, 5.0, "ohm", "motor winding resistance", "R")
ARMATURE = Parameter("armature", 0.005, 0.001, 0.05, "kg m^2", "apparent rotor inertia at the joint", "Ia")
Q_OFFSET = Parameter("q_offset", 0.0, -0.1, 0.1, "rad", "encoder zero offset of the bench", "q0")

Bounds = Mapping[str, Tuple[float, float]]
#: File name endings of actuator description files.
DESCRIPTION_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Actuator:
    """Base class: parameters and identification bounds shared by all control laws.

    Attributes:
        name: registry name, e.g. ``"mx64"``.
        title: human-readable name.
        parameters: the actuator's own parameters (kt, R, armature, ...).
        friction_bounds: identification bounds overriding the friction models' defaults.
        default_vin: supply voltage [V] when a log does not give one.
        description: for a user-defined actuator, the content of its description file (written
            into params files so they load without it); empty for the shipped ones.
    """

    name: str
    title: str
    parameters: Tuple[Parameter, ...]
    friction_bounds: Bounds = field(default_factory=dict)
    default_vin: float = 12.0
    description: Mapping[str, object] = field(default_factory=dict, compare=False)

    def firmware(self, state: Value, goal: Value, q: Value, enable: Value, dt: Value,
                 p: ParamValues) -> Tuple[Value, Value]:
        """Firmware state before the control law: ``(new state, setpoint [rad])``.

        The state (rad, same shape as ``q``) starts at the first position; laws without one
        (every law but :class:`SpeedLimitedVoltage`) return ``(state, goal)`` unchanged.
        """
        return state, goal

    def control(self, goal: Value, q: Value, v: Value, kp: Value, vin: Value) -> Value:
        """Control signal (V or A) the firmware applies for a goal position [rad]."""
        raise NotImplementedError

    def torque(self, control: Value, enable: Value, v: Value, p: ParamValues, vin: Value) -> Value:
        """Motor torque [N m] from the control signal; ``enable`` is torque enable (0/1)."""
        raise NotImplementedError


def _emf_torque(volts: Value, v: Value, p: ParamValues) -> Value:
    """DC motor with drive/brake H-bridge (paper eq. 13): ``kt V / R - kt^2 v / R`` [N m]."""
    return p["kt"] * volts / p["R"] - p["kt"] ** 2 * v / p["R"]


@dataclass(frozen=True)
class VoltageControlled(Actuator):
    """Dynamixel voltage (PWM) law (paper eq. 12-13).

    ``duty = clip(kp * error_gain * (goal - q), +-max_duty)``; ``V = vin * duty``; the motor
    torque is :func:`_emf_torque`, and 0 when torque is disabled (H-bridge released).
    """

    error_gain: float = 0.158
    max_duty: float = 0.9625

    def control(self, goal: Value, q: Value, v: Value, kp: Value, vin: Value) -> Value:
        duty = clip(kp * self.error_gain * (goal - q), -self.max_duty, self.max_duty)
        return vin * duty

    def torque(self, control: Value, enable: Value, v: Value, p: ParamValues, vin: Value) -> Value:
        return np.where(enable, _emf_torque(control, v, p), 0.0)


# ---------------------------------------------------------------- Feetech STS (issue 22)
#: Feetech STS firmware: the smoothed target moves at most 3400 counts/s (4096 counts per turn).
STS_TARGET_SPEED = 2 * np.pi * 3400 / 4096  # rad/s
#: Both span two decades around the nominal firmware value: searched on a log scale, centred on it
#: (a linear search starts at 5x the speed limit, where the limit never binds: a plateau).
ERROR_GAIN_RATIO = Parameter("error_gain_ratio", 1.0, 0.1, 10.0, "1", "firmware error gain over its nominal value", "rk",
                             log=True)
TARGET_SPEED_LIMIT = Parameter("target_speed_limit", STS_TARGET_SPEED, 0.1 * STS_TARGET_SPEED, 10 * STS_TARGET_SPEED,
                               "rad/s", "largest speed of the firmware's smoothed target", "vmax", log=True)


@dataclass(frozen=True)
class SpeedLimitedVoltage(VoltageControlled):
    """Feetech STS voltage law: the firmware's target moves towards the goal at most
    ``target_speed_limit`` [rad/s] (a state, :meth:`firmware`), then the Dynamixel-style P law
    ``duty = clip(error_gain_ratio * kp * error_gain * (target - q), +-max_duty)``, ``V = vin duty``.

    The ratio multiplies the tracking error (same duty as multiplying the gain); while torque is
    disabled the target follows the shaft, so enabling it holds the present position.
    """

    error_gain: float = 0.166
    max_duty: float = 0.97

    def firmware(self, state: Value, goal: Value, q: Value, enable: Value, dt: Value,
                 p: ParamValues) -> Tuple[Value, Value]:
        step = p["target_speed_limit"] * dt
        target = np.where(enable, state + clip(goal - state, -step, step), q)
        return target, q + p["error_gain_ratio"] * (target - q)


@dataclass(frozen=True)
class CurrentPD(Actuator):
    """eRob custom current PD law.

    ``I = clip(kp (goal - q) - damping sqrt(kp) v, +-max_current)``; the torque
    ``kt I enable`` is clipped to what ``bus_voltage`` can drive against the back-EMF.
    """

    damping: float = 1.0
    max_current: float = 12.0
    bus_voltage: float = 48.0

    def control(self, goal: Value, q: Value, v: Value, kp: Value, vin: Value) -> Value:
        current = kp * (goal - q) - self.damping * np.sqrt(kp) * v
        return clip(current, -self.max_current, self.max_current)

    def torque(self, control: Value, enable: Value, v: Value, p: ParamValues, vin: Value) -> Value:
        limit = p["kt"] / p["R"] * self.bus_voltage
        emf = p["kt"] ** 2 * v / p["R"]
        return clip(p["kt"] * control * enable, -limit - emf, limit - emf)


@dataclass(frozen=True)
class CurrentControlled(Actuator):
    """Generic current law (paper eq. 14-15).

    ``I = clip(kp (goal - q), [(-vin - kt v) / R, (vin - kt v) / R])`` then ``+-max_current``;
    ``tm = kt I``. The voltage-limited band needs kt and R, so the control signal is the
    requested current and the band is applied in :meth:`torque`.
    """

    max_current: float = 10.0

    def control(self, goal: Value, q: Value, v: Value, kp: Value, vin: Value) -> Value:
        return clip(kp * (goal - q), -self.max_current, self.max_current)

    def torque(self, control: Value, enable: Value, v: Value, p: ParamValues, vin: Value) -> Value:
        low = (-vin - p["kt"] * v) / p["R"]
        high = (vin - p["kt"] * v) / p["R"]
        return p["kt"] * clip(control, low, high) * enable


XL330_GAIN = (4096 / (2 * np.pi)) / (256 * 885)
_EROB_FRICTION = {
    "friction_base": (0.0, 10.0),
    "friction_stribeck": (0.0, 10.0),
    "friction_viscous": (0.0, 30.0),
    "load_friction_base": (0.0, 1.0),
    "load_friction_stribeck": (0.0, 1.0),
    "load_friction_motor": (0.0, 1.0),
    "load_friction_external": (0.0, 1.0),
    "load_friction_motor_stribeck": (0.0, 1.0),
    "load_friction_external_stribeck": (0.0, 1.0),
}
_MX = (KT, R, ARMATURE, Q_OFFSET)
_XL = (
    KT.with_bounds(0.1, 3.0),
    R.with_bounds(2.0, 5.0),
    ARMATURE.with_bounds(1e-4, 0.05),
    Q_OFFSET,
)
_STS = _XL + (ERROR_GAIN_RATIO, TARGET_SPEED_LIMIT)
_EROB = (KT.with_bounds(1.0, 15.0), R.with_bounds(0.1, 3.5), ARMATURE.with_bounds(0.001, 2.0))

ACTUATORS: Dict[str, Actuator] = {
    a.name: a
    for a in (
        VoltageControlled("mx64", "Dynamixel MX-64", _MX, default_vin=15.0),
        VoltageControlled("mx106", "Dynamixel MX-106", _MX, default_vin=15.0),
        VoltageControlled(
            "xl330", "Dynamixel XL330-M288", _XL, default_vin=7.4, error_gain=XL330_GAIN, max_duty=1.0
        ),
        SpeedLimitedVoltage("sts3215", "Feetech STS3215", _STS, default_vin=7.4),
        CurrentPD("erob80_50", "eRob80:50", _EROB, _EROB_FRICTION, default_vin=48.0, damping=1.0),
        CurrentPD("erob80_100", "eRob80:100", _EROB, _EROB_FRICTION, default_vin=48.0, damping=2.0),
    )
}


def gives_duty(actuator: Actuator) -> bool:
    """Whether ``actuator``'s control is a voltage, so that ``control / vin`` is the duty the
    additions that read it (``reads_duty``: ``supply``) get; a current law's control is a current."""
    return isinstance(actuator, VoltageControlled)


def actuator_names() -> List[str]:
    """Registry names of the shipped actuators, sorted (``["erob80_100", ..., "xl330"]``)."""
    return sorted(ACTUATORS)


def is_description_path(text: Union[str, Path]) -> bool:
    """Whether ``text`` names an actuator description file rather than a registry name."""
    return Path(text).suffix.lower() in DESCRIPTION_SUFFIXES or Path(text).is_file()


def actuator(name: Union[str, Path]) -> Actuator:
    """An actuator by registry name (``mx64``, ``mx106``, ``xl330``, ``erob80_50``, ...), by
    the path of an actuator description file (``my_servo.yaml``, see :mod:`.actuator_file`) or
    by the name of one an installed family describes (``Family.descriptions``)."""
    key = str(name).lower()
    if key in ACTUATORS:
        return ACTUATORS[key]
    if is_description_path(name):
        from .actuator_file import read_actuator_file  # local: actuator_file builds on this module

        return read_actuator_file(name)
    from .family import described_actuator  # local: the family registry builds on this module

    described = described_actuator(key)
    if described is not None:
        return described
    raise ValueError(
        f"unknown actuator {str(name)!r}{did_you_mean(key, actuator_names())}; expected one of {', '.join(actuator_names())} "
        "or an actuator description file (.yaml/.json)"
    )
