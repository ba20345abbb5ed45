"""A person's word holds against a customer's message (issue 48, items 1 and 9): a run a person stopped, took from
the queue or closed is not restarted by the customer writing again; the message is shown in the run's thread and
waits for a person, and it goes into the run when a person resumes it. Messages written while a run works are
gathered into one continuation, not one reopening each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from bot.db.models import DeskArrival, Escalation, Outbox, Run
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import ArrivalState, EscalationStatus, RunStatus
from tests.test_desk_add import SSO, _pass, arrivals_of, cli, database, database_settings, lines  # noqa: F401

MESSAGE = {"ticket_id": "KITE-218", "body": "Still looping, and now for our admins too."}


def _started_run(cli: Any, database: Any, tmp_path: Path) -> int:  # noqa: F811
    cli("desk", "add", lines(tmp_path, SSO))
    [run_id] = _pass(cli, database)
    return run_id


def _set(database: Any, run_id: int, **values: Any) -> None:  # noqa: F811
    with database.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id).values(**values))


def _escalate(database: Any, run_id: int, status: str, by: str | None) -> None:  # noqa: F811
    _set(database, run_id, status=RunStatus.ESCALATED)
    with database.session() as session:
        session.add(Escalation(run_id=run_id, kind="model_request", reason="the agent asked for a person",
                               status=status, claimed_by=by))


def _message_arrival(database: Any) -> DeskArrival:  # noqa: F811
    return [a for a in arrivals_of(database) if a.kind == "message"][-1]


def _notices(database: Any) -> list[str]:  # noqa: F811
    with database.session() as session:
        return [str((r.payload or {}).get("text", "")) for r in session.exec(select(Outbox)).all()
                if r.kind == "notice"]


def test_a_stopped_run_is_not_restarted_by_the_customer_and_the_message_is_shown(cli: Any, database: Any,  # noqa: F811
                                                                                tmp_path: Path) -> None:
    run_id = _started_run(cli, database, tmp_path)
    _set(database, run_id, status=RunStatus.STOPPED, stop_requested_by="U0LEAD1")
    cli("desk", "add", lines(tmp_path, MESSAGE, name="m.jsonl"))
    for _ in range(3):
        assert _pass(cli, database) == [], "a person stopped it: no automatic path restarts it"
    with database.session() as session:
        assert session.get(Run, run_id).status == RunStatus.STOPPED
    arrival = _message_arrival(database)
    assert arrival.state == ArrivalState.NEW and "stopped by U0LEAD1" in (arrival.reason or "")
    shown = [n for n in _notices(database) if "Still looping" in n]
    assert len(shown) == 1, "shown once in the run's thread, whatever the passes"
    assert "U0LEAD1" in shown[0] and "resume" in shown[0].lower()

    service = RunService(database, database_settings(cli))
    service.reopen(run_id, actor="U0LEAD1", note="go on")
    with database.session() as session:
        run = session.get(Run, run_id)
        assert run.status == RunStatus.QUEUED
        assert "Still looping, and now for our admins too." in str((run.messages or [])[-1]), \
            "the held message goes into the person's resume"
    assert _message_arrival(database).state == ArrivalState.STARTED
    assert _pass(cli, database) == [], "and is not answered a second time"


def test_a_taken_or_closed_run_waits_for_a_person(cli: Any, database: Any, tmp_path: Path) -> None:  # noqa: F811
    run_id = _started_run(cli, database, tmp_path)
    _escalate(database, run_id, EscalationStatus.CLAIMED, "U0LEAD2")
    cli("desk", "add", lines(tmp_path, MESSAGE, name="m.jsonl"))
    assert _pass(cli, database) == [] and _pass(cli, database) == []
    assert "taken by U0LEAD2" in (_message_arrival(database).reason or "")
    with database.session() as session:
        session.execute(update(Escalation).where(col(Escalation.run_id) == run_id)
                        .values(status=EscalationStatus.CLOSED))
    assert _pass(cli, database) == [], "closed: still a person's to continue"
    assert (_message_arrival(database).reason or "").startswith("held for a person:")
    with database.session() as session:
        assert session.get(Run, run_id).status == RunStatus.ESCALATED
    # the person continues it: the held message goes in; once that ends, the customer's next message continues it
    RunService(database, database_settings(cli)).reopen(run_id, actor="U0LEAD2")
    assert _message_arrival(database).state == ArrivalState.STARTED
    _set(database, run_id, status=RunStatus.COMPLETED)
    cli("desk", "add", lines(tmp_path, {"ticket_id": "KITE-218", "body": "Works now, thanks!"}, name="m2.jsonl"))
    assert _pass(cli, database) == [run_id], "a person moved the run on: the hand-off no longer holds it"


def test_a_stop_holds_however_the_run_then_ended(cli: Any, database: Any, tmp_path: Path) -> None:  # noqa: F811
    """The stop was asked while the run worked, and the run escalated before the stop took effect."""
    run_id = _started_run(cli, database, tmp_path)
    _set(database, run_id, status=RunStatus.ESCALATED, stop_requested_by="U0LEAD1")
    cli("desk", "add", lines(tmp_path, MESSAGE, name="m.jsonl"))
    assert _pass(cli, database) == []
    assert "stopped by U0LEAD1" in (_message_arrival(database).reason or "")


def test_many_long_messages_stay_within_a_tool_results_limit(cli: Any, database: Any,  # noqa: F811
                                                            tmp_path: Path) -> None:
    run_id = _started_run(cli, database, tmp_path)
    long = [{"ticket_id": "KITE-218", "body": f"Message {n}. " + "It still loops. " * 1_200} for n in range(12)]
    cli("desk", "add", lines(tmp_path, *long, name="m.jsonl"))
    _set(database, run_id, status=RunStatus.COMPLETED)
    assert _pass(cli, database) == [run_id]
    with database.session() as session:
        last = str((session.get(Run, run_id).messages or [])[-1])
    assert len(last) < 10_000 and "Message 11." in last and "earlier messages are on the ticket" in last
    assert all(a.state == ArrivalState.STARTED for a in arrivals_of(database) if a.kind == "message")


def test_an_open_hand_off_the_customer_writes_on_still_continues(cli: Any, database: Any,  # noqa: F811
                                                                 tmp_path: Path) -> None:
    """Nobody has taken it yet: the agent handed it over, and the customer's news may settle it (as before)."""
    run_id = _started_run(cli, database, tmp_path)
    _escalate(database, run_id, EscalationStatus.OPEN, None)
    cli("desk", "add", lines(tmp_path, MESSAGE, name="m.jsonl"))
    assert _pass(cli, database) == [run_id]


def test_messages_written_while_a_run_works_are_one_continuation(cli: Any, database: Any,  # noqa: F811
                                                                 tmp_path: Path) -> None:
    run_id = _started_run(cli, database, tmp_path)  # live: the messages are held
    texts = ["First: still looping.", "Second: admins too.", "Third: and the mobile app."]
    cli("desk", "add", lines(tmp_path, *({"ticket_id": "KITE-218", "body": t} for t in texts), name="m.jsonl"))
    assert _pass(cli, database) == []
    _set(database, run_id, status=RunStatus.COMPLETED)
    assert _pass(cli, database) == [run_id], "one continuation"
    with database.session() as session:
        last = str((session.get(Run, run_id).messages or [])[-1])
    assert all(t in last for t in texts), "all three messages in it, in order"
    assert last.index("First") < last.index("Second") < last.index("Third")
    _set(database, run_id, status=RunStatus.COMPLETED)
    assert _pass(cli, database) == [], "not reopened once for each"
    states = [a.state for a in arrivals_of(database) if a.kind == "message"]
    assert states == [ArrivalState.STARTED] * 3


def test_in_slack_the_stopped_runs_thread_shows_the_message_and_resume_run_takes_it(
        settings: Any, db: Any, tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """Through the real Bolt app and the Slack stand-in: `/kitebase stop`, the customer writes, an intake pass
    starts nothing and the run's thread shows the message once; **Resume run** continues the run with it."""
    import json

    from bot.cli import main
    from bot.runs.intake.rules import load
    from standins.slack_harness import start_harness
    from tests.helpers import intake_through, run_row
    from tests.test_desk_add_slack import RULES, TICKET

    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(RULES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(rules_file))
    rules = load(rules_file)
    settings = settings.model_copy(update={"intake_rules": rules_file, "approvers": frozenset({"ULEAD"})})
    harness, stop = start_harness(settings, db)
    try:
        def add(item: dict[str, Any]) -> None:
            path = tmp_path / "add.jsonl"
            path.write_text(json.dumps(item) + "\n", encoding="utf-8")
            assert main(["desk", "add", str(path)]) == 0
            capsys.readouterr()

        def intake_pass() -> list[int]:
            return intake_through(db, settings, rules, harness)

        add(TICKET)
        [run_id] = intake_pass()
        assert run_row(db, run_id).status == RunStatus.AWAITING_APPROVAL
        harness.send.command(f"stop {run_id}")
        harness.drain()
        assert run_row(db, run_id).status == RunStatus.STOPPED
        add({"ticket_id": "KITE-218", "body": "Any news? It still loops for the whole team."})
        assert intake_pass() == [] and intake_pass() == [], "a person stopped it: the customer does not restart it"
        assert run_row(db, run_id).status == RunStatus.STOPPED
        shown = [t for (channel, _), m in harness.slack.messages.items() if channel == "C0INTAKE"
                 for t in [str(m.get("text") or "")] if "Any news? It still loops" in t]
        assert len(shown) == 1 and "stopped by <@ULEAD>" in shown[0] and "Resume run" in shown[0]

        resume = harness.shown_button("resume_run")
        item = harness.slack.messages[(resume["channel"], resume["ts"])]
        assert "The customer wrote again" in str(item["blocks"]) and "Any news? It still loops" in str(item["blocks"]), \
            "the queue item shows the held message to whoever picks the run up"
        assert main(["queue"]) == 0
        assert "wrote again (waits for a person to resume the run): “Any news? It still loops" in capsys.readouterr().out
        harness.send.click("resume_run", resume["value"], message_ts=resume["ts"], channel=resume["channel"])
        harness.drain()
        run = run_row(db, run_id)
        assert "Any news? It still loops for the whole team." in str(run.messages), "the message went with the resume"
        assert intake_pass() == [], "and it is not answered again"
    finally:
        stop()


def test_a_backlogged_ticket_answered_meanwhile_is_not_drafted_again(cli: Any, database: Any,  # noqa: F811
                                                                     tmp_path: Path) -> None:
    """Issue 48, item 2: a ticket waits in a paused rule's backlog; a lead handles it meanwhile with a mention (the
    agent's reply, approved, goes out); when the rule resumes, the ticket is recorded as answered meanwhile, not
    started again with a second draft for the same customer."""
    from tests.helpers import approvals_of, staff_replies

    assert cli("intake", "pause")[0] == 0
    cli("desk", "add", lines(tmp_path, SSO))
    assert _pass(cli, database) == []
    [waiting] = [a for a in arrivals_of(database) if a.kind == "ticket"]
    assert waiting.state == ArrivalState.WAITING
    service = RunService(database, database_settings(cli))
    lead_run = service.start("handle KITE-218", started_by="U0LEAD1")
    assert service.resume(lead_run).status == RunStatus.AWAITING_APPROVAL
    [approval] = approvals_of(database, lead_run)
    service.decide(approval.id, action="approve", actor="U0LEAD1")
    assert service.resume(lead_run).status == RunStatus.COMPLETED
    assert len(staff_replies(database, "KITE-218")) == 1
    assert cli("intake", "resume")[0] == 0
    assert _pass(cli, database) == [], "answered meanwhile: no second draft for the same message"
    [done] = [a for a in arrivals_of(database) if a.kind == "ticket"]
    assert done.state == ArrivalState.SKIPPED and "answered meanwhile" in (done.reason or ""), done.reason
    assert f"run #{lead_run}" in (done.reason or "")
    assert len(staff_replies(database, "KITE-218")) == 1
