"""Background work steps aside while a Slack request is answered, and for a moment after (a burst is one
stretch), but never for longer than it was told to."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from bot import pressure


def _waiter(max_wait: float) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()
    thread = threading.Thread(target=lambda: (pressure.let_requests_pass(max_wait), done.set()), daemon=True)
    thread.start()
    return thread, done


class _Untouched:
    """Stands in for the condition that waiters wait on: any use of it fails the test."""

    def __getattr__(self, name: str) -> None:
        raise AssertionError(f"let_requests_pass used its condition ({name}): it waited")

    def __enter__(self) -> None:
        raise AssertionError("let_requests_pass took its condition's lock: it waited")

    def __exit__(self, *exc: object) -> None:
        pass


def test_nothing_answered_nothing_waits(monkeypatch):
    """It returns without waiting at all (checked by what it touches, not by a clock a slow machine races)."""
    pressure._last_answer = float("-inf")
    monkeypatch.setattr(pressure, "_cond", _Untouched())
    pressure.let_requests_pass(5.0)


@contextmanager
def _request_being_answered() -> Iterator[threading.Event]:
    """A request held inside `answering()` until the returned event is set (or the block ends)."""
    release, inside = threading.Event(), threading.Event()

    def request() -> None:
        with pressure.answering():
            inside.set()
            release.wait(10)

    answering = threading.Thread(target=request, daemon=True)
    answering.start()
    assert inside.wait(5)
    try:
        yield release
    finally:
        release.set()
        answering.join(5)


def test_background_work_waits_for_the_request_and_then_goes():
    with _request_being_answered() as release:
        _, done = _waiter(30.0)
        assert not done.wait(0.3), "a run's next step went ahead while Slack waited for an answer"
        release.set()
        assert done.wait(5), "the run did not go on once the request was answered"


def test_the_wait_is_bounded():
    with _request_being_answered():
        _, done = _waiter(0.05)
        assert done.wait(5), "background work waited past its bound"
