"""``pip install src/actuator_bench`` (what colcon's ament_python build runs) installs the launch
files and the bench configs into ``share/actuator_bench``, and the installed launch files find
their configs there, never in the source tree.

Real pip into a temporary prefix / target (no network: ``--no-deps --no-build-isolation``), from a
copy of the package with the repository's launch/ and config/ beside it, as in the repository:
building in place would write ``build/`` and an egg-info into the source tree.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from actuator_bench import launch_common

PACKAGE_DIR = Path(__file__).resolve().parents[1]
REPO = PACKAGE_DIR.parents[1]
LAUNCH_FILES = ("bench.launch.py", "sim.launch.py", "compare.launch.py", "description.launch.py", "control.launch.py",
                "compare_control.launch.py")
CONFIGS = ("xl330_bench.yaml", "mx64_bench.yaml", "arm_mx.yaml", "so100_arm.yaml")


def source_copy(root: Path) -> Path:
    """The package and the repository folders its setup.py installs, copied under ``root``."""
    package = root / "src" / PACKAGE_DIR.name
    shutil.copytree(PACKAGE_DIR, package, ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    for folder in ("launch", "config"):
        shutil.copytree(REPO / folder, root / folder)
    return package


def source_tree() -> list:
    """Every file of the package's source folder with its size and modification time."""
    return sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in PACKAGE_DIR.rglob("*")
                  if "__pycache__" not in p.parts and p.is_file())


def pip_install(source: Path, *where: str) -> None:
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                             "--ignore-installed",  # else pip would uninstall the editable install of the venv
                             *where, str(source)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module", params=["--prefix", "--target"])
def share(request, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("install")
    before = source_tree()
    pip_install(source_copy(tmp_path_factory.mktemp("source")), request.param, str(root))
    assert source_tree() == before, "installing wrote into the source tree"
    (found,) = {p.parent for p in root.rglob("share/actuator_bench/package.xml")}
    return found


def test_launch_files_and_configs_are_installed(share):
    assert {p.name for p in (share / "launch").glob("*.launch.py")} == set(LAUNCH_FILES)
    assert set(CONFIGS) <= {p.name for p in (share / "config").glob("*.yaml")}
    for name in LAUNCH_FILES:
        assert (share / "launch" / name).read_bytes() == (REPO / "launch" / name).read_bytes()


def test_installed_launch_files_do_not_reach_into_the_source_tree(share, monkeypatch):
    for path in (share / "launch").glob("*.launch.py"):
        text = path.read_text()
        assert not re.search(r"parents?\b|\.\./|'\.\.'|\bsrc/", text), path.name
    monkeypatch.setattr(launch_common, "share_dir", lambda: None)  # no ament index here: the fallback
    launch = str(share / "launch" / "bench.launch.py")
    assert Path(launch_common.config_file("xl330_bench.yaml", launch)) == share / "config" / "xl330_bench.yaml"
    monkeypatch.setattr(launch_common, "share_dir", lambda: share)  # a sourced workspace: the ament index
    assert Path(launch_common.config_file("arm_mx.yaml", "/elsewhere/x.launch.py")) == share / "config" / "arm_mx.yaml"
    with pytest.raises(FileNotFoundError, match="nope.yaml"):
        launch_common.config_file("nope.yaml", launch)
