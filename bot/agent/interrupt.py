"""A person's Stop reaches a run that is waiting on the model: the call runs in a worker thread while the loop
looks for a stop every half second, and abandons the call when one is asked (the thread finishes on its own and
its reply is dropped; the SDK's synchronous request cannot be cancelled from outside)."""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from bot.agent.errors import StopRequested

logger = logging.getLogger(__name__)

StopCheck = Callable[[], str | None]  # who asked the run to stop, else None
POLL_SECONDS = 0.5  # a stop is honoured within this of the click, plus the time to store it
T = TypeVar("T")
# Abandoned calls keep a thread until their request ends (bounded by the call's timeout), so the pool is wide.
_pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="kitebase-model")


def stop_asked(check: StopCheck | None) -> str | None:
    """Who asked for a stop; a check that fails (the database is away) is no stop, and says so in the log."""
    if check is None:
        return None
    try:
        return check()
    except Exception:
        logger.warning("could not look for a stop request; going on", exc_info=True)
        return None


def unless_stopped(call: Callable[[], T], check: StopCheck | None, poll: float = POLL_SECONDS) -> T:
    """`call()`, or StopRequested as soon as `check` names who asked for a stop while it runs."""
    if check is None:
        return call()
    future = _pool.submit(contextvars.copy_context().run, call)  # its log lines and spans keep the run's context
    while True:
        try:
            return future.result(timeout=poll)
        except FutureTimeout:
            who = stop_asked(check)
            if who:
                logger.info("stop asked by %s during a model call: the call is abandoned", who)
                raise StopRequested(who) from None
