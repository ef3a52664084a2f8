# Two commands set everything up on a fresh machine (Python 3.10+, pip, gcc):
#   make demo   - create .venv, install the packages, run the main job (the no-ROS demo)
#   make test   - create .venv, install the packages and test tools, run the linters and the test suite
#   make lint   - ruff (ruff.toml) over src/, benchmarks/ and tests/; mypy (mypy.ini) over src/
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PACKAGES := src/actuator_models src/actuator_sim src/actuator_drivers src/actuator_bench src/hybrid_sim
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast test-ros lint install clean

# the C servo kernel (src/actuator_models/actuator_models/servo_kernel.c) is compiled by pip here:
# an edit of it reinstalls
$(STAMP): Makefile $(wildcard src/*/setup.py) $(wildcard src/*/*/*.c) requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(addprefix -e ,$(PACKAGES)) -e 'src/actuator_sim[warp]' -r requirements-test.txt
	# byte-compile the editable sources as pip does an installed package: where PYTHONDONTWRITEBYTECODE
	# is set, Python never caches them and every command would compile them again (~0.07 s a start)
	$(PY) -m compileall -q $(PACKAGES) >/dev/null
	touch $(STAMP)

install: $(STAMP)

# the no-ROS demo; `make demo DEMO_ARGS=` runs the full one (about 10 minutes on 2 cores)
DEMO_ARGS ?= --quick
demo: $(STAMP)
	$(VENV)/bin/actuator-bench demo $(DEMO_ARGS) --out demo-out --force

MYPY_PACKAGES := actuator_models actuator_sim actuator_drivers actuator_bench hybrid_sim

lint: $(STAMP)
	$(VENV)/bin/ruff check src benchmarks tests
	$(VENV)/bin/mypy --config-file mypy.ini $(addprefix -p ,$(MYPY_PACKAGES))

# the whole suite, 2 workers (pytest-xdist; the tests of one file stay in one worker: they share
# their module fixtures); PYTEST_ARGS= adds options (PYTEST_WORKERS=0: one process)
PYTEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS) tests $(wildcard src/*/test)
test: lint
	$(PYTEST)

# the edit loop: without the tests marked slow (10 s or more each; CI runs them)
test-fast: $(STAMP)
	$(PYTEST) -m "not slow"

# the suite with the ROS 2 tests (rclpy, launch, ros2 CLI): ROS_SETUP is a ROS 2 setup script,
# e.g. DEST/env.sh of `bash ../shared/ros/install.sh DEST`, or /opt/ros/jazzy/setup.bash
ROS_SETUP ?= /opt/ros-jazzy/env.sh
test-ros: $(STAMP)
	.ci/with-ros $(ROS_SETUP) $(MAKE) test

clean:
	rm -rf $(VENV)
