"""The human queue's own state, and what a person does to it: take a run's escalation, close it with a note,
or resume the run (RunService.resume_from_queue). One orchestration for the terminal and Slack's queue buttons:
look the run up by the name people use (bot/runs/lifecycle/naming.py; a Slack button may carry its escalation's
id), ask the rule (bot/runs/lifecycle/people.py), change the row atomically (the first person wins), note who
did it and tell Slack through the outbox in the same transaction."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import Session, col, select

from bot import outbox
from bot.db.engine import Database
from bot.db.models import Escalation, Run, id_of, utcnow
from bot.db.statements import changed
from bot.runs import BadInput
from bot.runs.lifecycle.naming import NamedRun, resolve
from bot.runs.lifecycle.people import People
from bot.vocabulary import UNRESOLVED, EscalationStatus

STEER = "act on the human queue"
NEEDS_NOTE = "Add a short note on how it was resolved."


@dataclass(frozen=True)
class QueueAct:
    """What came of a person's take, close or resume: `done`, and the sentence for them (plain text, or the
    rule's own sentence, which names the approvers as Slack mentions: `rule`). `run_id`: the run it was about."""

    done: bool
    sentence: str
    run_id: int | None = None
    rule: bool = False


@dataclass(frozen=True)
class Target:
    """Which run a person means: its name as typed (`12`, `KITE-142`), or the escalation a Slack button carries."""

    name: str | None = None
    escalation_id: int | None = None


def take(db: Database, people: People, target: Target, *, actor: str) -> QueueAct:
    """A person takes a run in the human queue: its open escalation is theirs (once; a second take says who)."""
    refused = _refused(people, actor)
    if refused is not None:
        return refused
    with db.session() as session:
        named, row = find(session, target, kind=kind_of(people))
        _lock_run(session, row)
        won = changed(session.execute(update(Escalation).where(col(Escalation.id) == row.id,
                                                               col(Escalation.status) == EscalationStatus.OPEN)
                                      .values(status=EscalationStatus.CLAIMED, claimed_by=actor,
                                              updated_at=utcnow()))) == 1
        if won:
            _notify(session, id_of(row))
            return QueueAct(True, f"{named.label(start=True)} is taken by {actor}.", named.run_id)
        session.refresh(row)
        return QueueAct(False, _already(named, row), named.run_id)


def close(db: Database, people: People, target: Target, *, actor: str, note: str) -> QueueAct:
    """A person closes a run's escalation with a note on how it was resolved (raises BadInput without one)."""
    if not note or not note.strip():
        raise BadInput(NEEDS_NOTE)
    refused = _refused(people, actor)
    if refused is not None:
        return refused
    with db.session() as session:
        named, row = find(session, target, kind=kind_of(people))
        _lock_run(session, row)
        won = changed(session.execute(update(Escalation).where(col(Escalation.id) == row.id,
                                                               col(Escalation.status).in_(UNRESOLVED))
                                      .values(status=EscalationStatus.CLOSED, claimed_by=actor,
                                              note=f"{note.strip()} (closed by {actor})",
                                              updated_at=utcnow()))) == 1
        if won:
            _notify(session, id_of(row))
            return QueueAct(True, f"{named.label(start=True)} is closed by {actor}.", named.run_id)
        session.refresh(row)
        return QueueAct(False, _already(named, row), named.run_id)


def resumable(db: Database, people: People, target: Target, *, actor: str) -> QueueAct:
    """May `actor` resume the run `target` names from the queue? `done` with its run id if so."""
    refused = _refused(people, actor)
    if refused is not None:
        return refused
    with db.session() as session:
        named, row = find(session, target, kind=kind_of(people))
    if row.status not in UNRESOLVED:  # a Slack button on an item closed meanwhile
        return QueueAct(False, _already(named, row), named.run_id)
    return QueueAct(True, f"{named.label(start=True)} is resumed by {actor}.", named.run_id)


def find(session: Session, target: Target, *, kind: str) -> tuple[NamedRun, Escalation]:
    """The run and its escalation: the open or taken one, else its latest. BadInput when there is none."""
    if target.escalation_id is not None:
        row = session.get(Escalation, target.escalation_id)
        if row is None:
            raise BadInput("That escalation no longer exists.")
        return resolve(session, f"run {row.run_id}", kind=kind), row
    named = resolve(session, target.name or "", kind=kind)
    rows = session.exec(select(Escalation).where(Escalation.run_id == named.run_id)
                        .order_by(col(Escalation.id).desc())).all()
    open_rows = [r for r in rows if r.status in UNRESOLVED]
    if not open_rows:
        last = (f"; its last hand-off was {_verb(rows[0])}" + (f" by {rows[0].claimed_by}" if rows[0].claimed_by else "")
                if rows else "")
        raise BadInput(f"{named.label(start=True)} is not in the human queue: it is {named.status.replace('_', ' ')}"
                       f"{last}. Nothing was changed; `kitebase queue` lists the runs that are.")
    return named, open_rows[0]


def kind_of(people: People) -> str:
    return people.settings.desk


def mark_resumed(session: Session, run_id: int, *, actor: str) -> None:
    """A person resumed the run: its open escalations say so, in the queue too."""
    rows = session.exec(select(Escalation).where(Escalation.run_id == run_id,
                                                 col(Escalation.status).in_(UNRESOLVED))).all()
    for row in rows:
        row.status, row.claimed_by, row.note, row.updated_at = "resumed", actor, f"resumed by {actor}", utcnow()
        session.add(row)
        outbox.queue_changed(session, id_of(row))


def _lock_run(session: Session, row: Escalation) -> None:
    """The run's row, locked before its hand-off changes: an intake pass continuing the run with a customer's
    message locks it too, so one of the two sees the other's outcome (bot/runs/intake/arrivals.py)."""
    session.exec(select(Run.id).where(col(Run.id) == row.run_id).with_for_update()).first()


def _refused(people: People, actor: str) -> QueueAct | None:
    problem = people.why_not_steer(actor, STEER)
    return None if problem is None else QueueAct(False, problem, rule=True)


def _notify(session: Session, escalation_id: int) -> None:
    outbox.queue_changed(session, escalation_id)
    outbox.homes_changed(session)


def _verb(row: Escalation) -> str:
    return "taken" if row.status == EscalationStatus.CLAIMED else str(row.status)


def _already(named: NamedRun, row: Escalation) -> str:
    verb = _verb(row)
    by = f" by {row.claimed_by}" if row.claimed_by else ""
    return f"{named.label(start=True)} is already {verb}{by}; nothing was changed."

