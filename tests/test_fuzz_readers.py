"""Fuzzing the log reader and the params reader (hypothesis).

Inputs: random JSON-like structures, the shipped files with fields deleted, replaced or retyped,
and arbitrary bytes written to a file. Property: reading either succeeds with finite numbers or
raises the documented error (:class:`LogError` / :class:`ParamsError`, one line naming the file);
nothing else escapes. CI runs a fixed, derandomized set (profile ``ci``); a release runs
``HYPOTHESIS_PROFILE=release pytest tests/test_fuzz_readers.py``.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from actuator_models.logs import LogError, log_from_dict, read_log  # noqa: E402
from actuator_models.model import ParamsError, load_model, model_from_dict  # noqa: E402

EXAMPLES = settings(max_examples=max(settings().max_examples, 250))  # ci: 250 per test; release: 20,000
REPO = Path(__file__).resolve().parents[1]
RAW_LOG = json.loads(sorted((REPO / "data" / "xl330" / "raw").glob("*.json"))[0].read_text())
RAW_LOG["entries"] = RAW_LOG["entries"][:20]  # enough structure, fast to check
PARAMS = json.loads((REPO / "src" / "actuator_models" / "actuator_models" / "library" / "mx64" / "m6.json").read_text())

SCALARS = (st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=12) | st.sampled_from(["m6", "mx64", "xl330", "bam", "semi-implicit", "nan"]))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)


def mutate(document, edits, data):
    """Apply ``edits`` (path choices, operation, new value) to a copy of a JSON document."""
    doc = json.loads(json.dumps(document))
    for choice, operation in edits:
        parent, key = None, None
        node = doc
        for step in range(3):  # walk down a few levels at random
            if isinstance(node, dict) and node:
                keys = sorted(node)
                parent, key = node, keys[(choice >> (4 * step)) % len(keys)]
            elif isinstance(node, list) and node:
                parent, key = node, (choice >> (4 * step)) % len(node)
            else:
                break
            node = parent[key]
        if parent is None:
            continue
        if operation == "delete":
            del parent[key]
        else:
            parent[key] = data.draw(JSON)
    return doc


def check_log(log) -> None:
    for column in (log.timestamp, log.position, log.speed, log.goal_position, *log.extra.values()):
        assert np.all(np.isfinite(column))
    assert math.isfinite(log.mass) and math.isfinite(log.length) and math.isfinite(log.kp)


@EXAMPLES
@given(JSON)
def test_any_json_value_is_a_log_or_a_log_error(value):
    try:
        check_log(log_from_dict(value, "fuzz.json"))
    except LogError as error:
        assert str(error).startswith("fuzz.json")


@EXAMPLES
@given(st.lists(st.tuples(st.integers(0, 2**16), st.sampled_from(["delete", "replace"])), min_size=1, max_size=4),
       st.data())
def test_mutated_logs_are_read_or_refused_with_a_log_error(edits, data):
    try:
        check_log(log_from_dict(mutate(RAW_LOG, edits, data), "fuzz.json"))
    except LogError as error:
        assert str(error).startswith("fuzz.json")


@EXAMPLES
@given(JSON)
def test_any_json_value_is_a_model_or_a_params_error(value):
    try:
        model = model_from_dict(value, "fuzz.json")
        assert all(math.isfinite(v) for v in model.values.values())
    except ParamsError as error:
        assert str(error).startswith("fuzz.json")


@EXAMPLES
@given(st.lists(st.tuples(st.integers(0, 2**16), st.sampled_from(["delete", "replace"])), min_size=1, max_size=3),
       st.data())
def test_mutated_params_are_loaded_or_refused_with_a_params_error(edits, data):
    try:
        model = model_from_dict(mutate(PARAMS, edits, data), "fuzz.json")
        assert all(math.isfinite(v) for v in model.values.values())
    except ParamsError as error:
        assert str(error).startswith("fuzz.json")


@EXAMPLES
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode)
       | st.tuples(st.integers(0, 4000), st.binary(min_size=1, max_size=8)).map(
           lambda cut: (json.dumps(RAW_LOG)[:cut[0]]).encode() + cut[1]))
def test_arbitrary_file_bytes_are_refused_with_the_documented_errors(content):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.json"
        path.write_bytes(content)
        try:
            check_log(read_log(path))
        except LogError as error:
            assert str(error).startswith(str(path))
        try:
            load_model(path)
        except ParamsError as error:
            assert str(error).startswith(str(path))
