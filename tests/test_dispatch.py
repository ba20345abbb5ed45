"""The run pool of an embedded `serve`: its threads start before the first request, so a burst of mentions
never waits for a thread to be born inside a Slack request."""

from __future__ import annotations

import threading

from bot.db.open import open_database
from bot.runs.dispatch import Dispatcher
from bot.runs.service import RunService
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
