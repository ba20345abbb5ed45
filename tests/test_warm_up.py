"""The search's warm-up (bot/search/warm.py): a process's first searches cost what its later ones do once the
warm-up has run, it runs once per database per process, and it never fails a run."""

from __future__ import annotations

from sqlalchemy import text

from bot.search import persist, search_help, search_tickets, similar_tickets
from bot.search.warm import warm_up, warm_up_in_background


def test_after_the_warm_up_the_first_search_stores_nothing(db, monkeypatch):
    with db.engine.begin() as conn:  # as a fresh seed leaves them: nothing analysed yet
        conn.execute(text("INSERT INTO search_pending (kind, key) SELECT 'ticket', id FROM ticket"))
        conn.execute(text("INSERT INTO search_pending (kind, key) SELECT 'help', id FROM help_section"))
    thread = warm_up_in_background(db)
    assert thread is not None and warm_up_in_background(db) is None, "once per database per process"
    thread.join(timeout=60)
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM search_pending")).scalar() == 0

    def no_store(*_, **__):
        raise AssertionError("a search after the warm-up stored documents")

    monkeypatch.setattr(persist, "store", no_store)
    with db.session() as session:  # the first searches the run makes: nothing left to store
        assert search_help(session, "locked out after sso change", limit=5)
        assert search_tickets(session, "sso lockout", limit=5)
        assert similar_tickets(session, "KITE-142", limit=5)


def test_a_warm_up_on_an_empty_desk_or_a_broken_database_does_not_raise(db, caplog):
    from bot.db.engine import Database

    broken = Database.from_url("sqlite:////nonexistent-dir/kitebase.db")
    thread = warm_up_in_background(broken)
    thread.join(timeout=30)
    assert "warming up the search failed" in caplog.text
    assert warm_up(db) >= 0


def test_serve_is_ready_only_once_the_search_is(settings, db, tmp_path):
    from standins.serve_process import ServeProcess
    from standins.slack_server import SlackAPIServer

    with SlackAPIServer() as slack:
        serve = ServeProcess(settings.database_url, slack.url, None, tmp_path / "serve.log").start()
        serve.stop()
    log = (tmp_path / "serve.log").read_text()
    assert "Search ready" in log and log.index("Search ready") < log.index("listening on"), log[-2000:]
