"""What a fit ran on: the versions and the processor's numeric kernels its last bits depend on.

A fit is reproducible to the bit on one machine (seeded streams, deterministic kernel), not
across machines: CMA-ES samples and adapts its covariance through numpy's BLAS, and OpenBLAS picks
its kernels by the processor when it loads (Haswell, SkylakeX, Zen, ...; ``OPENBLAS_CORETYPE``
overrides the choice). Kernels that sum in another order give other last bits, and a search of
tens of thousands of points amplifies them into another fit of like quality: the same seed, the
same code and logs gave a held-out MAE of 0.04435 rad with OpenBLAS's Haswell kernels and 0.04409
with its Sandybridge ones (docs/FIDELITY.md 7.10). A fit's report therefore names them.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy  # noqa: F401 (loads numpy's BLAS, which blas_libraries lists)
from threadpoolctl import threadpool_info

#: The packages whose versions a fit's numbers depend on.
PACKAGES = ("actuator_models", "numpy", "scipy", "optuna")


def package_version(name: str) -> Optional[str]:
    """The installed version of distribution ``name`` (None: not installed)."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def processor_name(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The processor's model name (Linux: ``/proc/cpuinfo``'s first ``model name``; elsewhere
    what :func:`platform.processor` says, which may be empty)."""
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    return platform.processor()


def vendor(filepath: str) -> Optional[str]:
    """The package whose wheel ships the library at ``filepath`` (``numpy`` for
    ``site-packages/numpy.libs/...``), None for a library of the system."""
    folder = Path(filepath).parent.name
    return folder[: -len(".libs")] if folder.endswith(".libs") else None


def blas_libraries() -> List[Dict[str, Any]]:
    """Every BLAS library loaded in this process, in no promised order (numpy's, and scipy's own
    once scipy is imported; CMA-ES computes with numpy's): which one, its version, the kernels it
    picked for this processor, its threads, its file and the wheel that ships it (``vendor``)."""
    return [{"library": lib.get("internal_api"), "version": lib.get("version"),
             "architecture": lib.get("architecture"), "threads": lib.get("num_threads"),
             "file": Path(str(lib.get("filepath"))).name, "vendor": vendor(str(lib.get("filepath")))}
            for lib in threadpool_info() if lib.get("user_api") == "blas"]


def numpy_blas(libraries: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The entries of :func:`blas_libraries` that numpy computes with (so CMA-ES does): those its
    wheel ships, else (a numpy built against the system's BLAS) those no wheel ships; scipy's
    own OpenBLAS, loaded beside numpy's once scipy is imported, is never one of them."""
    return [b for b in libraries if b.get("vendor") == "numpy"] or [b for b in libraries if b.get("vendor") is None]


def provenance() -> Dict[str, Any]:
    """What this process computes with: Python, the packages of :data:`PACKAGES`, the processor
    and the BLAS kernels (report.json's ``ran_on``: the process that wrote the report; helper
    workers of a shared study on other machines are not listed)."""
    return {"python": platform.python_version(),
            "packages": {name: package_version(name) for name in PACKAGES},
            "processor": processor_name(), "machine": platform.machine(),
            "blas": blas_libraries()}


def describe(ran_on: Dict[str, Any]) -> str:
    """One sentence for the report: what the fit ran on (:func:`provenance`'s dictionary), and
    what that means for its bits."""
    blas = ", ".join(f"{b['library']} {b['version']} ({b['architecture']} kernels"
                     + (f", {b['vendor']}'s)" if b.get("vendor") else ")") for b in ran_on.get("blas", [])) \
        or "no BLAS library found"
    packages = ran_on.get("packages", {})
    return (f"Fitted on {ran_on.get('processor') or 'an unnamed processor'} ({ran_on.get('machine')}), Python "
            f"{ran_on.get('python')}, numpy {packages.get('numpy')}; BLAS: {blas}. The search's path follows the last "
            "bits of these kernels: the same seed on another processor or numpy build gives another fit of like "
            "quality, not these numbers (docs/FIDELITY.md 7.10).")
