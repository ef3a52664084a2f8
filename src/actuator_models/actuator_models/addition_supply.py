"""``supply`` [ohm]: the supply sags under the H-bridge's current (a model addition,
:mod:`.addition`; issue 31, the holds at full duty, docs/FIDELITY.md section 7.1).

A voltage-controlled servo's H-bridge at duty ``d`` puts ``d Vs`` on the winding and draws ``d i``
from its supply, a source of ``vin`` [V] (the drive's supply setting, the log header's) behind a
resistance ``supply_resistance`` ``Rs`` [ohm] (battery or bench supply, leads, connector)::

    Vs = vin - Rs d i,    d Vs = R i + kt v    =>    i = (d vin - kt v) / (R + Rs d^2)

so the motor's ``R`` becomes ``R + Rs d^2`` (exact, stateless): nothing changes at low duty, and
at full duty the servo is as much weaker as the supply sags. The duty is the step's control over
its supply (``control / vin``, what :func:`.servo.motor_torque` gives the motor hooks as the input
:data:`DUTY`); where a motor's values are asked without a control (a thermal addition's copper
losses, :func:`.servo.heat`), they are the winding's alone. For the voltage-controlled laws only:
a current law's control is in A, not a duty, and it gets no duty (the addition changes nothing).
Its compiled twin is the column ``supply_resistance`` in ``motor`` of the compiled step (``servo_kernel.c``) (no switch: 0
when not carried); its Warp twin the same column in ``actuator_sim.warp_kernels._motor_torque``.

On the shared XL330 logs the ``input_volts`` register reads ``7.33 - 0.24 d^2`` V (8 training logs
of kp 100 and 200), about 0.08 ohm for the winding's ~3 A stall current at full duty. It is
carried after ``thermal`` (``fit --carry auto`` carries both for a voltage law where the logs
record the temperature): it adds to the winding's resistance as ``thermal`` leaves it.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np

from .addition import Addition
from .addition_heating import records_temperature_span
from .parameters import Parameter, ParamValues, Value

SUPPLY_RESISTANCE = Parameter("supply_resistance", 0.0, 0.0, 0.5, "ohm",
                              "resistance of the supply behind the H-bridge", "Rs", domain="non-negative")
#: The motor hooks' input name of the step's duty ``control / vin`` (in [-1, 1]).
DUTY = "duty"


def sagged_resistance(resistance: Value, supply_resistance: Value, duty: Value) -> Value:
    """The winding's resistance ``R`` [ohm] as seen from the duty-scaled supply voltage:
    ``R + Rs d^2``."""
    return resistance + supply_resistance * duty * duty


class Supply(Addition):
    name = "supply"
    title = "supply sag"
    parameters = (SUPPLY_RESISTANCE,)
    kernel_columns = ("supply_resistance",)
    reads_duty = True

    def on_motor(self, p: ParamValues, inputs: Mapping[str, Optional[Value]]) -> ParamValues:
        duty = inputs.get(DUTY)
        if duty is None:
            return p
        return {**p, "R": sagged_resistance(p["R"], p["supply_resistance"], duty)}

    def carried_by_default(self, inputs: Mapping[str, Sequence[Optional[np.ndarray]]]) -> bool:
        """With ``thermal``, where the logs record the temperature over a span (for the voltage
        laws alone: :func:`.additions.carried_by_default` drops it for a law that gives no duty):
        nested leave-one-gain-out on the XL330 logs supports the pair over ``thermal`` alone
        (docs/FIDELITY.md section 7.3); it was not measured without ``thermal``."""
        return records_temperature_span(inputs)

    def describe(self, value: float) -> str:
        return f"supply {value:.3g} ohm"


SUPPLY_ADDITION = Supply()
