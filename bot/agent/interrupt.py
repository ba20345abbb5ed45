"""A person's Stop reaches a run that is waiting on the model: the call runs in a worker thread while the loop
looks for a stop every half second, and abandons the call when one is asked (the thread finishes on its own and
its reply is dropped; the SDK's synchronous request cannot be cancelled from outside)."""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from bot.agent.errors import StopRequested

logger = logging.getLogger(__name__)

StopCheck = Callable[[], str | None]  # who asked the run to stop, else None
POLL_SECONDS = 0.5  # a stop is honoured within this of the click, plus the time to store it
T = TypeVar("T")


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
    done: Future[T] = Future()
    context = contextvars.copy_context()  # its log lines and spans keep the run's context

    def work() -> None:
        try:
            done.set_result(context.run(call))
        except BaseException as exc:  # handed to the waiting loop as it is
            done.set_exception(exc)

    # A daemon thread: an abandoned call (or a Ctrl-C at the terminal) never keeps the process from exiting.
    threading.Thread(target=work, name="kitebase-model-call", daemon=True).start()
    while True:
        try:
            return done.result(timeout=poll)
        except FutureTimeout:
            who = stop_asked(check)
            if who:
                logger.info("stop asked by %s during a model call: the call is abandoned", who)
                raise StopRequested(who) from None
