"""Rules change without losing a ticket (issue 48, item 6): `serve` and `worker` take up an edited rules file at
their next intake pass (the scheduler's own job, no restart) and log what changed; a rule added to the file judges
the recent arrivals no rule took, whether it was added under a running process or before a restart; a removed or
renamed rule's backlog is offered to the rules in force, and what none takes waits where `intake status` and
`intake check` show it; a file that stops reading keeps the rules read before. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from bot.cli import main
from bot.db.models import DeskArrival, Outbox, Run
from bot.runs.execution.timers import build_scheduler
from bot.runs.intake import arrivals
from bot.runs.intake.reload import RulesFile, differences
from bot.runs.intake.rules import parse
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import ArrivalState, RunStatus
from tests.test_intake_rules import _arrival, _new_ticket, _pass

URGENT = """\
[[rule]]
name = "urgent-sso"
channel = "C0URGENT"
priorities = ["urgent"]
tags = ["sso"]
"""
BILLING = """
[[rule]]
name = "billing"
channel = "C0BILLING"
tags = ["billing"]
"""


@pytest.fixture
def rules_file(tmp_path: Path, settings: Any) -> Any:
    path = tmp_path / "intake.toml"
    path.write_text(URGENT, encoding="utf-8")
    return path, settings.model_copy(update={"intake_rules": path, "approvers": frozenset({"ULEAD"})})


def _intake_job(db: Any, settings: Any) -> tuple[Any, list[int]]:
    """The intake job exactly as `serve` and `worker` schedule it (its timer is not started: called by hand)."""
    started: list[int] = []
    scheduler = build_scheduler(settings, RunService(db, settings), started.append)
    return scheduler.get_job("intake").func, started


def test_a_rule_added_to_the_file_takes_up_what_no_rule_took_without_a_restart(
        db: Any, rules_file: Any, caplog: pytest.LogCaptureFixture) -> None:
    path, settings = rules_file
    job, started = _intake_job(db, settings)
    job()  # the rules in force before anything arrives
    invoice = _new_ticket(db, 1, priority="normal", tags=("billing",))
    job()
    assert _arrival(db, invoice).reason == "no rule takes it" and started == []

    with caplog.at_level(logging.WARNING, logger="bot.runs.intake.reload"):
        path.write_text(URGENT + BILLING, encoding="utf-8")
        job()
    assert "rule 'billing' added, channel C0BILLING" in caplog.text
    assert len(started) == 1, "the running process took the edited file up at its next pass"
    arrival = _arrival(db, invoice)
    assert (arrival.state, arrival.rule, arrival.run_id) == (ArrivalState.STARTED, "billing", started[0])
    with db.session() as session:
        first = session.exec(select(Outbox).where(Outbox.key == f"request:{started[0]}")).one()
        assert first.channel == "C0BILLING"
    job()
    assert len(started) == 1, "judged again once, started once"


def test_a_rule_added_before_a_restart_judges_the_recent_arrivals_no_rule_took(db: Any, settings: Any) -> None:
    before = parse(URGENT)
    arrivals.standing(db, before)
    recent = _new_ticket(db, 2, priority="normal", tags=("billing",))
    old = _new_ticket(db, 3, priority="normal", tags=("billing",))
    assert _pass(db, settings, before) == []
    with db.session() as session:  # one arrival older than the window: it stays as it was
        session.execute(update(DeskArrival).where(col(DeskArrival.ticket_id) == old).values(
            created_at=_arrival(db, old).created_at - arrivals.RECENT - timedelta(minutes=1)))
    after = parse(URGENT + BILLING)  # what a restarted serve reads: no process saw the file change
    started = _pass(db, settings, after)
    assert len(started) == 1 and _arrival(db, recent).rule == "billing"
    assert (_arrival(db, old).state, _arrival(db, old).reason) == (ArrivalState.IGNORED, "no rule takes it")


def test_a_renamed_rules_backlog_is_its_own_again_and_a_removed_ones_waits_in_view(
        db: Any, rules_file: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path, settings = rules_file
    path.write_text(URGENT.replace('tags = ["sso"]', 'tags = ["sso"]\nmax_per_hour = 1') + BILLING, encoding="utf-8")
    job, started = _intake_job(db, settings)
    job()
    sso = [_new_ticket(db, n) for n in (10, 11, 12)]
    job()
    assert len(started) == 1
    waiting = [_arrival(db, t) for t in sso[1:]]
    assert {(a.state, a.rule) for a in waiting} == {(ArrivalState.WAITING, "urgent-sso")}

    # renamed (same filters, same cap): its backlog is the renamed rule's, never "ignored"; a cap counts the runs
    # started under the rule's name, so the renamed rule starts one and holds the other
    path.write_text(URGENT.replace('"urgent-sso"', '"sso-urgent"').replace('tags = ["sso"]',
                                                                           'tags = ["sso"]\nmax_per_hour = 1')
                    + BILLING, encoding="utf-8")
    job()
    assert len(started) == 2
    assert [(a.state, a.rule) for a in (_arrival(db, t) for t in sso[1:])] == [
        (ArrivalState.STARTED, "sso-urgent"), (ArrivalState.WAITING, "sso-urgent")]

    # removed: no rule in force takes them; they wait on the old name, shown by status and check
    path.write_text(BILLING, encoding="utf-8")
    job()
    left = _arrival(db, sso[2])
    assert (left.state, left.rule) == (ArrivalState.WAITING, "sso-urgent")
    assert "no longer in the rules file and no rule in force takes it" in str(left.reason)
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(path))
    assert main(["intake", "status"]) == 0
    out = capsys.readouterr().out
    assert "sso-urgent · no longer in the rules file, 1 waiting on it" in out and sso[2] in out
    assert main(["intake", "check", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(g["name"], g["waiting"]) for g in report["gone"] if g["waiting"]] == [("sso-urgent", 1)]
    assert main(["intake", "check"]) == 0
    assert "sso-urgent · no longer in the rules file, 1 waiting on it" in capsys.readouterr().out
    assert main(["intake", "status", "--json"]) == 0
    assert [g["name"] for g in json.loads(capsys.readouterr().out)["gone"]] == ["urgent-sso", "sso-urgent"]

    # put back: they are the rule's again and start as its cap allows
    path.write_text(URGENT + BILLING, encoding="utf-8")
    job()
    assert len(started) == 3
    assert {_arrival(db, t).state for t in sso} == {ArrivalState.STARTED}


def test_a_follow_up_on_a_removed_rules_run_waits_for_a_person_and_is_shown_in_its_thread(
        db: Any, rules_file: Any) -> None:
    path, settings = rules_file
    job, started = _intake_job(db, settings)
    job()
    ticket = _new_ticket(db, 20)
    job()
    [run_id] = started
    with db.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id).values(status=RunStatus.COMPLETED))
    path.write_text(BILLING, encoding="utf-8")
    job()
    from bot.desk import arrivals as desk_arrivals
    with db.session() as session:
        desk_arrivals.message_arrived(session, key="message:orphan", ticket_id=ticket, author="Dana",
                                      body="Still looping")
    job()
    job()
    message = _arrival(db, ticket)
    assert (message.state, message.rule) == (ArrivalState.WAITING, "urgent-sso")
    assert f"no rule continues run #{run_id}" in str(message.reason)
    with db.session() as session:
        run = session.get(Run, run_id)
        assert run is not None and run.status == RunStatus.COMPLETED, "nothing restarted it"
        shown = session.exec(select(Outbox).where(col(Outbox.key).startswith(f"held:{message.id}:"))).all()
        assert len(shown) == 1 and "Still looping" in str(shown[0].payload)
    RunService(db, settings).follow_up(run_id, "Answer Dana's new message", actor="ULEAD")
    assert _arrival(db, ticket).state == ArrivalState.STARTED, "the person's follow-up took the message with it"


def test_a_file_that_stops_reading_keeps_the_rules_read_before(
        db: Any, rules_file: Any, caplog: pytest.LogCaptureFixture) -> None:
    path, settings = rules_file
    rules = RulesFile(db, settings)
    with caplog.at_level(logging.ERROR, logger="bot.runs.intake.reload"):
        path.write_text(URGENT.replace('tags = ["sso"]', 'tags = ["sso"'), encoding="utf-8")
        assert [r.name for r in rules.current()] == ["urgent-sso"]
        path.write_bytes(b"\xff\xfe" + URGENT.encode("utf-16-le"))
        assert [r.name for r in rules.current()] == ["urgent-sso"]
        path.unlink()
        assert [r.name for r in rules.current()] == ["urgent-sso"]
    assert caplog.text.count("cannot be taken up") == 3, "each change said once"
    assert "not valid TOML" in caplog.text and "not UTF-8" in caplog.text and "cannot be read" in caplog.text
    assert "The rules read before stay in force (urgent-sso)" in caplog.text
    rules.current()
    assert caplog.text.count("cannot be taken up") == 3, "an unchanged bad file is not said again each pass"
    path.write_text(URGENT + BILLING, encoding="utf-8")
    assert [r.name for r in rules.current()] == ["urgent-sso", "billing"] and rules.problem is None


def test_rules_without_approvers_are_not_taken_up(db: Any, rules_file: Any, caplog: pytest.LogCaptureFixture) -> None:
    path, settings = rules_file
    rules = RulesFile(db, settings.model_copy(update={"approvers": frozenset()}))
    path.write_text(URGENT + BILLING, encoding="utf-8")
    with caplog.at_level(logging.ERROR, logger="bot.runs.intake.reload"):
        assert [r.name for r in rules.current()] == ["urgent-sso"]
    assert "KITEBASE_APPROVERS is empty" in caplog.text


def test_what_changed_is_said_rule_by_rule() -> None:
    old = parse(URGENT + BILLING)
    new = parse(BILLING.replace('tags = ["billing"]', 'tags = ["billing", "invoice"]\nmax_per_hour = 5')
                + URGENT.replace('"urgent-sso"', '"sso"'))
    assert differences(old, new) == [
        "rule 'billing' changed: tags [billing] → [billing, invoice]; max_per_hour none → 5",
        "rule 'sso' added (rule 'urgent-sso' renamed?), channel C0URGENT",
        "rule 'urgent-sso' removed; its backlog is judged by the rules in force"]
    assert differences(old, parse(BILLING + URGENT)) == [
        "the rules' order changed (the first rule that matches takes a ticket): billing, urgent-sso"]
    assert differences(old, parse(URGENT + BILLING.replace('tags = ["billing"]', 'tags = ["billing"]\ndue_within = "30m"'))) \
        == ["rule 'billing' changed: due_within none → 30m"]


def test_status_with_a_file_that_does_not_read_says_what_the_running_processes_do(
        db: Any, rules_file: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path, settings = rules_file
    path.write_text(URGENT + 'max_per_hour = "many"\n', encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(path))
    for command in ("status", "check"):
        assert main(["intake", command]) == 2
        err = capsys.readouterr().err
        assert "line 6: rule 'urgent-sso': max_per_hour is a whole number" in err
        assert "A running `serve` or `worker` keeps the rules it read before until the file is fixed" in err
