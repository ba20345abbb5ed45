"""Someone is waiting for an answer (Slack gives a request three seconds): background work in this process
(starting a run, a run's next turn, the outbox sender) lets the requests being answered go first, for a few
milliseconds at most. Python runs one thread at a time, so this is what keeps acknowledgements fast while fifty
runs are busy."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_cond = threading.Condition()
_answering = 0


@contextmanager
def answering() -> Iterator[None]:
    global _answering
    with _cond:
        _answering += 1
    try:
        yield
    finally:
        with _cond:
            _answering -= 1
            if not _answering:
                _cond.notify_all()


def let_requests_pass(max_wait: float = 0.05) -> None:
    """Wait until no request is being answered, or `max_wait` seconds, whichever comes first."""
    with _cond:
        if _answering:
            _cond.wait_for(lambda: not _answering, max_wait)
