"""First replies against their targets (`kitebase stats`, App Home): tickets written straight into the database
on both databases, so every count and median can be checked by hand; the agent's replies as both desks record
them (the embedded desk's staff message with its run, Zendesk's sent desk write); App Home through its builder
and through the real Bolt app and the Slack stand-in."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from bot.cli import main
from bot.db import clock
from bot.db.models import Customer, DeskWrite, Run, Ticket, TicketMessage
from bot.desk.embedded import EmbeddedDesk
from bot.runs.reports import first_replies, for_slack
from bot.slack_ui.figures import build_first_replies
from bot.slack_ui.queue import build_home
from standins.slack_harness import start_harness
from standins.slack_server import view_errors

TIERS = {"fr-ent": "Enterprise", "fr-biz": "Business", "fr-std": "Standard", "fr-none": None}


def add_customers(session) -> None:
    for cid, tier in TIERS.items():
        session.add(Customer(id=cid, name=f"Customer {cid}", plan="x", tier=tier))
    session.flush()


def add_ticket(session, tid: str, customer: str, created: datetime, due_min: float | None) -> Ticket:
    """A ticket whose first reply is due `due_min` minutes after it was created (None: no target)."""
    sla = {"metric": "first_reply", "stage": "active",
           "first_reply_due": (created + timedelta(minutes=due_min)).isoformat()} if due_min is not None else None
    ticket = Ticket(id=tid, customer_id=customer, title=f"ticket {tid}", status="open", priority="normal",
                    created_at=created, updated_at=created, sla=sla)
    session.add(ticket)
    session.flush()
    return ticket


def add_message(session, ticket: Ticket, role: str, after_min: float, *, run_id: int | None = None) -> None:
    session.add(TicketMessage(ticket_id=ticket.id, author="Kitebase Support" if role != "customer" else "Dana",
                              role=role, body="…", created_at=ticket.created_at + timedelta(minutes=after_min),
                              run_id=run_id, tool_use_id=f"tu-{ticket.id}-{after_min}" if run_id else None))


def add_run(session, ticket: Ticket, intent: str | None = None) -> int:
    run = Run(goal=f"handle {ticket.id}", ticket_id=ticket.id, status="completed",
              triage={"intent": intent, "language": "en", "sentiment": "neutral", "priority": "normal"}
              if intent else None, origin={"surface": "intake", "rule": "all"} if intent else None)
    session.add(run)
    session.flush()
    return int(run.id or 0)


def zendesk_reply(session, ticket: Ticket, run_id: int, status: str, *, public: bool = True,
                  kind: str = "reply", tried_min: float = 0) -> None:
    """A run's desk write to Zendesk, first tried `tried_min` after the ticket was created (`zendesk_since`: the
    ticket's last change by Zendesk's clock, read before the first PUT)."""
    session.add(DeskWrite(ticket_id=ticket.id, kind=kind, body="…", public=public, run_id=run_id,
                          tool_use_id=f"tu-{ticket.id}-{status}-{kind}", key=f"{run_id}:tu-{ticket.id}-{status}-{kind}",
                          status=status, zendesk_since=ticket.created_at + timedelta(minutes=tried_min)))


def a_day(session, start: datetime) -> None:
    """Agent-drafted: A1 met +40, A2 breached -30, A3 met +60 (embedded desk), Z1 met +20 (Zendesk's write);
    margins -30, 20, 40, 60: median 30. The rest: R1 met +30, R2 unanswered and past due, R3 still running,
    R4 no target, R5 breached -100 (its run's draft never went out); margins 30, -100: median -35."""
    add_customers(session)
    now = clock.read_now(session)
    a1 = add_ticket(session, "FR-A1", "fr-ent", start, 60)
    add_message(session, a1, "customer", 0)
    add_message(session, a1, "staff", 20, run_id=add_run(session, a1, "billing"))
    add_message(session, a1, "staff", 500)  # a later reply: not the first
    a2 = add_ticket(session, "FR-A2", "fr-ent", start, 60)
    add_message(session, a2, "staff", 90, run_id=add_run(session, a2, "login"))
    a3 = add_ticket(session, "FR-A3", "fr-std", start, 120)
    add_message(session, a3, "staff", 60, run_id=add_run(session, a3, "billing"))
    z1 = add_ticket(session, "FR-Z1", "fr-biz", start, 30)
    add_message(session, z1, "staff", 10)  # Zendesk's comment, mirrored: no run on it
    zendesk_reply(session, z1, add_run(session, z1, "login"), "sent", tried_min=9)

    r1 = add_ticket(session, "FR-R1", "fr-std", start, 60)
    note_run = add_run(session, r1)
    add_message(session, r1, "internal", 5, run_id=note_run)  # the agent's internal note is no reply
    add_message(session, r1, "staff", 30)
    zendesk_reply(session, r1, note_run, "failed")  # never reached the customer
    r2 = add_ticket(session, "FR-R2", "fr-none", start, (now - start).total_seconds() / 60 - 10)
    add_message(session, r2, "customer", 1)
    add_ticket(session, "FR-R3", "fr-none", start, (now - start).total_seconds() / 60 + 600)
    add_ticket(session, "FR-R4", "fr-ent", start, None)
    r5 = add_ticket(session, "FR-R5", "fr-biz", start, 100)
    add_message(session, r5, "staff", 200)
    zendesk_reply(session, r5, add_run(session, r5, "login"), "sent", public=False, kind="update")

    old = add_ticket(session, "FR-OLD", "fr-ent", start - timedelta(days=8), 60)  # outside every window
    add_message(session, old, "staff", 500, run_id=add_run(session, old, "billing"))


@pytest.fixture
def today(db) -> tuple[datetime, datetime]:
    with db.session() as session:
        now = clock.read_now(session)
        start = now.replace(hour=0, minute=0, second=0, microsecond=0)
        a_day(session, start)
    return start, now + timedelta(seconds=1)


def group(fig: dict, *path: str) -> tuple:
    g = fig
    for key in path:
        g = g[key]
    return g["met"], g["breached"], g["running"], g["margin_median_minutes"]


def by_name(entries: list[dict]) -> dict[str, dict]:
    return {e["name"]: e for e in entries}


def test_met_breached_and_median_margin_for_the_agent_and_the_rest(db, today):
    with db.session() as session:
        fig = first_replies.figures(session, *today)
    assert group(fig, "agent") == (3, 1, 0, 30), "A1, A3, Z1 met; A2 breached; median of -30, 20, 40, 60"
    assert group(fig, "rest") == (1, 2, 1, -35), "R1 met; R2 and R5 breached; R3 running; median of 30, -100"
    assert group(fig, "all") == (4, 3, 1, 25)
    assert fig["rest"]["breached_unanswered"] == 1 and fig["agent"]["breached_unanswered"] == 0, "R2"
    assert (fig["tickets"], fig["no_target"]) == (9, 1), "FR-R4 has no target: left out, counted apart"
    assert fig["all"]["tickets"] == 8 and fig["rest"]["no_target"] == 1


def test_by_tier_and_by_intent(db, today):
    with db.session() as session:
        fig = first_replies.figures(session, *today)
    tiers = by_name(fig["by_tier"])
    assert set(tiers) == {"Enterprise", "Business", "Standard", "no tier"}
    assert group(tiers["Enterprise"], "agent") == (1, 1, 0, 5) and tiers["Enterprise"]["rest"]["no_target"] == 1
    assert group(tiers["Business"], "agent") == (1, 0, 0, 20) and group(tiers["Business"], "rest") == (0, 1, 0, -100)
    assert group(tiers["Standard"], "agent") == (1, 0, 0, 60) and group(tiers["Standard"], "rest") == (1, 0, 0, 30)
    assert group(tiers["no tier"], "rest") == (0, 1, 1, None) and tiers["no tier"]["agent"]["tickets"] == 0
    assert fig["by_tier"][-1]["name"] == "no tier", "the tickets without a tier come last"
    intents = by_name(fig["by_intent"])
    assert set(intents) == {"billing", "login", "no triage"}
    assert group(intents["billing"], "agent") == (2, 0, 0, 50)
    assert group(intents["login"], "agent") == (1, 1, 0, -5) and group(intents["login"], "rest") == (0, 1, 0, -100)
    assert group(intents["no triage"], "rest") == (1, 1, 1, 30) and intents["no triage"]["rest"]["no_target"] == 1


def test_on_zendesk_the_agents_reply_is_the_first_only_if_no_staff_reply_came_before_it(db):
    """Zendesk's mirrored comments carry no run: the run's sent reply is the first when it was first tried before
    the first staff reply (Z-A, opened by an agent: its opening comment is no reply). When a person replied
    first (Z-P), the run's later reply leaves the ticket with the rest."""
    with db.session() as session:
        start = clock.read_now(session).replace(hour=0, minute=0, second=0, microsecond=0)
        add_customers(session)
        opened = add_ticket(session, "FR-ZA", "fr-biz", start, 60)
        add_message(session, opened, "staff", 0)  # the agent's opening comment, as Zendesk makes the ticket
        add_message(session, opened, "customer", 5)
        zendesk_reply(session, opened, add_run(session, opened, "billing"), "sent", tried_min=5)
        add_message(session, opened, "staff", 40)  # the run's reply, mirrored
        person = add_ticket(session, "FR-ZP", "fr-biz", start, 60)
        add_message(session, person, "customer", 0)
        add_message(session, person, "staff", 90)  # a person's reply: 30 min late
        add_message(session, person, "customer", 100)
        zendesk_reply(session, person, add_run(session, person, "billing"), "sent", tried_min=90)
        add_message(session, person, "staff", 130)  # the run's reply, after the person's
        fig = first_replies.figures(session, start, start.replace(year=start.year + 1))
    assert group(fig, "agent") == (1, 0, 0, 20) and group(fig, "rest") == (0, 1, 0, -30)


def test_an_empty_window_makes_up_nothing(db):
    with db.session() as session:
        now = clock.read_now(session)
        fig = first_replies.figures(session, now + timedelta(days=1), now + timedelta(days=2))
    assert fig["tickets"] == 0 and group(fig, "all") == (0, 0, 0, None) and fig["by_tier"] == []
    assert first_replies.line(fig) == "First replies today: no ticket with a target yet"


def test_the_embedded_desk_records_the_agents_reply_and_its_target(settings, db):
    """The real desk: the ticket's target from kb_data/sla.toml (Enterprise, low: 240 min around the clock), the
    agent's approved reply written by the desk with its run."""
    with db.session() as session:
        now = clock.read_now(session)
        session.add(Customer(id="fr-ent", name="Big Co", plan="Enterprise", tier="Enterprise"))
        session.flush()
        for tid in ("KITE-9901", "KITE-9902"):
            session.add(Ticket(id=tid, customer_id="fr-ent", title=tid, status="open", priority="low",
                               created_at=now - timedelta(minutes=10), updated_at=now))
        session.flush()
        run_id = add_run(session, session.get(Ticket, "KITE-9901"), "billing")
    desk = EmbeddedDesk(db, settings)  # computes every open ticket's target
    assert desk.reply("KITE-9901", "Hi, here is what to do.", run_id=run_id, tool_use_id="tu-1").state == "sent"
    with db.session() as session:
        due = datetime.fromisoformat(session.get(Ticket, "KITE-9901").sla["first_reply_due"])
        fig = first_replies.figures(session, now - timedelta(hours=1), now + timedelta(hours=1))
    assert due == now - timedelta(minutes=10) + timedelta(minutes=240)
    assert (fig["agent"]["met"], fig["agent"]["tickets"]) == (1, 1) and 0 < fig["agent"]["margin_median_minutes"] <= 230
    assert (fig["rest"]["running"], fig["rest"]["tickets"]) == (1, 1), "KITE-9902: no reply, due in about 4 hours"


def test_the_line_app_home_shows(db, today):
    with db.session() as session:
        fig = first_replies.figures(session, *today)
    assert first_replies.line(fig) == ("First replies today: 4 of 7 on time (agent-drafted 3 of 4), "
                                       "median margin 25 min · 1 still running · 1 without a target")
    late = {**fig, "all": {**fig["all"], "margin_median_minutes": -75.0}}
    assert "median margin -1 h 15 min" in first_replies.line(late)


def test_app_home_shows_todays_first_replies_through_the_builder(db, settings, today):
    data = for_slack.home(db, settings)
    assert data["first_replies"]["tickets"] == 9, "today's tickets, by the database's clock"
    home = build_home(**data)
    text = json.dumps(home["blocks"])
    assert "First replies today: 4 of 7 on time (agent-drafted 3 of 4), median margin 25 min" in text
    assert view_errors(home) == []
    assert build_first_replies(None) == []


def test_app_home_shows_todays_first_replies_over_slack(settings, db, today):
    h, stop = start_harness(settings, db)
    try:
        h.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": "D1", "tab": "home"})
        h.drain()
        text = json.dumps(h.slack.home_views["ULEAD"]["blocks"])
        assert "First replies today: 4 of 7 on time (agent-drafted 3 of 4), median margin 25 min" in text
    finally:
        stop()


def test_kitebase_stats_prints_the_table_and_the_json(database_url, db, today, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["stats", "--since", "1d", "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)["first_replies"]
    assert group(fig, "agent") == (3, 1, 0, 30) and fig["no_target"] == 1
    assert main(["stats", "--since", "1d"]) == 0
    out = capsys.readouterr().out
    lines = {line.strip().split("  ")[0]: line for line in out.splitlines() if line.strip()}
    assert "First replies against target" in out and "1 ticket without a first-reply target" in out
    assert lines["All tickets"].split() == ["All", "tickets", "3", "1", "0", "30", "min", "1", "2", "1", "-35", "min"]
    assert lines["Enterprise"].split() == ["Enterprise", "1", "1", "0", "5", "min", "0", "0", "0", "-"]
    assert lines["no triage"].split() == ["no", "triage", "0", "0", "0", "-", "1", "1", "1", "30", "min"]
