"""Run agent work off the request threads: a bounded pool of our own (Slack's request threads stay free).
A run already queued or running here is not queued twice; its continuation sees the newest state anyway
(`Continuations`, which `kitebase worker` uses for its jobs too).

A dispatch made while Slack requests are being answered is held, and handed to the pool by one starter
thread once they are answered (`bot.pressure.Held`)."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from bot.pressure import Held, let_requests_pass
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import RunState

logger = logging.getLogger(__name__)


class Continuations:
    """At most one continuation of a run at a time in this process. A run's lease is held by a process, not a
    thread, so two threads of one process would both hold it and write the same turn twice. A continuation
    asked for while one is under way is not started: the one under way looks once more when it is done (it
    may have read the run just before the change that asked)."""

    def __init__(self) -> None:
        self._asked: dict[int, int] = {}  # run id -> continuations asked for while one was under way
        self._lock = threading.Lock()

    def take(self, run_id: int) -> bool:
        """True: the caller continues the run (then calls `done`); False: one is under way and will look again."""
        with self._lock:
            if run_id in self._asked:
                self._asked[run_id] += 1
                return False
            self._asked[run_id] = 0
            return True

    def done(self, run_id: int) -> bool:
        """True: the continuation is over; False: it was asked for again meanwhile, so look once more."""
        with self._lock:
            if self._asked.get(run_id, 0):
                self._asked[run_id] = 0
                return False
            self._asked.pop(run_id, None)
            return True

    def abandon(self, run_id: int) -> None:
        """The continuation under way failed: forget it (and what was asked meanwhile: the sweep finds it)."""
        with self._lock:
            self._asked.pop(run_id, None)

    def busy(self) -> bool:
        with self._lock:
            return bool(self._asked)


class Dispatcher:
    def __init__(self, service: RunService, workers: int):
        self.service = service
        self.workers = workers
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kitebase-run")
        self.futures: list[Future[RunState | None]] = []
        self.continuations = Continuations()
        self._lock = threading.Lock()
        self._held: Held[tuple[int, Future[RunState | None]]] = Held(self._submit, name="kitebase-starter")

    def __call__(self, run_id: int) -> Future[RunState | None] | None:
        if not self.continuations.take(run_id):  # running or waiting here: it looks once more when done
            return None
        future: Future[RunState | None] = Future()
        with self._lock:
            self.futures = [f for f in self.futures if not f.done()] + [future]
        self._held.add((run_id, future))
        return future

    def _submit(self, held: list[tuple[int, Future[RunState | None]]]) -> None:
        for run_id, future in held:
            self.pool.submit(self._run, run_id, future)

    def _run(self, run_id: int, future: Future[RunState | None]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(self._continue(run_id))
        except BaseException as exc:  # _continue logs its runs' errors; this is the pool itself failing
            future.set_exception(exc)

    def _continue(self, run_id: int) -> RunState | None:
        state = None
        while True:
            let_requests_pass(0.5)
            try:
                state = self.service.resume(run_id)
            except Exception:
                logger.exception("run %s could not be continued", run_id)
            if self.continuations.done(run_id):
                return state

    def start_threads(self) -> None:
        """Start every pool thread now. The pool otherwise starts one per dispatch, inside the Slack request
        that dispatched it, and a thread start waits for the new thread to be scheduled: in a burst of
        mentions that waiting, fifty times over, is what the last requests' acknowledgements waited for."""
        started = threading.Barrier(self.workers + 1)
        for _ in range(self.workers):
            self.pool.submit(started.wait)
        started.wait()
        self._held.start()

    def busy(self) -> bool:
        return self.continuations.busy()

    def drain(self, timeout: float | None = None) -> None:
        for future in list(self.futures):
            future.result(timeout=timeout)

    def shutdown(self) -> None:
        """Hand what is held to the pool, and wait for the pool to finish."""
        self._held.close()
        self.pool.shutdown(wait=True, cancel_futures=False)
