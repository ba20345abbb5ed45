"""The intake records a request before Slack is acknowledged, in one transaction: the delivery key, the queued
run (created the one way runs are created, `insert_run`, as `kitebase run` creates them) and what its thread must
show. A duplicate, a ticket with a live run or an unknown ticket leave nothing but their notice behind."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text

from bot.db.models import Outbox, Run, table_of
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


def test_a_mention_stores_a_queued_run_and_its_first_message_and_kitebase_run_the_same_run(db, settings):
    from bot.runs.lifecycle.service import RunService

    taken = record(db, _mention("KITE-142", "1700000001.000100"), model=MODEL, max_goal_chars=2000)
    assert taken.run_id is not None
    stored = _rows(db, taken.run_id)
    assert stored["run"]["status"] == "queued" and stored["run"]["ticket_id"] == "KITE-142"
    assert stored["run"]["messages"] == [{"role": "user", "content": [{"type": "text", "text": "handle KITE-142"}]}]
    assert stored["run"]["origin"] == {"surface": "slack", "channel": "CINTAKE", "team": "T0TEAM", "user": "ULEAD"}
    assert sorted(row["kind"] for row in stored["outbox"]) == ["agent_session", "timeline"], "its session, its message"
    assert {row["status"] for row in stored["outbox"]} == {"pending"}
    cli = RunService(db, settings).start("handle KITE-143", started_by="cli")
    from_cli = _rows(db, cli)["run"]
    for column in ("status", "steps", "cost_usd", "input_tokens", "segment_steps", "lease_owner"):
        assert from_cli[column] == stored["run"][column], column
    assert from_cli["messages"] == [{"role": "user", "content": [{"type": "text", "text": "handle KITE-143"}]}]


def test_a_request_that_starts_nothing_leaves_only_its_notice(db):
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


def test_an_event_without_channel_or_ts_still_becomes_a_run(db):
    """Slack always sends both; a payload without them still becomes a run, with no thread to post in."""
    taken = record(db, Request(text="handle KITE-160", user="ULEAD", channel="", ts="", team="T0TEAM"),
                   model=MODEL, max_goal_chars=2000)
    assert taken.run_id is not None
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM outbox WHERE run_id = :id"), {"id": taken.run_id}).scalar() == 0
        assert conn.execute(text("SELECT thread_key FROM run WHERE id = :id"), {"id": taken.run_id}).scalar() is None


def test_recording_a_request_never_builds_the_model_client(db, settings):
    """The run's model name is known from the settings: the first mention of a fresh `serve` used to wait
    2.1 s for the client (`import anthropic`) before Slack got its answer."""
    from pydantic import SecretStr

    from bot.agent.clients import model_name
    from bot.agent.offline import OfflineModel
    from bot.runs.lifecycle.service import RunService

    keyed = settings.model_copy(update={"anthropic_api_key": SecretStr("sk-ant-test-0123456789")})
    service = RunService(db, keyed)

    def refuse() -> Any:
        raise AssertionError("the model client was built to record a request")

    service.model_factory = refuse
    taken = record(db, _mention("KITE-142", "1700000009.000100"), model=service.model_name, max_goal_chars=2000)
    assert taken.run_id is not None and _rows(db, taken.run_id)["run"]["model"] == keyed.model
    assert model_name(settings) == OfflineModel.name  # the offline model's name, without loading it
