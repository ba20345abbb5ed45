"""Someone is waiting for an answer (Slack gives a request three seconds): background work in this process
(starting a run, a run's next turn, its tools, the outbox sender) lets the requests being answered go first,
for a moment at most. Python runs one thread at a time, so this is what keeps acknowledgements fast while fifty
runs are busy.

A burst of requests is answered a few at a time (the web server's threads), with short gaps between one and
the next; so the way stays clear for `QUIET` seconds after the last answer too, and a burst is one stretch."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

logger = logging.getLogger(__name__)
T = TypeVar("T")

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


class Held(Generic[T]):
    """Work handed over while requests are answered waits here; one thread of its own passes it on, all that
    has gathered at once, when they are answered (or at `max_wait`). Fifty mentions at once then wake one
    thread, not fifty (each woken thread takes Python's lock from the requests still waiting for it).
    `close()` passes on what is held without waiting, and stops the thread."""

    def __init__(self, pass_on: Callable[[list[T]], None], *, name: str, max_wait: float = 0.5):
        self._pass_on = pass_on
        self._name = name
        self._max_wait = max_wait
        self._lock = threading.Lock()
        self._items: list[T] = []
        self._arrived = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None

    def add(self, item: T) -> None:
        with self._lock:
            closed = self._closing
            if not closed:
                self._items.append(item)
                self._start()
        if closed:  # nothing waits any more: pass it on here
            self._pass_on([item])
        else:
            self._arrived.set()

    def start(self) -> None:
        """Start the thread now (otherwise the first `add` does, inside the request that added it)."""
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._thread is None and not self._closing:
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            self._arrived.wait()
            self._arrived.clear()
            if not self._closing:
                let_requests_pass(self._max_wait)
            with self._lock:
                items, self._items = self._items, []
                closing = self._closing
            if items:
                try:
                    self._pass_on(items)
                except Exception:  # pass_on reports its own failures; this thread must outlive them
                    logger.exception("%s could not pass on %d item(s)", self._name, len(items))
            if closing:
                return

    def close(self) -> None:
        items: list[T] = []
        with self._lock:
            self._closing = True
            thread = self._thread
            if thread is None:
                items, self._items = self._items, []
        self._arrived.set()
        if thread is not None:
            thread.join()
        elif items:
            self._pass_on(items)
