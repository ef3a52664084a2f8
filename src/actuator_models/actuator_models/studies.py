"""optuna as the storage of record of a fit, through its public API only.

Every evaluated parameter set becomes one completed optuna trial (``study.add_trials`` of
:class:`~.study_records.RecordedTrial`, which the in-memory storage copies cheaply) with its
parameters, its cost and user attributes saying where it came from: ``phase`` (start, search,
polish), ``run`` (the IPOP restart), ``worker``, ``generation`` and ``member`` (its index in the
CMA-ES generation). A generation is
recorded once it is evaluated, so a crash or Ctrl-C loses at most the generation in flight,
never a completed trial; a resumed worker rebuilds its CMA-ES state from the trials it
recorded (see :mod:`.cma_run`). The storage may be in memory (``None``), a journal file or an
RDB (``sqlite:///``, ``postgresql://``) shared by several workers.

optuna is imported here only, on first use, so that ``actuator-models --help`` starts fast.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union

from .objective import SearchSpace

if TYPE_CHECKING:
    import numpy as np

class StorageError(ValueError):
    """A ``--storage`` that names no storage optuna can open (bad input)."""


PHASE, RUN, WORKER, GENERATION, MEMBER = "phase", "run", "worker", "generation", "member"


def open_storage(url: Optional[str]) -> Any:
    """An optuna storage: ``None`` (in memory), a journal file (``*.journal`` or ``journal:PATH``),
    or an RDB URL (``sqlite:///f.db``, ``postgresql://...``)."""
    if url is None:
        return None
    import optuna

    if url.startswith("journal:") or url.endswith(".journal"):
        path = Path(url[len("journal:"):] if url.startswith("journal:") else url)
        path.parent.mkdir(parents=True, exist_ok=True)
        from optuna.storages.journal import JournalFileBackend, JournalStorage

        return JournalStorage(JournalFileBackend(str(path)))
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


def record(study: Any, space: SearchSpace, points: Sequence[Mapping[str, float]], costs: Union[Sequence[float], np.ndarray],
           attrs: Union[Mapping[str, object], Sequence[Mapping[str, object]]]) -> None:
    """Add evaluated parameter sets as completed trials, all in one ``add_trials``: ``attrs``
    are each trial's user attributes (plain values: strings, numbers), or attributes shared by
    all (``member`` = their index). The trials copy cheaply (:mod:`.study_records`)."""
    from optuna.distributions import FloatDistribution

    from .study_records import completed_trial

    distributions = {p.name: FloatDistribution(p.lower, p.upper, log=p.log) for p in space.free}
    trials = [
        completed_trial({n: point[n] for n in space.names}, distributions, float(cost),
                        attrs[index] if isinstance(attrs, Sequence) else {**attrs, MEMBER: index})
        for index, (point, cost) in enumerate(zip(points, costs))
    ]
    with warnings.catch_warnings():  # add_trials is "experimental" in some optuna versions
        warnings.simplefilter("ignore")
        study.add_trials(trials)


def best(trials: Sequence[Any]) -> Optional[Any]:
    """The completed trial of lowest cost, or None."""
    return min(trials, key=lambda t: t.value, default=None)


def run_trials(trials: Sequence[Any], phase: str, run: int, worker: int) -> Dict[int, List[Any]]:
    """One CMA-ES run's trials by generation (in member order)."""
    out: Dict[int, List[Any]] = {}
    for t in trials:
        a = t.user_attrs
        if a.get(PHASE) == phase and a.get(RUN) == run and a.get(WORKER) == worker:
            out.setdefault(int(a[GENERATION]), []).append(t)
    return {g: sorted(ts, key=lambda t: t.user_attrs.get(MEMBER, 0)) for g, ts in sorted(out.items())}
