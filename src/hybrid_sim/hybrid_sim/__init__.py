"""hybrid_sim: SimSect-style hybrid dynamical simulation (Saranli, SimSect manual) on scipy.

A model is an atlas of charts; each chart has a vector field and boundary functions; an epoch
ends when a boundary crosses zero and a transition maps the state into the next chart.
"""

from .engine import simulate
from .errors import SimulationError
from .model import Boundary, HybridModel, Side, Transition
from .result import Event, HybridResult
from .settings import RunSettings

__all__ = ["Boundary", "Event", "HybridModel", "HybridResult", "RunSettings", "Side", "SimulationError",
           "Transition", "simulate"]
