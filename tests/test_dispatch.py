"""The run pool of an embedded `serve`: its threads start before the first request, so a burst of mentions
never waits for a thread to be born inside a Slack request."""

from __future__ import annotations

import threading
import time

from bot.db.open import open_database
from bot.pressure import Held, answering
from bot.runs.execution.dispatch import Continuations, Dispatcher
from bot.runs.lifecycle.service import RunService
from tests.conftest import make_settings


def _run_threads() -> set[int]:
    return {t.ident or 0 for t in threading.enumerate() if t.name.startswith("kitebase-run")}


def test_start_threads_starts_the_whole_pool_and_dispatch_starts_none(sqlite_url):
    settings = make_settings(sqlite_url)
    db = open_database(settings)
    dispatcher = Dispatcher(RunService(db, settings), workers=6)
    before = _run_threads()
    try:
        dispatcher.start_threads()
        pool = _run_threads() - before
        assert len(pool) == 6
        for run_id in range(1, 6):  # no such runs: each continuation finds nothing and ends
            dispatcher(run_id)
        dispatcher.drain(timeout=30)
        assert _run_threads() - before == pool  # the same threads did the work; none was started for it
    finally:
        dispatcher.shutdown()
        db.engine.dispose()


def test_runs_dispatched_while_slack_waits_are_held_then_all_run(sqlite_url):
    """Fifty mentions at once must not wake fifty run threads while the rest of them wait for an answer:
    what is dispatched during a request reaches the pool once the requests are answered."""
    settings = make_settings(sqlite_url)
    db = open_database(settings)
    dispatcher = Dispatcher(RunService(db, settings), workers=6)
    before = _run_threads()
    try:
        with answering():
            futures = [dispatcher(run_id) for run_id in range(1, 6)]
            time.sleep(0.2)
            assert _run_threads() - before == set()  # no pool thread was started, let alone woken
            assert not any(f is None or f.done() for f in futures)
        dispatcher.drain(timeout=30)
        assert all(f is not None and f.done() and f.result() is None for f in futures)  # no such runs
        assert not dispatcher.busy()
    finally:
        dispatcher.shutdown()
        db.engine.dispose()


def test_shutdown_hands_over_what_is_held(sqlite_url):
    settings = make_settings(sqlite_url)
    db = open_database(settings)
    dispatcher = Dispatcher(RunService(db, settings), workers=2)
    try:
        with answering():
            future = dispatcher(1)
            dispatcher.shutdown()  # does not wait for the request: the held run goes to the pool, which finishes
        assert future is not None and future.done()
    finally:
        db.engine.dispose()


def test_held_passes_on_everything_once_requests_are_answered_in_one_batch():
    batches: list[list[int]] = []
    passed = threading.Event()

    def pass_on(items: list[int]) -> None:
        batches.append(items)
        passed.set()

    held = Held(pass_on, name="test-held", max_wait=5.0)
    held.start()
    with answering():
        for item in range(5):
            held.add(item)
        assert not passed.wait(0.3), "nothing is passed on while a request is answered"
    assert passed.wait(5)
    held.close()
    assert batches == [[0, 1, 2, 3, 4]]
    held.add(5)  # after close nothing waits: it is passed on at once, not lost
    assert batches[-1] == [5]


def test_held_outlives_a_failing_pass_on():
    seen: list[list[str]] = []

    def pass_on(items: list[str]) -> None:
        seen.append(items)
        if items == ["boom"]:
            raise RuntimeError("the pool is gone")

    held = Held(pass_on, name="test-held")
    held.add("boom")
    deadline = time.monotonic() + 5
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    held.add("next")
    held.close()
    assert seen == [["boom"], ["next"]]


def test_one_continuation_of_a_run_per_process_and_it_looks_again_when_asked_meanwhile():
    """A run's lease is held per process: two threads of one process must never continue a run at once."""
    continuations = Continuations()
    inside, overlaps, rounds = [], [], []
    gate = threading.Event()

    def continue_run(run_id: int) -> None:
        if not continuations.take(run_id):
            return
        while True:
            if inside:
                overlaps.append(run_id)
            inside.append(run_id)
            rounds.append(run_id)
            gate.wait(5)
            inside.pop()
            if continuations.done(run_id):
                return

    first = threading.Thread(target=continue_run, args=(7,))
    first.start()
    time.sleep(0.1)
    others = [threading.Thread(target=continue_run, args=(7,)) for _ in range(3)]
    for thread in others:
        thread.start()
    for thread in others:
        thread.join(5)  # they return at once: one is under way
    assert not any(t.is_alive() for t in others) and rounds == [7]
    gate.set()
    first.join(5)
    assert rounds == [7, 7], "asked three times meanwhile: the one under way looked once more"
    assert not overlaps and not continuations.busy()
    assert continuations.take(7)
    continuations.abandon(7)
    assert not continuations.busy() and continuations.take(7)
