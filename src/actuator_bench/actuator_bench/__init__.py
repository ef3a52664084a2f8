"""actuator_bench: the ROS 2 layer of the actuator bench, over ROS-free cores.

ROS-free modules (tested without ROS): :mod:`.player` (trajectories and 2R paths),
:mod:`.recorder` (bags), :mod:`.bag2json` (bags to logs), :mod:`.identify` (fit jobs),
:mod:`.comparison` (sim minus real), :mod:`.driver_bench` and :mod:`.sim_bench` (benches),
:mod:`.session` (the graph in one process). Thin rclpy nodes live in :mod:`.nodes`.
"""
