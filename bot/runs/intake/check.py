"""`kitebase intake check`: which tickets of the desk as it is now each rule would take, were they arriving now,
and the skip each would hit, starting nothing and writing nothing (docs/intake.md, "Control").

Tickets already on the desk are not arrivals, so the intake never takes them; this shows a lead what a rules file
would do before it is put in force. A ticket's fields come from the desk's ticket row (status, priority, tags);
the row keeps no brand, group or channel (via), so those are known only for tickets that arrived through the
intake (their arrival recorded them), and a rule filtering on them says so. The row's status is the desk's own:
open, pending or closed (the Zendesk mirror stores Zendesk's new as open, hold as pending, solved as closed)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from bot.config import Settings
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import DeskArrival, IntakeRule, Ticket
from bot.durations import describe
from bot.runs.intake import arrivals
from bot.runs.intake.control import GoneRule, gone_rules
from bot.runs.intake.rules import Rule, load, taker
from bot.vocabulary import ArrivalKind, ArrivalState

ROW_STATUSES = ("open", "pending", "closed")
NOT_ON_THE_ROW = (("brands", "brand"), ("groups", "group"), ("via", "via"))


@dataclass
class Candidate:
    ticket_id: str
    title: str
    status: str
    why: list[str]
    skip: str | None  # the skip it would hit (None: it would start, or wait while the rule is held)


@dataclass
class RuleCheck:
    name: str
    channel: str
    tickets: list[Candidate] = field(default_factory=list)
    hold: str | None = None  # why its tickets would wait now (paused, over a cap), else None
    waiting: int = 0  # its backlog now (arrivals that wait for it)
    notes: list[str] = field(default_factory=list)  # what the desk's rows cannot tell about its filters

    @property
    def would_start(self) -> int:
        return sum(1 for t in self.tickets if t.skip is None)


@dataclass
class CheckReport:
    on: bool
    desk: str
    open_tickets: int = 0  # tickets on the desk that are not closed
    rules: list[RuleCheck] = field(default_factory=list)
    untaken: int = 0  # open tickets no rule would take
    gone: list[GoneRule] = field(default_factory=list)  # rules in force once, no longer in the file

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for rule, data in zip(self.rules, out["rules"], strict=True):
            data["would_start"] = rule.would_start
        return out


def check(db: Database, settings: Settings) -> CheckReport:
    rules = load(settings.intake_rules)
    if not rules:
        return CheckReport(on=False, desk=settings.desk)
    with db.session() as session:
        return judge(session, settings, rules)


def judge(session: Session, settings: Settings, rules: list[Rule]) -> CheckReport:
    """Reads only: nothing is added, changed or started."""
    tickets = session.exec(select(Ticket).where(col(Ticket.status) != "closed")
                           .order_by(col(Ticket.created_at), col(Ticket.id))).all()
    arrived = _arrival_fields(session)
    report = CheckReport(on=True, desk=settings.desk, open_tickets=len(tickets),
                         rules=[RuleCheck(r.name, r.channel, notes=_notes(r, len(arrived))) for r in rules])
    by_name = {r.name: r for r in report.rules}
    for ticket in tickets:
        fields = _fields(ticket, arrived.get(ticket.id))
        taken = taker(rules, fields)
        if taken is None:
            report.untaken += 1
            continue
        rule, why = taken
        skip = arrivals.skip_reason(session, settings, ticket, fields)
        by_name[rule.name].tickets.append(Candidate(ticket.id, ticket.title, ticket.status, why, skip))
    now = clock.read_now(session)
    rows = {row.name: row for row in session.exec(select(IntakeRule)).all()}
    for rule, result in zip(rules, report.rules, strict=True):
        row = rows.get(rule.name)
        if row is None:
            result.notes.append("not in force yet: no `kitebase serve`, `worker` or `desk add` has read it")
            row = IntakeRule(name=rule.name, paused=False)  # never added to the session
        result.hold = arrivals.hold_reason(session, rule, row, now, count_hour=True,
                                           expected=arrivals.expected_cost(session, settings))
        if result.hold and rule.due_within and result.hold.startswith("over max_per_hour"):
            result.hold += " " + past_cap_note(rule, arrivals.past_cap_room(session, rule, now))
        result.waiting = int(session.exec(select(func.count()).select_from(DeskArrival).where(
            col(DeskArrival.rule) == rule.name, col(DeskArrival.state) == ArrivalState.WAITING)).one())
    report.gone = gone_rules(session, rules)
    return report


def past_cap_note(rule: Rule, room: bool) -> str:
    """What a full hourly cap still lets through (due_within), and its two bounds."""
    window = describe(rule.due_within.total_seconds()) if rule.due_within else "its due_within"
    if not room:
        return (f"(due_within's {rule.max_per_hour} start(s) past it this hour are used too: a ticket due within "
                f"{window} waits as well)")
    return (f"(a ticket due within {window}, not one already breached, would start past it: due_within, at most "
            f"{rule.max_per_hour} an hour)")


def _arrival_fields(session: Session) -> dict[str, dict[str, Any]]:
    """The brand, group and via each ticket that arrived through the intake came with (its latest arrival)."""
    out: dict[str, dict[str, Any]] = {}
    for ticket_id, fields in session.exec(select(DeskArrival.ticket_id, DeskArrival.fields)
                                          .where(col(DeskArrival.kind) == ArrivalKind.TICKET)
                                          .order_by(col(DeskArrival.id))).all():
        kept = {key: (fields or {}).get(key) for _, key in NOT_ON_THE_ROW if (fields or {}).get(key) is not None}
        if kept:
            out[ticket_id] = kept
    return out


def _fields(ticket: Ticket, arrived: dict[str, Any] | None) -> dict[str, Any]:
    return {**(arrived or {}), "status": ticket.status, "priority": ticket.priority, "tags": list(ticket.tags or [])}


def _notes(rule: Rule, known: int) -> list[str]:
    notes: list[str] = []
    missing = [key for name, key in NOT_ON_THE_ROW if getattr(rule, name)]
    if missing:
        notes.append(f"filters on {', '.join(missing)}, which the desk's ticket rows do not store: known only for "
                     f"the {known} ticket(s) that arrived through the intake with them; the others do not match")
    statuses = [s for s in rule.statuses if s not in ROW_STATUSES]
    if statuses:
        notes.append(f"status {', '.join(statuses)} matches no ticket here: the desk's rows keep open, pending or "
                     "closed (Zendesk's new is stored as open, hold as pending, solved as closed)")
    return notes
