"""optuna as the storage of record of a fit, through its public API only.

**A trial is one CMA-ES generation** of one run (one start of the search, a restart, the
polish), not one evaluated parameter set: its parameters and value are the generation's best
member, its user attributes say where it came from (``phase``: start, search, polish; ``run``,
``worker``, ``generation``), how many parameter sets it evaluated (``evaluations``, the unit of
the fit's ``--trials`` budget and of its summary), the median cost of them (``median_cost``, the
population's spread) and the optimizer's state after it (``cma_state``, JSON:
:meth:`~.cma_es.CMA.state`). The given start point of a fit is a trial of one evaluation. So
optuna's tools show a study as a convergence history (value per generation, best so far, the
parameters of each generation's best), and the study's best trial is the fit's best parameter
set. A default M6 fit records a trial per 48 evaluations (its population) instead of one each
(issue 34: a journal written per evaluation cost 17x the fit in memory).

The generations of a lockstep batch are recorded in one ``study.add_trials`` once they are
evaluated and told, so a crash, ``kill -9`` or Ctrl-C loses at most the generation in flight,
never a completed one; a resumed run restores its optimizer from the state its last recorded
generation holds (see :mod:`.cma_run`). The storage may be in memory (``None``), a journal file or an
RDB (``sqlite:///``, ``postgresql://``) shared by several workers.

optuna is imported here only, on first use, so that ``actuator-models --help`` starts fast.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union

from .objective import SearchSpace

if TYPE_CHECKING:
    import numpy as np

class StorageError(ValueError):
    """A ``--storage`` that names no storage optuna can open (bad input)."""


PHASE, RUN, WORKER, GENERATION = "phase", "run", "worker", "generation"
EVALUATIONS, MEDIAN, STATE = "evaluations", "median_cost", "cma_state"


@dataclass(frozen=True)
class Generation:
    """One generation of one run, to record as a trial: the parameter sets it evaluated and
    their costs, where it came from (``attrs``: phase, run, worker, generation) and the
    optimizer's state after it (:meth:`~.cma_es.CMA.state`; None for the start point)."""

    points: Sequence[Mapping[str, float]]
    costs: Union[Sequence[float], "np.ndarray"]
    attrs: Mapping[str, object]
    state: Optional[Mapping[str, Any]] = None


def open_storage(url: Optional[str]) -> Any:
    """An optuna storage: ``None`` (in memory), a journal file (``*.journal`` or ``journal:PATH``),
    or an RDB URL (``sqlite:///f.db``, ``postgresql://...``)."""
    if url is None:
        return None
    import optuna

    if url.startswith("journal:") or url.endswith(".journal"):
        path = Path(url[len("journal:"):] if url.startswith("journal:") else url)
        path.parent.mkdir(parents=True, exist_ok=True)
        from .journal_file import BatchedJournalFile  # optuna's format, without an fsync per trial

        return optuna.storages.journal.JournalStorage(BatchedJournalFile(path))
    import sqlalchemy.exc

    try:
        return optuna.storages.RDBStorage(url, heartbeat_interval=None)
    except (ImportError, sqlalchemy.exc.ArgumentError) as error:  # a URL no installed driver serves
        hint = "; with psycopg2, postgresql+psycopg2://..." if url.startswith("postgresql://") else ""
        raise StorageError(f"--storage {url}: not a journal file nor a usable database URL ({error}{hint})") from None
    except sqlalchemy.exc.OperationalError as error:  # a server down or unreachable: a runtime fault
        raise ConnectionError(f"--storage {url}: cannot connect ({str(error.orig).strip().splitlines()[0]})") from None


def open_study(storage: Any, name: Optional[str]) -> Any:
    """Create the study, or load it if it exists (re-running continues it)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna.create_study(storage=storage, study_name=name, direction="minimize", load_if_exists=name is not None,
                               sampler=optuna.samplers.RandomSampler())


def completed(study: Any) -> List[Any]:
    """The study's completed trials (frozen, not copied)."""
    from optuna.trial import TrialState

    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))


def record(study: Any, space: SearchSpace, generations: Sequence[Generation]) -> None:
    """Add each generation as one completed trial (its best member, see the module's
    docstring), all in one ``add_trials``. The trials copy cheaply (:mod:`.study_records`)."""
    import numpy as np
    from optuna.distributions import FloatDistribution

    from .study_records import completed_trial

    distributions = {p.name: FloatDistribution(p.lower, p.upper, log=p.log) for p in space.free}
    trials = []
    for g in generations:
        costs = np.asarray(g.costs, dtype=float)
        lowest = int(np.argmin(costs))
        attrs: Dict[str, object] = {**g.attrs, EVALUATIONS: len(costs), MEDIAN: float(np.median(costs))}
        if g.state is not None:
            attrs[STATE] = json.dumps(g.state, separators=(",", ":"))
        trials.append(completed_trial({n: g.points[lowest][n] for n in space.names}, distributions,
                                      float(costs[lowest]), attrs))
    with warnings.catch_warnings():  # add_trials is "experimental" in some optuna versions
        warnings.simplefilter("ignore")
        study.add_trials(trials)


def evaluations(trials: Sequence[Any]) -> int:
    """The parameter sets the ``trials`` evaluated (each trial is a generation of them)."""
    return sum(int(t.user_attrs.get(EVALUATIONS, 1)) for t in trials)


def state(trial: Any) -> Optional[Dict[str, Any]]:
    """The optimizer's state a generation's trial holds (None: none, the start point)."""
    text = trial.user_attrs.get(STATE)
    return None if text is None else dict(json.loads(text))


def best(trials: Sequence[Any]) -> Optional[Any]:
    """The completed trial of lowest cost, or None."""
    return min(trials, key=lambda t: t.value, default=None)


def run_trials(trials: Sequence[Any], phase: str, run: int, worker: int) -> Dict[int, Any]:
    """One CMA-ES run's trials by generation number, in order."""
    out: Dict[int, Any] = {}
    for t in trials:
        a = t.user_attrs
        if a.get(PHASE) == phase and a.get(RUN) == run and a.get(WORKER) == worker:
            out.setdefault(int(a[GENERATION]), t)
    return dict(sorted(out.items()))
