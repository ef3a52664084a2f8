"""Shared fixtures: paths to the shipped real data; ``--package-tests``: one package's tests.

``colcon test`` runs each Python package's tests with pytest from the package folder; its
``setup.cfg`` points pytest here (``testpaths``) with the ini option ``package_tests = <package>``
(``--package-tests`` on the command line), which keeps the test files
that package owns: the highest layer of the project it imports (actuator_bench over hybrid_sim,
actuator_sim, actuator_drivers over actuator_models; a file importing none tests the
``actuator-bench`` command or the launch files: actuator_bench). Every test file has exactly one
owner, so ``colcon test-result`` counts every test once, each under its package.
"""

import ast
import functools
import os
import signal
from pathlib import Path
from typing import Dict

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The project's Python packages, top layer first.
LAYERS = ("actuator_bench", "hybrid_sim", "actuator_sim", "actuator_drivers", "actuator_models")


def owner(path: Path) -> str:
    """The package a test file belongs to (see the module docstring)."""
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    return next((package for package in LAYERS if package in imported), LAYERS[0])


def pytest_addoption(parser) -> None:
    help = "run only the test files of this folder that PACKAGE owns (colcon test)"
    parser.addoption("--package-tests", metavar="PACKAGE", choices=LAYERS, help=help)
    parser.addini("package_tests", help=help, default="")


def colcon_package(config) -> str:
    """The ini's ``package_tests`` when pytest runs from that ini's folder, as ``colcon test``
    runs it (cwd = the package folder); else "": ``make test`` from the repository root also
    finds ``src/actuator_bench/setup.cfg`` (an argument's folder) and must not filter by it."""
    inipath = config.inipath
    return config.getini("package_tests") if inipath and inipath.parent == config.invocation_params.dir else ""


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    package = config.getoption("--package-tests", default=None) or colcon_package(config)
    if package and collection_path.parent == Path(__file__).parent and collection_path.name.startswith("test_") \
            and collection_path.suffix == ".py":
        return owner(collection_path) != package
    return None


#: A test that imports one of these (or ``pytest.importorskip``-s it) needs ROS 2: marker ``ros``.
ROS_MODULES = frozenset({"rclpy", "launch_ros", "actuator_interfaces"})
#: ... and one that takes the veth skip reason of the eRob tests needs root: marker ``root``.
ROOT_REASON = ("test_erob_driver", "REASON")


def imports_of(tree: ast.AST) -> set:
    """(module, name) pairs a piece of code imports or ``importorskip``-s (name "" for a module)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {(alias.name, "") for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {(node.module, alias.name) for alias in node.names}
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "importorskip" and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            found.add((node.args[0].value, ""))
    return found


def markers_of(imported: set) -> frozenset:
    ros = any(module.split(".")[0] in ROS_MODULES for module, _ in imported)
    return frozenset({"ros"} if ros else ()) | frozenset({"root"} if ROOT_REASON in imported else ())


@functools.lru_cache(maxsize=None)
def file_markers(path: Path) -> Dict[str, frozenset]:
    """The markers a test file's imports call for (``ros``, ``root``), so that a new test is
    marked without listing it: by the module's own statements ("" key: every test of the file) and
    by each test function's body (key: its name). ``slow`` is declared (``pytestmark``)."""
    tree = ast.parse(path.read_text())
    functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    module = [node for node in tree.body if node not in functions]
    found = {"": markers_of(set().union(*map(imports_of, module)) | ({ROOT_REASON} if path.stem == ROOT_REASON[0] else set()))}
    found.update({f.name: markers_of(imports_of(f)) for f in functions})
    return found


def pytest_configure(config) -> None:
    """Ctrl-C works in the tests and in the commands they start, and each pytest-xdist worker has
    its own ROS 2 domain (``ROS_DOMAIN_ID``: the run's, set by .ci/with-ros, plus 1 + the
    worker's number), so that two workers' graphs never meet.

    A suite started in the background by a shell without job control inherits SIGINT ignored,
    which Python keeps and passes on to every process it starts: the Ctrl-C tests would test
    nothing (a command's Ctrl-C is lost, exit 0 instead of 130). The test process takes Python's
    own handler back, so the commands it starts get the default disposition."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    worker = getattr(config, "workerinput", {}).get("workerid", "")  # "gw0", "gw1", ...; "": not a worker
    if worker.startswith("gw"):
        base = int(os.environ.get("ROS_DOMAIN_ID") or 0)
        os.environ["ROS_DOMAIN_ID"] = str((base + 1 + int(worker[2:])) % 102)  # 0..101: ROS 2's usable domains


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if item.path.parent == Path(__file__).parent:
            markers = file_markers(item.path)
            for name in markers[""] | markers.get(getattr(item, "originalname", ""), frozenset()):
                item.add_marker(name)


XL330 = REPO / "data" / "xl330"


@pytest.fixture(scope="session")
def xl330_processed() -> Path:
    return XL330 / "processed"


@pytest.fixture(scope="session")
def xl330_raw() -> Path:
    return XL330 / "raw"


@pytest.fixture(scope="session")
def reference_mae_file() -> Path:
    return XL330 / "reference_mae.json"


# Property-based tests (tests/test_fuzz_*.py): a fixed, bounded run in CI; a longer random one for a
# release with HYPOTHESIS_PROFILE=release.
try:
    import atexit
    import os
    import shutil
    import tempfile

    from hypothesis import HealthCheck, settings
    from hypothesis.configuration import set_hypothesis_home_dir

    if "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ:  # its caches, else .hypothesis/ in the working
        hypothesis_home = tempfile.mkdtemp(prefix="hypothesis-")  # directory: a package's source (colcon)
        set_hypothesis_home_dir(hypothesis_home)
        atexit.register(shutil.rmtree, hypothesis_home, True)  # each pytest process's own, gone with it
    settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("release", max_examples=20_000, deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # hypothesis is in requirements-test.txt; without it the fuzz tests are skipped
    pass
