"""What a fit's report says it ran on (:mod:`actuator_models.provenance`): the BLAS kernels named
are the ones this process picked, and the processor is read from the system's own description."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from actuator_models.provenance import blas_libraries, numpy_blas, processor_name, vendor

ARCHITECTURE = "import json; from actuator_models.provenance import provenance; print(json.dumps(provenance()['blas']))"


def blas_in_a_process(**environment: str) -> list:
    done = subprocess.run([sys.executable, "-c", ARCHITECTURE], capture_output=True, text=True, check=True,
                          env={**os.environ, **environment})
    return json.loads(done.stdout)


def test_the_kernels_named_are_the_ones_openblas_picked():
    """OPENBLAS_CORETYPE makes a dynamic OpenBLAS (numpy's wheels) load another processor's
    kernels; the report must name those, not the build's or this processor's default. This
    process may hold scipy's own OpenBLAS too: numpy's is the one its wheel ships."""
    here = numpy_blas(blas_libraries())
    if platform.machine() != "x86_64" or len(here) != 1 or here[0]["library"] != "openblas" \
            or not here[0]["architecture"]:
        pytest.skip(f"numpy's BLAS here is not one dynamic OpenBLAS of its wheel on x86-64 ({here})")
    forced = numpy_blas(blas_in_a_process(OPENBLAS_CORETYPE="Sandybridge"))  # AVX kernels: any x86-64 of the last decade
    assert [b["architecture"] for b in forced] == ["Sandybridge"]
    if "avx2" in Path("/proc/cpuinfo").read_text():  # then OpenBLAS picks newer kernels by itself
        assert here[0]["architecture"] != "Sandybridge"
    assert numpy_blas(blas_in_a_process()) == here  # and without it, what this process has


def test_numpys_blas_is_its_wheels_or_else_the_systems_never_scipys():
    """The kernels a fit's report and held_out_quality's tables name are numpy's: scipy imported
    beside it loads its own OpenBLAS, listed in no promised order."""
    numpys = {"file": "libscipy_openblas64_-32a4b2a6.so", "vendor": "numpy"}
    scipys = {"file": "libscipy_openblas-6cdc3b4a.so", "vendor": "scipy"}
    system = {"file": "libblas.so.3", "vendor": None}
    assert numpy_blas([scipys, numpys]) == [numpys]
    assert numpy_blas([scipys, system]) == [system]  # a numpy built against the system's BLAS
    assert numpy_blas([scipys]) == []


def test_a_library_is_named_by_the_wheel_that_ships_it():
    assert vendor("/venv/lib/python3.11/site-packages/numpy.libs/libscipy_openblas64_-32a4b2a6.so") == "numpy"
    assert vendor("/venv/lib/python3.11/site-packages/scipy.libs/libscipy_openblas-6cdc3b4a.so") == "scipy"
    assert vendor("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3") is None


def test_the_processor_is_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu\n\n"
                       "processor\t: 1\nmodel name\t: AMD EPYC 9B14\n")
    assert processor_name(cpuinfo) == "AMD EPYC 9B14"
    assert processor_name(tmp_path / "absent") == platform.processor()
