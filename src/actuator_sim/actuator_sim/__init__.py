"""actuator_sim: MuJoCo joint simulation with extended friction models (no ROS import here)."""
