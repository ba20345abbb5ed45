"""What arrived on the desk becomes work, under the intake rules (rules.py, docs/intake.md).

A pass (the timer's job in every `serve` and `worker`, every KITEBASE_INTAKE_EVERY seconds) takes the open
arrivals in the order of what is due (`sla.order_key`: the ticket's breach time, none last, then its priority, then
arrival) and decides each in ONE transaction with what it causes:

- a new ticket the first rule in force takes becomes a queued run (created the one way runs are created,
  `insert_run`) with its first message in the rule's channel ("Rule … picked up ticket …: why"); a ticket on
  hold, solved or closed, one a person answered publicly in the last KITEBASE_INTAKE_QUIET_HOURS, or one a live
  run already works, is skipped with its reason; over the rule's max_per_hour or max_usd_per_day, or while the
  rule is paused, it waits in the rule's backlog and starts, what is due first, when it may; a ticket whose reply
  target breaches within the rule's `due_within` (ahead of now: one already breached waits its turn) starts past
  its max_per_hour (`DeskArrival.past_cap`), at most max_per_hour such starts an hour (`past_cap_room`);
- a customer's new public message on a ticket whose last run a rule started (and whose rule keeps follow-ups)
  continues that run in its thread once the run has ended: held while it is live;
- anything else is ignored, with the reason.

One pass at a time across processes (the caller holds the named lock `intake`, bot/runs/execution/
desk_work.py, and `fence` renews it in each arrival's transaction), so the caps count exactly; the arrival's conditional state change and the one-live-run-per-ticket index
mean that an arrival seen twice, or a pass that lost its lock, starts nothing twice. Times are the database's."""

from __future__ import annotations

import logging
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, exists, func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot import outbox
from bot.agent.clients import model_name
from bot.config import Settings
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import DeskArrival, DeskWrite, IntakeRule, Run, Ticket, TicketMessage, id_of, table_of
from bot.db.statements import changed, insert_ignore
from bot.desk import sla
from bot.runs import BadInput
from bot.runs.intake.reach import channel_blocked
from bot.runs.intake.rules import Rule
from bot.runs.lifecycle import escalations, held
from bot.runs.lifecycle.goals import live_run
from bot.runs.lifecycle.new_run import insert_run
from bot.runs.lifecycle.reopen import reopen_in
from bot.runs.lifecycle.triage import TAGS_OPTION
from bot.vocabulary import LIVE, OPEN_ARRIVALS, TERMINAL, ArrivalKind, ArrivalState

logger = logging.getLogger(__name__)
Fence = Callable[[Session], bool]  # in an arrival's transaction: True while this pass may still write
BATCH = 200  # arrivals decided per pass at most, of each kind and rule (the next pass goes on)
EXPECTED_FROM = 20  # finished intake runs whose median cost a run still working is expected to cost
NOTICE_EVERY = timedelta(hours=1)
SKIP_STATUSES = ("hold", "solved", "closed")
PAUSED_FROM_CLI = "cli"  # IntakeRule.paused_by when `kitebase intake pause` paused it (else a Slack user id)
AGAIN = "judged again:"  # an arrival's reason while it waits to be judged again by changed rules (see judge_again)
RECENT = timedelta(hours=24)  # how far back a new or changed rule judges the arrivals no rule took
NO_RULE = "no rule takes it"
CARRY_LOOK = 20  # of a paused rule's backlog, looked at to tell a renamed rule (see _carry_pauses)
CONTINUED_BY = "the customer's new message"  # who resumed a hand-off a follow-up continued (the queue says)
GONE = "is no longer in the rules file"  # in the reason of what waits on a rule the file no longer holds
HELD_LIVE = "held until run #"  # a message's reason while its run works (not read again until the run ends)


@dataclass
class PassReport:
    started: list[int] = field(default_factory=list)  # run ids started or continued
    waiting: int = 0
    skipped: int = 0
    ignored: int = 0
    held: int = 0  # follow-ups held while their run is live
    superseded: bool = False


@dataclass
class _Decision:
    state: ArrivalState
    reason: str | None = None
    rule: str | None = None
    run_id: int | None = None
    past_cap: bool = False  # started past the rule's max_per_hour: due within its due_within


def standing(db: Database, rules: list[Rule]) -> dict[str, IntakeRule]:
    """Each rule's row (created, in force from now by the database's clock, the first time the rule is seen). A
    rule new to the database also judges the recent arrivals no rule took (judge_again), in the same transaction:
    a rule added to the file takes the tickets of the last RECENT it would have taken, whichever process reads it
    first, and whether the file changed under a running `serve` or before a restart."""
    table = table_of(IntakeRule)
    with db.session() as session:
        added = [rule.name for rule in rules
                 if insert_ignore(session, table, {"name": rule.name, "paused": False, "paused_by": None,
                                                   "noticed_at": None}, conflict=("name",), returning="name")]
        if added:
            _judge_again(session, f"rule {', '.join(repr(n) for n in added)} was added")
            _carry_pauses(session, [r for r in rules if r.name in added], {r.name for r in rules})
        rows = {row.name: row for row in session.exec(select(IntakeRule)).all()}
        for row in rows.values():
            session.expunge(row)
        return rows


def in_force(db: Database, settings: Settings) -> list[Rule]:
    """The rules file's rules, in force from now: `serve` and `worker` call this before they listen or poll, so
    that a ticket their webhook or poll records is an arrival the rules take (a rule takes only what arrived
    after it came into force)."""
    from bot.runs.intake.rules import load

    rules = load(settings.intake_rules)
    if rules:
        standing(db, rules)
    return rules


def judge_again(db: Database, why: str) -> int:
    """The ticket arrivals of the last RECENT that no rule took, judged again by the rules in force at the next pass
    (a rule added or whose filters changed may take them); how many. Idempotent: several processes may ask."""
    with db.session() as session:
        return _judge_again(session, why)


def _judge_again(session: Session, why: str) -> int:
    now = clock.read_now(session)
    ignored = changed(session.execute(update(DeskArrival).where(
        col(DeskArrival.state) == ArrivalState.IGNORED, col(DeskArrival.kind) == ArrivalKind.TICKET,
        col(DeskArrival.reason) == NO_RULE, col(DeskArrival.created_at) >= now - RECENT)
        .values(state=ArrivalState.NEW, reason=f"{AGAIN} {why}", rule=None, decided_at=None)))
    # tickets of rules no longer in the file that no rule took: offered to the changed rules (they stay waiting)
    orphans = changed(session.execute(update(DeskArrival).where(
        col(DeskArrival.state) == ArrivalState.WAITING, col(DeskArrival.kind) == ArrivalKind.TICKET,
        col(DeskArrival.reason).contains(GONE)).values(reason=f"{AGAIN} {why}")))
    return ignored + orphans


def _carry_pauses(session: Session, added: list[Rule], names: set[str]) -> None:
    """A rule new to the database that takes every ticket a paused rule, gone from the file, holds in its backlog
    (looked at: up to CARRY_LOOK of them) is that rule renamed, however the file changed (under a running process or
    across a restart): it keeps the pause, so a person's word holds."""
    for row in session.exec(select(IntakeRule).where(col(IntakeRule.paused).is_(True))).all():
        if row.name in names:
            continue
        waiting = session.exec(select(DeskArrival.fields).where(
            col(DeskArrival.rule) == row.name, col(DeskArrival.state) == ArrivalState.WAITING,
            col(DeskArrival.kind) == ArrivalKind.TICKET).order_by(col(DeskArrival.id)).limit(CARRY_LOOK)).all()
        if not waiting:
            continue
        for rule in added:
            if all(rule.why(dict(fields or {})) is not None for fields in waiting):
                session.execute(update(IntakeRule).where(col(IntakeRule.name) == rule.name)
                                .values(paused=True, paused_by=row.paused_by))
                logger.warning("intake: rule '%s' takes the backlog of paused rule '%s', which left the rules file: "
                               "it keeps that pause (resume it to start the backlog)", rule.name, row.name)


def carry_pause(db: Database, old: str, new: str) -> bool:
    """A rule renamed in the file keeps the pause a person gave it under its old name (their word holds); whether
    it did. Only onto a row that is not paused, from one that is."""
    with db.session() as session:
        was = session.get(IntakeRule, old)
        if was is None or not was.paused:
            return False
        return changed(session.execute(update(IntakeRule).where(
            col(IntakeRule.name) == new, col(IntakeRule.paused).is_(False))
            .values(paused=True, paused_by=was.paused_by))) == 1


def describe_window() -> str:
    return f"{RECENT.total_seconds() / 3600:g} h"


def take(db: Database, settings: Settings, rules: list[Rule], dispatch: Callable[[int], object], *,
         fence: Fence | None = None) -> PassReport:
    """One pass over the open arrivals, what is due first; what it started is dispatched after its commit. `fence` is
    asked in each arrival's transaction (the caller's lock): when it says no, the pass stops there."""
    report = PassReport()
    if not rules:
        return report
    standings = standing(db, rules)
    with db.session() as session:
        ids, held_rules = open_ids(session, settings, rules)
    _restate(db, held_rules)
    for arrival_id in ids:
        try:
            decision = _decide_one(db, settings, rules, standings, fence, int(arrival_id or 0))
        except _Superseded:
            report.superseded = True
            return report
        except IntegrityError:  # a person's run took the ticket meanwhile: the next pass says so
            logger.info("intake: arrival %s raced another run for its ticket; looked at again", arrival_id)
            continue
        if decision is None:
            continue
        _count(report, decision)
        if decision.state == ArrivalState.STARTED and decision.run_id is not None:
            report.started.append(decision.run_id)
            dispatch(decision.run_id)
    _backlog_notices(db, rules)
    return report


def open_ids(session: Session, settings: Settings, rules: list[Rule]) -> tuple[list[int], dict[tuple[str, str], str]]:
    """The arrivals one pass decides, what is due first (`sla.order_key` of the ticket's breach time and priority,
    and the arrival): new tickets, new customer messages (not those a person holds: a person's resume takes them),
    and each rule's own backlog while that rule may start something now, read most due first so that, with a cap,
    the most urgent start first. A paused or capped rule's backlog, however long, is not read, so it delays no
    other rule (but for what is due within a capped rule's `due_within`, which may start past its hourly cap);
    what holds each such rule is returned, (rule, kind) → reason, so its backlog says so."""
    now = clock.read_now(session)
    rows = {row.name: row for row in session.exec(select(IntakeRule)).all()}
    expected = expected_cost(session, settings)
    held_rules: dict[tuple[str, str], str] = {}
    found: dict[int, tuple[datetime | None, str | None]] = {}
    for kind in (ArrivalKind.TICKET, ArrivalKind.MESSAGE):
        fresh: list[Any] = [col(DeskArrival.state) == ArrivalState.NEW, col(DeskArrival.kind) == kind]
        if kind == ArrivalKind.MESSAGE:  # not those a person holds, nor those whose run still works
            live = exists().where(col(Run.ticket_id) == col(DeskArrival.ticket_id), col(Run.status).in_(LIVE))
            fresh.append(or_(col(DeskArrival.reason).is_(None), and_(
                ~col(DeskArrival.reason).startswith(held.FOR_A_PERSON),
                ~and_(col(DeskArrival.reason).startswith(HELD_LIVE), live))))
        found.update(_read(session, *fresh, oldest=True))
        for rule in rules:
            if rule.name not in rows:
                continue
            backlog = (col(DeskArrival.state) == ArrivalState.WAITING, col(DeskArrival.rule) == rule.name,
                       col(DeskArrival.kind) == kind)
            hold = hold_reason(session, rule, rows[rule.name], now, count_hour=kind == ArrivalKind.TICKET,
                               expected=expected)
            if hold is None:
                found.update(_read(session, *backlog))
                continue
            held_rules[(rule.name, kind)] = hold
            if kind == ArrivalKind.TICKET and rule.due_within is not None and past_cap_room(
                    session, rule, now) and hold_reason(session, rule, rows[rule.name], now, count_hour=False,
                                                        expected=expected) is None:
                # held by its hourly cap alone: what breaches within its due_within (not yet) may start past it
                found.update(_read(session, *backlog, col(Ticket.due_at) > now,
                                   col(Ticket.due_at) <= now + rule.due_within))
    # the backlog of rules no longer in the file: judged by the rules in force (a renamed rule takes its own back)
    # (not those judged so already: they wait for a person, or for the rules to change: judge_again)
    found.update(_read(session, col(DeskArrival.state) == ArrivalState.WAITING, col(DeskArrival.rule).is_not(None),
                       col(DeskArrival.rule).not_in([r.name for r in rules]),
                       or_(col(DeskArrival.reason).is_(None), ~col(DeskArrival.reason).contains(GONE))))
    return sorted(found, key=lambda i: sla.order_key(found[i][0], found[i][1], i)), held_rules


def _read(session: Session, *where: Any, oldest: bool = False) -> dict[int, tuple[datetime | None, str | None]]:
    """Up to BATCH arrivals matching `where`, each with its ticket's breach time and priority: oldest first
    (`oldest`: new arrivals, each decided once), else what is due first (a backlog: one SQL join on the indexed
    `Ticket.due_at`, none last, then priority, then arrival)."""
    query = select(DeskArrival.id, Ticket.due_at, Ticket.priority).outerjoin(Ticket, on_ticket()).where(*where)
    query = query.order_by(col(DeskArrival.id)) if oldest else query.order_by(*start_order())
    return {int(i): (due, priority) for i, due, priority in session.exec(query.limit(BATCH)).all() if i is not None}


def on_ticket() -> Any:
    """An arrival joined to its ticket (outer: the ticket may be gone), for `start_order`."""
    return col(Ticket.id) == col(DeskArrival.ticket_id)


def start_order() -> tuple[Any, ...]:
    """The order a backlog starts in, for a query of arrivals joined to their tickets (`on_ticket`): the breach
    time (none last), then priority, then arrival. The pass reads backlogs so; `intake status` lists them so."""
    rank = case(sla.RANK, value=col(Ticket.priority), else_=len(sla.RANK))
    return col(Ticket.due_at).asc().nulls_last(), rank, col(DeskArrival.id)


def _restate(db: Database, held_rules: dict[tuple[str, str], str]) -> None:
    """A held rule's backlog, not read this pass, says what holds it now (one statement per rule)."""
    if not held_rules:
        return
    with db.session() as session:
        for (name, kind), reason in held_rules.items():
            session.execute(update(DeskArrival).where(
                col(DeskArrival.state) == ArrivalState.WAITING, col(DeskArrival.rule) == name,
                col(DeskArrival.kind) == kind, or_(col(DeskArrival.reason).is_(None), col(DeskArrival.reason) != reason))
                .values(reason=reason))


class _Superseded(Exception):
    pass


def _count(report: PassReport, decision: _Decision) -> None:
    if decision.state == ArrivalState.WAITING:
        report.waiting += 1
    elif decision.state == ArrivalState.SKIPPED:
        report.skipped += 1
    elif decision.state == ArrivalState.IGNORED:
        report.ignored += 1
    elif decision.state == ArrivalState.NEW:
        report.held += 1


def _decide_one(db: Database, settings: Settings, rules: list[Rule], standings: dict[str, IntakeRule],
                fence: Fence | None, arrival_id: int) -> _Decision | None:
    with db.session() as session:
        if fence is not None and not fence(session):
            raise _Superseded()
        arrival = session.get(DeskArrival, arrival_id)
        if arrival is None or arrival.state not in OPEN_ARRIVALS:
            return None
        now = clock.read_now(session)
        standings = {**standings, **{row.name: row for row in session.exec(select(IntakeRule)).all()}}
        if arrival.kind == ArrivalKind.TICKET:
            decision = _new_ticket(session, settings, rules, standings, arrival, now)
        else:
            decision = _message(session, settings, rules, standings, arrival, now)
        if (decision.state, decision.reason, decision.rule) == (arrival.state, arrival.reason, arrival.rule):
            return decision  # still waiting (or held) for the same reason: nothing to write
        done = decision.state not in OPEN_ARRIVALS
        moved = changed(session.execute(
            update(DeskArrival).where(col(DeskArrival.id) == arrival_id, col(DeskArrival.state) == arrival.state)
            .values(state=decision.state, reason=decision.reason, rule=decision.rule, run_id=decision.run_id,
                    decided_at=clock.now() if done else None, past_cap=decision.past_cap)))
        if moved != 1:
            session.rollback()
            return None
        outbox.homes_changed(session)
        return decision


def _new_ticket(session: Session, settings: Settings, rules: list[Rule], standings: dict[str, IntakeRule],
                arrival: DeskArrival, now: datetime) -> _Decision:
    ticket = session.get(Ticket, arrival.ticket_id)
    if ticket is None:
        return _Decision(ArrivalState.IGNORED, "the ticket is no longer on the desk", arrival.rule)
    fields = arrival.fields or {}
    gone = orphaned(arrival, rules)
    again = gone is not None or (arrival.reason or "").startswith(AGAIN)  # taken in already: no in-force bar
    reach = RECENT if arrival.rule is None else timedelta(0)  # a rule in force keeps its own backlog
    rule, why = None, None
    for candidate in rules:
        row = standings.get(candidate.name)
        if row is None or (not again and _naive(row.since) - reach > _naive(arrival.created_at)):
            continue  # it arrived before the rule came into force (less RECENT, when no rule had it): not its
        why = candidate.why(fields)
        if why is not None:
            rule = candidate
            break
    if rule is None or why is None:
        if gone is not None:  # never dropped silently: it waits where `intake status` and `check` show it
            return _Decision(ArrivalState.WAITING, orphan_reason(gone), gone)
        return _Decision(ArrivalState.IGNORED, NO_RULE)
    skip = skip_reason(session, settings, ticket, fields)
    if skip is not None:
        return _Decision(ArrivalState.SKIPPED, skip, rule.name)
    hold = hold_reason(session, rule, standings[rule.name], now, count_hour=True,
                       expected=expected_cost(session, settings), due_at=ticket.due_at)
    if hold is not None:
        return _Decision(ArrivalState.WAITING, hold, rule.name)
    past_cap = hour_full(session, rule, now)  # it may start with the hour full: due_within let it past
    run_id = _start(session, settings, rule, why, ticket)
    reason = "started: " + ", ".join(why) + (f" (due within {rule.name}'s due_within, past its max_per_hour)"
                                             if past_cap else "")
    return _Decision(ArrivalState.STARTED, reason, rule.name, run_id, past_cap)


def orphaned(arrival: DeskArrival, rules: list[Rule]) -> str | None:
    """The rule an arrival waits on when that rule is no longer in the file (removed or renamed), else None."""
    if arrival.state != ArrivalState.WAITING or arrival.rule is None:
        return None
    return None if any(r.name == arrival.rule for r in rules) else arrival.rule


def orphan_reason(rule: str, *, follow_up: Run | None = None) -> str:
    if follow_up is not None:
        return (f"rule '{rule}' {GONE}, so no rule continues run #{follow_up.id}: a person does "
                f"(`kitebase follow-up {follow_up.id} TEXT`), or put the rule back")
    return (f"rule '{rule}' {GONE} and no rule in force takes it: put the rule back, or work the ticket by hand "
            "(`kitebase run TICKET`)")


def skip_reason(session: Session, settings: Settings, ticket: Ticket, fields: dict[str, object]) -> str | None:
    status = str(fields.get("status") or ticket.status or "").lower()
    if status in SKIP_STATUSES or ticket.status == "closed":
        return f"the ticket is {'solved or closed' if ticket.status == 'closed' else status}"
    live = live_run(session, ticket.id)
    if live is not None:
        return f"run #{live.id} already works it"
    answered = _answered_by_a_person(session, ticket, settings.intake_quiet_hours)
    if answered is not None:
        return answered
    return answered_meanwhile(session, ticket)


def answered_meanwhile(session: Session, ticket: Ticket) -> str | None:
    """The customer's latest message already has a public reply after it (the agent's, approved in a run a person
    started, or a person's own): each customer message is answered once. Both times are the desk's own."""
    latest = session.exec(select(TicketMessage).where(col(TicketMessage.ticket_id) == ticket.id,
                                                      col(TicketMessage.role).in_(("customer", "unknown")))
                          .order_by(col(TicketMessage.created_at).desc(), col(TicketMessage.id).desc())).first()
    if latest is None:  # no customer's message on record (an agent opened the ticket): nothing to tell apart
        return None
    since = _naive(latest.created_at)
    replies = session.exec(select(TicketMessage).where(col(TicketMessage.ticket_id) == ticket.id,
                                                       col(TicketMessage.role) == "staff")).all()
    after = [r for r in replies if _naive(r.created_at) > since or (
        _naive(r.created_at) == since and int(r.id or 0) > int(latest.id or 0))]
    if not after:
        return None
    reply = max(after, key=lambda r: (_naive(r.created_at), int(r.id or 0)))
    who = f"run #{reply.run_id}'s approved reply" if reply.run_id is not None else f"{reply.author}'s reply"
    return f"answered meanwhile: {who} came after the customer's latest message"


def _answered_by_a_person(session: Session, ticket: Ticket, quiet_hours: float) -> str | None:
    """A public reply by a person (not one of ours) within `quiet_hours` of the ticket's last update: both times
    are the desk's own clock (Zendesk's `created_at` and `updated_at`)."""
    if quiet_hours <= 0:
        return None
    since = _naive(ticket.updated_at) - timedelta(hours=quiet_hours)
    replies = session.exec(select(TicketMessage).where(col(TicketMessage.ticket_id) == ticket.id,
                                                       col(TicketMessage.role) == "staff",
                                                       col(TicketMessage.run_id).is_(None))).all()
    ours = {_words(body) for body in session.exec(select(DeskWrite.body).where(
        col(DeskWrite.ticket_id) == ticket.id, col(DeskWrite.kind) == "reply")).all() if body}
    for reply in replies:
        if _naive(reply.created_at) >= since and _words(reply.body) not in ours:
            return (f"{reply.author} answered it publicly within {quiet_hours:g} h of its last update "
                    "(KITEBASE_INTAKE_QUIET_HOURS)")
    return None


def hold_reason(session: Session, rule: Rule, row: IntakeRule, now: datetime, *, count_hour: bool,
                expected: float = 0.0, due_at: datetime | None = None) -> str | None:
    """Why an arrival the rule took must wait now (None: it may start). `expected`: what a run that has not
    finished yet counts toward the dollar cap at least (expected_cost), so a burst in one pass is capped too.
    `due_at`: the ticket's breach time; when it breaches within the rule's `due_within` (still ahead) and fewer
    than max_per_hour started past the cap in the last hour, the hourly cap does not hold it (the pause, an
    unreachable channel and the dollar cap do)."""
    if row.paused:
        return f"rule '{rule.name}' is paused" + (f" by {by_whom(row.paused_by)}" if row.paused_by else "")
    if (unreachable := channel_blocked(session, rule.channel)) is not None:  # the bot can't post there (reach.py)
        return unreachable
    if count_hour and hour_full(session, rule, now):
        if not due_soon(rule, due_at, now):
            return f"over max_per_hour = {rule.max_per_hour}"
        if not past_cap_room(session, rule, now):
            return (f"over max_per_hour = {rule.max_per_hour}, and the {rule.max_per_hour} start(s) past it that "
                    "due_within allows an hour are used")
    if rule.max_usd_per_day is not None:
        spent = spend_today(session, rule.name, now)
        counted = spend_today(session, rule.name, now, expected=expected)
        if counted >= rule.max_usd_per_day:
            ahead = f" and ${counted - spent:.2f} expected of the runs still working" if counted > spent else ""
            return (f"over max_usd_per_day = {rule.max_usd_per_day:g} (${spent:.2f} spent today, UTC{ahead})")
    return None


def hour_full(session: Session, rule: Rule, now: datetime) -> bool:
    """The rule started its max_per_hour of new tickets in the hour before `now` (past-cap starts count too)."""
    if rule.max_per_hour is None:
        return False
    started = session.exec(select(func.count()).select_from(DeskArrival).where(
        col(DeskArrival.rule) == rule.name, col(DeskArrival.kind) == ArrivalKind.TICKET,
        col(DeskArrival.state) == ArrivalState.STARTED,
        col(DeskArrival.decided_at) > now - timedelta(hours=1))).one()
    return bool(started >= rule.max_per_hour)


def due_soon(rule: Rule, due_at: datetime | None, now: datetime) -> bool:
    """The ticket's reply target breaches within the rule's due_within of `now`, and has not yet: starting one
    that already breached cannot prevent its breach, so it waits its turn (first, in the backlog's order)."""
    if rule.due_within is None or due_at is None:
        return False
    return _aware(now) < _aware(due_at) <= _aware(now) + rule.due_within


def past_cap_room(session: Session, rule: Rule, now: datetime) -> bool:
    """Fewer than max_per_hour new tickets started past the rule's hourly cap in the hour before `now`: due_within
    at most doubles the cap, for what is about to breach."""
    return rule.max_per_hour is None or past_cap_since(session, rule.name, now - timedelta(hours=1)) < rule.max_per_hour


def past_cap_since(session: Session, rule: str, since: datetime) -> int:
    """New tickets the rule started past its max_per_hour after `since` (their target was due within due_within)."""
    return int(session.exec(select(func.count()).select_from(DeskArrival).where(
        col(DeskArrival.rule) == rule, col(DeskArrival.kind) == ArrivalKind.TICKET,
        col(DeskArrival.state) == ArrivalState.STARTED, col(DeskArrival.past_cap).is_(True),
        col(DeskArrival.decided_at) > since)).one())


def by_whom(paused_by: str | None) -> str:
    """Who paused a rule, for people: a Slack user as a mention, the command line as such."""
    if not paused_by:
        return "someone"
    return "the command line" if paused_by == PAUSED_FROM_CLI else f"<@{paused_by}>"


def spend_today(session: Session, rule: str, now: datetime, *, expected: float = 0.0) -> float:
    """What the runs a rule started or continued today (UTC, the database's day) have cost; a run still working
    counts at least `expected` (its cost is not known yet)."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    runs = select(DeskArrival.run_id).where(col(DeskArrival.rule) == rule,
                                            col(DeskArrival.state) == ArrivalState.STARTED,
                                            col(DeskArrival.decided_at) >= day).distinct()
    rows = session.exec(select(Run.cost_usd, Run.status).where(col(Run.id).in_(runs))).all()
    return float(sum(max(cost or 0.0, expected) if status in LIVE else (cost or 0.0) for cost, status in rows))


def expected_cost(session: Session, settings: Settings) -> float:
    """What a run the intake starts is expected to cost until its own cost is known: the median of the last
    EXPECTED_FROM runs the rules started that have finished, else the per-run budget (KITEBASE_COST_BUDGET_USD)."""
    started = select(DeskArrival.run_id).where(col(DeskArrival.kind) == ArrivalKind.TICKET,
                                               col(DeskArrival.state) == ArrivalState.STARTED,
                                               col(DeskArrival.run_id).is_not(None))
    costs = session.exec(select(Run.cost_usd).where(col(Run.id).in_(started), col(Run.status).in_(TERMINAL))
                         .order_by(col(Run.id).desc()).limit(EXPECTED_FROM)).all()
    return float(statistics.median(costs)) if costs else float(settings.cost_budget_usd)


def goal_of(ticket_id: str, rule: Rule, why: list[str]) -> str:
    return f"handle {ticket_id} (picked up by rule '{rule.name}': {', '.join(why)})"


def _start(session: Session, settings: Settings, rule: Rule, why: list[str], ticket: Ticket) -> int:
    origin = {"surface": "intake", "channel": rule.channel, "rule": rule.name,
              **({TAGS_OPTION: True} if rule.triage_tags else {})}  # its triage on the ticket as tags
    model = model_name(settings)  # the model that will work it (the offline one without a key), as a mention's run
    run_id = insert_run(session, goal=goal_of(ticket.id, rule, why), ticket_id=ticket.id, model=model,
                        started_by=None, origin=origin, thread_key=None)
    if run_id is None:  # the ticket row is there (read above, same transaction): cannot happen
        raise RuntimeError(f"ticket {ticket.id} vanished while its run was created")
    new = outbox.NewRun(id=run_id, ticket_id=ticket.id, model=model, origin=origin)
    outbox.intake_request(session, new, rule=rule.name, why=why, title=ticket.title)
    outbox.timeline(session, new, 1, {"kind": "start"})
    return run_id


def _message(session: Session, settings: Settings, rules: list[Rule], standings: dict[str, IntakeRule],
             arrival: DeskArrival, now: datetime) -> _Decision:
    run = session.exec(select(Run).where(col(Run.ticket_id) == arrival.ticket_id)
                       .order_by(col(Run.id).desc())).first()
    if run is None:
        return _Decision(ArrivalState.IGNORED, "no run has worked this ticket")
    name = (run.origin or {}).get("rule")
    rule = next((r for r in rules if r.name == name), None)
    if rule is None and name and session.get(IntakeRule, name) is not None:
        # its rule left the file (removed or renamed): no rule continues the run; a person does, having seen it
        reason = orphan_reason(str(name), follow_up=run)
        if arrival.reason != reason:
            held.shown(session, run, arrival, key="orphan", how=f"`kitebase follow-up {run.id}`",
                       why=f"after run #{run.id}'s rule '{name}' left the rules file")
        return _Decision(ArrivalState.WAITING, reason, str(name))
    if rule is None:
        return _Decision(ArrivalState.IGNORED, f"run #{run.id} was not started by an intake rule in force")
    if not rule.follow_ups:
        return _Decision(ArrivalState.IGNORED, f"rule '{rule.name}' takes no follow-ups", rule.name)
    # the run's row, locked: a person's take, close, stop or resume of it (which lock it too) is either seen here
    # or waits for this transaction, and then finds the run continued
    session.refresh(run, with_for_update=True)
    if run.status in LIVE:
        return _Decision(ArrivalState.NEW, f"{HELD_LIVE}{run.id} ends", rule.name)
    person = held.person_hold(session, run)
    if person is not None:  # a person's word holds: shown to them, and it waits for them
        reason = held.held_reason(run, person)
        if arrival.reason != reason:
            held.show(session, run, arrival, person)
        return _Decision(ArrivalState.NEW, reason, rule.name)
    hold = hold_reason(session, rule, standings[rule.name], now, count_hour=False,
                       expected=expected_cost(session, settings))
    if hold is not None:
        return _Decision(ArrivalState.WAITING, hold, rule.name)
    messages = held.open_messages(session, arrival.ticket_id)  # every one not yet answered, in one continuation
    if arrival.id not in {m.id for m in messages}:
        messages = sorted([arrival, *messages], key=lambda m: int(m.id or 0))
    who = ", ".join(dict.fromkeys(m.author or "the customer" for m in messages))
    try:
        reopen_in(session, run, held.continuation(arrival.ticket_id, messages, settings.tool_result_max_chars),
                  opening={"kind": "customer", "actor": who})
    except BadInput:  # a person continued the run a moment ago: the message waits for that segment to end
        return _Decision(ArrivalState.NEW, f"{HELD_LIVE}{run.id} ends", rule.name)
    held.taken_into(session, run, [m for m in messages if m.id != arrival.id], "follow-up, with the messages "
                    "that arrived with it")
    escalations.mark_resumed(session, id_of(run), actor=CONTINUED_BY)  # an open hand-off leaves the queue
    return _Decision(ArrivalState.STARTED, "follow-up", rule.name, id_of(run))


def _backlog_notices(db: Database, rules: list[Rule]) -> None:
    """Each rule holding a backlog tells its channel so, at most once an hour."""
    with db.session() as session:
        now = clock.read_now(session)
        for rule in rules:
            waiting = session.exec(select(func.count()).select_from(DeskArrival).where(
                col(DeskArrival.rule) == rule.name, col(DeskArrival.state) == ArrivalState.WAITING)).one()
            if not waiting:
                continue
            row = session.get(IntakeRule, rule.name)
            if row is None or (row.noticed_at is not None and _naive(row.noticed_at) > _naive(now) - NOTICE_EVERY):
                continue
            reason = session.exec(select(DeskArrival.reason).where(
                col(DeskArrival.rule) == rule.name, col(DeskArrival.state) == ArrivalState.WAITING)
                .order_by(col(DeskArrival.id))).first()
            session.execute(update(IntakeRule).where(col(IntakeRule.name) == rule.name)
                            .values(noticed_at=clock.now()))
            outbox.notice(session, channel=rule.channel, thread_ts=None,
                          key=f"intake-backlog:{rule.name}:{now:%Y-%m-%dT%H:%M}",
                          text=f"Rule *{rule.name}* holds {waiting} ticket(s) in its backlog ({reason}); they "
                               "start what is due first as soon as the rule allows. `/kitebase intake status` "
                               "shows them.")


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _naive(value: datetime) -> datetime:
    return value.replace(tzinfo=None) if value.tzinfo is not None else value


def _words(text: str | None) -> str:
    return " ".join((text or "").split())
