"""`kitebase desk add FILE` on the embedded desk (bot/desk/embedded_add.py, bot/cli_desk.py): new tickets and
customers' messages from JSON lines, written whole or not at all, indexed for search, and recorded for the intake
rules once each so an intake pass takes them the way it takes a Zendesk arrival."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, func, select

from bot.cli import main
from bot.db.engine import Database
from bot.db.models import Customer, DeskArrival, Run, Ticket, TicketMessage
from bot.desk import embedded_add
from bot.runs.execution.desk_work import intake
from bot.runs.intake.rules import load
from bot.vocabulary import ArrivalKind, ArrivalState, RunStatus

RULES = """\
[[rule]]
name = "sso-urgent"
channel = "C0INTAKE"
priorities = ["urgent"]
tags = ["sso"]
"""
SSO = {"customer": "northwind-studio", "title": "SSO login loops back to Okta",
       "body": "Since this morning everyone who signs in through Okta lands on the login page again.",
       "tags": ["sso", "Login"], "priority": "urgent"}
NEW_CUSTOMER = {"customer": "Quillfeather Press", "title": "Invoice in the wrong currency",
                "body": "Our invoice is in USD but we pay in EUR.", "tags": ["billing"]}
ON_142 = {"ticket_id": "KITE-142", "body": "The bypass link expired before I could use it."}


@pytest.fixture
def cli(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """`kitebase …` against a fresh seeded database, with intake rules in force (KITEBASE_INTAKE_RULES)."""
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(rules))

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    invoke.rules = rules  # type: ignore[attr-defined]
    invoke.url = database_url  # type: ignore[attr-defined]
    return invoke


def lines(tmp_path: Path, *items: Any, name: str = "add.jsonl") -> str:
    path = tmp_path / name
    path.write_text("\n".join(i if isinstance(i, str) else json.dumps(i) for i in items) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def database(cli: Any) -> Any:
    cli("desk", "status")  # creates and seeds the database
    db = Database.from_url(cli.url)
    yield db
    db.engine.dispose()


def counts(db: Database) -> tuple[int, ...]:
    with db.session() as session:
        return tuple(session.exec(select(func.count()).select_from(model)).one()
                     for model in (Customer, Ticket, TicketMessage, DeskArrival))


def arrivals_of(db: Database) -> list[DeskArrival]:
    with db.session() as session:
        rows = list(session.exec(select(DeskArrival).order_by(col(DeskArrival.id))).all())
        for row in rows:
            session.expunge(row)
        return rows


def test_tickets_and_a_message_are_added_searchable_and_recorded_once(cli: Any, database: Database,
                                                                     tmp_path: Path) -> None:
    before = counts(database)
    code, out, err = cli("desk", "add", lines(tmp_path, SSO, NEW_CUSTOMER, "", ON_142))
    assert code == 0, err
    assert out.splitlines()[:3] == [
        'KITE-218: new ticket for Northwind Studio: "SSO login loops back to Okta" (line 1)',
        'KITE-219: new ticket for Quillfeather Press (new customer, id quillfeather-press): "Invoice in the wrong '
        'currency" (line 2)',
        "KITE-142: message from Dana Whitfield (line 4)"]
    assert "Added 2 ticket(s) and 1 message(s)" in out and "Recorded for the intake" in out
    assert counts(database) == (before[0] + 1, before[1] + 2, before[2] + 3, 3)
    with database.session() as session:
        sso = session.get(Ticket, "KITE-218")
        assert sso is not None and (sso.status, sso.priority, sso.tags) == ("open", "urgent", ["sso", "login"])
        [first] = session.exec(select(TicketMessage).where(TicketMessage.ticket_id == "KITE-218")).all()
        assert (first.author, first.role, first.body) == ("Dana Whitfield", "customer", SSO["body"])
        customer = session.get(Customer, "quillfeather-press")
        assert customer is not None and (customer.name, customer.plan) == ("Quillfeather Press", "")
        invoice = session.get(Ticket, "KITE-219")
        assert invoice is not None and invoice.customer_id == "quillfeather-press" and invoice.priority == "normal"
        last = session.exec(select(TicketMessage).where(TicketMessage.ticket_id == "KITE-142")
                            .order_by(col(TicketMessage.id).desc())).first()
        assert last is not None and (last.author, last.role, last.body) == ("Dana Whitfield", "customer",
                                                                           ON_142["body"])
        kite_142 = session.get(Ticket, "KITE-142")
        assert kite_142 is not None and kite_142.updated_at >= sso.created_at  # bumped with the message
    rows = arrivals_of(database)
    assert [(r.key, r.kind, r.ticket_id, r.state) for r in rows] == [
        ("ticket:KITE-218", ArrivalKind.TICKET, "KITE-218", ArrivalState.NEW),
        ("ticket:KITE-219", ArrivalKind.TICKET, "KITE-219", ArrivalState.NEW),
        (f"message:{last.id}", ArrivalKind.MESSAGE, "KITE-142", ArrivalState.NEW)]
    assert rows[0].fields == {"status": "new", "priority": "urgent", "tags": ["sso", "login"]}
    assert (rows[2].author, rows[2].body) == ("Dana Whitfield", ON_142["body"])
    code, out, _ = cli("search", "tickets", "everyone lands on the Okta login page again", "--json")
    assert code == 0 and json.loads(out)[0]["id"] == "KITE-218", "indexed for search with the change"
    code, out, _ = cli("desk", "add", lines(tmp_path, {**NEW_CUSTOMER, "customer": "quillfeather press"}), "--json")
    [again] = json.loads(out)["added"]
    assert (again["ticket_id"], again["customer_id"], again["new_customer"]) == ("KITE-220", "quillfeather-press",
                                                                                False), "a known name, any case"


@pytest.mark.parametrize(("bad", "words"), [
    ("{not json", "line 2: not JSON"),
    ('["a", "list"]', "line 2: not a JSON object"),
    ({**SSO, "assignee": "sam"}, "line 2: unknown key 'assignee'"),
    ({k: v for k, v in SSO.items() if k != "title"}, "line 2: `title` is missing"),
    ({**SSO, "body": "   "}, "line 2: `body` must be a non-empty string"),
    ({**SSO, "priority": "critical"}, "line 2: priority 'critical' is not one of"),
    ({**SSO, "tags": "sso"}, "line 2: `tags` is a list of words"),
    ({"ticket_id": "KITE-142", "body": "x", "status": "open"}, "line 2: unknown key 'status'"),
    ({"ticket_id": "142", "body": "x"}, "line 2: ticket_id '142' is not a ticket id"),
    ({"ticket_id": "KITE-999", "body": "x"}, "line 2: there is no ticket KITE-999"),
    ({"ticket_id": "KITE-101", "body": "x"}, "line 2: KITE-101 is closed"),
])
def test_a_bad_line_is_named_and_nothing_of_the_file_is_written(cli: Any, database: Database, tmp_path: Path,
                                                                bad: Any, words: str) -> None:
    before = counts(database)
    code, out, err = cli("desk", "add", lines(tmp_path, NEW_CUSTOMER, bad, ON_142))
    assert code == 2 and out == "" and words in err and "Nothing was added" in err and "Traceback" not in err
    assert counts(database) == before


def test_every_bad_line_is_named_and_an_empty_file_is_refused(cli: Any, database: Database, tmp_path: Path) -> None:
    code, _, err = cli("desk", "add", lines(tmp_path, "nope", SSO, {"title": "t"}))
    assert code == 2 and "line 1: not JSON" in err and "line 3: unknown key 'title'" not in err
    assert "line 3: `customer` is missing" in err
    code, _, err = cli("desk", "add", lines(tmp_path, "", "  "))
    assert code == 2 and "no lines to add" in err
    code, _, err = cli("desk", "add", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in err and "missing.jsonl" in err
    assert counts(database)[3] == 0


def test_without_intake_rules_nothing_is_recorded_and_the_output_says_so(cli: Any, database: Database,
                                                                        tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KITEBASE_INTAKE_RULES")
    code, out, _ = cli("desk", "add", lines(tmp_path, SSO))
    assert code == 0 and "KITE-218" in out
    assert "Intake is off: nothing will pick these up until KITEBASE_INTAKE_RULES is set" in out
    assert arrivals_of(database) == []


def test_the_zendesk_desk_refuses_with_a_sentence(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("KITEBASE_DESK", "zendesk"), ("ZENDESK_URL", "https://acme.zendesk.com"),
                        ("ZENDESK_EMAIL", "lead@example.com"), ("ZENDESK_API_TOKEN", "token-123")):
        monkeypatch.setenv(name, value)
    code, out, err = cli("desk", "add", lines(tmp_path, SSO))
    assert code == 2 and out == "" and "tickets arrive from Zendesk" in err


def _pass(cli: Any, database: Database) -> list[int]:
    dispatched: list[int] = []
    intake(database, database_settings(cli), load(cli.rules), dispatched.append)
    return dispatched


def database_settings(cli: Any) -> Any:
    from bot.config import Settings

    return Settings(database_url=cli.url, intake_rules=cli.rules)


def _end(database: Database, run_id: int) -> None:
    with database.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id).values(status=RunStatus.COMPLETED))


def test_an_added_ticket_becomes_one_run_and_a_message_continues_it_once(cli: Any, database: Database,
                                                                        tmp_path: Path) -> None:
    cli("desk", "add", lines(tmp_path, SSO, NEW_CUSTOMER, ON_142))
    [run_id] = _pass(cli, database)
    assert _pass(cli, database) == [] and _pass(cli, database) == [], "a pass again starts nothing again"
    with database.session() as session:
        run = session.get(Run, run_id)
        assert run is not None and run.ticket_id == "KITE-218" and run.started_by is None
        assert run.goal == "handle KITE-218 (picked up by rule 'sso-urgent': urgent, tagged sso)"
    states = {(r.ticket_id, r.state, r.reason) for r in arrivals_of(database)}
    assert states == {("KITE-218", ArrivalState.STARTED, "started: urgent, tagged sso"),
                      ("KITE-219", ArrivalState.IGNORED, "no rule takes it"),
                      ("KITE-142", ArrivalState.IGNORED, "no run has worked this ticket")}
    _end(database, run_id)
    follow_up = {"ticket_id": "KITE-218", "body": "Still looping, and now for our admins too."}
    for _ in range(2):  # the same text twice is two messages
        code, out, _ = cli("desk", "add", lines(tmp_path, follow_up))
        assert code == 0 and "KITE-218: message from Dana Whitfield" in out
    assert len([r for r in arrivals_of(database) if r.kind == ArrivalKind.MESSAGE and r.ticket_id == "KITE-218"]) == 2
    assert _pass(cli, database) == [run_id], "the messages continue the ended run, once, together"
    assert _pass(cli, database) == [] and _pass(cli, database) == []
    with database.session() as session:
        run = session.get(Run, run_id)
        assert run is not None and run.status == RunStatus.QUEUED
        assert str((run.messages or [])[-1]).count("Still looping, and now for our admins too.") == 2
    _end(database, run_id)
    assert _pass(cli, database) == [], "not once more for the second message (issue 48: one continuation)"
    with database.session() as session:
        assert session.exec(select(func.count()).select_from(Run)).one() == 1


def test_two_adds_at_once_take_different_numbers(cli: Any, database: Database,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    items = embedded_add.parse("\n".join(json.dumps({**SSO, "title": f"SSO {n}"}) for n in range(3)))
    real, stale = embedded_add._highest_number, iter([216])

    def first_stale(session: Any) -> int:  # the first attempt read the numbers before another add took 217
        return next(stale, None) or real(session)

    monkeypatch.setattr(embedded_add, "_highest_number", first_stale)
    report = embedded_add.add(database, items, arrivals=True)
    assert [a.ticket_id for a in report.added] == ["KITE-218", "KITE-219", "KITE-220"]
    monkeypatch.setattr(embedded_add, "_highest_number", real)
    done: list[list[str]] = []
    errors: list[BaseException] = []

    def one() -> None:
        try:
            done.append([a.ticket_id for a in embedded_add.add(database, items, arrivals=True).added])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(t for ids in done for t in ids) == sorted(f"KITE-{n}" for n in range(221, 233))
    assert all(ids == sorted(ids, key=lambda t: int(t[5:])) and len(ids) == 3 for ids in done)
    with database.session() as session:
        assert session.exec(select(func.count()).select_from(DeskArrival)).one() == 15


def test_a_customer_is_named_by_id_or_name_in_any_case_and_a_new_one_once(cli: Any, database: Database,
                                                                          tmp_path: Path) -> None:
    named = [{**NEW_CUSTOMER, "customer": who} for who in ("NORTHWIND-STUDIO", "northwind studio", "Ärztehaus Süd",
                                                           "ärztehaus süd", "北京书店")]
    code, out, err = cli("desk", "add", lines(tmp_path, *named), "--json")
    assert code == 0, err
    added = json.loads(out)["added"]
    assert [(a["customer_id"], a["new_customer"]) for a in added] == [
        ("northwind-studio", False), ("northwind-studio", False), ("arztehaus-sud", True), ("arztehaus-sud", False),
        ("customer", True)]
    assert json.loads(out)["new_customers"] == 2
    with database.session() as session:
        assert session.get(Customer, "arztehaus-sud").name == "Ärztehaus Süd"  # type: ignore[union-attr]
        assert [m.author for m in session.exec(select(TicketMessage).where(
            col(TicketMessage.ticket_id).in_(["KITE-220", "KITE-222"])).order_by(col(TicketMessage.id))).all()] == \
            ["Ärztehaus Süd", "北京书店"]
