"""The human queue (escalation posts, the /kitebase queue answer, the daily digest) and App Home."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from bot.slack_ui.blocks import CLAIM, CLOSE, RESUME, Message, due_text, mention_ids, slack_time, who
from bot.slack_ui.figures import build_figures_fields, build_figures_table, build_first_replies, build_gaps
from bot.slack_ui.intake import build_intake_home
from bot.slack_ui.limits import (
    MAX_BLOCKS_MESSAGE,
    button,
    clip,
    context,
    escape,
    fit_blocks,
    header,
    mrkdwn_section,
    split_text,
)
from bot.slack_ui.notice import ai_notice, with_notice
from bot.vocabulary import EscalationStatus, stop_words


def build_escalation(*, escalation_id: int, run_id: int, ticket_id: str, kind: str, reason: str, summary: str,
                     thread_link: str | None, status: str = EscalationStatus.OPEN, actor: str | None = None,
                     held: list[dict[str, Any]] | None = None, due: str | None = None) -> Message:
    """`held`: the customer's messages that wait for a person to continue the run (shown before the summary:
    they are what is new). `due`: what is due on the ticket, while the run is in the queue."""
    text = escape(f"Run #{run_id} on {ticket_id} needs a person: {reason}")
    link = f"<{thread_link}|the run's thread>" if thread_link else "the run's thread"
    blocks = [
        header(f"{ticket_id} needs a person"),
        mrkdwn_section(f"*Why:* {mention_ids(escape(_said(stop_words(kind, reason), reason)))}\n"
                       f"Run #{run_id} · see {link}; the full history is in the transcript below."
                       + (f"\n{due_text(due)}" if due else "")),
        *([mrkdwn_section(_held(held))] if held else []),
        *[mrkdwn_section(chunk) for chunk in split_text(escape(summary or "No summary."), 2900)],
    ]
    tail = _escalation_tail(escalation_id, run_id, status, actor)  # never cut: a long summary is cut instead
    return text, [*fit_blocks(blocks, MAX_BLOCKS_MESSAGE - 1 - len(tail)), *tail, ai_notice()]


def _held(held: list[dict[str, Any]]) -> str:
    shown = held[-3:]
    earlier = f"\n_and {len(held) - len(shown)} earlier on the ticket_" if len(held) > len(shown) else ""
    return clip(f":speech_balloon: *The customer wrote again* ({len(held)}); it goes into the run when a person "
                "resumes it:" + earlier + "".join(f"\n>*{escape(m['author'])}:* {escape(m['body'])}" for m in shown),
                2900)


def _escalation_tail(escalation_id: int, run_id: int, status: str, actor: str | None) -> list[dict[str, Any]]:
    value = json.dumps({"escalation_id": escalation_id, "run_id": run_id})
    if status == EscalationStatus.OPEN:
        return [{"type": "actions", "block_id": f"escalation-{escalation_id}", "elements": [
            button("I'll take it", CLAIM, value, "primary"), button("Resume run", RESUME, value),
            button("Close…", CLOSE, value)]}]
    tail = [context(f"*{escape(status.capitalize())}* by {who(actor)}" if actor else status.capitalize())]
    if status == EscalationStatus.CLAIMED:
        tail.append({"type": "actions", "block_id": f"escalation-{escalation_id}", "elements": [
            button("Resume run", RESUME, value), button("Close…", CLOSE, value)]})
    return tail


def build_queue_message(queue: list[dict[str, Any]]) -> Message:
    """The /kitebase queue answer (and the start of the digest)."""
    text, blocks = _queue_blocks(queue)
    return text, with_notice(blocks)


def _queue_blocks(queue: list[dict[str, Any]]) -> Message:
    if not queue:
        return "The human queue is empty.", [mrkdwn_section("The human queue is empty. :tada:")]
    lines = [f"• *{escape(q['ticket_id'] or '-')}* · run #{q['run_id']} · {_why(q)}{_due(q, snapshot=True)} — "
             f"{escape(clip(q['reason'], 200))}" for q in queue]
    return f"{len(queue)} runs in the human queue.", [header(f"Human queue ({len(queue)})"),
                                                      *[mrkdwn_section(c) for c in split_text("\n".join(lines), 2900)]]


def _due(item: dict[str, Any], *, snapshot: bool = False) -> str:
    """" · :alarm_clock: first reply due in 14 min · Enterprise · urgent", or nothing. A `snapshot` (the
    /kitebase queue answer and the digest, never drawn again) shows the breach as a time instead."""
    breach = datetime.fromisoformat(item["due_at"]) if snapshot and item.get("due_at") else None
    if breach is not None and breach.tzinfo is None:
        breach = breach.replace(tzinfo=UTC)  # stored as UTC (SQLite gives it back without its zone)
    return f" · {due_text(item['due'], breach)}" if item.get("due") else ""


def _said(words: str, reason: str | None) -> str:
    """The reason in words, then as recorded (once, when they are the same)."""
    return f"{words}: {reason}" if reason and reason.strip() and reason.strip() != words else words


def _why(item: dict[str, Any]) -> str:
    """Why the run is in the queue, in a lead's words (the same words `kitebase queue` prints)."""
    return mention_ids(escape(stop_words(item["kind"], item.get("reason"))))


def build_digest(day: str, queue: list[dict[str, Any]], figures: dict[str, Any] | None = None,
                 gaps: dict[str, Any] | None = None) -> Message:
    """The open queue, then the last 7 days in one table, then the knowledge gaps."""
    text, blocks = _queue_blocks(queue)
    blocks = [context(f"Daily digest · {escape(day)}"), *blocks]
    extra: list[dict[str, Any]] = []
    if figures is not None:
        extra += [header("The last 7 days"), build_figures_table(figures)]
    if gaps is not None:
        extra += build_gaps(gaps, "Knowledge gaps, last 30 days")
    return f"Daily digest {day}: {text}", [*fit_blocks(blocks, MAX_BLOCKS_MESSAGE - 1 - len(extra)), *extra,
                                           ai_notice()]


def build_home(*, queue: list[dict], approvals: list[dict], runs: list[dict], figures: dict | None = None,
               intake: dict | None = None, intake_problem: str | None = None,
               first_replies: dict | None = None) -> dict:
    blocks: list[dict] = [header("Kitebase ticket agent"),
                          context("Mention me with a ticket: `@Kitebase handle KITE-142`. Or `/kitebase queue`."),
                          ai_notice()]  # at the top: a long Home is rarely read to its end
    blocks.append(header(f"Human queue ({len(queue)})"))
    blocks += [mrkdwn_section(f"*{escape(q['ticket_id'] or '-')}* · run #{q['run_id']} · {_why(q)}"
                              f"{' · claimed by ' + who(q['claimed_by']) if q.get('claimed_by') else ''}{_due(q)}\n"
                              f"{escape(clip(q['reason'], 400))}") for q in queue[:15]] or [context("Nothing waiting.")]
    blocks.append(header(f"Replies waiting for approval ({len(approvals)})"))
    blocks += [mrkdwn_section(f"*{escape(a['ticket_id'])}* · run #{a['run_id']} · drafted {slack_time(a['created_at'])}"
                              f"{_due(a)}\n"
                              + "\n".join("> " + line for line in escape(clip(a['message'], 300)).splitlines()))
               for a in approvals[:15]] or [context("None.")]
    blocks += build_intake_home(intake, intake_problem)  # nothing when intake is off
    blocks += build_first_replies(first_replies)  # today's first replies against their targets
    if figures is not None:
        blocks += [header("The last 7 days"), *build_figures_fields(figures),
                   context("All figures: `kitebase stats`; questions the help center missed: `kitebase gaps`.")]
    blocks.append(header("Latest runs"))
    blocks += [context(f"#{r['run_id']} · *{escape(r['ticket_id'] or '-')}* · {r['status'].replace('_', ' ')} · "
                       f"{escape(clip(r['goal'], 120))}") for r in runs[:15]] or [context("No runs yet.")]
    return {"type": "home", "blocks": fit_blocks(blocks, 100)}
