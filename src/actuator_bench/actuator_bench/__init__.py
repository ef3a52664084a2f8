"""actuator_bench: the ROS 2 layer of the actuator bench, over ROS-free cores.

ROS-free modules (tested without ROS): :mod:`.backends` (registry of bench backends),
:mod:`.loop` (the control loop: read -> player -> write), :mod:`.bench_core` (the bench node
without ROS), :mod:`.player` (trajectories and 2R paths), :mod:`.session` (the recording
pipeline: JSON logs and MCAP bags of the same cycles), :mod:`.recorder` (bags),
:mod:`.bag2json` (bags and streams to logs), :mod:`.identify` (fit jobs), :mod:`.comparison`
(sim minus real), :mod:`.launch_common` (what the launch files share). Thin rclpy nodes live in :mod:`.nodes`.
The benches themselves live beside their hardware: ``actuator_drivers.<family>.bench`` and
``actuator_sim.bench``, registered as entry points (:mod:`.backends`).
"""
