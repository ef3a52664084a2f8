"""Errors of the hybrid simulator."""


class SimulationError(RuntimeError):
    """A run fault (chart-count limit, stop-iteration limit, integrator failure); exit status 1."""
