#!/bin/bash
# Source ROS 2 and the workspace, then run the command (default: the simulated bench).
set -e
source /opt/ros/jazzy/setup.bash
source /ws/install/setup.bash
exec "$@"
