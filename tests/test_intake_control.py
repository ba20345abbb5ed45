"""A lead's control of the intake (bot/runs/intake/control.py, check.py; docs/intake.md "Control"): `kitebase
intake status|pause|resume|check` through the CLI's own entry point, pause and resume through real intake passes,
`/kitebase intake …` through the real Bolt app over signed HTTP against the Slack stand-in, and App Home's
Intake section. On SQLite and PostgreSQL (the `db` and `settings` fixtures)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, func, select

from bot.cli import main
from bot.db.models import DeskArrival, IntakeRule, Outbox, Run, Ticket, TicketMessage
from bot.desk import arrivals as desk_arrivals
from bot.runs.execution.desk_work import intake
from bot.runs.intake import arrivals
from bot.runs.intake.rules import Rule, load
from bot.slack_ui.queue import build_home
from bot.vocabulary import ArrivalState, RunStatus
from standins.slack_harness import start_harness
from tests.test_intake_rules import _new_ticket

RULES = """\
[[rule]]
name = "urgent-sso"
channel = "C0URGENT"
priorities = ["urgent", "high"]
tags = ["sso"]
max_per_hour = 1
max_usd_per_day = 15.0

[[rule]]
name = "rest"
channel = "C0REST"
statuses = ["new"]
"""
QUIET = "a person answered it publicly within 24 h of its last update (KITEBASE_INTAKE_QUIET_HOURS)"


@pytest.fixture
def rules_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Path:
    """The rules file, named in the environment the CLI reads (with the test's database)."""
    path = tmp_path / "rules.toml"
    path.write_text(RULES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(path))
    return path


_ticket = _new_ticket  # a ticket new on the desk, recorded for the intake (tests/test_intake_rules.py)


def _pass(db: Any, settings: Any, rules: list[Rule]) -> list[str]:
    """One intake pass; the tickets of the runs it started or continued, in order."""
    started: list[int] = []
    intake(db, settings, rules, started.append)
    with db.session() as session:
        return [str(session.get(Run, run_id).ticket_id) for run_id in started]  # type: ignore[union-attr]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _state(db: Any, ticket_id: str) -> tuple[str, str | None]:
    with db.session() as session:
        row = session.exec(select(DeskArrival).where(DeskArrival.ticket_id == ticket_id)
                           .order_by(col(DeskArrival.id).desc())).first()
        assert row is not None
        return row.state, row.reason


def test_status_gives_each_rule_today_in_text_and_json(db: Any, settings: Any, rules_file: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    rules = load(rules_file)
    arrivals.standing(db, rules)
    first, second, third = _ticket(db, 1), _ticket(db, 2), _ticket(db, 3)
    _ticket(db, 4, status="hold")
    _ticket(db, 5, answered=True)
    other = _ticket(db, 6, priority="low", tags=("billing",))
    _ticket(db, 7, priority="low", tags=("billing",), status="open")  # no rule takes it
    assert _pass(db, settings, rules) == [first, other]
    assert _state(db, second) == (ArrivalState.WAITING, "over max_per_hour = 1")
    with db.session() as session:  # the run cost something, ended, and the customer wrote again
        session.execute(update(Run).where(col(Run.ticket_id) == first)
                        .values(cost_usd=0.25, status=RunStatus.COMPLETED))
        desk_arrivals.message_arrived(session, key="message:m1", ticket_id=first, author="Dana", body="Still stuck")
    assert _pass(db, settings, rules) == [first]

    code, out, _ = _cli(capsys, "intake", "status", "--json")
    assert code == 0
    status = json.loads(out)
    assert status["on"] is True and status["ignored"] == 1 and len(status["day"]) == 10
    urgent, rest = status["rules"]
    assert [urgent["name"], rest["name"]] == ["urgent-sso", "rest"]  # file order
    assert (urgent["taken"], urgent["follow_ups"], urgent["waiting"], urgent["held"]) == (1, 1, 2, 0)
    assert [w["ticket_id"] for w in urgent["oldest"]] == [second, third]  # the order they start: nothing due, same priority
    assert urgent["oldest"][0]["reason"] == "over max_per_hour = 1" and urgent["oldest"][0]["kind"] == "ticket"
    assert urgent["skipped"] == {QUIET: 1, "the ticket is hold": 1}
    assert urgent["spend_usd"] == pytest.approx(0.25)
    assert (urgent["max_per_hour"], urgent["max_usd_per_day"]) == (1, 15.0)
    assert (urgent["paused"], urgent["paused_by"], urgent["channel"]) == (False, None, "C0URGENT")
    assert urgent["in_force_since"] is not None
    assert (rest["taken"], rest["waiting"], rest["skipped"], rest["spend_usd"]) == (1, 0, {}, 0.0)

    code, out, _ = _cli(capsys, "intake", "status")
    assert code == 0
    assert out.startswith(f"Intake today ({status['day']}, UTC), rules from {rules_file}: 1 arrival(s) no rule took.")
    assert re.search(r"urgent-sso → C0URGENT · taking new tickets \(in force since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)\n", out)
    assert ("\n  taken 1 · follow-ups 1 · waiting 2 · held 0 · spend $0.25 of $15.00 a day · at most 1 an hour"
            in out)
    assert f"  skipped: 1 {QUIET}; 1 the ticket is hold" in out
    assert f"  waiting, in the order they start:\n    {second} · " in out and "\n  why: over max_per_hour = 1" in out
    assert re.search(r"rest → C0REST · taking new tickets \(in force since [^)]+\)\n  taken 1 · follow-ups 0 · waiting 0", out)


def test_pause_stops_new_runs_at_once_and_resume_continues_the_backlog_in_order(
        db: Any, settings: Any, rules_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = load(rules_file)
    rules = [Rule(**{**vars(r), "max_per_hour": None}) if r.name == "urgent-sso" else r for r in rules]
    arrivals.standing(db, rules)
    before = _ticket(db, 10)
    assert _pass(db, settings, rules) == [before]

    code, out, _ = _cli(capsys, "intake", "pause", "urgent-sso")
    assert code == 0
    assert out == ("Rule urgent-sso: paused; new tickets it takes wait in its backlog (0 waiting); C0URGENT is "
                   "told.\n")
    with db.session() as session:
        row = session.get(IntakeRule, "urgent-sso")
        assert row is not None and row.paused and row.paused_by == "cli"
        notice = session.exec(select(Outbox).where(col(Outbox.key).startswith("intake-pause:urgent-sso:"))).one()
        assert notice.channel == "C0URGENT" and notice.thread_ts is None
        assert (notice.payload or {})["text"].startswith(
            ":double_vertical_bar: Rule *urgent-sso* paused by the command line: new tickets wait in its backlog")

    tickets = [_ticket(db, n) for n in (11, 12, 13)]
    other = _ticket(db, 14, priority="low", tags=("billing",))
    assert _pass(db, settings, rules) == [other], "the paused rule starts nothing; the other rule goes on"
    assert _pass(db, settings, rules) == []
    assert _state(db, tickets[0]) == (ArrivalState.WAITING, "rule 'urgent-sso' is paused by the command line")

    code, out, _ = _cli(capsys, "intake", "pause", "URGENT-SSO")  # names in any case, as the rules file's
    assert (code, out) == (0, "Rule urgent-sso: already paused by the command line (3 waiting).\n")
    status = json.loads(_cli(capsys, "intake", "status", "--json")[1])
    assert (status["rules"][0]["paused"], status["rules"][0]["paused_by"], status["rules"][0]["waiting"]) == \
        (True, "cli", 3)

    code, out, _ = _cli(capsys, "intake", "resume")  # every rule
    assert code == 0
    assert out == ("Rule urgent-sso: resumed; its backlog (3 waiting) starts what is due first as its caps allow; "
                   "C0URGENT is told.\nRule rest: was not paused.\n")
    assert _pass(db, settings, rules) == tickets, "the backlog, oldest first"
    assert _pass(db, settings, rules) == []
    with db.session() as session:
        notices = session.exec(select(Outbox).where(col(Outbox.key).startswith("intake-"))).all()
        # one each: the pause, the backlog the paused rule held (at most one an hour), the resume
        assert sorted(n.key.split(":")[0] for n in notices) == ["intake-backlog", "intake-pause", "intake-resume"]
        resumed = next(n for n in notices if n.key.startswith("intake-resume"))
        assert "Rule *urgent-sso* resumed by the command line: its backlog (3 waiting) starts what is due first" in \
            (resumed.payload or {})["text"]

    code, _, err = _cli(capsys, "intake", "pause", "nope")
    assert code == 2
    assert err == f"kitebase: There is no rule named 'nope' in {rules_file}; its rules are urgent-sso, rest.\n"


def _rows(db: Any) -> dict[str, int]:
    with db.session() as session:
        return {table.__name__: session.exec(select(func.count()).select_from(table)).one()
                for table in (DeskArrival, IntakeRule, Run, Outbox, Ticket, TicketMessage)}


CHECK_RULES = RULES.replace("max_per_hour = 1\n", "") + """
[[rule]]
name = "by-brand"
channel = "C0BRAND"
brands = [360000111]
"""


def test_check_shows_what_each_rule_would_take_and_the_skip_writing_nothing(
        db: Any, settings: Any, rules_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules_file.write_text(CHECK_RULES, encoding="utf-8")
    rows = _rows(db)
    code, out, _ = _cli(capsys, "intake", "check", "--json")
    assert code == 0 and _rows(db) == rows, "check writes nothing (not even the rules' standing)"
    report = json.loads(out)
    assert report["on"] is True and report["desk"] == "embedded"
    urgent, rest, brand = report["rules"]
    assert [r["name"] for r in report["rules"]] == ["urgent-sso", "rest", "by-brand"]
    taken = {t["ticket_id"]: t for t in urgent["tickets"]}
    assert taken and all("tagged sso" in t["why"] for t in taken.values())
    assert all(t["status"] != "closed" for t in taken.values())
    assert taken["KITE-142"]["why"] == ["high", "tagged sso"]
    assert "answered it publicly within 24 h of its last update" in taken["KITE-142"]["skip"]
    assert urgent["would_start"] == sum(1 for t in taken.values() if t["skip"] is None) >= 1
    assert urgent["hold"] is None
    assert any("not in force yet" in note for note in urgent["notes"])
    assert rest["tickets"] == [] and any("status new matches no ticket here" in n for n in rest["notes"])
    assert brand["tickets"] == [] and any("filters on brand, which the desk's ticket rows do not store" in n
                                          for n in brand["notes"])
    with db.session() as session:
        open_tickets = session.exec(select(func.count()).select_from(Ticket).where(Ticket.status != "closed")).one()
    assert report["open_tickets"] == open_tickets == len(taken) + report["untaken"]

    # a run working a ticket is the skip it would hit; a paused rule says its tickets would wait
    with db.session() as session:
        session.add(Run(goal="handle KITE-142", ticket_id="KITE-142", model=settings.model, status=RunStatus.QUEUED))
    assert _cli(capsys, "intake", "pause", "urgent-sso")[0] == 0
    code, out, _ = _cli(capsys, "intake", "check")
    assert code == 0
    assert out.startswith("Intake check on the embedded desk: what each rule would take of its "
                          f"{open_tickets} open ticket(s) if they arrived now (nothing is started or written).")
    assert (f"urgent-sso → C0URGENT: {len(taken)} ticket(s), {urgent['would_start']} would start, but now they "
            "would wait: rule 'urgent-sso' is paused by the command line") in out
    assert "  KITE-142   open     high, tagged sso · skipped: run #" in out and " already works it" in out
    assert "would start" in out and f"No rule takes {report['untaken']} ticket(s)." in out


def test_intake_off_and_a_bad_rules_file(settings: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.delenv("KITEBASE_INTAKE_RULES", raising=False)
    code, out, _ = _cli(capsys, "intake", "status")
    assert code == 0 and out.startswith("Intake is off: KITEBASE_INTAKE_RULES is unset")
    assert json.loads(_cli(capsys, "intake", "status", "--json")[1]) == {"on": False, "day": None, "rules": [],
                                                                         "ignored": 0}
    code, out, _ = _cli(capsys, "intake", "check")
    assert code == 0 and out.startswith("Intake is off")
    code, _, err = _cli(capsys, "intake", "pause")
    assert code == 2 and err.startswith("kitebase: There is no rule to pause: KITEBASE_INTAKE_RULES is unset")

    bad = tmp_path / "bad.toml"
    bad.write_text(RULES.replace("max_per_hour = 1", 'max_per_hour = "many"'), encoding="utf-8")
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(bad))
    for command in (["status"], ["status", "--json"], ["pause", "rest"], ["resume"], ["check"]):
        code, out, err = _cli(capsys, "intake", *command)
        assert (code, out) == (2, ""), command
        assert err.startswith(f"kitebase: {bad}, line 6: rule 'urgent-sso': max_per_hour is a whole number of runs, "
                              "1 or more."), command
        assert err.count("\n") == 1, "one sentence on one line"


def test_slash_command_for_approvers_and_app_home_shows_the_intake(settings: Any, db: Any, rules_file: Path) -> None:
    rules = load(rules_file)
    settings = settings.model_copy(update={"intake_rules": rules_file, "approvers": frozenset({"ULEAD"})})
    arrivals.standing(db, rules)
    first, waiting = _ticket(db, 20), _ticket(db, 21)
    assert _pass(db, settings, rules) == [first]
    harness, stop = start_harness(settings, db)
    try:
        def command(text: str, user: str = "ULEAD") -> str:
            status, body = harness.send.command(text, user=user)
            assert status == 200
            return body  # ack(text): Bolt answers with the text itself

        refused = command("intake pause urgent-sso", user="UOTHER")
        assert refused == "Only the approvers may look at or steer the intake: <@ULEAD>."
        assert command("intake status", user="UOTHER") == refused
        with db.session() as session:
            assert not session.get(IntakeRule, "urgent-sso").paused  # type: ignore[union-attr]

        answer = command("intake status")
        assert answer.startswith("*Intake today* (") and "0 arrival(s) no rule took" in answer
        assert ("*urgent-sso* → <#C0URGENT> · taking new tickets\ntaken 1 · follow-ups 0 · waiting 1 · skipped 0 · "
                "spend $0.00 of $15.00/day · 1/hour\n"
                f"waiting, in the order they start (over max_per_hour = 1):\n• *{waiting}* · ") in answer
        assert "*rest* → <#C0REST> · taking new tickets" in answer
        assert command("intake") == answer, "status is the default"
        assert command("intake dance").startswith("Try `/kitebase intake status`")

        assert command("intake pause urgent-sso") == "Rule *urgent-sso* paused: new tickets wait in its backlog (1 waiting)."
        assert command("intake pause urgent-sso") == "Rule *urgent-sso* was already paused by <@ULEAD> (1 waiting)."
        assert command("intake pause nope") == f"There is no rule named 'nope' in {rules_file}; its rules are urgent-sso, rest."
        harness.drain()
        with db.session() as session:
            row = session.get(IntakeRule, "urgent-sso")
            assert row is not None and row.paused and row.paused_by == "ULEAD"
        posts = [p for p in harness.slack.calls_to("chat.postMessage") if p["channel"] == "C0URGENT"
                 and "paused by" in p.get("text", "")]
        assert len(posts) == 1 and "thread_ts" not in posts[0]
        assert posts[0]["text"].startswith(":double_vertical_bar: Rule *urgent-sso* paused by <@ULEAD>: new tickets "
                                           "wait in its backlog")

        harness.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": "D1", "tab": "home"})
        harness.drain()
        home = str(harness.slack.home_views["ULEAD"]["blocks"])
        assert "Intake today (" in home and "*urgent-sso* → <#C0URGENT> · :double_vertical_bar: paused by <@ULEAD>" in home
        assert "waiting 1" in home and "`/kitebase intake status`" in home

        assert command("intake resume urgent-sso") == ("Rule *urgent-sso* resumed: its backlog (1 waiting) starts "
                                                       "what is due first.")
        harness.drain()
        assert "· taking new tickets" in str(harness.slack.home_views["ULEAD"]["blocks"]).split("urgent-sso")[1][:60], \
            "the home is refreshed when a rule is paused or resumed"
        assert not harness.slack.warnings
    finally:
        stop()


def test_app_home_has_no_intake_section_when_intake_is_off() -> None:
    view = build_home(queue=[], approvals=[], runs=[], figures=None)
    assert "Intake" not in str(view["blocks"])
    problem = build_home(queue=[], approvals=[], runs=[], intake_problem="rules.toml, line 3: bad")
    assert "rules.toml, line 3: bad" in str(problem["blocks"])
