"""A toy model addition, defined in this one module (tests/test_servo_parts.py): ``trim`` scales
the torque constant, ``kt (1 + trim)``, acting on the motor's values only. It declares no compiled
twin: the kernel refuses a model carrying it (naming it) and a fit runs the numpy step. It is
carried by default (``fit --carry auto``, the ROS FitJob) so that those paths search it."""

from actuator_models.addition import Addition
from actuator_models.parameters import Parameter

TRIM = Parameter("trim", 0.0, -0.3, 0.3, "1", "relative error of the torque constant", "dkt", domain="real")


class Trim(Addition):
    name = "trim"
    title = "torque-constant trim"
    parameters = (TRIM,)

    def on_motor(self, p, inputs):
        return {**p, "kt": p["kt"] * (1.0 + p["trim"])}

    def carried_by_default(self, inputs):
        return True


TRIM_ADDITION = Trim()
