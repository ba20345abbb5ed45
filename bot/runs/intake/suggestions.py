"""The suggested prompts of the app's messages tab, and what each does when a person sends it.

Slack shows these prompts when a person opens the app's messages tab (manifest.json's
`features.agent_view.suggested_prompts`, and assistant.threads.setSuggestedPrompts on `app_home_opened`);
clicking one sends its `message` as the person's DM. The intake (bot/runs/intake/record.py) asks `match` first:
a prompt is answered in that DM thread (the drafts the person may decide on, the human queue, today's figures),
or, for "Handle the oldest urgent ticket", becomes an ordinary run on that ticket. Anything else is a request as
before. A prompt is matched whole (case, punctuation, curly quotes and a leading mention aside), so a request
that merely contains one ("handle KITE-142 and show the human queue") is not taken for it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Approval, Customer, Run, Ticket
from bot.desk import sla
from bot.outbox import messages_tab
from bot.runs.lifecycle.goals import live_run, live_run_sentence
from bot.vocabulary import LIVE, ApprovalStatus, RunStatus

# Who may decide a draft: (person, who started its run, whether its reminder went out) -> bool. The Slack side
# passes the run layer's rule (bot/runs/lifecycle/people.py); without one, only the run's starter.
Decides = Callable[[str, str | None, bool], bool]


@dataclass(frozen=True)
class Prompt:
    about: str  # what the answer shows: approvals | queue | urgent | today
    title: str  # what Slack shows on the prompt
    message: str  # what clicking it sends
    also: tuple[str, ...] = ()  # other ways of asking the same, matched the same way


PROMPTS_TITLE = "Try one of these"
PROMPTS: tuple[Prompt, ...] = (
    Prompt("approvals", "Waiting for my approval", "What's waiting for my approval?",
           ("what is waiting for my approval", "waiting for my approval", "my approvals", "what needs my approval")),
    Prompt("queue", "Show the human queue", "Show the human queue", ("human queue", "show the queue", "queue")),
    Prompt("urgent", "Handle the oldest urgent ticket", "Handle the oldest urgent ticket",
           ("handle the oldest urgent one",)),
    Prompt("today", "What happened today?", "What happened today?", ("what happened today so far", "today")),
)
MAX_PROMPTS = 4
MAX_DRAFTS = 20  # drafts listed in one answer (the rest: App Home)
DRAFT_CHARS = 300  # Slack shows at most four (docs.slack.dev, assistant.threads.setSuggestedPrompts)
URGENT = "urgent"
OPEN = ("open", "pending")  # a ticket not yet solved (the desks' "closed" covers solved and closed)

_MENTION = re.compile(r"<[@!][^>]*>")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_NOT_WORD = re.compile(r"[^\w']+")


def normalise(text: str) -> str:
    """Lower case, mentions gone, punctuation gone, one space between words ("What's" keeps its apostrophe)."""
    text = unicodedata.normalize("NFKC", _MENTION.sub(" ", text or "")).translate(_QUOTES).casefold()
    words = _NOT_WORD.sub(" ", text).replace("'", "").split()
    return " ".join(w for w in words if w)


_BY_TEXT = {normalise(phrase): prompt for prompt in PROMPTS for phrase in (prompt.message, prompt.title, *prompt.also)}


def match(text: str) -> Prompt | None:
    """The suggested prompt `text` is (sent from the messages tab, or typed), if any."""
    return _BY_TEXT.get(normalise(text))


def as_slack(prompts: tuple[Prompt, ...] = PROMPTS) -> list[dict[str, str]]:
    """The prompts as Slack takes them (and as manifest.json declares them)."""
    return [{"title": p.title, "message": p.message} for p in prompts[:MAX_PROMPTS]]


def opened(db: Database, *, user: str, channel: str) -> None:
    """`user` opened the app's Messages tab (their DM `channel` with it): Slack shows them the prompts."""
    with db.session() as session:
        messages_tab.suggested_prompts(session, channel=channel, user=user, title=PROMPTS_TITLE, prompts=as_slack())


def oldest_urgent(session: Session) -> tuple[Ticket | None, Ticket | None]:
    """The oldest unsolved urgent ticket no run works now, and the oldest unsolved urgent ticket at all (it may
    have a live run: the person is told which)."""
    tickets = session.exec(select(Ticket).where(col(Ticket.priority) == URGENT, col(Ticket.status).in_(OPEN))
                           .order_by(col(Ticket.created_at), col(Ticket.id))).all()
    if not tickets:
        return None, None
    busy = set(session.exec(select(Run.ticket_id).where(col(Run.ticket_id).in_([t.id for t in tickets]),
                                                         col(Run.status).in_(LIVE))).all())
    free = next((t for t in tickets if t.id not in busy), None)
    return free, tickets[0]


def urgent_goal(ticket: Ticket) -> str:
    """The goal of the run "Handle the oldest urgent ticket" starts: a request naming the ticket, as if typed."""
    return f"handle {ticket.id} (the oldest open urgent ticket)"


def starter_decides(user: str, started_by: str | None, reminded: bool = False) -> bool:
    return bool(started_by) and user == started_by


def answer(session: Session, prompt: Prompt, *, key: str, channel: str, thread_ts: str | None, user: str,
           decides: Decides | None = None) -> None:
    """Answer `prompt` in the thread: the drafts are listed now (who may decide is known here); the queue and
    today's figures are read when the answer is shown."""
    payload: dict[str, Any] = {"about": prompt.about, "user": user}
    if prompt.about == "approvals":
        drafts = drafts_for(session, user, decides or starter_decides)
        payload.update(drafts=drafts[:MAX_DRAFTS], more=max(0, len(drafts) - MAX_DRAFTS))
    messages_tab.answer(session, key=key, channel=channel, thread_ts=thread_ts, payload=payload)


def drafts_for(session: Session, user: str, decides: Decides) -> list[dict[str, Any]]:
    """The drafts waiting for a decision that `user` may make, what is due first (then priority, then arrival:
    sla.order_key, as App Home lists them), each with its due line and breach time and where its card is."""
    rows = session.exec(select(Approval, Run).join(Run, col(Run.id) == col(Approval.run_id))
                        .where(col(Approval.status) == ApprovalStatus.PENDING,
                               col(Run.status) == RunStatus.AWAITING_APPROVAL).order_by(col(Approval.id))).all()
    mine = [(a, r) for a, r in rows if decides(user, r.started_by, a.reminded_at is not None)]
    tickets = [(a.tool_input or {}).get("ticket_id") or r.ticket_id for a, r in mine]
    dues = _dues(session, tickets)
    found = []
    for (approval, run), ticket_id in zip(mine, tickets, strict=True):
        arguments, origin = approval.tool_input or {}, run.origin or {}
        line, due_at, priority = dues.get(ticket_id or "", (None, None, None))
        found.append(({"approval_id": approval.id, "run_id": run.id, "ticket_id": ticket_id,
                       "message": str(arguments.get("message") or "")[:DRAFT_CHARS],
                       "created_at": approval.created_at.isoformat(), "channel": origin.get("channel"),
                       "thread_ts": origin.get("thread_ts"), "due": line,
                       "due_at": due_at.isoformat() if due_at else None},
                      sla.order_key(due_at, priority, int(approval.id or 0))))
    return [item for item, _ in sorted(found, key=lambda pair: pair[1])]


def _dues(session: Session, ticket_ids: list[str | None]) -> dict[str, tuple[str | None, datetime | None, str | None]]:
    """Each ticket's due line by the database's clock, its breach time and priority, in one query (what
    bot/runs/reports/due.py says for a view, read here without it: reports imports this package)."""
    wanted = sorted({t for t in ticket_ids if t})
    if not wanted:
        return {}
    now = clock.read_now(session)
    rows = session.exec(select(Ticket, Customer.tier).join(Customer, col(Customer.id) == col(Ticket.customer_id),
                                                           isouter=True).where(col(Ticket.id).in_(wanted))).all()
    return {t.id: (sla.line_of(t, tier, now),
                   t.due_at.replace(tzinfo=UTC) if t.due_at and t.due_at.tzinfo is None else t.due_at, t.priority)
            for t, tier in rows}


def urgent(session: Session) -> tuple[str | None, str | None]:
    """The goal of a run on the oldest open urgent ticket no run works yet, or the sentence saying why none."""
    free, oldest = oldest_urgent(session)
    if free is not None:
        return urgent_goal(free), None
    if oldest is None:
        return None, "No open ticket is urgent right now. Mention me with any ticket: `handle KITE-142`."
    live = live_run(session, oldest.id)
    if live is None:  # it finished between the two reads
        return urgent_goal(oldest), None
    return None, "Every open urgent ticket already has a run. The oldest: " + live_run_sentence(live)
