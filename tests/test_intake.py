"""The intake records a request before Slack is acknowledged. A new mention takes the quick way (one statement on
PostgreSQL, one transaction on the driver's connection on SQLite); anything out of the ordinary takes the careful
way. Both must write the same rows, and the quick way must leave nothing behind when it gives way."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text

from bot.db.models import Outbox, Run, table_of
from bot.runs.intake import record as intake
from bot.runs.intake.record import Request, record

MODEL = "claude-opus-5"


def _mention(ticket: str, ts: str, channel: str = "CINTAKE", thread_ts: str | None = None) -> Request:
    return Request(text=f"<@U0BOT> handle {ticket}", user="ULEAD", channel=channel, ts=ts, thread_ts=thread_ts,
                   team="T0TEAM")


def _rows(db: Any, run_id: int) -> dict[str, Any]:
    """What was stored for a run, without what differs by nature (ids, clocks, the message ts)."""
    runs, rows = table_of(Run), table_of(Outbox)
    with db.engine.connect() as conn:  # through the tables' types: JSON read as JSON on both databases
        run = dict(conn.execute(select(runs).where(runs.c.id == run_id)).mappings().one())
        first = [dict(r) for r in conn.execute(select(rows).where(rows.c.run_id == run_id)).mappings()]
    for row in (run, *first):
        for name in ("id", "created_at", "updated_at", "next_attempt_at", "run_id"):
            row.pop(name, None)
    for row in first:
        row["key"] = row["key"].replace(f"timeline:{run_id}:", "timeline:RUN:")
    run["origin"] = {k: v for k, v in run["origin"].items() if k not in ("ts", "thread_ts")}
    run.pop("thread_key")
    for row in first:
        row.pop("thread_ts")
    return {"run": run, "outbox": first}


def _counts(db: Any) -> tuple[int, int, int]:
    with db.engine.connect() as conn:
        return tuple(conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar() for table in
                     ("run", "delivery", "outbox"))


def test_the_quick_and_the_careful_way_store_the_same_run(db, monkeypatch):
    quick_way = intake._record_new
    taken: list[int | None] = []
    monkeypatch.setattr(intake, "_record_new", lambda *a, **k: taken.append(quick_way(*a, **k)) or taken[-1])
    quick = record(db, _mention("KITE-142", "1700000001.000100"), model=MODEL, max_goal_chars=2000)
    assert taken == [quick.run_id]  # it was the quick way that recorded it
    monkeypatch.setattr(intake, "_record_new", lambda *args, **kwargs: None)  # every request the careful way
    careful = record(db, _mention("KITE-143", "1700000002.000100"), model=MODEL, max_goal_chars=2000)
    assert quick.run_id is not None and careful.run_id is not None
    a, b = _rows(db, quick.run_id), _rows(db, careful.run_id)
    assert a["run"].pop("ticket_id") == "KITE-142" and b["run"].pop("ticket_id") == "KITE-143"
    a["run"]["goal"] = a["run"]["goal"].replace("142", "N")
    b["run"]["goal"] = b["run"]["goal"].replace("143", "N")
    a["run"]["messages"] = str(a["run"]["messages"]).replace("142", "N")
    b["run"]["messages"] = str(b["run"]["messages"]).replace("143", "N")
    for side, ticket in ((a, "142"), (b, "143")):
        for row in side["outbox"]:
            row["payload"] = str(row["payload"]).replace(ticket, "N")
    assert a == b
    assert a["run"]["status"] == "queued" and len(a["outbox"]) == 1 and a["outbox"][0]["kind"] == "timeline"


def test_the_quick_way_gives_way_and_leaves_nothing_behind(db):
    first = record(db, _mention("KITE-150", "1700000010.000100"), model=MODEL, max_goal_chars=2000)
    assert first.run_id is not None
    before = _counts(db)
    # Slack's retry of the same message: recorded once
    assert record(db, _mention("KITE-150", "1700000010.000100"), model=MODEL, max_goal_chars=2000).duplicate
    assert _counts(db) == before
    # another mention of a ticket with a live run: told which run works it, no second run
    told = record(db, _mention("KITE-150", "1700000011.000100"), model=MODEL, max_goal_chars=2000)
    assert told.run_id is None and told.told and f"#{first.run_id}" in told.told
    # a ticket the desk does not have: told so
    unknown = record(db, _mention("KITE-999999", "1700000012.000100"), model=MODEL, max_goal_chars=2000)
    assert unknown.run_id is None and unknown.told and "KITE-999999" in unknown.told
    runs, deliveries, rows = _counts(db)
    assert runs == before[0]  # no run was added by either
    assert deliveries == before[1] + 2 and rows == before[2] + 2  # each recorded once, with its notice


def test_warm_up_writes_nothing(db):
    before = _counts(db)
    intake.warm_up(db, model=MODEL, max_goal_chars=2000, connections=3)
    assert _counts(db) == before


def test_an_event_without_channel_or_ts_takes_the_careful_way(db):
    """Slack always sends both; a payload without them still becomes a run, with no thread to post in."""
    taken = record(db, Request(text="handle KITE-160", user="ULEAD", channel="", ts="", team="T0TEAM"),
                   model=MODEL, max_goal_chars=2000)
    assert taken.run_id is not None
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM outbox WHERE run_id = :id"), {"id": taken.run_id}).scalar() == 0
        assert conn.execute(text("SELECT thread_key FROM run WHERE id = :id"), {"id": taken.run_id}).scalar() is None
