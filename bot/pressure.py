"""Someone is waiting for an answer (Slack gives a request three seconds): background work in this process
(starting a run, a run's next turn, its tools, the outbox sender) lets the requests being answered go first,
for a moment at most. Python runs one thread at a time, so this is what keeps acknowledgements fast while fifty
runs are busy.

A burst of requests is answered a few at a time (the web server's threads), with short gaps between one and
the next; so the way stays clear for `QUIET` seconds after the last answer too, and a burst is one stretch."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

QUIET = 0.02  # seconds
_cond = threading.Condition()
_answering = 0
_last_answer = float("-inf")


@contextmanager
def answering() -> Iterator[None]:
    global _answering, _last_answer
    with _cond:
        _answering += 1
    try:
        yield
    finally:
        with _cond:
            _answering -= 1
            _last_answer = time.monotonic()
            if not _answering:
                _cond.notify_all()


def _clear() -> bool:
    return not _answering and time.monotonic() - _last_answer >= QUIET


def let_requests_pass(max_wait: float = 0.5) -> None:
    """Wait until no request is being (or was just) answered, or `max_wait` seconds, whichever comes first."""
    if _clear():  # the common case, without the lock
        return
    deadline = time.monotonic() + max_wait
    with _cond:
        while not _clear():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            _cond.wait(min(left, QUIET) if not _answering else left)
