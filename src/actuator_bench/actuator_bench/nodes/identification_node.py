"""Identification node: fits friction models M1-M6 on bench logs or bags.

Action ``fit_models`` (actuator_interfaces/FitModels) reports the model being fitted, its
trials and its best training MAE as feedback every ``feedback_period`` s; service
``fit_models`` (actuator_interfaces/FitModels) is the blocking form for ``ros2 service call``.
Fits run in background threads, so the executor keeps serving. Cancelling a goal stops its fit
after the current generation (the best parameters so far are kept); sending the same goal again
with the same ``output_dir`` continues the fit. The logic is
:class:`actuator_bench.fit_job.FitJob`.

At shutdown (:func:`~actuator_bench.nodes.common.spin`), :meth:`IdentificationNode.stop_work`
cancels every fit: a goal in flight is aborted (``message`` says why) while the context is still
valid, and no callback waits on a fit for more than ``STOP_GRACE`` s after that.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Callable, Optional, Set

from actuator_interfaces.action import FitModels
from actuator_interfaces.srv import FitModels as FitModelsService
from rclpy.action import ActionServer, CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from ..fit_job import FitJob, FitOutcome, FitProgress, request_from_fields
from .common import STOP_GRACE, Activity, read_only, spin

#: Polling period [s] of a running fit (cancel requests, shutdown).
POLL = 0.1


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
        self.stopping = threading.Event()
        self.activity = Activity()  # execute and on_fit, waited for at shutdown
        self.stopped_at: Optional[float] = None  # time.monotonic() of stop_work
        group = ReentrantCallbackGroup()
        self.action_server = ActionServer(
            self, FitModels, 'fit_models', execute_callback=self.execute,
            cancel_callback=lambda _: CancelResponse.ACCEPT, callback_group=group)
        self.create_service(FitModelsService, 'fit_models', self.on_fit, callback_group=group)

    def job(self, request) -> FitJob:
        return FitJob(request_from_fields(request.logs, request.actuator, request.models, request.trials,
                                          request.validation_fraction, request.output_dir, request.force),
                      self.output_root, self.seed)

    def run(self, job: FitJob, on_poll: Callable[[], None] = lambda: None) -> FitOutcome:
        """Run a fit (tracked, so that shutdown cancels it), calling ``on_poll`` every
        :data:`POLL` s while it runs; once the node stops, the fit is cancelled and waited for at
        most ``STOP_GRACE`` s (its daemon thread keeps the studies' journal consistent)."""
        self.jobs.add(job)
        try:
            outcome: Future = job.start()
            while True:
                try:
                    return outcome.result(timeout=POLL)
                except FutureTimeout:
                    if self.stopping.is_set():
                        job.cancel()
                        assert self.stopped_at is not None  # stop_work sets it before ``stopping``
                        if time.monotonic() - self.stopped_at > STOP_GRACE:
                            return FitOutcome(False, 'node shut down while fitting; the studies journal in '
                                                     f'{job.output_dir} keeps the completed trials', cancelled=True)
                    else:
                        on_poll()
        finally:
            self.jobs.discard(job)

    def execute(self, goal_handle) -> FitModels.Result:
        with self.activity.running():
            return self.fit_goal(goal_handle)

    def fit_goal(self, goal_handle) -> FitModels.Result:
        job = self.job(goal_handle.request)
        self.get_logger().info(f'fitting {", ".join(job.models)} of {job.request.actuator} into {job.output_dir}')
        sent = [time.monotonic()]

        def poll() -> None:
            if goal_handle.is_cancel_requested:
                job.cancel()
            elif time.monotonic() - sent[0] >= self.feedback_period:
                sent[0] = time.monotonic()
                progress = job.progress()
                if progress is not None:
                    goal_handle.publish_feedback(feedback_msg(progress))

        result = self.run(job, poll)
        if result.success:
            goal_handle.succeed()
            for warning in result.warnings:
                self.get_logger().warning(warning)
        elif result.cancelled and goal_handle.is_cancel_requested:
            goal_handle.canceled()
        else:
            goal_handle.abort()
            if self.stopping.is_set():
                self.get_logger().warning(f'goal aborted at shutdown: {result.message}')
            else:
                self.get_logger().error(f'fit failed: {result.message}')
        return fill_result(FitModels.Result(), result)

    def on_fit(self, request, response):
        with self.activity.running():
            return fill_result(response, self.run(self.job(request)))

    def stop_work(self) -> None:
        """Shutdown begins: cancel every fit (stopped after the current generation, best
        parameters so far kept); goals in flight are aborted within ``STOP_GRACE`` s."""
        self.stopped_at = time.monotonic()
        self.stopping.set()
        for job in list(self.jobs):
            job.cancel()

    def destroy_node(self) -> None:
        if self.stopped_at is None:
            self.stop_work()
        self.action_server.destroy()
        super().destroy_node()


def main(args=None) -> None:
    spin(IdentificationNode, args, MultiThreadedExecutor)


if __name__ == '__main__':
    main()
