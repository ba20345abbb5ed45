"""First replies against their targets: of the tickets created in a window, how many had their first reply in
time, how many late, and by how much (`kitebase stats`, App Home's line for today).

A ticket's first reply is its first public staff message (`TicketMessage`, role staff: the desk's own, on
Zendesk its mirrored comments) after the ticket was created: a staff message at the ticket's creation is the
opening comment of a ticket an agent opened (a phone call, a proactive notice on Zendesk), not a reply, as in
Zendesk's first reply time. Its target is the breach time the desk gave it (`Ticket.sla["first_reply_due"]`,
kept by bot/desk/sla.py on both desks, after the reply too). Met: replied at or before that time; breached:
replied after it, or not yet replied and the time has passed by the database's clock; running: neither yet. A
ticket without a target is left out of all three and counted apart. The margin is the target minus the reply,
in minutes: negative when late; only replied tickets have one.

A ticket the agent drafted is one whose first reply came from a run; a person's first reply stays with the
rest even when the agent wrote a later one. On the embedded desk that reply carries its run
(`TicketMessage.run_id`). On Zendesk the mirrored comment does not, so it is the run's if a public reply of a
run was sent (`DeskWrite`) that was first tried before it: the write's `zendesk_since` (the ticket's last
change by Zendesk's clock, read before the first PUT) is earlier than the first reply, so no staff reply
existed when the agent's was posted. Every figure is given for them and for the rest, over all the tickets and
by the customer's tier and by the intent the ticket's intake run recorded (`Run.triage`)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from bot.db import clock
from bot.db.models import Customer, DeskWrite, Run, Ticket, TicketMessage
from bot.desk.sla import span

NO_TIER, NO_TRIAGE = "no tier", "no triage"
SIDES = ("agent", "rest")


@dataclass(frozen=True)
class Outcome:
    ticket_id: str
    state: str  # met | breached | running | no_target
    margin: float | None  # minutes, target minus reply; None until replied
    unanswered: bool  # breached with no reply yet
    agent: bool
    tier: str
    intent: str


@dataclass
class Tally:
    met: int = 0
    breached: int = 0
    running: int = 0
    no_target: int = 0
    unanswered: int = 0
    margins: list[float] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        setattr(self, outcome.state, getattr(self, outcome.state) + 1)
        self.unanswered += outcome.unanswered
        if outcome.margin is not None:
            self.margins.append(outcome.margin)

    def as_json(self) -> dict[str, Any]:
        median = round(statistics.median(self.margins), 1) if self.margins else None
        return {"tickets": self.met + self.breached + self.running, "met": self.met, "breached": self.breached,
                "running": self.running, "no_target": self.no_target, "breached_unanswered": self.unanswered,
                "margin_median_minutes": median}


def figures(session: Session, since: datetime, until: datetime) -> dict[str, Any]:
    """The first replies of the tickets created in [since, until), judged by the database's clock now."""
    now = clock.read_now(session)
    outcomes = judged(session, since, until, now)
    return {"since": since.isoformat(), "until": until.isoformat(), "as_of": now.isoformat(),
            "tickets": len(outcomes), "no_target": sum(o.state == "no_target" for o in outcomes),
            **_sides(outcomes), "by_tier": _split(outcomes, "tier", NO_TIER),
            "by_intent": _split(outcomes, "intent", NO_TRIAGE)}


def today(session: Session) -> dict[str, Any]:
    """The tickets created since midnight (UTC) of the database's today."""
    midnight = clock.read_now(session).replace(hour=0, minute=0, second=0, microsecond=0)
    return figures(session, midnight, midnight + timedelta(days=1))


def judged(session: Session, since: datetime, until: datetime, now: datetime) -> list[Outcome]:
    window = select(Ticket.id).where(col(Ticket.created_at) >= since, col(Ticket.created_at) < until)
    tickets = session.exec(select(Ticket.id, Ticket.customer_id, Ticket.sla, Ticket.created_at)
                           .where(col(Ticket.id).in_(window)).order_by(col(Ticket.id))).all()
    if not tickets:
        return []
    tiers = dict(session.exec(select(Customer.id, Customer.tier).where(
        col(Customer.id).in_(select(Ticket.customer_id).where(col(Ticket.id).in_(window))))).all())
    first = _first_replies(session, window, {tid: created for tid, _, _, created in tickets})
    agent = _agent_drafted(session, window, first)
    intents = _intents(session, window)
    return [_outcome(tid, (sla or {}).get("first_reply_due"), first[tid][0] if tid in first else None, now,
                     agent=tid in agent, tier=tiers.get(customer) or NO_TIER, intent=intents.get(tid, NO_TRIAGE))
            for tid, customer, sla, _ in tickets]


def _first_replies(session: Session, window: Any, created: dict[str, datetime]) -> dict[str, tuple[datetime, int | None]]:
    """Each ticket's first reply: (when, its run on the embedded desk) of its first public staff message after
    the ticket's creation (one at the creation is an agent-opened ticket's opening comment)."""
    first: dict[str, tuple[datetime, int | None]] = {}
    for ticket_id, at, run_id in session.exec(
            select(TicketMessage.ticket_id, TicketMessage.created_at, TicketMessage.run_id).where(
                col(TicketMessage.ticket_id).in_(window), col(TicketMessage.role) == "staff")
            .order_by(col(TicketMessage.ticket_id), col(TicketMessage.created_at), col(TicketMessage.id))).all():
        if ticket_id not in first and _aware(at) > _aware(created[ticket_id]):
            first[ticket_id] = (_aware(at), run_id)
    return first


def _agent_drafted(session: Session, window: Any, first: dict[str, tuple[datetime, int | None]]) -> set[str]:
    """Tickets whose first reply came from a run: the embedded desk's message with its run, or on Zendesk a run's
    public reply sent whose first try came before the first reply (no staff reply existed then)."""
    embedded = {tid for tid, (_, run_id) in first.items() if run_id is not None}
    tried: dict[str, datetime] = {}
    for ticket_id, since, created in session.exec(select(DeskWrite.ticket_id, DeskWrite.zendesk_since,
                                                         DeskWrite.created_at).where(
            col(DeskWrite.ticket_id).in_(window), col(DeskWrite.kind) == "reply", col(DeskWrite.public).is_(True),
            col(DeskWrite.status) == "sent", col(DeskWrite.run_id).is_not(None))).all():
        at = _aware(since or created)  # a write from before zendesk_since was kept: when it was made, our clock
        tried[ticket_id] = min(at, tried.get(ticket_id, at))
    zendesk = {tid for tid, since in tried.items() if tid in first and since < first[tid][0]}
    return embedded | zendesk


def _intents(session: Session, window: Any) -> dict[str, str]:
    """The intent the ticket's first triaged run recorded (an intake run's: only they are triaged)."""
    found: dict[str, str] = {}
    for ticket_id, triage in session.exec(select(Run.ticket_id, Run.triage).where(col(Run.ticket_id).in_(window))
                                          .order_by(col(Run.id))).all():
        intent = (triage or {}).get("intent") if isinstance(triage, dict) else None
        if ticket_id and intent and ticket_id not in found:
            found[ticket_id] = str(intent)
    return found


def _outcome(ticket_id: str, due_text: Any, replied: datetime | None, now: datetime, *, agent: bool, tier: str,
             intent: str) -> Outcome:
    due = _time(due_text)
    if due is None:
        return Outcome(ticket_id, "no_target", None, False, agent, tier, intent)
    if replied is not None:
        margin = (due - _aware(replied)).total_seconds() / 60
        return Outcome(ticket_id, "met" if margin >= 0 else "breached", margin, False, agent, tier, intent)
    late = due <= now
    return Outcome(ticket_id, "breached" if late else "running", None, late, agent, tier, intent)


def _sides(outcomes: list[Outcome]) -> dict[str, dict[str, Any]]:
    tallies = {"all": Tally(), "agent": Tally(), "rest": Tally()}
    for outcome in outcomes:
        tallies["all"].add(outcome)
        tallies["agent" if outcome.agent else "rest"].add(outcome)
    return {name: tally.as_json() for name, tally in tallies.items()}


def _split(outcomes: list[Outcome], by: str, missing: str) -> list[dict[str, Any]]:
    """One entry per tier or intent, the most tickets first; the tickets without one last."""
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault(getattr(outcome, by), []).append(outcome)
    names = sorted(groups, key=lambda name: (name == missing, -len(groups[name]), name.casefold()))
    return [{"name": name, **_sides(groups[name])} for name in names]


def _time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return _aware(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
    except ValueError:
        return None


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# --- in words ------------------------------------------------------------------------------------------------

def margin(minutes: float | None) -> str:
    """38 min, -1 h 15 min (late), 0 min; "-" when nothing was replied."""
    if minutes is None:
        return "-"
    whole = round(minutes)
    if whole == 0:
        return "0 min"
    return ("-" if whole < 0 else "") + span(abs(whole) * 60)


def line(fig: dict[str, Any]) -> str:
    """App Home's line: "First replies today: 12 of 14 on time (agent-drafted 9 of 9), median margin 38 min"."""
    everyone, agent = fig["all"], fig["agent"]
    judged_all, judged_agent = everyone["met"] + everyone["breached"], agent["met"] + agent["breached"]
    if judged_all:
        head = f"{everyone['met']} of {judged_all} on time"
        if judged_agent:
            head += f" (agent-drafted {agent['met']} of {judged_agent})"
        if everyone["margin_median_minutes"] is not None:
            head += f", median margin {margin(everyone['margin_median_minutes'])}"
    else:
        head = "none judged yet" if everyone["tickets"] else "no ticket with a target yet"
    extras = ([f"{everyone['running']} still running"] if everyone["running"] else []) + \
        ([f"{fig['no_target']} without a target"] if fig["no_target"] else [])
    return " · ".join([f"First replies today: {head}", *extras])
