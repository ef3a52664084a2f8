"""What a fit's report says it ran on (:mod:`actuator_models.provenance`): the BLAS kernels named
are the ones this process picked, and the processor is read from the system's own description."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from actuator_models.provenance import blas_libraries, processor_name

ARCHITECTURE = "import json; from actuator_models.provenance import provenance; print(json.dumps(provenance()['blas']))"


def blas_in_a_process(**environment: str) -> list:
    done = subprocess.run([sys.executable, "-c", ARCHITECTURE], capture_output=True, text=True, check=True,
                          env={**os.environ, **environment})
    return json.loads(done.stdout)


def test_the_kernels_named_are_the_ones_openblas_picked():
    """OPENBLAS_CORETYPE makes a dynamic OpenBLAS (numpy's wheels) load another processor's
    kernels; the report must name those, not the build's or this processor's default."""
    here = blas_libraries()[:1]  # numpy's (scipy's, when this process imported it, comes after)
    if platform.machine() != "x86_64" or not here or here[0]["library"] != "openblas" or not here[0]["architecture"]:
        pytest.skip(f"numpy's BLAS here is not a dynamic OpenBLAS on x86-64 ({here}): no other kernels to load")
    forced = blas_in_a_process(OPENBLAS_CORETYPE="Sandybridge")[:1]  # AVX kernels: any x86-64 of the last decade
    assert forced[0]["architecture"] == "Sandybridge"
    if "avx2" in Path("/proc/cpuinfo").read_text():  # then OpenBLAS picks newer kernels by itself
        assert here[0]["architecture"] != "Sandybridge"
    assert blas_in_a_process()[:1] == here  # and without it, what this process has


def test_the_processor_is_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu\n\n"
                       "processor\t: 1\nmodel name\t: AMD EPYC 9B14\n")
    assert processor_name(cpuinfo) == "AMD EPYC 9B14"
    assert processor_name(tmp_path / "absent") == platform.processor()
