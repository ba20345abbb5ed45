"""What Slack must show, written as rows in the same transaction as the state change that causes it.

Every function here takes the caller's session and adds or bumps `Outbox` rows; nothing here talks to Slack.
`bot/outbox/sender.py` delivers the rows. A row is one message the bot keeps in Slack: writers bump its
version whenever what it should show changes, and the sender delivers the newest state (so progress is
coalesced and a card shows its decision) and records the `ts` Slack returned.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import case, update
from sqlmodel import Session, col, select

from bot.db import clock
from bot.db.models import Approval, Escalation, Missing, Outbox, Run, table_of
from bot.db.statements import changed, insert_ignore
from bot.vocabulary import LIVE, OutboxKind, OutboxStatus, RunStatus

ANSWER, FIRST, PROGRESS, BACKGROUND = 0, 1, 2, 3  # priorities: answers to people go first
OUTBOX = _OUTBOX = table_of(Outbox)

# Set after a session that wrote rows commits: the sender in this process looks at once instead of polling.
wake = threading.Event()


@dataclass(frozen=True)
class Where:
    """A run's Slack thread: its channel and ts, or (a slash command's run, before its first message is in
    Slack) the outbox row of that first message."""

    channel: str
    thread_ts: str | None
    parent_id: int | None = None


class RunRef(Protocol):
    """What the outbox needs to know of a run: a stored `Run`, or the intake's `NewRun` (building a `Run`
    object costs a fifth of a Slack request's time, and the intake only needs these few fields)."""

    @property
    def id(self) -> int | None: ...
    @property
    def ticket_id(self) -> str | None: ...
    @property
    def model(self) -> str: ...
    @property
    def batch_id(self) -> int | None: ...
    origin: dict[str, Any] | None


@dataclass
class NewRun:
    id: int
    ticket_id: str | None
    model: str
    origin: dict[str, Any] | None
    batch_id: int | None = None


def thread_of(run: RunRef) -> Where | None:
    origin = run.origin or {}
    if origin.get("channel") and origin.get("thread_ts"):
        return Where(str(origin["channel"]), str(origin["thread_ts"]))
    if origin.get("channel") and origin.get("request_row"):
        return Where(str(origin["channel"]), None, int(origin["request_row"]))
    return None


def put(session: Session, *, key: str, kind: str, priority: int, run_id: int | None = None,
        ref_id: int | None = None, parent_id: int | None = None, channel: str | None = None,
        thread_ts: str | None = None, user: str | None = None, payload: dict[str, Any] | None = None) -> int:
    """Add the row for `key`, or bump it if it exists (its message will show the newest state). Race-free:
    two writers of the same key leave one row."""
    values = new_row(key=key, kind=kind, priority=priority, run_id=run_id, ref_id=ref_id, parent_id=parent_id,
                     channel=channel, thread_ts=thread_ts, user=user, payload=payload)
    inserted = insert_ignore(session, _OUTBOX, values, conflict=("key",), returning="id")
    _mark(session)
    if inserted is not None:
        return int(inserted)
    bump(session, key, payload=payload, priority=priority)
    row_id = session.exec(select(Outbox.id).where(Outbox.key == key)).one()
    if row_id is None:  # typed Optional for rows not yet inserted; a stored key is never NULL
        raise Missing(f"outbox row {key} has no id")
    return row_id


def new_row(**values: Any) -> dict[str, Any]:
    """Every column of a new row (what a writer does not say is NULL), pending for the sender now. Its times
    are left to the database (its own clock: bot/db/clock.py), so a row is due by the clock the sender reads."""
    return {**_EMPTY_ROW, "version": 1, "sent_version": 0, "status": OutboxStatus.PENDING, "attempts": 0, **values}


_TIMES = ("next_attempt_at", "created_at", "updated_at")  # filled in by the database (models.database_time)
_EMPTY_ROW = dict.fromkeys(c.name for c in _OUTBOX.c if c.name != "id" and c.name not in _TIMES)


# The priority each kind's writer gives its rows: a real change puts back what a due-refresh lowered.
OWN_PRIORITY = {OutboxKind.CARD: ANSWER, OutboxKind.BATCH: ANSWER, OutboxKind.QUEUE: ANSWER,
                OutboxKind.REQUEST: FIRST, OutboxKind.HOME: BACKGROUND}


REFRESHED = frozenset(OWN_PRIORITY) - {OutboxKind.HOME}  # messages a due-refresh draws again (chat.update)


def _own_priority() -> Any:
    return case(OWN_PRIORITY, value=col(Outbox.kind), else_=col(Outbox.priority))


def bump(session: Session, key: str, *, payload: dict[str, Any] | None = None, priority: int | None = None) -> bool:
    """The message of `key` should show the newest state, at its writer's priority (`priority`, else the one its
    kind is written with: a due-refresh's bump went at BACKGROUND); False if there is no such row."""
    values: dict[str, Any] = {"version": col(Outbox.version) + 1, "status": OutboxStatus.PENDING,
                              "updated_at": clock.now(),
                              "priority": _own_priority() if priority is None else priority}
    if payload is not None:
        values["payload"] = payload
    rows = changed(session.execute(update(Outbox).where(col(Outbox.key) == key).values(**values)))
    _mark(session)
    return bool(rows)


def refreshed(session: Session, row_ids: list[int]) -> int:
    """These rows' messages would read differently now (the time to a due date passed: bot/runs/execution/
    due_refresh.py): the sender draws them again, at BACKGROUND priority (after anyone's decision: the next real
    change puts the writer's priority back). A row already waiting for the sender is left as it is (it is drawn
    from the newest state anyway); returns how many were bumped."""
    if not row_ids:
        return 0
    rows = changed(session.execute(
        update(Outbox).where(col(Outbox.id).in_(row_ids), col(Outbox.version) == col(Outbox.sent_version))
        .values(version=col(Outbox.version) + 1, status=OutboxStatus.PENDING, updated_at=clock.now(),
                priority=BACKGROUND)
        .execution_options(synchronize_session=False)))
    _mark(session)
    return rows


def _mark(session: Session) -> None:
    hooks = session.info.setdefault("after_commit", [])
    if wake.set not in hooks:
        hooks.append(wake.set)


def after_step(session: Session, run: Run, step_number: int, *, old_status: str, approvals: list[Approval],
               escalation: Escalation | None, queue_channel: str | None) -> None:
    """What Slack must show once a step is stored: the timeline, new cards, the ending, the queue post. A
    fan-out child shows itself only on its batch's card (and in the queue, if it is handed to a person); the card
    shows a child's status and drafts, not its steps, so only a step that changes those updates it (every step
    did: ten children's identical updates spent the workspace's chat.update burst, and the one showing Approve
    all waited for it: docs/performance.md, "One fix for many")."""
    if run.batch_id is not None:
        if run.status != old_status or approvals:
            bump(session, batch_key(run.batch_id))
        for approval in approvals:  # the batch card decides replies; any other call that waits gets its own card
            if approval.tool_name != "reply_to_customer":
                card(session, approval, run)
    else:
        _own_messages(session, run, step_number, approvals)
    if escalation is not None:
        queue_post(session, escalation, run, queue_channel)
    if run.status != old_status:
        agent_session(session, run)
        homes_changed(session)


def _own_messages(session: Session, run: Run, step_number: int, approvals: list[Approval]) -> None:
    step_stored(session, run, step_number)
    for approval in approvals:
        card(session, approval, run)
    if run.status not in LIVE:
        final(session, run, step_number)
        bump(session, f"request:{run.id}")  # an intake pick-up shows what is due only while its run is live


# --- a run's thread --------------------------------------------------------------------------------

def timeline(session: Session, run: RunRef, first_step: int, opening: dict[str, Any]) -> None:
    """Open a new stretch of the run's timeline: one evolving message (or stream) for the steps from here.
    `opening` says why it opens: {"kind": "start" | "follow_up" | "resumed" | "continue", "actor": …}."""
    where = thread_of(run)
    if where is None:
        return
    agent_session(session, run)
    put(session, key=timeline_key(run.id, first_step), kind=OutboxKind.TIMELINE, priority=FIRST, run_id=run.id,
        channel=where.channel, thread_ts=where.thread_ts, parent_id=where.parent_id,
        payload=_timeline_payload(first_step, opening, run.ticket_id, run.model))


def timeline_key(run_id: int | None, first_step: int) -> str:
    return f"timeline:{run_id}:{first_step}"


def _timeline_payload(first_step: int, opening: dict[str, Any], ticket_id: str | None, model: str) -> dict[str, Any]:
    return {"from_step": first_step, "to_step": None, "opening": opening, "ticket_id": ticket_id, "model": model}


def agent_session(session: Session, run: RunRef) -> None:
    """The run's thread is a Slack agent session whose status follows the run's: the sender reads the run's
    status when it sends (docs/slack-agent.md), so the newest status wins. A fan-out child has no thread of
    its own (it shows itself on its batch's card)."""
    where = thread_of(run)
    if where is None or run.batch_id is not None:
        return
    put(session, key=f"agent_session:{run.id}", kind=OutboxKind.AGENT_SESSION, priority=FIRST, run_id=run.id,
        channel=where.channel, thread_ts=where.thread_ts, parent_id=where.parent_id)


def step_stored(session: Session, run: Run, step_number: int) -> None:
    """A step was stored: the open stretch shows it (a new stretch opens if none is), and closes when the run
    stops running (waiting for a person or finished)."""
    if thread_of(run) is None:
        return
    row = session.exec(select(Outbox).where(Outbox.run_id == run.id, Outbox.kind == OutboxKind.TIMELINE)
                       .order_by(col(Outbox.id).desc())).first()
    payload = dict(row.payload or {}) if row is not None else {}
    if row is None or payload.get("to_step") is not None:
        timeline(session, run, step_number, {"kind": "continue"})
        row = session.exec(select(Outbox).where(Outbox.key == f"timeline:{run.id}:{step_number}")).one()
        payload = dict(row.payload or {})
    if run.status != RunStatus.RUNNING:
        payload["to_step"] = step_number
    bump(session, row.key, payload=payload)


def card(session: Session, approval: Approval, run: Run) -> None:
    where = thread_of(run)
    if where is not None:
        put(session, key=f"card:{approval.id}", kind=OutboxKind.CARD, priority=ANSWER, run_id=run.id, ref_id=approval.id,
            channel=where.channel, thread_ts=where.thread_ts, parent_id=where.parent_id)


def card_changed(session: Session, approval_id: int) -> None:
    """A decision or a result changed what the approval's card shows (a fan-out child's: its batch's card)."""
    batch_id = session.exec(select(Run.batch_id).join(Approval, col(Approval.run_id) == col(Run.id))
                            .where(col(Approval.id) == approval_id)).first()
    if batch_id is not None:
        bump(session, batch_key(batch_id))
    bump(session, f"card:{approval_id}")  # a fan-out child's own card, if it has one (a call other than a reply)
    # its copies where approvers could see it while its own channel refused the bot (bot/runs/intake/reach.py)
    session.execute(update(Outbox).where(col(Outbox.kind) == OutboxKind.CARD, col(Outbox.ref_id) == approval_id,
                                         col(Outbox.key).startswith(f"card:{approval_id}:to:"))
                    .values(version=col(Outbox.version) + 1, status=OutboxStatus.PENDING, updated_at=clock.now(),
                            priority=ANSWER)
                    .execution_options(synchronize_session=False))


def batch_key(batch_id: int) -> str:
    return f"batch:{batch_id}"


def batch_card(session: Session, batch_id: int, parent: Run) -> None:
    """One card in the parent run's thread for a batch's children: their drafts, declines and outcomes."""
    where = thread_of(parent)
    if where is not None:
        put(session, key=batch_key(batch_id), kind=OutboxKind.BATCH, priority=ANSWER, run_id=parent.id, ref_id=batch_id,
            channel=where.channel, thread_ts=where.thread_ts, parent_id=where.parent_id)


def final(session: Session, run: Run, step_number: int) -> None:
    """The run's ending in its thread: the answer, or why it stopped; a snapshot (a follow-up changes the run)."""
    where = thread_of(run)
    if where is None:
        return
    put(session, key=f"final:{run.id}:{step_number}", kind=OutboxKind.FINAL, priority=ANSWER, run_id=run.id,
        channel=where.channel, thread_ts=where.thread_ts, parent_id=where.parent_id,
        payload={"status": run.status, "answer": run.answer, "reason": run.reason, "steps": run.steps,
                 "tokens": run.total_tokens, "cost_usd": run.cost_usd, "stopped_by": run.stop_requested_by})


def endings_changed(session: Session, run_id: int) -> None:
    """What a run's ending shows besides its answer changed (its batch started): render it again."""
    session.execute(update(Outbox).where(col(Outbox.run_id) == run_id, col(Outbox.kind) == OutboxKind.FINAL)
                    .values(version=col(Outbox.version) + 1, status=OutboxStatus.PENDING, updated_at=clock.now())
                    .execution_options(synchronize_session=False))
    _mark(session)


def request(session: Session, run: RunRef, text: str) -> int:
    """A slash command's run needs a message to thread under: "<@lead> asked: …", posted first."""
    origin = run.origin or {}
    row_id = put(session, key=f"request:{run.id}", kind=OutboxKind.REQUEST, priority=FIRST, run_id=run.id,
                 channel=origin.get("channel"), payload={"user": origin.get("user"), "text": text})
    run.origin = {**origin, "request_row": row_id}
    session.execute(update(Run).where(col(Run.id) == run.id).values(origin=run.origin))
    return row_id


def intake_request(session: Session, run: RunRef, *, rule: str, why: list[str], title: str | None) -> int:
    """A run an intake rule started needs a message to thread under, posted first in the rule's channel: which
    rule took which ticket, and why."""
    origin = run.origin or {}
    row_id = put(session, key=f"request:{run.id}", kind=OutboxKind.REQUEST, priority=FIRST, run_id=run.id,
                 channel=origin.get("channel"),
                 payload={"intake": {"rule": rule, "why": why, "ticket": run.ticket_id, "title": title}})
    run.origin = {**origin, "request_row": row_id}
    session.execute(update(Run).where(col(Run.id) == run.id).values(origin=run.origin))
    return row_id


def notice(session: Session, *, channel: str, thread_ts: str | None, text: str, key: str | None = None,
           run_id: int | None = None) -> None:
    """A one-off sentence in a thread (why a request started nothing, who resumed a run...)."""
    put(session, key=key or f"notice:{uuid.uuid4().hex}", kind=OutboxKind.NOTICE, priority=ANSWER, run_id=run_id,
        channel=channel, thread_ts=thread_ts, payload={"text": text})


def reminder(session: Session, *, approval_id: int, run_id: int, where: Where, reminder: dict[str, Any],
             key: str | None = None) -> None:
    """A draft has waited long (`key` remind:<id>, with the due line too when its ticket nears its breach in the
    same pass), or only its ticket nears its breach (`key` remind-due:<id>): one notice in the run's thread
    mentioning who may decide (never twice)."""
    values = {"key": key or f"remind:{approval_id}", "kind": OutboxKind.NOTICE, "priority": ANSWER, "run_id": run_id,
              "ref_id": approval_id, "parent_id": where.parent_id, "channel": where.channel,
              "thread_ts": where.thread_ts, "user": None, "payload": {"reminder": reminder}, "version": 1,
              "sent_version": 0, "status": OutboxStatus.PENDING, "attempts": 0}
    insert_ignore(session, _OUTBOX, values, conflict=("key",))
    _mark(session)


def ephemeral(session: Session, *, channel: str, user: str, text: str, thread_ts: str | None = None) -> None:
    """A message only `user` sees (not allowed, already decided...)."""
    put(session, key=f"ephemeral:{uuid.uuid4().hex}", kind=OutboxKind.EPHEMERAL, priority=ANSWER, channel=channel,
        thread_ts=thread_ts, user=user, payload={"text": text})


# --- the human queue -----------------------------------------------------------------------------

def queue_post(session: Session, escalation: Escalation, run: Run, queue_channel: str | None) -> None:
    """The escalation in the queue channel (else the run's own thread), then the transcript under it."""
    where = thread_of(run)
    channel = queue_channel or (where.channel if where else None)
    if channel is None:
        return
    thread_ts = None if queue_channel or where is None else where.thread_ts
    parent = None if queue_channel or where is None else where.parent_id
    post_id = put(session, key=f"queue:{escalation.id}", kind=OutboxKind.QUEUE, priority=ANSWER, run_id=run.id,
                  ref_id=escalation.id, parent_id=parent, channel=channel, thread_ts=thread_ts)
    put(session, key=f"transcript:{escalation.id}", kind=OutboxKind.TRANSCRIPT, priority=BACKGROUND, run_id=run.id,
        ref_id=escalation.id, parent_id=post_id, channel=channel)


def queue_changed(session: Session, escalation_id: int) -> None:
    bump(session, f"queue:{escalation_id}")


def digest_written(session: Session, *, day: str) -> bool:
    return session.exec(select(Outbox.id).where(Outbox.key == f"digest:{day}")).first() is not None


def digest(session: Session, *, day: str, channel: str, items: list[dict[str, Any]],
           figures: dict[str, Any] | None = None, gaps: dict[str, Any] | None = None) -> bool:
    """Once a day, whichever process gets there first: False if today's is already written. The queue, the
    figures of the last days and the knowledge gaps, as they were when it was written."""
    if digest_written(session, day=day):
        return False
    values = {"key": f"digest:{day}", "kind": OutboxKind.DIGEST, "priority": BACKGROUND, "run_id": None, "ref_id": None,
              "parent_id": None, "channel": channel, "thread_ts": None, "user": None,
              "payload": {"day": day, "items": items, "figures": figures, "gaps": gaps}, "version": 1,
              "sent_version": 0, "status": OutboxStatus.PENDING, "attempts": 0}
    written = insert_ignore(session, _OUTBOX, values, conflict=("key",), returning="id")
    _mark(session)
    return written is not None


# --- App Home --------------------------------------------------------------------------------------

def home(session: Session, user: str) -> None:
    """`user`'s App Home should be (re)published: they opened it, or they have work waiting."""
    put(session, key=f"home:{user}", kind=OutboxKind.HOME, priority=BACKGROUND, user=user)


def homes_changed(session: Session) -> None:
    """Runs, drafts or the queue changed: every App Home that is shown gets the newest view."""
    session.execute(update(Outbox).where(col(Outbox.kind) == "home")
                    .values(version=col(Outbox.version) + 1, status=OutboxStatus.PENDING, updated_at=clock.now())
                    .execution_options(synchronize_session=False))  # no Outbox objects live in this session
    _mark(session)


def plain(text: str) -> str:
    """Text a person or the desk wrote, for a notice's mrkdwn (Slack's escaping: never a mention, a channel-wide
    ping or a disguised link). The notice's own words stay mrkdwn."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def in_thread(session: Session, run: RunRef, *, key: str, text: str) -> bool:
    """A one-off sentence in `run`'s own thread (False when the run has none: a terminal's run)."""
    where = thread_of(run)
    if where is None:
        return False
    put(session, key=key, kind=OutboxKind.NOTICE, priority=ANSWER, run_id=run.id, parent_id=where.parent_id,
        channel=where.channel, thread_ts=where.thread_ts, payload={"text": text})
    return True
