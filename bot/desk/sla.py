"""What is due on a ticket: its reply target's breach time and stage, as the desk knows it.

Zendesk computes its own (`slas.policy_metrics` on a ticket, mirrored by bot/desk/zendesk); the embedded desk
computes it here from a small policies file (kb_data/sla.toml: targets by tier and priority, business hours with
a time zone and holidays) with bot/desk/calendar.py. Either way the result is stored on the ticket's row
(`Ticket.sla`, and `Ticket.due_at` while a target runs) so the run layer orders and shows work by it without
asking the desk, and every "due in 14 min" is judged against the database's clock (bot/db/clock.py), never a
process's.

The embedded desk's rules, which follow Zendesk's reply-time metrics:
- first reply runs from the ticket's creation until the first public reply of staff;
- next reply runs from the customer's first public message after the staff's last reply, until staff reply;
- a pending or on-hold ticket waits on the customer: its target is paused (no breach time) until it reopens;
- a closed or solved ticket has nothing due."""

from __future__ import annotations

import hashlib
import math
import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlmodel import Session, col, select

from bot.db.models import Customer, Ticket, TicketMessage
from bot.desk.calendar import DAYS, Schedule, parse_hours

PRIORITIES = ("urgent", "high", "normal", "low")
RANK = {name: n for n, name in enumerate(PRIORITIES)}  # an unset priority ranks after low
METRICS = {"first_reply": "first reply", "next_reply": "next reply", "periodic_update": "periodic update",
           "pausable_update": "update", "requester_wait": "requester wait", "agent_work": "agent work"}
WAITING_ON_CUSTOMER = frozenset({"pending"})  # Zendesk's reply metrics stop for nothing else (hold included)
OPENING_SECONDS = 5  # a staff message this close to the ticket's creation is its opening comment
DONE_STATUSES = frozenset({"closed", "solved", "deleted"})


class PoliciesUnusable(ValueError):
    """The policies file cannot be used; the message names the file, the place and what to write instead."""


@dataclass(frozen=True)
class Due:
    """A ticket's reply target now: `active` with the time it breaches, `paused` while the ticket waits on the
    customer, or `achieved` (replied)."""

    metric: str  # first_reply | next_reply | ... (METRICS)
    stage: str  # active | paused | achieved
    breach_at: datetime | None = None
    target_minutes: int | None = None
    business_hours: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"metric": self.metric, "stage": self.stage,
                "breach_at": self.breach_at.astimezone(UTC).isoformat() if self.breach_at else None,
                "target_minutes": self.target_minutes, "business_hours": self.business_hours}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Due | None:
        if not data or not data.get("metric") or not data.get("stage"):
            return None
        breach = data.get("breach_at")
        return cls(str(data["metric"]), str(data["stage"]), _time(breach) if breach else None,
                   data.get("target_minutes"), bool(data.get("business_hours")))


@dataclass(frozen=True)
class Policy:
    tiers: frozenset[str] | None  # None: every tier, and customers with none
    first_reply: dict[str, int]  # priority → minutes
    next_reply: dict[str, int]
    business_hours: bool

    def target(self, metric: str, priority: str | None) -> int | None:
        table = self.first_reply if metric == "first_reply" else self.next_reply
        return table.get(priority or "normal")


@dataclass(frozen=True)
class Policies:
    policies: tuple[Policy, ...]
    schedule: Schedule | None
    source: str = "kb_data/sla.toml"
    fingerprint: str = ""  # the file's bytes, hashed: whether what was computed by it is still right

    def policy_for(self, tier: str | None) -> Policy | None:
        """The first policy whose tiers include the customer's (Zendesk's `position`: the first match applies)."""
        wanted = (tier or "").casefold()
        for policy in self.policies:
            if policy.tiers is None or wanted in policy.tiers:
                return policy
        return None


NO_POLICIES = Policies((), None, "no policies file")


# --- reading the policies file --------------------------------------------------------------------------------
def read_policies(path: Path | None) -> Policies:
    """The embedded desk's policies; no file at all means no targets (and says so nowhere: nothing is due)."""
    if path is None or not path.exists():
        return NO_POLICIES
    try:
        raw = path.read_bytes()
        data = tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PoliciesUnusable(f"the reply targets in {path} cannot be read as TOML ({exc}); fix the file, or point "
                               "KITEBASE_SLA_POLICIES at another") from None
    try:
        _only(data, {"schedule", "policy"}, "the file")
        schedule = _schedule(data.get("schedule"))
        policies = tuple(_policy(n, raw, schedule) for n, raw in enumerate(data.get("policy") or [], 1))
    except (TypeError, ValueError, KeyError) as exc:
        raise PoliciesUnusable(f"the reply targets in {path}: {exc}; fix the file, or point KITEBASE_SLA_POLICIES at "
                               "another") from None
    return Policies(policies, schedule, str(path), hashlib.sha256(raw).hexdigest())


def _schedule(raw: Any) -> Schedule | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("[schedule] must be a table")
    _only(raw, {"time_zone", "hours", "holidays"}, "[schedule]")
    if "time_zone" not in raw:
        raise ValueError("[schedule] needs time_zone, such as \"Europe/Amsterdam\"")
    try:
        zone = ZoneInfo(str(raw["time_zone"]))
    except (ZoneInfoNotFoundError, ValueError):  # ZoneInfoNotFoundError is a KeyError: asked before the key
        raise ValueError(f"[schedule] time_zone '{raw['time_zone']}' is not an IANA time zone") from None
    hours = raw.get("hours") or {}
    if not isinstance(hours, dict):
        raise ValueError("[schedule] hours must map days to opening hours, such as { mon = \"09:00-17:00\" }")
    unknown = sorted(set(hours) - set(DAYS))
    if unknown:
        raise ValueError(f"[schedule] hours: unknown day {unknown[0]!r}; use {', '.join(DAYS)}")
    opening = {DAYS.index(day): parse_hours(value) for day, value in hours.items()}
    if not opening:
        raise ValueError("[schedule] hours name no open day; add e.g. mon = \"09:00-17:00\"")
    return Schedule(zone, opening, _holidays(raw.get("holidays")))


def _holidays(raw: Any) -> frozenset[date]:
    if raw is None:
        return frozenset()
    if not isinstance(raw, list):
        raise ValueError("[schedule] holidays must be a list of dates, such as [\"2026-12-25\"]")
    try:
        return frozenset(date.fromisoformat(str(day)) for day in raw)
    except ValueError:
        raise ValueError(f"[schedule] holidays: {raw!r} are not all dates written YYYY-MM-DD") from None


def _only(table: dict[str, Any], known: set[str], where: str) -> None:
    """A key the file does not know is named, never ignored (a misspelt `holiday` would count Christmas)."""
    unknown = sorted(set(table) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}; the keys are {', '.join(sorted(known))}")


def _policy(number: int, raw: Any, schedule: Schedule | None) -> Policy:
    where = f"policy {number}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be a table ([[policy]])")
    _only(raw, {"tiers", "business_hours", "first_reply", "next_reply"}, where)
    tiers = raw.get("tiers")
    if tiers is not None and (not isinstance(tiers, list) or not all(isinstance(t, str) for t in tiers)):
        raise ValueError(f"{where}: tiers must be a list of names, such as [\"Enterprise\"]")
    business = raw.get("business_hours", False)
    if not isinstance(business, bool):
        raise ValueError(f"{where}: business_hours must be true or false (no quotes)")
    if business and schedule is None:
        raise ValueError(f"{where} uses business hours but the file has no [schedule]")
    return Policy(None if tiers is None else frozenset(t.casefold() for t in tiers),
                  _targets(where, "first_reply", raw.get("first_reply")),
                  _targets(where, "next_reply", raw.get("next_reply")), business)


def _targets(where: str, name: str, raw: Any) -> dict[str, int]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: {name} must map priorities to minutes, such as {{ urgent = 30 }}")
    targets = {}
    for priority, minutes in raw.items():
        if priority not in RANK:
            raise ValueError(f"{where}: {name} names priority {priority!r}; use {', '.join(PRIORITIES)}")
        if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes <= 0:
            raise ValueError(f"{where}: {name}.{priority} must be a whole number of minutes above 0")
        targets[priority] = minutes
    return targets


# --- the embedded desk's computation --------------------------------------------------------------------------
def compute(ticket: Ticket, tier: str | None, messages: list[TicketMessage], policies: Policies) -> Due | None:
    """The ticket's reply target now, by the rules in this module's docstring."""
    if ticket.status in DONE_STATUSES:
        return None
    started = window_start(ticket, messages)
    if started is None:  # staff answered last: nothing runs until the customer writes
        replies = len(_replies(ticket, messages))
        metric = "next_reply" if replies > 1 else "first_reply"
        if ticket.status in WAITING_ON_CUSTOMER:  # pending: the desk waits on the customer, shown as a pause
            policy = policies.policy_for(tier)
            if policy is not None and policy.target("next_reply", ticket.priority):
                return Due("next_reply", "paused", None, policy.target("next_reply", ticket.priority),
                           policy.business_hours)
        return Due(metric, "achieved")
    metric, start = started
    policy = policies.policy_for(tier)
    minutes = policy.target(metric, ticket.priority) if policy else None
    if policy is None or minutes is None:
        return None
    if policy.business_hours and policies.schedule is not None:
        breach = policies.schedule.add(start, minutes)
    else:
        breach = start + timedelta(minutes=minutes)
    return Due(metric, "active", breach, minutes, policy.business_hours)


def window_start(ticket: Ticket, messages: list[TicketMessage]) -> tuple[str, datetime] | None:
    """Which reply the customer waits for and since when: the first reply since the ticket's creation, or the
    next since the customer's first public message after the staff's last reply; None when staff answered last.
    (Zendesk measures its reply metrics the same way, so this also dates a Zendesk target whose length is
    not served.)"""
    public = _public(ticket, messages)
    staff = [n for n, m in enumerate(public) if m.role == "staff"]
    if not staff:
        return "first_reply", _aware(ticket.created_at)
    waiting = public[staff[-1] + 1:]
    return ("next_reply", _aware(waiting[0].created_at)) if waiting else None


def _public(ticket: Ticket, messages: list[TicketMessage]) -> list[TicketMessage]:
    """The conversation's public messages in order, without a staff member's opening comment (a ticket an agent
    opened on a customer's behalf: Zendesk's first reply time ends at the agent's next public comment)."""
    public = sorted((m for m in messages if m.role in ("customer", "staff")),
                    key=lambda m: (_aware(m.created_at), m.id or 0))
    if public and public[0].role == "staff" and \
            abs((_aware(public[0].created_at) - _aware(ticket.created_at)).total_seconds()) <= OPENING_SECONDS:
        return public[1:]
    return public


def _replies(ticket: Ticket, messages: list[TicketMessage]) -> list[TicketMessage]:
    return [m for m in _public(ticket, messages) if m.role == "staff"]


def refresh(session: Session, ticket_ids: list[str] | None, policies: Policies) -> int:
    """Compute and store the due of these tickets (None: every ticket not closed); returns how many changed."""
    query = select(Ticket)
    query = query.where(col(Ticket.id).in_(ticket_ids)) if ticket_ids is not None else \
        query.where(col(Ticket.status).not_in(DONE_STATUSES) | col(Ticket.due_at).is_not(None))
    tickets = session.exec(query).all()
    if not tickets:
        return 0
    tiers = dict(session.exec(select(Customer.id, Customer.tier)).all())
    messages: dict[str, list[TicketMessage]] = {}
    for message in session.exec(select(TicketMessage).where(col(TicketMessage.ticket_id).in_([t.id for t in tickets]))):
        messages.setdefault(message.ticket_id, []).append(message)
    changed = 0
    for ticket in tickets:
        tier, said = tiers.get(ticket.customer_id), messages.get(ticket.id, [])
        changed += store(session, ticket, compute(ticket, tier, said, policies),
                         first_reply_due=first_reply_due(ticket, tier, policies))
    return changed


def first_reply_due(ticket: Ticket, tier: str | None, policies: Policies) -> datetime | None:
    """When the ticket's first reply was or is due, whether or not it was made (the figures compare with it)."""
    policy = policies.policy_for(tier)
    minutes = policy.target("first_reply", ticket.priority) if policy else None
    if policy is None or minutes is None:
        return None
    if policy.business_hours and policies.schedule is not None:
        return policies.schedule.add(_aware(ticket.created_at), minutes)
    return _aware(ticket.created_at) + timedelta(minutes=minutes)


def store(session: Session, ticket: Ticket, due: Due | None, *, first_reply_due: datetime | None = None) -> int:
    """Keep `due` on the ticket's row, and the first reply's breach time once known (kept after the reply, for the
    figures: `kitebase stats`): frozen once the first reply is made, so a reply is judged by the target it had, not
    by a policy or a priority changed after it."""
    sla = dict(due.as_json()) if due else {}
    first = (ticket.sla or {}).get("first_reply_due")
    running = due is not None and due.metric == "first_reply" and due.stage == "active"
    if running or not first:  # once the first reply is made (or the ticket closed), its target stays as it was
        if due and due.metric == "first_reply" and due.breach_at is not None:
            first = due.as_json()["breach_at"]
        if first_reply_due is not None:
            first = first_reply_due.astimezone(UTC).isoformat()
    if first:
        sla["first_reply_due"] = first
    due_at = due.breach_at.astimezone(UTC) if due and due.stage == "active" and due.breach_at else None
    if (ticket.sla or {}) == sla and _same(ticket.due_at, due_at):
        return 0
    ticket.sla, ticket.due_at = sla or None, due_at
    session.add(ticket)
    return 1


# --- Zendesk's own -----------------------------------------------------------------------------------------------
def from_zendesk(slas: Any) -> Due | None:
    """The ticket's `slas` side-load (`{"policy_metrics": [{"metric", "stage", "breach_at", ...}]}`) as one Due:
    the active target that breaches first, else a paused one, else an achieved one. Its length is not known
    (target_minutes None): see window_start for how long it has run."""
    metrics = (slas or {}).get("policy_metrics") if isinstance(slas, dict) else None
    found = []
    for raw in metrics or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("metric"), str):
            continue
        name = raw["metric"].removesuffix("_time")
        stage = str(raw.get("stage") or "")
        try:
            breach = _time(raw["breach_at"]) if raw.get("breach_at") else None
        except ValueError:
            breach = None
        # no target: the metric's days/hours/minutes are the time left until breach_at, not the target (live
        # bodies quoted in public clients: "hours": 21, "days": -141), and business hours are the policy's
        found.append(Due(name, stage, breach))
    active = sorted((d for d in found if d.stage == "active" and d.breach_at), key=lambda d: d.breach_at or _FAR)
    for group in (active, [d for d in found if d.stage == "paused"], [d for d in found if d.stage == "achieved"]):
        if group:
            return group[0]
    return None


# --- what a person reads -----------------------------------------------------------------------------------------
def describe(due: Due | None, now: datetime, *, tier: str | None = None, priority: str | None = None) -> str | None:
    """"first reply due in 14 min · Enterprise · urgent", "first reply breached 6 min ago · Business · high",
    "next reply paused while the customer answers"; None when there is nothing to say."""
    parts = []
    if due is not None:
        label = METRICS.get(due.metric, due.metric.replace("_", " "))
        if due.stage == "active" and due.breach_at is not None:
            left = (due.breach_at - _aware(now)).total_seconds()
            parts.append(f"{label} due in {span(left, up=True)}" if left > 0 else
                         f"{label} breached just now" if left > -60 else f"{label} breached {span(-left)} ago")
        elif due.stage == "paused":
            parts.append(f"{label} paused while the customer answers")
    parts += [p for p in (tier, priority) if p]
    return " · ".join(parts) or None


def line_of(ticket: Ticket, tier: str | None, now: datetime) -> str | None:
    """A stored ticket's line at `now` (its `sla` as the desk keeps it): what every surface shows."""
    return describe(Due.from_json(ticket.sla), now, tier=tier, priority=ticket.priority)


def span(seconds: float, *, up: bool = False) -> str:
    """14 min, 1 h 5 min, 3 h, 3 days: under two hours to the minute (rounded up for what is still due: never "due
    in 0 min"); beyond, whole hours and then days, never more than there are."""
    minutes = math.ceil(seconds / 60) if up else int(seconds // 60)
    if minutes < 60:
        return f"{max(minutes, 1)} min"
    if minutes < 120:
        return f"1 h {minutes - 60} min" if minutes > 60 else "1 h"
    if minutes < 48 * 60:  # whole hours (never more than there are): a line that changes hourly, not every minute
        return f"{minutes // 60} h"
    return f"{minutes // 1440} days"


def breached(due: Due | None, now: datetime) -> bool:
    return bool(due and due.stage == "active" and due.breach_at and due.breach_at <= _aware(now))


def order_key(due_at: datetime | None, priority: str | None, arrived: int) -> tuple[datetime, int, int]:
    """What is due comes first: breach time (none: last), then priority, then arrival."""
    return (_aware(due_at) if due_at else _FAR, RANK.get(priority or "", len(RANK)), arrived)


_FAR = datetime(9999, 12, 31, tzinfo=UTC)


def _time(value: Any) -> datetime:
    return _aware(datetime.fromisoformat(str(value).replace("Z", "+00:00")))


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _same(a: datetime | None, b: datetime | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and _aware(a) == _aware(b))
