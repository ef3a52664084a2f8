"""hybrid_sim: SimSect-style hybrid dynamical simulation (Saranli, SimSect manual) on scipy.

A model is an atlas of charts; each chart has a vector field and boundary functions; an epoch
ends when a boundary crosses zero and a transition maps the state into the next chart.
"""
