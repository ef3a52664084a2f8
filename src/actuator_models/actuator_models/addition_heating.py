"""``heating`` [1/K]: the winding resistance follows the servo's temperature (a model addition,
:mod:`.addition`).

The motor's ``R`` is identified at :data:`REFERENCE_TEMPERATURE` (25 degC) and at a logged
temperature ``T`` [degC] (the ``temp`` column the servos report) it is::

    R(T) = R (1 + heating (T - 25))

(copper: 0.0039 per kelvin of the winding; the servo reports the temperature of its case or board,
which rises less than the winding's, so the coefficient per kelvin of the reading is fitted,
bounded by 0.05). Everything ``R`` enters (drive torque ``kt V / R``, back-EMF damping
``kt^2 v / R``) follows. A log without a temperature column is simulated at 25 degC; the
step-by-step simulators (:class:`~actuator_models.simulation.PendulumSimulator`, MuJoCo) take the
temperature as a setting (None: 25 degC, the identified ``R``). Not carried by default since
issue 31 (``fit --carry heating``): a simulation rarely knows the temperature, and the default
``thermal`` addition (:mod:`.addition_thermal`) simulates it.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np

from .addition import Addition
from .parameters import Parameter, ParamValues, Value

HEATING = Parameter("heating", 0.0, 0.0, 0.05, "1/K", "winding resistance rise per kelvin of the logged temperature",
                    "aR")
#: The temperature [degC] at which a model's ``R`` is identified (``heating``'s reference).
REFERENCE_TEMPERATURE = 25.0
#: The smallest span [K] of logged temperatures from which a temperature's effect on ``R`` can be
#: told apart from ``R`` itself (``heating``'s coefficient, ``thermal``'s network).
HEATING_SPAN = 2.0
#: Default prior weight of a fit carrying heating: the basins that tied without it are then told
#: apart by the training logs, and the weaker pull predicts better from every seed: 0.3 gives
#: validation 0.0287-0.0295 rad over seeds 0-7, 0.5 0.0299-0.0322, 1.0 0.031-0.043 (XL330 logs,
#: docs/FIDELITY.md, section 6).
HEATED_PRIOR = 0.3


def records_temperature_span(inputs: Mapping[str, Sequence[Optional[np.ndarray]]]) -> bool:
    """Whether every log records its temperature [degC] (per input name, one array or None per
    log) and the records span :data:`HEATING_SPAN` or more."""
    temperatures = inputs.get("temperature") or ()
    if not temperatures or any(t is None or len(t) == 0 for t in temperatures):
        return False
    span = max(float(np.max(t)) for t in temperatures) - min(float(np.min(t)) for t in temperatures)  # type: ignore[arg-type]
    return span >= HEATING_SPAN


class Heating(Addition):
    name = "heating"
    title = "winding heating"
    parameters = (HEATING,)
    inputs = ("temperature",)
    kernel_columns = ("heating",)
    prior_weight = HEATED_PRIOR

    def on_motor(self, p: ParamValues, inputs: Mapping[str, Optional[Value]]) -> ParamValues:
        temperature = inputs.get("temperature")
        if temperature is None:
            return p
        return {**p, "R": p["R"] * (1.0 + p["heating"] * (temperature - REFERENCE_TEMPERATURE))}

    def describe(self, value: float) -> str:
        return f"heating {100 * value:.3g} %/K"


HEATING_ADDITION = Heating()
