"""Run agent work off the request threads: a bounded pool of our own (Bolt's listener pool stays free)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from bot.agent.events import Observer
from bot.agent.state import RunState
from bot.runs.service import RunService

logger = logging.getLogger(__name__)


class Dispatcher:
    def __init__(self, service: RunService, observer_for: Callable[[int], Observer | None], workers: int,
                 after: Callable[[int, RunState | None, Observer | None], None] | None = None):
        self.service, self.observer_for, self.after = service, observer_for, after
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kitebase-run")
        self.futures: list[Future] = []

    def __call__(self, run_id: int, note: str | None = None) -> Future:
        future = self.pool.submit(self._continue, run_id)
        self.futures = [f for f in self.futures if not f.done()] + [future]
        return future

    def _continue(self, run_id: int) -> RunState | None:
        observer = None
        try:
            observer = self.observer_for(run_id)
            state = self.service.resume(run_id, observer)
        except Exception:
            logger.exception("run %s could not be continued", run_id)
            state = self.service.load_state(run_id)
        if self.after is not None:
            try:
                self.after(run_id, state, observer)
            except Exception:
                logger.exception("after-run hook failed for run %s", run_id)
        return state

    def drain(self, timeout: float | None = None) -> None:
        for future in list(self.futures):
            future.result(timeout=timeout)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=False)
