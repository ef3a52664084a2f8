"""The ``--seeds`` argument the fit-quality benchmarks share: ``"0-7"`` -> seeds 0 to 7,
``"0,3,5"`` -> those, ``"3"`` -> 3.

Imported by the scripts of this folder (a script's own folder is on ``sys.path``)."""

from typing import List


def seeds_of(text: str) -> List[int]:
    """The seeds of ``"FIRST-LAST"`` (both included) or ``"SEED,SEED,..."``."""
    if "-" in text:
        first, last = text.split("-")
        return list(range(int(first), int(last) + 1))
    return [int(seed) for seed in text.split(",")]
