"""Triage on intake runs (tools/triage.py, bot/runs/lifecycle/triage.py, docs/intake.md): the record_triage tool
checks what the model sends; an intake run records its ticket's intent, language, sentiment and a suggested
priority on `Run.triage` (a lead's mention does not); a rule with `triage_tags = true` writes them to its own ticket
as internal tags, on the embedded desk at once and on Zendesk through the desk's durable queue, touching no other
ticket and nothing a customer sees. On SQLite and PostgreSQL, with the offline model working the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlmodel import col, select

from bot.agent.offline import OfflineModel
from bot.agent.prompts import INTAKE_MARK
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Customer, DeskWrite, Run, Ticket, TicketMessage, utcnow
from bot.desk import arrivals as desk_arrivals
from bot.desk import open_desk
from bot.desk.base import DeskRefused
from bot.evals.cases import BadCases, _case
from bot.evals.grade import Observed, grade
from bot.runs.execution.desk_work import intake
from bot.runs.intake import arrivals
from bot.runs.intake.rules import Rule, RulesError, parse
from bot.runs.lifecycle.new_run import insert_run
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import RunStatus
from tests import test_desk_zendesk as zendesk_tests
from tests.helpers import run_row
from tools import ToolContext, execute, registry_for

GERMAN = ("Hallo, unsere Rechnung für November ist schon wieder in US-Dollar statt in Euro. Wir haben das bereits "
          "im Oktober gemeldet und es ist immer noch nicht korrigiert. Bitte stellen Sie die Rechnung neu aus.")
TRIAGE_TAGS = ["intent_billing", "lang_de", "sentiment_frustrated", "suggested_normal"]


def _call(db: Database, settings: Settings, **args: Any) -> Any:
    return execute(registry_for(settings), ToolContext(db=db, settings=settings), "record_triage", args)


# --- the tool -----------------------------------------------------------------------------------------------------

def test_the_tool_stores_what_the_model_sends_in_one_shape(db: Database, settings: Settings) -> None:
    result = _call(db, settings, intent="billing", language="German", sentiment="frustrated", priority="high")
    assert not result.is_error
    assert result.data == {"intent": "billing", "language": "de", "sentiment": "frustrated", "priority": "high"}
    assert "Nothing was sent to the customer" in result.text
    assert _call(db, settings, intent="sso", language="pt-BR", sentiment="neutral", priority="low").data["language"] == "pt"


@pytest.mark.parametrize(("args", "words"), [
    ({"intent": "sales", "language": "en", "sentiment": "neutral", "priority": "normal"},
     "'sales' is not one of sso, account, billing, bug, integrations, how-to, other"),
    ({"intent": "billing", "language": "Klingon", "sentiment": "neutral", "priority": "normal"},
     "send its ISO 639-1 code"),
    ({"intent": "billing", "language": "en", "sentiment": "happy", "priority": "normal"},
     "'happy' is not one of positive, neutral, frustrated, angry"),
    ({"intent": "billing", "language": "en", "sentiment": "neutral", "priority": "p1"},
     "'p1' is not one of urgent, high, normal, low"),
    ({"intent": "billing", "language": "en", "sentiment": "neutral"}, "Required arguments: intent, language, sentiment, priority"),
])
def test_bad_input_gets_a_sentence_saying_what_to_send(db: Database, settings: Settings, args: dict[str, str],
                                                      words: str) -> None:
    result = _call(db, settings, **args)
    assert result.is_error and words in result.text, result.text


def test_the_intents_are_configuration_and_the_definition_lists_them_with_their_tags(db: Database,
                                                                                     settings: Settings) -> None:
    configured = settings.model_copy(update={"triage_intents": {"refunds": ("refund", "chargeback"),
                                                                "access": ("sso", "login")}})
    tool = registry_for(configured)["record_triage"]
    assert tool.input_schema["properties"]["intent"]["enum"] == ["refunds", "access", "other"]
    assert "- refunds: tagged refund, chargeback" in tool.description and "- other: anything else" in tool.description
    assert not _call(db, configured, intent="refunds", language="en", sentiment="angry", priority="high").is_error
    assert _call(db, configured, intent="billing", language="en", sentiment="angry", priority="high").is_error


def test_the_setting_reads_intents_and_their_tags_and_refuses_a_bad_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KITEBASE_TRIAGE_INTENTS", "billing=billing, invoices; sso=sso,okta")
    assert Settings().triage_intents == {"billing": ("billing", "invoices"), "sso": ("sso", "okta")}
    monkeypatch.setenv("KITEBASE_TRIAGE_INTENTS", "Billing Team=billing")
    with pytest.raises(ValidationError, match="is not an intent name"):
        Settings()


def test_a_rule_takes_triage_tags_as_true_or_false() -> None:
    text = '[[rule]]\nname = "billing"\nchannel = "C0BILL"\ntags = ["billing"]\ntriage_tags = true\n'
    assert parse(text)[0].triage_tags is True
    assert parse(text.replace("triage_tags = true\n", ""))[0].triage_tags is False
    with pytest.raises(RulesError, match="line 5: rule 'billing': triage_tags is true or false"):
        parse(text.replace("true", '"yes"'), "rules.toml")


# --- intake runs on the embedded desk ------------------------------------------------------------------------------

def _german_ticket(db: Database, extra: tuple[str, ...] = ()) -> str:
    """A new billing ticket written in German, recorded for the intake as `desk add` records one."""
    with db.session() as session:
        customer = session.exec(select(Customer.id).where(col(Customer.id) == "copperleaf-design")).one()
        now = utcnow()
        session.add(Ticket(id="KITE-901", customer_id=customer, title="Rechnung schon wieder in der falschen Währung",
                           status="open", priority="normal", tags=["billing", "invoices", *extra], created_at=now,
                           updated_at=now))
        session.add(TicketMessage(ticket_id="KITE-901", author="Ines Marchetti", role="customer", body=GERMAN,
                                  created_at=now))
        session.flush()
        desk_arrivals.ticket_arrived(session, key="ticket:KITE-901", ticket_id="KITE-901",
                                     fields={"status": "new", "priority": "normal", "tags": ["billing", "invoices"]})
    return "KITE-901"


def _tags(db: Database) -> dict[str, list[str]]:
    with db.session() as session:
        return {t.id: list(t.tags or []) for t in session.exec(select(Ticket)).all()}


def _intake_run(db: Database, settings: Settings, rule: Rule, extra: tuple[str, ...] = ()) -> tuple[str, int]:
    arrivals.standing(db, [rule])
    ticket = _german_ticket(db, extra)
    started: list[int] = []
    intake(db, settings, [rule], started.append)
    [run_id] = started
    RunService(db, settings, model_factory=OfflineModel).resume(run_id)
    return ticket, run_id


def test_an_intake_run_records_its_triage_on_the_run_and_leaves_the_ticket_as_it_was(db: Database,
                                                                                    settings: Settings) -> None:
    before = _tags(db)
    ticket, run_id = _intake_run(db, settings, Rule(name="billing", channel="C0BILL", tags=("billing",)))
    run = run_row(db, run_id)
    assert INTAKE_MARK in run.goal  # what asks the model for its triage (the system prompt says so)
    assert run.triage == {"intent": "billing", "language": "de", "sentiment": "frustrated", "priority": "normal"}
    assert run.status == RunStatus.ESCALATED  # the offline model writes English only: a person answers in German
    assert _tags(db) == {**before, ticket: ["billing", "invoices"]}, "without triage_tags no ticket changes"


def test_with_triage_tags_the_triage_lands_on_its_own_ticket_only_and_never_reaches_the_customer(
        db: Database, settings: Settings) -> None:
    before = _tags(db)
    ticket, run_id = _intake_run(db, settings, Rule(name="billing", channel="C0BILL", tags=("billing",),
                                                    triage_tags=True))
    assert (run_row(db, run_id).origin or {})["triage_tags"] is True
    after = _tags(db)
    assert after[ticket] == ["billing", "invoices", *TRIAGE_TAGS]
    assert {k: v for k, v in after.items() if k != ticket} == before, "no other ticket was touched"
    with db.session() as session:
        said = session.exec(select(TicketMessage).where(col(TicketMessage.ticket_id) == ticket)).all()
    assert [m.role for m in said] == ["customer"], "nothing was written on the ticket, for the customer or staff"


def test_a_ticket_triaged_before_carries_only_the_latest_triage_and_keeps_every_other_tag(
        db: Database, settings: Settings) -> None:
    """An earlier triage's tags (another run, or a person) are replaced in the same transaction: one tag of each
    kind, the latest; a tag of another prefix, however alike, and every other ticket stay as they were."""
    stale = ("intent_sso", "lang_en", "sentiment_angry", "suggested_low")
    alike = ("intentional", "language", "sentiments", "suggested")  # no intent_/lang_/sentiment_/suggested_ prefix
    with db.session() as session:
        other = session.get(Ticket, "KITE-142")
        assert other is not None
        other.tags = [*(other.tags or []), "intent_sso", "sentiment_angry"]
        session.add(other)
    before = _tags(db)
    ticket, _ = _intake_run(db, settings, Rule(name="billing", channel="C0BILL", tags=("billing",), triage_tags=True),
                            extra=(*stale, *alike))
    after = _tags(db)
    assert after[ticket] == ["billing", "invoices", *alike, *TRIAGE_TAGS]
    assert {k: v for k, v in after.items() if k != ticket} == before, "no other ticket was touched"


def test_a_mention_records_no_triage(db: Database, settings: Settings) -> None:
    service = RunService(db, settings, model_factory=OfflineModel)
    run_id = service.start("handle KITE-179", started_by="ULEAD")
    service.resume(run_id)
    run = run_row(db, run_id)
    assert run.status == RunStatus.AWAITING_APPROVAL and run.triage is None
    assert "record_triage" not in json.dumps(run.messages)


# --- Zendesk: the tags go through the desk's durable queue ----------------------------------------------------------

zd, zdb = zendesk_tests.zd, zendesk_tests.zdb  # the stand-in loaded with kb_data, and an empty database for it


def test_on_zendesk_the_tags_are_a_desk_write_that_replaces_an_earlier_triage_on_its_own_ticket_only(
        zdb: Any, zd: Any) -> None:
    """The ticket carries an earlier triage's tags (and tags that only look alike); another ticket carries one too.
    One PUT adds the new tags and removes the earlier ones (`additional_tags`, `remove_tags`); nothing else moves."""
    from tests.test_desk_writes import sender

    stale = ["intent_billing", "lang_de", "sentiment_angry", "suggested_low"]
    zd.update_ticket(4821, tags=[*zd.tickets[4821]["tags"], *stale, "intentional"])
    zd.update_ticket(next(n for n in zd.tickets if n != 4821), tags=["intent_billing", "suggested_low"])
    db, settings = zendesk_tests.synced(zdb)
    others = {number: list(t["tags"]) for number, t in zd.tickets.items() if number != 4821}
    own, comments = [t for t in zd.tickets[4821]["tags"] if t not in stale], len(zd.comments_of(4821))
    with db.session() as session:
        run_id = insert_run(session, goal="handle 4821 (picked up by rule 'sso': new, tagged sso)", ticket_id="4821",
                            model="kitebase-offline", started_by=None, thread_key=None,
                            origin={"surface": "intake", "channel": "C0SSO", "rule": "sso", "triage_tags": True})
    assert run_id is not None
    RunService(db, settings, model_factory=OfflineModel).resume(run_id)
    run = run_row(db, run_id)
    assert run.triage is not None and run.status == RunStatus.AWAITING_APPROVAL  # its draft waits for a person
    with db.session() as session:
        [write] = session.exec(select(DeskWrite)).all()
    tags = [f"intent_{run.triage['intent']}", f"lang_{run.triage['language']}",
            f"sentiment_{run.triage['sentiment']}", f"suggested_{run.triage['priority']}"]
    assert not set(tags) & set(stale), "the offline triage differs from the earlier one in every kind"
    assert (write.ticket_id, write.body, write.public, write.fields) == (
        "4821", None, False, {"additional_tags": tags, "replacing": ["intent_", "lang_", "sentiment_", "suggested_"]})
    assert sender(db, settings).drain(timeout=20)
    assert "intentional" in own
    assert zd.tickets[4821]["tags"] == [*own, *tags], "the earlier triage's tags gone, every other tag kept"
    assert len(zd.comments_of(4821)) == comments, "no comment: nothing the customer sees"
    assert {n: list(t["tags"]) for n, t in zd.tickets.items() if n != 4821} == others
    [put] = [r for r in zd.requests_to("PUT", "/api/v2/tickets/4821.json")]
    assert put["body"]["ticket"]["additional_tags"] == tags and put["body"]["ticket"]["remove_tags"] == stale
    assert put["body"]["ticket"]["safe_update"] is True and "tags" not in put["body"]["ticket"]
    open_desk(settings, db)  # the desk still opens with the write done (nothing left half-applied)


def test_a_tag_write_is_done_when_the_ticket_has_the_new_tags_and_none_of_the_replaced_kinds() -> None:
    """What a retried or found write checks on the ticket as read: the new tags there and no other tag of the kinds
    it replaces; what it removes is named from that ticket's own tags and never a tag of another prefix."""
    from bot.desk.zendesk import write_attempt

    row = DeskWrite(ticket_id="4821", kind="update", fields={"additional_tags": ["intent_bug", "suggested_urgent"],
                                                             "replacing": ["intent_", "suggested_"]})
    before = {"tags": ["vip", "intent_billing", "intentional", "suggested_low", "intent_bug", "suggested"]}
    assert not write_attempt.applied(row, before)
    put = write_attempt.body(row, {**before, "updated_at": "2026-12-07T06:00:00Z"}, comment=False)
    assert put["additional_tags"] == ["intent_bug", "suggested_urgent"]
    assert put["remove_tags"] == ["intent_billing", "suggested_low"]
    assert not write_attempt.applied(row, {"tags": ["vip", "intent_bug", "suggested_urgent", "Intent_Billing"]})
    assert write_attempt.applied(row, {"tags": ["vip", "intentional", "intent_bug", "suggested_urgent"]})
    write_attempt.check_tags(row, put, {"ticket": {"tags": ["vip", "intentional", "intent_bug", "suggested_urgent"]}})
    with pytest.raises(DeskRefused, match="ticket 4821, but its tags are not as asked .*to remove: intent_billing"):
        write_attempt.check_tags(row, put, {"ticket": {"tags": ["vip", "intent_billing", "intent_bug",
                                                                "suggested_urgent"]}})  # remove_tags ignored
    added_only = DeskWrite(ticket_id="4821", kind="update", fields={"additional_tags": ["intent_bug"]})  # older rows
    assert "remove_tags" not in write_attempt.body(added_only, before, comment=False)
    assert write_attempt.applied(added_only, before)


# --- the eval's triage cases ---------------------------------------------------------------------------------------

def test_an_eval_case_checks_each_part_of_the_triage_and_says_what_was_recorded() -> None:
    case = _case({"id": "t", "category": "triage", "request": "handle KITE-142 (picked up by rule 'x': new)",
                  "expect": {"outcome": "escalated", "triage": {"intent": "sso", "language": "en"}}}, "line 1")
    seen = Observed(ticket_id="KITE-142", status="escalated", stop_kind="model_request",
                    triage={"intent": "sso", "language": "de", "sentiment": "neutral", "priority": "high"})
    checks = {c.name: c for c in grade(case, seen)}
    assert checks["triage intent sso"].ok and not checks["triage language en"].ok
    assert checks["triage language en"].evidence == "recorded language de"
    unrecorded = {c.name: c for c in grade(case, Observed(ticket_id="KITE-142", status="escalated"))}
    assert unrecorded["triage intent sso"].evidence == "no triage recorded" and not unrecorded["triage intent sso"].ok
    with pytest.raises(BadCases, match="expect.triage names"):
        _case({"id": "t", "category": "triage", "request": "handle KITE-142",
               "expect": {"outcome": "replied", "triage": {"mood": "sunny"}}}, "line 2")


# --- the worked example --------------------------------------------------------------------------------------------

def test_the_worked_example_still_completes_and_records_no_triage(tmp_path: Path) -> None:
    """As .ci/run works it: the README's first command in a scratch directory, offline, on a new SQLite file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "KITEBASE_", "DATABASE_URL"))}
    done = subprocess.run([str(Path(sys.executable).parent / "kitebase"), "run", "handle KITE-142, and tell me if "
                           "other customers have hit the same problem", "--approve", "auto", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed"
    db = Database.from_url(f"sqlite:///{tmp_path / 'kitebase.db'}")
    try:
        with db.session() as session:
            assert session.get(Run, result["run_id"]).triage is None  # type: ignore[union-attr]
    finally:
        db.engine.dispose()
