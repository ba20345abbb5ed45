"""Whether the bot can post in a channel, and what waits until it can (docs/intake.md, "When the bot can't post in
a rule's channel").

A channel refuses the bot when it is not in it (public: `not_in_channel`), cannot see it (private, or a wrong id:
`channel_not_found`) or the channel is archived (`is_archived`). That is recorded in `channel_reach`, a row every
process reads, when `serve` looks at start (conversations.info, through the Slack side's `look`), when Slack refuses
a post for good (the outbox sender) and, the other way, when the bot is invited (Slack's member_joined_channel for
the bot's own user) or a later look finds it a member. Some refusals conversations.info cannot see (`UNSEEN`: only
admins may post there, the workspace's keys or a Slack Connect grant): a look that finds the bot a member does not
release those; the sender tries one held message again instead (`probe`), and only a post that goes out releases it.

While a channel refuses the bot:
- a rule posting there starts no runs: its new tickets wait in its backlog, with the reason (`channel_blocked`,
  which the intake's `hold_reason` asks);
- what the runs' threads there should show is *held* (OutboxStatus.HELD), never marked sent, and a row under a held
  row (a thread's card under its first message) is held with it;
- a held approval card reaches the approvers another way: a copy, with the reason, in the escalation channel
  (KITEBASE_ESCALATION_CHANNEL), or in a direct message to each approver when that channel refuses the bot too or
  is not set. The copy's buttons decide the same approval.

When the channel takes the bot again, its held rows are pending again, in their order: the thread is posted as it
would have been, and the rule starts runs again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, or_, update
from sqlalchemy.orm import aliased
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from bot import outbox
from bot.config import Settings
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Approval, ChannelReach, Outbox, Run, UserGroupMember, table_of
from bot.db.statements import changed, insert_ignore
from bot.outbox.writers import ANSWER
from bot.vocabulary import ApprovalStatus, OutboxKind, OutboxStatus

logger = logging.getLogger(__name__)

# Slack's answers that say the bot cannot post in the channel until a person changes something there
REFUSED = frozenset({"not_in_channel", "channel_not_found", "is_archived", "restricted_action",
                     "team_access_not_granted", "ekm_access_denied"})
# refusals conversations.info cannot see (it says member, not archived): only a post that goes out releases them
UNSEEN = frozenset({"restricted_action", "team_access_not_granted", "ekm_access_denied"})
# rows that are not kept for later: a view, an ephemeral (an answer to a click, stale later), prompts
NEVER_HELD = frozenset({OutboxKind.HOME, OutboxKind.EPHEMERAL, OutboxKind.PROMPTS})
BOT = "@Kitebase"
PROBE = "probe"  # in an outbox row's state: sent even though its channel is recorded as refusing (`probe`)


@dataclass(frozen=True)
class Look:
    """What Slack says of a channel for the bot: `error` None when it can post there; `known` False when Slack
    could not be asked (unreachable, or the app lacks the scope): nothing is recorded then."""

    error: str | None
    name: str | None = None
    known: bool = True
    detail: str | None = None


@dataclass(frozen=True)
class Blocked:
    channel: str
    name: str | None
    error: str
    since: datetime
    held: int  # outbox rows waiting for it
    reason: str


def shown(channel: str, name: str | None, *, slack: bool = False) -> str:
    """#billing (C0BILLING) for people reading a log or a terminal; <#C0BILLING> in Slack (it shows the name)."""
    if slack:
        return f"<#{channel}>"
    return f"#{name} ({channel})" if name else channel


def why(error: str, channel: str, name: str | None = None, *, slack: bool = False) -> str:
    """What is wrong and what a lead does about it, as one clause."""
    where = shown(channel, name, slack=slack)
    if error == "not_in_channel":
        return f"the bot isn't in {where}; invite {BOT} to it (`/invite {BOT}` in the channel)"
    if error == "channel_not_found":
        return (f"Slack doesn't show {where} to the bot (a private channel it isn't in, or a wrong channel id); "
                f"invite {BOT} to it, or fix the channel id")
    if error == "is_archived":
        return f"{where} is archived; unarchive it, or give the rule another channel"
    return f"Slack refuses the bot's posts in {where} ({error}); a workspace admin can say why"


def reason(error: str, channel: str, name: str | None = None, *, slack: bool = False) -> str:
    return f"the bot can't post in {shown(channel, name, slack=slack)}: " + why(error, channel, name, slack=slack)


def postable(channel: str | None) -> bool:
    """Channels whose reach is judged here: not a direct message (D…) or a user's DM by user id (U…, W…)."""
    return bool(channel) and str(channel)[:1] in ("C", "G")


# --- reading -----------------------------------------------------------------------------------------

def channel_blocked(session: Session, channel: str | None) -> str | None:
    """Why the bot cannot post in `channel` now (a sentence a lead can act on), or None."""
    if not postable(channel):
        return None
    row = session.get(ChannelReach, channel)
    if row is None or row.error is None:
        return None
    return reason(row.error, row.channel, row.name)


def refusing(db: Database) -> tuple[frozenset[str], frozenset[int]]:
    """The channels that refuse the bot now and the ids of the held rows (the sender's look before it claims)."""
    with db.session() as session:
        channels = session.exec(select(ChannelReach.channel).where(col(ChannelReach.error).is_not(None))).all()
        held = session.exec(select(Outbox.id).where(col(Outbox.status) == OutboxStatus.HELD)).all() if channels else []
        return frozenset(channels), frozenset(int(i) for i in held if i is not None)


def blocked(db: Database) -> list[Blocked]:
    """Every channel the bot cannot post in now, with how many outbox rows wait for it."""
    with db.session() as session:
        rows = session.exec(select(ChannelReach).where(col(ChannelReach.error).is_not(None))
                            .order_by(col(ChannelReach.channel))).all()
        found = []
        for row in rows:
            held = len(session.exec(select(Outbox.id).where(col(Outbox.channel) == row.channel,
                                                            col(Outbox.status) == OutboxStatus.HELD)).all())
            found.append(Blocked(row.channel, row.name, str(row.error), row.updated_at, held,
                                 reason(str(row.error), row.channel, row.name)))
        return found


def report_lines(db: Database) -> list[str]:
    """What `kitebase intake status` and `intake check` print about the channels the bot cannot post in."""
    found = blocked(db)
    if not found:
        return []
    lines = [f"The bot can't post in {len(found)} channel(s): rules posting there start no runs, and their threads "
             "wait until it can."]
    for b in found:
        held = f"; {b.held} message(s) wait to be posted there" if b.held else ""
        lines.append(f"  {shown(b.channel, b.name)}: {why(b.error, b.channel, b.name)} "
                     f"(since {b.since:%Y-%m-%d %H:%M} UTC{held})")
    return lines


def as_dicts(db: Database) -> list[dict[str, object]]:
    return [{"channel": b.channel, "name": b.name, "error": b.error, "since": b.since.isoformat(),
             "held": b.held, "reason": b.reason} for b in blocked(db)]


# --- recording -----------------------------------------------------------------------------------------

def _note(session: Session, channel: str, error: str | None, name: str | None) -> bool:
    """Record what Slack said; True when the channel was blocked before (a change that releases rows)."""
    table = table_of(ChannelReach)
    before = session.get(ChannelReach, channel)
    was_blocked = before is not None and before.error is not None
    if before is None and insert_ignore(session, table, {"channel": channel, "error": error, "name": name},
                                        conflict=("channel",), returning="channel") is not None:
        return False
    values: dict[str, object] = {"error": error, "updated_at": clock.now()}
    if name:
        values["name"] = name
    session.execute(update(ChannelReach).where(col(ChannelReach.channel) == channel).values(**values))
    return was_blocked


def refused(db: Database, settings: Settings, row: Outbox, error: str, detail: str) -> bool:
    """Slack refused `row` for good because of its channel: the channel is recorded as refusing the bot and the
    row is held (not sent, not failed); a held card reaches the approvers another way. Returns True then.

    Unless the channel was recorded as taking the bot since the row was last written (which is before its claim):
    say the invite was handled while the post was on its way, so Slack's answer is older than the invite. That
    record stands and the row goes out again at once (False); should Slack refuse it again, that is recorded."""
    channel = str(row.channel)
    state = {k: v for k, v in (row.state or {}).items() if k != PROBE}
    with db.session() as session:
        if not _note_refused(session, channel, error, row.updated_at):
            session.execute(update(Outbox).where(col(Outbox.id) == row.id).values(
                claimed_by=None, next_attempt_at=clock.now(), state=state, last_error=detail[:2000],
                updated_at=clock.now()))
            hooks = session.info.setdefault("after_commit", [])
            if outbox.wake.set not in hooks:
                hooks.append(outbox.wake.set)
            return False
        session.execute(update(Outbox).where(col(Outbox.id) == row.id).values(
            status=OutboxStatus.HELD, claimed_by=None, state=state, last_error=detail[:2000], updated_at=clock.now()))
        _away(session, settings, row, error)
        return True


def _note_refused(session: Session, channel: str, error: str, since: datetime | None) -> bool:
    """Record that `channel` refuses the bot, unless it was recorded as taking the bot at or after `since` (one
    conditional statement: a release committed meanwhile is never undone). True when recorded."""
    if insert_ignore(session, table_of(ChannelReach), {"channel": channel, "error": error}, conflict=("channel",),
                     returning="channel") is not None:
        return True
    stale: ColumnElement[bool] = col(ChannelReach.error).is_not(None)
    if since is not None:
        stale = or_(stale, col(ChannelReach.updated_at) < since)
    return bool(changed(session.execute(update(ChannelReach).where(col(ChannelReach.channel) == channel, stale)
                                        .values(error=error, updated_at=clock.now())
                                        .execution_options(synchronize_session=False))))


def hold_if_blocked(db: Database, settings: Settings, row: Outbox) -> bool:
    """Before a row is sent: held (True) when its channel refuses the bot, or the row it goes under is held. One
    conditional statement, so a release written meanwhile (the bot invited) is never undone."""
    if row.kind in NEVER_HELD or not postable(row.channel):
        return False
    parent = aliased(Outbox)
    why_held = [exists().where(col(ChannelReach.channel) == row.channel, col(ChannelReach.error).is_not(None))]
    if row.parent_id is not None:
        why_held.append(exists().where(col(parent.id) == row.parent_id, col(parent.status) == OutboxStatus.HELD))
    with db.session() as session:
        held = changed(session.execute(update(Outbox).where(
            col(Outbox.id) == row.id, col(Outbox.status) == OutboxStatus.PENDING, or_(*why_held))
            .values(status=OutboxStatus.HELD, claimed_by=None, updated_at=clock.now())
            .execution_options(synchronize_session=False)))
        if not held:
            return False
        reach = session.get(ChannelReach, row.channel)
        _away(session, settings, row, reach.error if reach is not None and reach.error else "not_in_channel")
        return True


def reachable(db: Database, channel: str, name: str | None = None) -> int:
    """The bot can post in `channel` (invited, unarchived, or found a member): recorded, and every row held for it
    (and under those) is pending again, in its order. Returns how many rows were released."""
    if not postable(channel):
        return 0
    with db.session() as session:
        was_blocked = _note(session, channel, None, name)
        # a backlog notice written while the bot could not post here gives a reason that no longer holds
        session.execute(update(Outbox).where(col(Outbox.channel) == channel, col(Outbox.status) == OutboxStatus.HELD,
                                             col(Outbox.key).startswith("intake-backlog:"))
                        .values(status=OutboxStatus.FAILED, last_error="not posted: written while the bot could not "
                                "post here, its reason no longer holds", updated_at=clock.now())
                        .execution_options(synchronize_session=False))
        ids = session.exec(select(Outbox.id).where(col(Outbox.channel) == channel,
                                                   col(Outbox.status) == OutboxStatus.HELD)).all()
        released = _release(session, [int(i) for i in ids if i is not None])
        under = [int(i) for i in session.exec(select(Outbox.id).where(
            col(Outbox.status) == OutboxStatus.HELD, col(Outbox.parent_id).in_(ids or [-1]))).all() if i is not None]
        released += _release(session, under)
    if was_blocked or released:
        logger.info("Kitebase can post in %s again: %d held message(s) go out now", shown(channel, name), released)
    return released


def _release(session: Session, ids: list[int]) -> int:
    if not ids:
        return 0
    count = changed(session.execute(update(Outbox).where(col(Outbox.id).in_(ids), col(Outbox.status) == OutboxStatus.HELD)
                                    .values(status=OutboxStatus.PENDING, next_attempt_at=clock.now(), claimed_by=None,
                                            attempts=0, updated_at=clock.now())
                                    .execution_options(synchronize_session=False)))
    hooks = session.info.setdefault("after_commit", [])
    if outbox.wake.set not in hooks:
        hooks.append(outbox.wake.set)
    return count


def joined(db: Database, channel: str, user: str, bot_user: str | None) -> bool:
    """Slack's member_joined_channel: when the member is the bot itself, the channel takes it now, unless what it
    refused was not about being in it (UNSEEN: a held message is tried again at the sender's next look)."""
    if not bot_user or user != bot_user or not postable(channel):
        return False
    with db.session() as session:
        row = session.get(ChannelReach, channel)
        error = row.error if row is not None else None
    if error in UNSEEN:
        logger.info("the bot was invited to %s, which refused its posts for another reason (%s); a waiting message "
                    "is tried there again at the sender's next look (every five minutes)", channel, error)
        return False
    reachable(db, channel)
    return True


def probe(db: Database, channel: str) -> int | None:
    """A channel refused for a reason conversations.info cannot see (UNSEEN): the oldest message waiting there
    (one that posts rather than updates, when there is one) is sent again as it is, marked PROBE, while the
    channel stays recorded as refusing; the sender releases the channel only when that post goes out. Returns the
    row's id, or None when nothing waits there."""
    parent = aliased(Outbox)
    waiting = select(Outbox).where(
        col(Outbox.channel) == channel, col(Outbox.status).in_([OutboxStatus.HELD, OutboxStatus.PENDING]),
        col(Outbox.kind).not_in(NEVER_HELD), ~col(Outbox.key).startswith("intake-backlog:"),
        or_(col(Outbox.parent_id).is_(None),  # not under a message that is not in Slack yet
            ~exists().where(col(parent.id) == col(Outbox.parent_id), col(parent.ts).is_(None))))
    with db.session() as session:
        row = (session.exec(waiting.where(col(Outbox.ts).is_(None)).order_by(col(Outbox.id)).limit(1)).first()
               or session.exec(waiting.order_by(col(Outbox.id)).limit(1)).first())
        if row is None:
            return None
        tried = changed(session.execute(update(Outbox).where(
            col(Outbox.id) == row.id, col(Outbox.status).in_([OutboxStatus.HELD, OutboxStatus.PENDING]))
            .values(status=OutboxStatus.PENDING, state={**(row.state or {}), PROBE: True},
                    next_attempt_at=clock.now(), updated_at=clock.now())
            .execution_options(synchronize_session=False)))
        if not tried:
            return None
        hooks = session.info.setdefault("after_commit", [])
        if outbox.wake.set not in hooks:
            hooks.append(outbox.wake.set)
        return int(row.id) if row.id is not None else None


def check(db: Database, settings: Settings, channels: dict[str, str], look: Callable[[str], Look]) -> list[str]:
    """Look at each channel (channel id → what it is for, e.g. "the channel of rule 'billing'") and record what
    Slack says. Returns a sentence a lead can act on for each channel the bot cannot post in, logged too."""
    problems = []
    for channel, role in channels.items():
        if not postable(channel):
            continue
        try:
            seen = look(channel)
        except Exception as exc:  # Slack unreachable: nothing is known, nothing recorded
            seen = Look(None, known=False, detail=type(exc).__name__)
        if not seen.known:
            logger.warning("could not check whether Kitebase can post in %s, %s (%s); it is looked at again when "
                           "a post there is refused", channel, role, seen.detail or "Slack did not say")
            continue
        error = seen.error
        if error is None:
            with db.session() as session:
                recorded = session.get(ChannelReach, channel)
                error = recorded.error if recorded is not None and recorded.error in UNSEEN else None
            if error is None:
                reachable(db, channel, seen.name)
                continue
            # a member, not archived, yet Slack refused a post there: only a post that goes out says otherwise
        with db.session() as session:
            _note(session, channel, error, seen.name)
        sentence = (f"Kitebase can't post in {shown(channel, seen.name)}, {role}: "
                    f"{why(error, channel, seen.name)}. {_meanwhile(role)}")
        logger.warning("%s", sentence)
        problems.append(sentence)
    return problems


def _meanwhile(role: str) -> str:
    if role.startswith("the channel of rule"):
        return "Until then the rule starts no runs: its tickets wait in its backlog."
    return "Until then what goes there waits, and drafts go to the approvers by direct message."


def channels_to_check(settings: Settings, rules: list[object]) -> dict[str, str]:
    """Every intake rule's channel and the escalation channel, with what each is for."""
    found: dict[str, str] = {}
    for rule in rules:
        channel, name = getattr(rule, "channel", None), getattr(rule, "name", "?")
        if isinstance(channel, str) and channel not in found:
            found[channel] = f"the channel of rule '{name}'"
    if settings.escalation_channel and settings.escalation_channel not in found:
        found[settings.escalation_channel] = "the escalation channel (KITEBASE_ESCALATION_CHANNEL)"
    return found


# --- the draft, another way --------------------------------------------------------------------------

def _away(session: Session, settings: Settings, row: Outbox, error: str) -> None:
    """A held approval card (still waiting for a decision) is copied where approvers can see it: the escalation
    channel, else a direct message to each approver. Each copy is written once (its key says where)."""
    if row.kind != OutboxKind.CARD or row.ref_id is None:
        return
    approval = session.get(Approval, row.ref_id)
    if approval is None or approval.status != ApprovalStatus.PENDING:
        return
    run = session.get(Run, approval.run_id)
    blocked_now = set(session.exec(select(ChannelReach.channel).where(col(ChannelReach.error).is_not(None))).all())
    escalation = settings.escalation_channel
    if escalation and escalation != row.channel and escalation not in blocked_now:
        targets = [escalation]
    else:
        targets = _approver_users(session, settings, run.started_by if run is not None else None)
    origin = dict((run.origin or {}) if run is not None else {})
    home = str(origin.get("channel") or row.channel)
    home_reach = session.get(ChannelReach, home)
    home_error = home_reach.error if home_reach is not None and home_reach.error else error
    ticket = f" on {run.ticket_id}" if run is not None and run.ticket_id else ""
    text = (f":warning: Run #{approval.run_id}{ticket} has a draft waiting for approval, but I couldn't post in "
            f"<#{home}>: {why(home_error, home, slack=True)}. Until then the draft is here: its buttons decide it, "
            "and the run's thread is posted there once I can.")
    if not targets:
        logger.error("run #%s has a draft waiting in %s, which refuses the bot, and no one to show it to: set "
                     "KITEBASE_ESCALATION_CHANNEL or KITEBASE_APPROVERS", approval.run_id, home)
        return
    for target in targets:
        if target == row.channel:
            continue
        values = outbox.new_row(key=f"card:{approval.id}:to:{target}", kind=OutboxKind.CARD, priority=ANSWER,
                                run_id=approval.run_id, ref_id=approval.id, channel=target, payload={"away": text, "home": home})
        insert_ignore(session, outbox.OUTBOX, values, conflict=("key",))
    hooks = session.info.setdefault("after_commit", [])
    if outbox.wake.set not in hooks:
        hooks.append(outbox.wake.set)
    logger.warning("run #%s's draft could not be posted in %s; it is shown in %s instead", approval.run_id, home,
                   ", ".join(targets))


def _approver_users(session: Session, settings: Settings, started_by: str | None) -> list[str]:
    """Whom a draft is sent to directly: KITEBASE_APPROVERS' people and the members of its user groups (as last
    read), else the person who started the run."""
    users = {a for a in settings.approvers if a[:1] in ("U", "W")}
    groups = [g for g in settings.approvers if g.startswith("S")]
    if groups:
        users |= set(session.exec(select(UserGroupMember.user_id).where(col(UserGroupMember.group_id).in_(groups))).all())
    if not settings.approvers and started_by:
        users.add(started_by)
    return sorted(users)
