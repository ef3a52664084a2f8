"""CMA-ES, ask/tell: the (mu/mu_w, lambda)-CMA-ES with negative weights of N. Hansen, "The CMA
Evolution Strategy: A Tutorial" (arXiv:1604.00772, 2016), equations and defaults of its
appendix A, termination tests of its appendix B.3.

Why not a library: the ``cmaes`` package (which this module replaces, with its constants and
numerical choices, so that a seed draws the same search as before) imports ``scipy.stats`` when
scipy is installed (0.7 s, a quarter of a whole ``actuator-models fit --trials 1500``), and
``cma`` (pycma) imports ``scipy.stats`` and ``matplotlib.pyplot`` (1.2 s); this one needs
numpy only. ``tests/test_cma_es.py`` checks it on analytic functions and, step by step,
against ``cmaes`` where that is installed.

Points outside ``bounds`` are drawn again (up to ``max_resampling`` times), then clipped.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

#: Floor of the covariance's eigenvalues and of a norm divided by.
EPS = 1e-8
#: Termination thresholds (tutorial, B.3): function-value range, step relative to the initial one,
#: divergence of the step, condition number of the covariance.
TOLFUN, TOLX, TOLXUP, TOLCONDITION = 1e-12, 1e-12, 1e4, 1e14


class CMA:
    """One CMA-ES optimizer: ``ask`` one point at a time, ``tell`` a whole generation of
    ``population_size`` ``(point, cost)`` pairs. ``mean``: the initial mean, ``sigma``: the
    initial step (in the units of the points), ``bounds``: ``(n, 2)`` lower and upper bounds or
    None, ``seed``: the random stream (numpy's ``RandomState``), ``population_size``: lambda
    (default ``4 + 3 ln n``)."""

    def __init__(self, mean: np.ndarray, sigma: float, bounds: Optional[np.ndarray] = None, seed: Optional[int] = None,
                 population_size: Optional[int] = None, max_resampling: int = 100) -> None:
        n = len(mean)
        if n < 1 or not sigma > 0:
            raise ValueError(f"CMA-ES needs at least one dimension and a positive step (n={n}, sigma={sigma})")
        lam = population_size or 4 + math.floor(3 * math.log(n))  # (48)
        mu = lam // 2
        w = np.array([math.log((lam + 1) / 2) - math.log(i + 1) for i in range(lam)])  # (49)
        self.mu_eff = float(np.sum(w[:mu]) ** 2 / np.sum(w[:mu] ** 2))
        mu_eff_minus = float(np.sum(w[mu:]) ** 2 / np.sum(w[mu:] ** 2)) if lam > mu else 0.0
        self.c1 = 2 / ((n + 1.3) ** 2 + self.mu_eff)  # (57), alpha_cov = 2
        self.cmu = min(1 - self.c1 - 1e-8, 2 * (self.mu_eff - 2 + 1 / self.mu_eff) / ((n + 2) ** 2 + self.mu_eff))  # (58)
        alpha_min = min(1 + self.c1 / self.cmu, 1 + 2 * mu_eff_minus / (self.mu_eff + 2),  # (50)-(52)
                        (1 - self.c1 - self.cmu) / (n * self.cmu))
        positive, negative = np.sum(w[w > 0]), np.sum(np.abs(w[w < 0]))
        self.weights = np.where(w >= 0, 1 / positive * w, alpha_min / negative * w)  # (53)
        self.c_sigma = (self.mu_eff + 2) / (n + self.mu_eff + 5)  # (55)
        self.d_sigma = 1 + 2 * max(0.0, math.sqrt((self.mu_eff - 1) / (n + 1)) - 1) + self.c_sigma
        self.cc = (4 + self.mu_eff / n) / (n + 4 + 2 * self.mu_eff / n)  # (56)
        self.chi_n = math.sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n**2))  # E||N(0, I)||
        self.dim, self.population_size, self.mu = n, lam, mu
        self.mean, self.sigma = np.array(mean, dtype=float), float(sigma)
        self.cov = np.eye(n)
        self.p_sigma, self.pc = np.zeros(n), np.zeros(n)
        self.bounds, self.max_resampling = bounds, max_resampling
        self.generation = 0
        self.rng = np.random.RandomState(seed)
        self.tolx = TOLX * sigma
        self.history_length = 10 + math.ceil(30 * n / lam)  # generations of best and worst costs kept (TolFun)
        self.history = np.zeros(2 * self.history_length)
        self._eigen: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None

    def eigen(self) -> Tuple[np.ndarray, np.ndarray]:
        """``(B, D)`` with ``C = B diag(D**2) B^T``, computed once per generation; ``C`` is made
        symmetric and positive definite (eigenvalues floored at :data:`EPS`) on the way."""
        return self._decomposition()[:2]

    def _decomposition(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(B, D, B diag(D))``, the last for sampling."""
        if self._eigen is None:
            self.cov = (self.cov + self.cov.T) / 2
            d2, b = np.linalg.eigh(self.cov)
            d = np.sqrt(np.where(d2 < 0, EPS, d2))
            self.cov = np.dot(np.dot(b, np.diag(d**2)), b.T)
            self._eigen = b, d, b.dot(np.diag(d))
        return self._eigen

    def _sample(self) -> np.ndarray:
        z = self.rng.randn(self.dim)  # ~ N(0, I)
        return self.mean + self.sigma * self._decomposition()[2].dot(z)  # ~ N(m, sigma^2 C)  (38)-(40)

    def inside(self, xs: np.ndarray) -> np.ndarray:
        """Whether each point (along the last axis) lies within the bounds: one array test for a
        point or a block of them (all True without bounds)."""
        if self.bounds is None:
            return np.ones(xs.shape[:-1], bool)
        return np.all((xs >= self.bounds[:, 0]) & (xs <= self.bounds[:, 1]), axis=-1)

    def clipped(self, x: np.ndarray) -> np.ndarray:
        """``x`` clipped to the bounds (a point kept after ``max_resampling`` redraws)."""
        return x if self.bounds is None else np.clip(x, self.bounds[:, 0], self.bounds[:, 1])

    def ask(self) -> np.ndarray:
        """One point of the current generation: drawn again while outside the bounds, then clipped."""
        for _ in range(self.max_resampling):
            x = self._sample()
            if self.inside(x):
                return x
        return self.clipped(self._sample())

    def ask_population(self, count: int) -> List[np.ndarray]:
        """``count`` points, the same to the bit as ``count`` calls of :meth:`ask` from the same
        random stream (each drawn again while outside the bounds, up to ``max_resampling`` times,
        then clipped), drawn in blocks: one array test per block instead of one per draw. The
        stream is left past the block's last draw, not past the last point's (a caller that
        reseeds per generation, as :mod:`cma_run` does, sees no difference)."""
        transform = self._decomposition()[2]
        points: List[np.ndarray] = []
        redraws = 0  # of the point being drawn
        while len(points) < count:
            block = self.rng.randn(4 * (count - len(points)) + 4, self.dim)  # randn(dim) row after row
            # one matrix-vector product per row, as _sample: a matrix product would sum in another order
            xs = self.mean + self.sigma * np.array([transform.dot(z) for z in block])
            for x, feasible in zip(xs, self.inside(xs).tolist()):
                if feasible or redraws == self.max_resampling:
                    points.append(x if feasible else self.clipped(x))
                    redraws = 0
                    if len(points) == count:
                        break
                else:
                    redraws += 1
        return points

    def tell(self, solutions: Sequence[Tuple[np.ndarray, float]]) -> None:
        """Update the distribution from one whole generation of ``(point, cost)`` pairs."""
        if len(solutions) != self.population_size:
            raise ValueError(f"tell: {len(solutions)} solutions, the population is {self.population_size}")
        ranked: List[Tuple[np.ndarray, float]] = sorted(solutions, key=lambda s: s[1])
        self.generation += 1
        slot = 2 * (self.generation % self.history_length)
        self.history[slot], self.history[slot + 1] = ranked[0][1], ranked[-1][1]
        b, d = self.eigen()
        self._eigen = None
        y = (np.array([s[0] for s in ranked]) - self.mean) / self.sigma  # ~ N(0, C)
        y_w = np.sum(y[: self.mu].T * self.weights[: self.mu], axis=1)  # (41)
        self.mean += self.sigma * y_w  # (42), c_m = 1
        inv_sqrt = b.dot(np.diag(1 / d)).dot(b.T)  # C^(-1/2)
        self.p_sigma = ((1 - self.c_sigma) * self.p_sigma
                        + math.sqrt(self.c_sigma * (2 - self.c_sigma) * self.mu_eff) * inv_sqrt.dot(y_w))  # (43)
        norm = np.linalg.norm(self.p_sigma)
        self.sigma *= np.exp((self.c_sigma / self.d_sigma) * (norm / self.chi_n - 1))  # (44)
        h_sigma = float(norm / math.sqrt(1 - (1 - self.c_sigma) ** (2 * (self.generation + 1)))
                        < (1.4 + 2 / (self.dim + 1)) * self.chi_n)
        self.pc = (1 - self.cc) * self.pc + h_sigma * math.sqrt(self.cc * (2 - self.cc) * self.mu_eff) * y_w  # (45)
        w_o = self.weights * np.where(self.weights >= 0, 1, self.dim / (np.linalg.norm(inv_sqrt.dot(y.T), axis=0) ** 2 + EPS))  # (46)
        delta_h = (1 - h_sigma) * self.cc * (2 - self.cc)
        rank_mu = np.sum(w_o.reshape(-1, 1, 1) * np.einsum("...i,...j->...ij", y, y), axis=0)
        self.cov = ((1 + self.c1 * delta_h - self.c1 - self.cmu * np.sum(self.weights)) * self.cov
                    + self.c1 * np.outer(self.pc, self.pc) + self.cmu * rank_mu)  # (47)

    def state(self) -> Dict[str, Any]:
        """What the search has learnt (mean, step, covariance, evolution paths, generation and
        the cost history of the stop test) as plain JSON values: with the constructor's arguments,
        :meth:`restore` continues the search from it exactly (the random stream aside)."""
        return {"mean": self.mean.tolist(), "sigma": self.sigma, "cov": self.cov.tolist(),
                "p_sigma": self.p_sigma.tolist(), "pc": self.pc.tolist(), "generation": self.generation,
                "history": self.history.tolist()}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Continue from a :meth:`state` of an optimizer built with the same arguments."""
        self.mean, self.sigma = np.array(state["mean"], dtype=float), float(state["sigma"])
        self.cov = np.array(state["cov"], dtype=float)
        self.p_sigma, self.pc = np.array(state["p_sigma"], dtype=float), np.array(state["pc"], dtype=float)
        self.generation, self.history = int(state["generation"]), np.array(state["history"], dtype=float)
        if self.cov.shape != (self.dim, self.dim) or self.history.shape != (2 * self.history_length,):
            raise ValueError(f"a CMA-ES state of another shape: covariance {self.cov.shape}, {self.dim} dimensions")
        self._eigen = None

    def should_stop(self) -> bool:
        """The tutorial's termination tests (B.3): TolFun, TolX, TolXUp, NoEffectCoord,
        NoEffectAxis, ConditionCov."""
        b, d = self.eigen()
        diagonal = np.diag(self.cov)
        step = self.sigma
        if self.generation > self.history_length and np.max(self.history) - np.min(self.history) < TOLFUN:
            return True
        if np.all(step * diagonal < self.tolx) and np.all(step * self.pc < self.tolx):
            return True
        if step * np.max(d) > TOLXUP:
            return True
        if np.any(self.mean == self.mean + 0.2 * step * np.sqrt(diagonal)):
            return True
        axis = self.generation % self.dim
        if np.all(self.mean == self.mean + 0.1 * step * d[axis] * b[:, axis]):
            return True
        return bool(np.max(d) / np.min(d) > TOLCONDITION)
