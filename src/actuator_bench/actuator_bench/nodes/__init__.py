"""Thin rclpy nodes; each converts messages and parameters and calls one ROS-free class."""
