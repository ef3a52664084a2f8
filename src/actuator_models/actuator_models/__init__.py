"""actuator_models: extended friction models M1-M6 for servo actuators (no ROS).

Units everywhere: rad, rad/s, N m, kg, m, s, V, A.
"""

from .actuators import ACTUATORS, Actuator, actuator
from .friction import FRICTION_MODELS, FrictionModel, friction_model
from .logs import Log, LogError, read_log, read_logs, write_log
from .model import Model, ParamsError, library_names, load_model, new_model, save_model
from .resampling import resample
from .simulation import LogBatch, Pendulum, log_maes, rollout, simulate_logs

__all__ = [
    "ACTUATORS", "Actuator", "actuator", "FRICTION_MODELS", "FrictionModel", "friction_model",
    "Log", "LogError", "read_log", "read_logs", "resample", "write_log",
    "Model", "ParamsError", "library_names", "load_model", "new_model", "save_model",
    "LogBatch", "Pendulum", "log_maes", "rollout", "simulate_logs",
]
