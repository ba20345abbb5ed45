"""Answers to the Messages tab's suggested prompts (bot/runs/intake/suggestions.py): the drafts a person may
decide on, and today's figures. ("Show the human queue" is queue.build_queue_message.)"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.slack_ui.blocks import Message, due_text, slack_time
from bot.slack_ui.figures import build_figures_table
from bot.slack_ui.limits import clip, context, escape, fit_blocks, header, mrkdwn_section

EXCERPT_CHARS = 200


def build_waiting_for(drafts: list[dict[str, Any]], more: int = 0) -> Message:
    """One section per draft, what is due first: its ticket, run and approval ids, when it was drafted, where its
    card is (`link`, a permalink of the run's thread, when known), what is due (the breach as a time: the answer
    is never drawn again) and the start of the reply."""
    if not drafts:
        text = "Nothing is waiting for your approval."
        return text, [mrkdwn_section(text + " :tada:"),
                      context("Drafts you may decide appear here while their runs wait; App Home lists every draft.")]
    text = f"{len(drafts) + more} draft(s) wait for your approval."
    blocks = [header(f"Waiting for your approval ({len(drafts) + more})")]
    blocks += [mrkdwn_section(_draft_text(d)) for d in drafts]
    if more:
        blocks.append(context(f"… and {more} more: App Home lists them all."))
    blocks.append(context("Approve, edit or reject on each draft's card, in its run's thread."))
    return text, fit_blocks(blocks)


def _draft_text(draft: dict[str, Any]) -> str:
    where = f"<{draft['link']}|the card's thread>" if draft.get("link") else "its run's thread"
    drafted = slack_time(datetime.fromisoformat(draft["created_at"])) if draft.get("created_at") else "earlier"
    excerpt = "\n".join("> " + line for line in escape(clip(draft.get("message") or "", EXCERPT_CHARS)).splitlines())
    breach = datetime.fromisoformat(draft["due_at"]) if draft.get("due_at") else None  # a snapshot: a time, not "in"
    due = f"\n{due_text(draft['due'], breach)}" if draft.get("due") else ""
    return (f"*{escape(str(draft.get('ticket_id') or '-'))}* · run #{draft['run_id']} · draft "
            f"#{draft['approval_id']} · drafted {drafted} · see {where}{due}" + (f"\n{excerpt}" if excerpt else ""))


def build_today(today: dict[str, Any]) -> Message:
    """Today's figures (since midnight UTC), as the digest shows a week's: one table."""
    runs = today["figures"]["runs"]
    text = (f"Today so far: {runs['total']} run(s), {runs['completed']} completed, {runs['escalated']} escalated, "
            f"{runs['open']} still open.")
    return text, [header("Today so far"), context("Since 00:00 UTC · `kitebase stats` for more"),
                  build_figures_table(today["figures"])]
