"""actuator_models.plugins: the installed entry points read once per process, read again when a
package is installed (a dist-info folder written on ``sys.path``), and the same as the standard
library's answer for every group."""

import importlib
import os
from importlib import metadata

import pytest

from actuator_models import plugins
from actuator_models.additions import ENTRY_POINT_GROUP as ADDITIONS_GROUP
from actuator_models.evaluation import BACKEND_GROUP
from actuator_models.family import GROUP as FAMILIES_GROUP
from actuator_models.friction import ENTRY_POINT_GROUP as FRICTION_GROUP

GROUPS = (FAMILIES_GROUP, BACKEND_GROUP, FRICTION_GROUP, ADDITIONS_GROUP, "console_scripts",
          "actuator_bench.backends", "no.such.group")


def names(points):
    return sorted((p.name, p.value) for p in points)


@pytest.mark.parametrize("group", GROUPS)
def test_each_group_is_what_importlib_metadata_finds(group):
    assert names(plugins.entry_points(group=group)) == names(metadata.entry_points(group=group))


def test_installed_distributions_are_read_once_for_every_group(monkeypatch):
    """Counted at the standard library's function: one full read serves every group and call."""
    calls = []
    real = metadata.entry_points

    def counted(**params):
        calls.append(params)
        return real(**params)

    monkeypatch.setattr(metadata, "entry_points", counted)
    plugins._scan.cache_clear()
    for _ in range(3):
        for group in GROUPS:
            plugins.entry_points(group=group)
    assert calls == [{}]


def test_a_package_installed_after_the_first_lookup_is_found(tmp_path, monkeypatch):
    """A folder already on sys.path (read once, empty) gains a dist-info: the next lookup finds it,
    as importlib.metadata does (which also keys its own cache on the folders' modification
    times), and loads it."""
    group = "actuator_models.test_plugins"
    os.utime(tmp_path, ns=(0, 0))  # last changed long ago: the install below is a later change
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert plugins.entry_points(group=group) == ()
    (tmp_path / "late_plugin.py").write_text("VALUE = 42\n")
    info = tmp_path / "late_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: late-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\nlate = late_plugin:VALUE\n")
    importlib.invalidate_caches()
    found = plugins.entry_points(group=group)
    assert names(found) == [("late", "late_plugin:VALUE")] == names(metadata.entry_points(group=group))
    assert found[0].load() == 42
