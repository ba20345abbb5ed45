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
from dataclasses import dataclass

from sqlmodel import Session, col, select

from bot.db.models import Run, Ticket
from bot.vocabulary import LIVE


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
MAX_PROMPTS = 4  # Slack shows at most four (docs.slack.dev, assistant.threads.setSuggestedPrompts)
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
