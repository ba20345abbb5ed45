"""A lead's hands on the intake (docs/intake.md, "Control"): each rule's figures today, and pausing or resuming a
rule. The CLI (`kitebase intake status|pause|resume`), the slash command (`/kitebase intake …`) and App Home all
ask here.

"Today" is the database's UTC day (bot/db/clock.py). A pause is a conditional UPDATE of the rule's row, written
with the notice in the rule's channel in one transaction; the next intake pass reads it (arrivals.py `hold_reason`), so
new tickets wait in the rule's backlog at once, and after a resume the backlog starts what is due first as the
rule's caps allow; what started past the hourly cap (a rule's `due_within`) is counted for the last hour and
today. Status reads only: a rule no `serve`, `worker` or `desk add` has seen yet is shown as not in force."""

from __future__ import annotations

import re
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from bot import outbox
from bot.config import Settings
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Customer, DeskArrival, IntakeRule, Ticket
from bot.db.statements import changed
from bot.desk import sla
from bot.runs import BadInput
from bot.runs.intake import arrivals
from bot.runs.intake.rules import Rule, load
from bot.vocabulary import ArrivalKind, ArrivalState

OFF = ("Intake is off: KITEBASE_INTAKE_RULES is unset, so no ticket is taken without a mention "
       "(docs/intake.md says how to write a rules file).")
CLI = arrivals.PAUSED_FROM_CLI  # paused_by when a pause comes from the command line
WAITING_SHOWN = 20  # of a rule's backlog, listed in the order it starts (the count is always whole)


@dataclass
class Waiting:
    ticket_id: str
    kind: str  # an ArrivalKind: a new ticket, or a customer's message (a follow-up)
    reason: str | None
    since: str  # when it arrived (the database's clock), ISO 8601
    due: str | None = None  # its ticket's due line ("first reply due in 14 min · Enterprise · urgent"), sla.describe
    due_at: str | None = None  # its ticket's breach time while the target runs (what orders the backlog), ISO 8601


@dataclass
class RuleStatus:
    name: str
    channel: str
    in_force_since: str | None  # None: no process has read this rule yet
    paused: bool
    paused_by: str | None
    taken: int  # new tickets it started today
    follow_ups: int  # customers' messages that continued its runs today
    waiting: int  # its backlog, whole
    oldest: list[Waiting]  # the first WAITING_SHOWN of it in the order it starts (the name is kept from before)
    held: int  # follow-ups held while their run is live
    skipped: dict[str, int]  # today, by reason
    spend_usd: float  # what its runs cost today
    max_per_hour: int | None
    max_usd_per_day: float | None
    due_within_minutes: float | None = None  # what is due within this may start past max_per_hour
    past_cap_hour: int = 0  # new tickets started past max_per_hour in the last hour (due within due_within)
    past_cap_today: int = 0  # … and today


@dataclass
class GoneRule:
    """A rule in force once that is no longer in the rules file (removed or renamed), and what still waits on it:
    its backlog is judged by the rules in force at each pass; what none takes waits here, for a person."""
    name: str
    in_force_since: str
    waiting: int
    oldest: list[Waiting]


@dataclass
class Status:
    on: bool
    day: str | None  # the database's UTC day, YYYY-MM-DD
    rules: list[RuleStatus] = field(default_factory=list)
    ignored: int = 0  # arrivals no rule took today (all rules together)
    gone: list[GoneRule] = field(default_factory=list)  # rules no longer in the file, with what waits on them

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Change:
    rule: str
    channel: str
    changed: bool  # False: it already was as asked
    paused: bool  # now
    paused_by: str | None
    waiting: int


def rules_of(settings: Settings) -> list[Rule]:
    """The rules in force by the settings (none when intake is off); a bad file raises its sentence."""
    return load(settings.intake_rules)


def status(db: Database, settings: Settings) -> Status:
    rules = rules_of(settings)
    if not rules:
        return Status(on=False, day=None)
    with db.session() as session:
        return figures(session, rules)


def figures(session: Session, rules: list[Rule]) -> Status:
    """Each rule's figures today, in file order, from one read of the database's clock."""
    now = clock.read_now(session)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    rows = {row.name: row for row in session.exec(select(IntakeRule)).all()}
    today = col(DeskArrival.decided_at) >= day
    counts: dict[tuple[str | None, str, str], int] = {}
    for name, state, kind, count in session.exec(
            select(DeskArrival.rule, DeskArrival.state, DeskArrival.kind, func.count())
            .where(col(DeskArrival.state).in_((ArrivalState.STARTED, ArrivalState.IGNORED)), today)
            .group_by(col(DeskArrival.rule), col(DeskArrival.state), col(DeskArrival.kind))).all():
        counts[(name, state, kind)] = counts.get((name, state, kind), 0) + int(count)
    ignored = sum(n for (_, state, _), n in counts.items() if state == ArrivalState.IGNORED)
    skipped: dict[str, dict[str, int]] = {}
    for name, reason, count in session.exec(
            select(DeskArrival.rule, DeskArrival.reason, func.count())
            .where(col(DeskArrival.state) == ArrivalState.SKIPPED, today)
            .group_by(col(DeskArrival.rule), col(DeskArrival.reason))).all():
        by_reason = skipped.setdefault(str(name), {})
        group = skip_kind(reason)
        by_reason[group] = by_reason.get(group, 0) + int(count)
    out = Status(on=True, day=day.date().isoformat(), ignored=ignored)
    for rule in rules:
        row = rows.get(rule.name)
        waiting = session.exec(select(func.count()).select_from(DeskArrival).where(
            col(DeskArrival.rule) == rule.name, col(DeskArrival.state) == ArrivalState.WAITING)).one()
        held = session.exec(select(func.count()).select_from(DeskArrival).where(
            col(DeskArrival.rule) == rule.name, col(DeskArrival.state) == ArrivalState.NEW)).one()
        out.rules.append(RuleStatus(
            name=rule.name, channel=rule.channel, in_force_since=_iso(row.since) if row else None,
            paused=bool(row and row.paused), paused_by=row.paused_by if row and row.paused else None,
            taken=counts.get((rule.name, ArrivalState.STARTED, ArrivalKind.TICKET), 0),
            follow_ups=counts.get((rule.name, ArrivalState.STARTED, ArrivalKind.MESSAGE), 0),
            waiting=int(waiting), held=int(held),
            oldest=waiting_in_order(session, rule.name, now),
            skipped=dict(sorted(skipped.get(rule.name, {}).items())),
            spend_usd=round(arrivals.spend_today(session, rule.name, now), 6),
            max_per_hour=rule.max_per_hour, max_usd_per_day=rule.max_usd_per_day,
            due_within_minutes=rule.due_within.total_seconds() / 60 if rule.due_within else None,
            past_cap_hour=past_cap(session, rule.name, now - timedelta(hours=1)),
            past_cap_today=past_cap(session, rule.name, day)))
    out.gone = gone_rules(session, rules)
    return out


def past_cap(session: Session, rule: str, since: datetime) -> int:
    """New tickets the rule started past its max_per_hour since `since` (their target was due within due_within)."""
    return arrivals.past_cap_since(session, rule, since)


def gone_rules(session: Session, rules: list[Rule]) -> list[GoneRule]:
    """Rules in force once that the file no longer holds, oldest first, each with its backlog (often none)."""
    names = {r.name for r in rules}
    now = clock.read_now(session)
    out: list[GoneRule] = []
    for row in session.exec(select(IntakeRule).order_by(col(IntakeRule.since), col(IntakeRule.name))).all():
        if row.name in names:
            continue
        waiting = col(DeskArrival.rule) == row.name, col(DeskArrival.state) == ArrivalState.WAITING
        count = int(session.exec(select(func.count()).select_from(DeskArrival).where(*waiting)).one())
        out.append(GoneRule(row.name, _iso(row.since), count, waiting_in_order(session, row.name, now)))
    return out


def waiting_in_order(session: Session, rule: str, now: datetime) -> list[Waiting]:
    """The first WAITING_SHOWN of a rule's backlog in the order the intake pass starts it (arrivals.start_order:
    what is due first), each with its ticket's due line judged at `now` (the database's clock)."""
    rows = session.exec(select(DeskArrival, Ticket, Customer.tier).outerjoin(Ticket, arrivals.on_ticket())
                        .outerjoin(Customer, col(Customer.id) == col(Ticket.customer_id))
                        .where(col(DeskArrival.rule) == rule, col(DeskArrival.state) == ArrivalState.WAITING)
                        .order_by(*arrivals.start_order()).limit(WAITING_SHOWN)).all()
    out = []
    for arrival, ticket, tier in rows:
        line = sla.line_of(ticket, tier, now) if ticket else None
        out.append(Waiting(arrival.ticket_id, arrival.kind, arrival.reason, _iso(arrival.created_at), line,
                           _iso(ticket.due_at) if ticket is not None and ticket.due_at is not None else None))
    return out


def skip_kind(reason: str | None) -> str:
    """A skip's reason without what differs from ticket to ticket (the run's number, who answered), so a day's
    skips count by kind: "a run already works it", "a person answered it publicly within 24 h of its last update"."""
    text = reason or "no reason recorded"
    if re.fullmatch(r"run #\d+ already works it", text):
        return "a run already works it"
    answered = re.search(r" answered it publicly (within .*)$", text)
    if answered:
        return "a person answered it publicly " + answered.group(1)
    return text


def pause(db: Database, settings: Settings, rule: str | None, by: str) -> list[Change]:
    """Pause one rule (or all): new tickets it takes wait in its backlog from the next pass on."""
    return _flip(db, settings, rule, by, paused=True)


def resume(db: Database, settings: Settings, rule: str | None, by: str) -> list[Change]:
    """Resume one rule (or all): its backlog starts what is due first, as its caps allow."""
    return _flip(db, settings, rule, by, paused=False)


def _flip(db: Database, settings: Settings, name: str | None, by: str, *, paused: bool) -> list[Change]:
    rules = rules_of(settings)
    if not rules:
        raise BadInput(OFF.replace("Intake is off", "There is no rule to " + ("pause" if paused else "resume"), 1))
    targets = rules if name is None else [_named(rules, name, settings)]
    arrivals.standing(db, targets)  # a rule no process has read yet comes into force now, paused or not
    changes: list[Change] = []
    with db.session() as session:
        for rule in targets:
            moved = changed(session.execute(
                update(IntakeRule).where(col(IntakeRule.name) == rule.name, col(IntakeRule.paused) == (not paused))
                .values(paused=paused, paused_by=by if paused else None)))
            row = session.get(IntakeRule, rule.name)
            waiting = int(session.exec(select(func.count()).select_from(DeskArrival).where(
                col(DeskArrival.rule) == rule.name, col(DeskArrival.state) == ArrivalState.WAITING)).one())
            changes.append(Change(rule.name, rule.channel, moved == 1, paused,
                                  row.paused_by if row is not None and row.paused else None, waiting))
            if moved == 1:
                outbox.notice(session, channel=rule.channel, thread_ts=None,
                              key=f"intake-{'pause' if paused else 'resume'}:{rule.name}:{uuid.uuid4().hex}",
                              text=notice_text(rule.name, by, paused, waiting))
        if any(c.changed for c in changes):
            outbox.homes_changed(session)
    return changes


def _named(rules: list[Rule], name: str, settings: Settings) -> Rule:
    for rule in rules:
        if rule.name.lower() == name.strip().lower():
            return rule
    raise BadInput(f"There is no rule named '{name}' in {settings.intake_rules}; its rules are "
                   + ", ".join(r.name for r in rules) + ".")


def notice_text(rule: str, by: str, paused: bool, waiting: int) -> str:
    if paused:
        return (f":double_vertical_bar: Rule *{rule}* paused by {arrivals.by_whom(by)}: new tickets wait in its backlog until it "
                f"is resumed (`/kitebase intake resume {rule}`).")
    backlog = f"its backlog ({waiting} waiting) starts what is due first" if waiting else "new tickets start again"
    return f":arrow_forward: Rule *{rule}* resumed by {arrivals.by_whom(by)}: {backlog}, as its caps allow."


def _iso(value: datetime) -> str:
    return value.replace(microsecond=0, tzinfo=None).isoformat(sep=" ")
