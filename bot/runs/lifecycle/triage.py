"""An intake run's triage (tools/triage.py): kept on the run, and written to its own ticket as tags when its rule
asks (`triage_tags`, docs/intake.md).

The checkpoint that stores a step holding a record_triage call stores the last triage on `Run.triage` in the same
transaction. The tags go first, before that transaction (`write_tags`), through the desk's own internal update,
which also removes the ticket's other tags of the four kinds (`KINDS`), so a ticket triaged again carries one tag
of each kind, the latest: the embedded desk changes them at once, in one transaction; Zendesk's are a desk write
its sender delivers (`additional_tags` and `remove_tags` in one PUT, keyed by the run and the call, so a replayed
step finds its row). No other tag is touched. Nothing reaches the customer, and no ticket but the run's own is
touched: the ticket is the run's, never one the model names.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import update
from sqlmodel import Session

from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Run, table_of
from bot.desk import DeskError, open_desk
from tools.base import ToolError
from tools.triage import intents_of, normalise

logger = logging.getLogger(__name__)
TOOL = "record_triage"
TAGS_OPTION = "triage_tags"  # in an intake run's origin when its rule writes the triage to the ticket
KINDS = ("intent_", "lang_", "sentiment_", "suggested_")  # a ticket carries one tag of each: the latest triage's


def recorded(settings: Settings, tool_calls: list[dict[str, Any]]) -> tuple[dict[str, str], str] | None:
    """The last triage a step's calls recorded, as stored, with its call's id; None when none did."""
    found = None
    for call in tool_calls:
        if call.get("name") != TOOL or call.get("is_error") or call.get("status") != "ran":
            continue
        try:
            found = normalise(intents_of(settings), dict(call.get("input") or {})), str(call.get("id"))
        except ToolError:  # the tool refused it too: the model was told and may send it again
            continue
    return found


def tags_of(triage: dict[str, str]) -> tuple[str, ...]:
    """The ticket tags of a triage: intent_billing, lang_de, sentiment_frustrated, suggested_urgent."""
    intent, lang, sentiment, suggested = KINDS
    return (f"{intent}{triage['intent']}", f"{lang}{triage['language']}", f"{sentiment}{triage['sentiment']}",
            f"{suggested}{triage['priority']}")


def write_tags(db: Database, settings: Settings, run: Run, triage: dict[str, str], tool_use_id: str) -> None:
    """The triage as tags on the run's own ticket, when the run's rule asked for them, in place of any earlier
    triage's (the ticket's other intent_*, lang_*, sentiment_* and suggested_* tags go). A desk that refuses (or
    any failure) is logged: the triage stays on the run, the ticket keeps what it had, and the run goes on."""
    if not (run.origin or {}).get(TAGS_OPTION) or run.ticket_id is None:
        return
    try:
        open_desk(settings, db).update(run.ticket_id, status=None, assignee=None, note=None, run_id=run.id,
                                       tool_use_id=f"{tool_use_id}:tags", tags=tags_of(triage), replacing=KINDS)
    except DeskError as exc:
        logger.warning("run %s: the triage was not written to %s as tags: %s", run.id, run.ticket_id, exc)
    except Exception:  # a tag is never worth the step: the run goes on, the log has why
        logger.exception("run %s: the triage was not written to %s as tags", run.id, run.ticket_id)


def store(session: Session, run_id: int, triage: dict[str, str]) -> None:
    """`Run.triage`, in the caller's transaction (the checkpoint's)."""
    runs = table_of(Run)
    session.connection().execute(update(runs).where(runs.c.id == run_id).values(triage=triage))
