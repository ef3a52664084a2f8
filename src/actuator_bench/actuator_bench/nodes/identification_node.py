"""Identification node: fits friction models M1-M6 on bench logs or bags.

Action ``fit_models`` (actuator_interfaces/FitModels) reports the model being fitted, its
trials and its best training MAE as feedback every ``feedback_period`` s; service
``fit_models`` (actuator_interfaces/FitModels) is the blocking form for ``ros2 service call``.
Fits run in background threads, so the executor keeps serving. Cancelling a goal stops its fit
after the current generation (the best parameters so far are kept); sending the same goal again
with the same ``output_dir`` continues the fit. The logic is
:class:`actuator_bench.identify.FitJob`.
"""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Callable, Set

from actuator_interfaces.action import FitModels
from actuator_interfaces.srv import FitModels as FitModelsService
from rclpy.action import ActionServer, CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from ..identify import FitJob, FitOutcome, FitProgress, request_from_fields
from .common import read_only, spin


def fill_result(msg, outcome: FitOutcome):
    """Set the fields shared by the action result and the service response."""
    msg.success, msg.message = outcome.success, outcome.message
    msg.models, msg.params_files = list(outcome.models), list(outcome.params_files)
    msg.train_mae, msg.validation_mae = list(outcome.train_mae), list(outcome.validation_mae)
    msg.best_model, msg.report_dir = outcome.best_model, outcome.report_dir
    return msg


def feedback_msg(progress: FitProgress) -> FitModels.Feedback:
    return FitModels.Feedback(model=progress.model, trial=progress.trial, trials=progress.trials,
                              best_score=progress.best_score)


class IdentificationNode(Node):

    def __init__(self, **kwargs) -> None:
        super().__init__('identification', **kwargs)
        self.output_root = Path(self.declare_parameter('output_root', 'fits', read_only(
            'Parent folder of the fits whose goal gives no output_dir (relative: to the working '
            'directory)')).value).resolve()
        self.seed = self.declare_parameter('seed', 0, read_only('Random seed of splits and CMA-ES')).value
        self.feedback_period = self.declare_parameter('feedback_period', 1.0, read_only(
            'Period of the action feedback [s]')).value
        self.jobs: Set[FitJob] = set()  # running fits, cancelled on shutdown
        group = ReentrantCallbackGroup()
        self.action_server = ActionServer(
            self, FitModels, 'fit_models', execute_callback=self.execute,
            cancel_callback=lambda _: CancelResponse.ACCEPT, callback_group=group)
        self.create_service(FitModelsService, 'fit_models', self.on_fit, callback_group=group)

    def job(self, request) -> FitJob:
        return FitJob(request_from_fields(request.logs, request.actuator, request.models, request.trials,
                                          request.validation_fraction, request.output_dir, request.force),
                      self.output_root, self.seed)

    def run(self, job: FitJob, wait: Callable[[Future], FitOutcome]) -> FitOutcome:
        """Run a fit (tracked, so that shutdown cancels it) and wait for it with ``wait``."""
        self.jobs.add(job)
        try:
            return wait(job.start())
        finally:
            self.jobs.discard(job)

    def execute(self, goal_handle) -> FitModels.Result:
        job = self.job(goal_handle.request)
        self.get_logger().info(f'fitting {", ".join(job.models)} of {job.request.actuator} into {job.output_dir}')

        def wait(outcome: Future) -> FitOutcome:
            while True:
                try:
                    return outcome.result(timeout=self.feedback_period)
                except FutureTimeout:
                    if goal_handle.is_cancel_requested or not self.context.ok():
                        job.cancel()
                        continue
                    progress = job.progress()
                    if progress is not None:
                        goal_handle.publish_feedback(feedback_msg(progress))

        result = self.run(job, wait)
        if not self.context.ok():  # shut down while fitting: nobody to answer
            return fill_result(FitModels.Result(), result)
        if result.success:
            goal_handle.succeed()
        elif result.cancelled:
            goal_handle.canceled()
        else:
            goal_handle.abort()
            self.get_logger().error(f'fit failed: {result.message}')
        return fill_result(FitModels.Result(), result)

    def on_fit(self, request, response):
        return fill_result(response, self.run(self.job(request), lambda outcome: outcome.result()))

    def destroy_node(self) -> None:
        for job in list(self.jobs):  # stop after the current generation; best parameters are kept
            job.cancel()
        self.action_server.destroy()
        super().destroy_node()


def main(args=None) -> None:
    spin(IdentificationNode, args, MultiThreadedExecutor)


if __name__ == '__main__':
    main()
