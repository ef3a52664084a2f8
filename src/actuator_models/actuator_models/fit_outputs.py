"""Where ``actuator-models fit`` writes, what it says when interrupted, and when its budget is
too small (the command's side of :mod:`.fit_cli`).

* One model: the params file (``--out m6.json``, or ``<folder>/m6.json``) and its report beside it,
  named after it: ``m6.report/`` (so fits of several models into one folder never collide).
* ``--model all``: ``m1.json .. m6.json`` and ``report/`` in the folder.
* Nothing over an earlier run's files unless ``--force`` (or ``--storage``: a resumed study
  updates its own outputs).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

from .argument_names import PYTHON, ArgumentNames
from .outputs import new_run_folder, refuse_existing


@dataclass(frozen=True)
class FitOutputs:
    """The params file of each model [path] and the report folder of one fit."""

    params: Dict[str, Path]
    report: Path

    @property
    def folder(self) -> Path:
        return self.report.parent

    @classmethod
    def in_folder(cls, folder: Union[str, Path], models: Sequence[str]) -> "FitOutputs":
        """``<folder>/<model>.json`` for each model and ``<folder>/report`` (nothing is checked)."""
        return cls({m: Path(folder) / f"{m}.json" for m in models}, Path(folder) / "report")


def plan_outputs(out: Optional[str], actuator_name: str, models: Sequence[str], overwrite: bool,
                 names: ArgumentNames = PYTHON) -> FitOutputs:
    """The outputs of a fit of ``models`` given ``out`` (None: a new folder
    ``fit-<actuator>[-N]``), refused when one exists unless ``overwrite``, or when one cannot be
    written; the refusal names the caller's arguments (``names``: ``--out``/``--force`` on the
    command line, ``out``/``overwrite=True`` from Python)."""
    if out and out.endswith(".json") and len(models) == 1:
        params = {models[0]: Path(out)}
    else:
        folder = Path(out) if out else new_run_folder(f"fit-{actuator_name}")
        params = {m: folder / f"{m}.json" for m in models}
    if len(models) == 1:
        only = params[models[0]]
        report = only.with_name(f"{only.stem}.report")
    else:
        report = next(iter(params.values())).parent / "report"
    outputs = FitOutputs(params, report)
    refuse_existing([*params.values(), report], overwrite, names.out, names.switch(names.overwrite))
    return outputs


def resume_command(argv: Sequence[str], folder: Path, out: Optional[str], storage: Optional[str]) -> str:
    """The command that continues an interrupted fit: the same arguments, its outputs pinned
    (``--out``: a default folder would be a new one), and ``--force`` where there is no storage
    (the rerun replaces what the interrupted one wrote; a study in a storage continues anyway)."""
    words: List[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--out":
            skip = True
        elif not word.startswith("--out="):
            words.append(word)
    words += ["--out", out or f"{folder}/"]
    if not storage and "--force" not in words:
        words.append("--force")
    return "actuator-models " + shlex.join(words)


def interrupted_message(finished: Sequence[str], stopped: str, best: str, outputs: FitOutputs, command: str,
                        storage: Optional[str]) -> str:
    """What an interrupted fit kept, where, and how to continue (several lines)."""
    lines = [f"interrupted while fitting {stopped.upper()}: best so far {best}; "
             f"its parameters so far in {outputs.params[stopped]}"]
    if finished:
        files = ", ".join(str(outputs.params[m]) for m in finished)
        lines.append(f"finished: {', '.join(m.upper() for m in finished)} ({files}); "
                     f"report for them: {outputs.report / 'report.md'}")
    else:
        lines.append("finished: none")
    how = ("continuing the studies in --storage (no completed trial is lost)" if storage else
           "fitting again from the start: without --storage no trial was kept (add --storage runs.journal "
           "to make a fit resumable)")
    lines.append(f"to resume, {how}:\n  {command}")
    return "\n".join(lines)


def budget_warning(model: str, trials: int, dimensions: int, popsize: Optional[int], patience: Optional[int],
                   names: ArgumentNames = PYTHON) -> Optional[str]:
    """A warning when ``trials`` leaves the CMA-ES search of ``model`` (``dimensions`` free
    parameters) fewer generations than its convergence test needs to ever end it (``patience``
    generations without progress; 60 by default), else None; in the caller's ``names``."""
    from .cma_run import default_popsize
    from .identification import DEFAULT_TRIALS, PATIENCE, POLISH_SHARE

    needed = patience or PATIENCE
    search = max(1, int(trials * (1 - POLISH_SHARE)))
    size = popsize or default_popsize(dimensions, search)
    generations = search // size
    if generations >= needed:
        return None
    usual = popsize or default_popsize(dimensions, int(DEFAULT_TRIALS * (1 - POLISH_SHARE)))
    enough = math.ceil(2 * needed * usual / (1 - POLISH_SHARE) / 100) * 100
    return (f"{names.given(names.trials, trials)} leaves the {model.upper()} search {generations} CMA-ES generation(s) of {size}; "
            f"it cannot converge in fewer than {needed} (it stops after {needed} without progress), so it will end "
            f"on the budget and the parameters may be far from the best fit: give {names.given(names.trials, enough)} or more")
