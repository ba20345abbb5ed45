"""One fix for many: from a run whose reply was approved, one child run per other ticket with the same problem.

The offer is the tickets the run's report names that are still open (at most ten). Starting a batch records, in
one transaction, the batch (one per parent run: a second click finds it), one queued child run per ticket (its
first message the approved reply and its sources: fan_out_text.py), the tickets that got no child and why, and
the batch card in the parent's thread. The children are normal runs; their drafts wait on that one card
(bot/runs/lifecycle/batch_decisions.py decides them), and a child whose reply was sent links its ticket to the
problem (bot/runs/lifecycle/incident_links.py)."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot import outbox
from bot.agent.fan_out_text import Reference, child_goal, child_request
from bot.agent.history import text_of
from bot.db.engine import Database
from bot.db.models import Approval, Batch, HelpSection, Run, Ticket
from bot.desk.ids import normalise_ticket_id, ticket_ids_in
from bot.runs import BadInput
from bot.runs.lifecycle import citations
from bot.runs.lifecycle.goals import live_run
from bot.runs.lifecycle.new_run import insert_run
from bot.vocabulary import SENT, RunStatus
from tools.tickets import like_hits

logger = logging.getLogger(__name__)

MAX_CHILDREN = 10
CLOSED = frozenset({"solved", "closed", "deleted"})


@dataclass
class Started:
    batch_id: int
    parent_run_id: int
    problem: str
    children: list[tuple[int, str]] = field(default_factory=list)  # (run id, ticket)
    skipped: list[dict[str, str]] = field(default_factory=list)  # {"ticket_id", "reason"}
    existed: bool = False  # the batch had been started before (nothing new was started)

    def sentence(self) -> str:
        if self.existed:
            return (f"Run #{self.parent_run_id} already has its batch: the drafts for "
                    f"{_names([t for _, t in self.children]) or 'its tickets'} are on one card in its thread.")
        said = [f"Drafting the fix approved on {self.problem} for {_names([t for _, t in self.children])}"
                if self.children else f"No ticket got a draft of the fix approved on {self.problem}"]
        said += [f"{s['ticket_id']}: {s['reason']}" for s in self.skipped]
        return "; ".join(said) + "."


def reference_of(session: Session, run: Run) -> Reference | None:
    """The reply of `run` that reached its customer (approved or edited, and sent), as the children read it."""
    rows = session.exec(select(Approval).where(Approval.run_id == run.id, Approval.tool_name == "reply_to_customer",
                                               col(Approval.status).in_(SENT))
                        .order_by(col(Approval.id).desc())).all()
    for row in rows:
        if row.result is None or row.result.get("is_error"):
            continue
        message = str(((row.edited_input or row.tool_input) or {}).get("message") or "")
        ticket = str((row.tool_input or {}).get("ticket_id") or run.ticket_id or "")
        if message and ticket == run.ticket_id:
            sources = []
            for anchor in citations.cited(message):
                section = session.get(HelpSection, anchor)
                if section is not None:
                    sources.append((anchor, section.heading))
            return Reference(ticket, message, row.decided_by, tuple(sources))
    return None


def offer(session: Session, run: Run, desk_kind: str) -> list[str]:
    """The open tickets `run`'s report names that the run confirmed (`confirmed`), if its reply was approved and
    sent (≤ 10); empty once the run has its batch."""
    if run.status != RunStatus.COMPLETED or not run.answer or run.ticket_id is None:
        return []
    if session.exec(select(Batch.id).where(Batch.parent_run_id == run.id)).first() is not None:
        return []
    allowed = confirmed(run, desk_kind)
    named = [t for t in dict.fromkeys(ticket_ids_in("\n".join(reports(run)), desk_kind)) if t in allowed]
    rows = {t.id: t for t in session.exec(select(Ticket).where(col(Ticket.id).in_(named))).all()} if named else {}
    candidates = [t for t in named if t in rows and rows[t].status not in CLOSED][:MAX_CHILDREN]
    if not candidates or reference_of(session, run) is None:
        return []
    return candidates


# What a report says of a ticket it does not confirm. Quoted text (a ticket's title) is left out before looking.
NOT_SAME = re.compile(
    r"set[\s-]*(?:\w+\s+)?aside|ruled? (?:\w+ )?out|not the same|unrelated|not related|does(?: not|n't) (?:match|apply)"
    r"|(?:different|another|separate|other) (?:root )?(?:cause|problem|issue)|not (?:affected|a match)", re.IGNORECASE)
LIST_ITEM = re.compile(r"^\s*(?:[-•*+]|\d+[.)]|\|)\s*")
QUOTED = re.compile(r"“[^”\n]*”|\"[^\"\n]*\"|‘[^’\n]*’")


def set_aside(report: str, desk_kind: str) -> set[str]:
    """The tickets a report sets aside: on a line whose words before its first ticket id say so ("Set aside:",
    "### Tickets I read and set aside", "Ruled out:", "Not the same problem (read): …"), and in the list or table
    right under such a line. Generous on purpose: a confirmed ticket named there is only not offered, and a lead can
    still name it."""
    found: set[str] = set()
    inside, items = False, 0
    for line in report.splitlines():
        ids = ticket_ids_in(line, desk_kind)
        lead = _unquoted(line)
        for ticket_id in ids[:1]:
            lead = lead.split(ticket_id, 1)[0]
        if NOT_SAME.search(lead):
            found.update(ids)
            inside, items = True, 0
        elif inside and not line.strip():
            inside = items == 0  # a blank line under the heading; the list's end after its items
        elif inside and LIST_ITEM.match(line):
            found.update(ids)
            items += 1
        else:
            inside = False
    return found


def _unquoted(line: str) -> str:
    return QUOTED.sub("", line)


def confirmed(run: Run, desk_kind: str) -> set[str]:
    """The tickets the batch may offer for `run`, judged from everything it searched, read and reported (every
    segment: a follow-up's answer does not undo an earlier report's verdict):
    - likely the same problem, by a like-ticket search of the run's own ticket, and named in a report;
    - only worth a look in that search, read (get_ticket that succeeded), and named in a report on a line that does
      not say it is another problem;
    less every ticket a report sets aside (`set_aside`) and the run's own. Never a ticket only worth a look that it
    did not read, a hit of a search by words, or a hit of a search like another ticket. (A like-ticket result from
    before the two tiers, a plain list, counts as likely: that search returned only the cut-off's hits.)"""
    likely: set[str] = set()
    worth: set[str] = set()
    read: set[str] = set()
    own = run.ticket_id or ""
    for use, text in citations.calls_before(run.messages or [], None):  # every call that did not fail
        arguments = use.get("input") or {}
        if use.get("name") == "get_ticket":
            read.add(normalise_ticket_id(str(arguments.get("ticket_id") or ""), desk_kind) or "")
        elif use.get("name") == "search_tickets" and \
                normalise_ticket_id(str(arguments.get("like_ticket_id") or ""), desk_kind) == own:
            tiers = _tiers(text)
            likely |= tiers[0]
            worth |= tiers[1]
    named, positive, aside = set(), set(), set()
    for report in reports(run):
        named.update(ticket_ids_in(report, desk_kind))
        aside |= set_aside(report, desk_kind)
        for line in report.splitlines():
            if not NOT_SAME.search(_unquoted(line)):
                positive.update(ticket_ids_in(line, desk_kind))
    return ((likely & named) | ((worth - likely) & read & positive)) - aside - {own}


def reports(run: Run) -> list[str]:
    """Every answer `run` gave, oldest first (a follow-up adds one; `run.answer` is the latest)."""
    found = []
    for message in run.messages or []:
        content = message.get("content") if message.get("role") == "assistant" else None
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        if content and not any(b.get("type") == "tool_use" for b in blocks):
            found.append(content if isinstance(content, str) else text_of(blocks))
    if run.answer and run.answer not in found:
        found.append(run.answer)
    return found


def _tiers(text: str) -> tuple[set[str], set[str]]:
    tiered = like_hits(text, partial=True)
    if tiered is not None:
        return ({str(h["id"]) for h in tiered if h["tier"] == "likely"},
                {str(h["id"]) for h in tiered if h["tier"] == "worth_a_look"})
    return _likely(text), set()


def _likely(text: str) -> set[str]:
    tiered = like_hits(text, partial=True)
    if tiered is not None:
        return {str(h["id"]) for h in tiered if h["tier"] == "likely"}
    try:
        hits = json.loads(text)
    except ValueError:
        return set()
    return {str(h["id"]) for h in hits if isinstance(h, dict) and h.get("id")} if isinstance(hits, list) else set()


def start(db: Database, run_id: int, *, actor: str | None, model: str, desk_kind: str,
          tickets: list[str] | None = None) -> Started:
    """The batch for run `run_id`: its children queued (dispatch them after this returns), its card written. A
    second call returns the batch already started. BadInput says why nothing can start. When a unique index
    refuses a row (another click started the batch, another run took a ticket, a moment ago), the whole
    transaction is undone and tried once more: the second try sees what won."""
    for attempt in (1, 2):
        try:
            started = _start_once(db, run_id, actor=actor, model=model, desk_kind=desk_kind, tickets=tickets)
        except IntegrityError:
            if attempt == 2:
                raise
            continue
        if not started.existed:
            logger.info("batch %s of run %s: %d children, %d skipped", started.batch_id, run_id,
                        len(started.children), len(started.skipped))
        return started
    raise AssertionError("unreachable")


def _start_once(db: Database, run_id: int, *, actor: str | None, model: str, desk_kind: str,
                tickets: list[str] | None) -> Started:
    with db.session() as session:
        parent = session.get(Run, run_id)
        if parent is None:
            raise BadInput(f"There is no run {run_id}.")
        existing = session.exec(select(Batch).where(Batch.parent_run_id == run_id)).first()
        if existing is not None:
            return _existing(session, existing)
        reference = _reference_or_refuse(session, parent)
        wanted = _wanted(session, parent, desk_kind, tickets)
        batch = Batch(parent_run_id=run_id, problem_ticket_id=reference.ticket_id, requested_by=actor,
                      reference={"message": reference.message, "approved_by": reference.approved_by,
                                 "sources": [list(s) for s in reference.sources]})
        session.add(batch)
        session.flush()
        started = Started(int(batch.id or 0), run_id, reference.ticket_id)
        origin = {key: value for key, value in (parent.origin or {}).items()
                  if key in ("surface", "channel", "thread_ts", "request_row", "team")}
        for ticket_id, reason in wanted:
            if reason is None:
                reason = _start_child(session, batch, ticket_id, reference, actor, model, origin, started)
            if reason is not None:
                started.skipped.append({"ticket_id": ticket_id, "reason": reason})
        batch.skipped = started.skipped or None
        session.add(batch)
        outbox.batch_card(session, started.batch_id, parent)
        outbox.endings_changed(session, run_id)  # its ending's button gives way to a pointer to the card
    return started


def _start_child(session: Session, batch: Batch, ticket_id: str, reference: Reference, actor: str | None,
                 model: str, origin: dict[str, object], started: Started) -> str | None:
    """A queued child for `ticket_id`, or the reason it got none."""
    live = live_run(session, ticket_id)
    if live is not None:
        return f"run #{live.id} is already working it"
    run_id = insert_run(session, goal=child_goal(ticket_id, reference.ticket_id), ticket_id=ticket_id,
                        model=model, started_by=actor, origin=dict(origin), thread_key=None,
                        request=child_request(ticket_id, reference), batch_id=batch.id)
    if run_id is None:
        return "it is no longer on the desk"
    started.children.append((run_id, ticket_id))
    return None


def _reference_or_refuse(session: Session, parent: Run) -> Reference:
    if parent.status != RunStatus.COMPLETED:
        raise BadInput(f"Run #{parent.id} is {parent.status}: a batch starts from a completed run whose reply "
                       "reached its customer.")
    reference = reference_of(session, parent)
    if reference is None:
        raise BadInput(f"Run #{parent.id} sent no approved reply on {parent.ticket_id}, so there is no fix to "
                       "reuse; handle the other tickets one by one.")
    return reference


def _wanted(session: Session, parent: Run, desk_kind: str,
            tickets: list[str] | None) -> list[tuple[str, str | None]]:
    """The tickets to draft for, each with the reason it gets no child (None: it gets one)."""
    if tickets is None:
        named = offer(session, parent, desk_kind)
        if not named:
            raise BadInput(f"Run #{parent.id}'s report confirms no other open ticket (a ticket it set aside, or only "
                           "worth a look and never read, is not offered); name the tickets with --tickets.")
        return [(t, None) for t in named]
    wanted: list[tuple[str, str | None]] = []
    for raw in dict.fromkeys(t.strip() for t in tickets if t.strip()):
        found = ticket_ids_in(raw, desk_kind)
        if len(found) != 1:
            raise BadInput(f"“{raw}” is not a ticket id; name tickets like "
                           f"{'4821' if desk_kind == 'zendesk' else 'KITE-144'}.")
        ticket_id = found[0]
        row = session.get(Ticket, ticket_id)
        if ticket_id == parent.ticket_id:
            wanted.append((ticket_id, "it is the ticket the reply was written for"))
        elif row is None:
            wanted.append((ticket_id, "it is not on the desk"))
        elif row.status in CLOSED:
            wanted.append((ticket_id, f"it is {row.status}"))
        else:
            wanted.append((ticket_id, None))
    if not wanted:
        raise BadInput("Name at least one ticket with --tickets.")
    if len(wanted) > MAX_CHILDREN:
        raise BadInput(f"A batch drafts for at most {MAX_CHILDREN} tickets; you named {len(wanted)}.")
    return wanted


def _existing(session: Session, batch: Batch) -> Started:
    children = session.exec(select(Run.id, Run.ticket_id).where(Run.batch_id == batch.id)
                            .order_by(col(Run.id))).all()
    return Started(int(batch.id or 0), batch.parent_run_id, batch.problem_ticket_id,
                   [(int(i or 0), str(t)) for i, t in children], list(batch.skipped or []), existed=True)


def _names(tickets: list[str]) -> str:
    return tickets[0] if len(tickets) == 1 else ", ".join(tickets[:-1]) + f" and {tickets[-1]}" if tickets else ""
