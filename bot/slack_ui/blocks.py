"""The messages, modals and views the app shows. Each builder returns (text, blocks) or a view dict."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from bot.slack_ui.limits import (
    INPUT_VALUE,
    MESSAGE_TEXT,
    PRIVATE_METADATA,
    button,
    clip,
    context,
    escape,
    fit_blocks,
    header,
    mrkdwn_section,
    quote,
)

APPROVE, EDIT, REJECT = "approve_reply", "edit_reply", "reject_reply"
EDIT_MODAL, REJECT_MODAL, CLOSE_MODAL = "edit_reply_modal", "reject_reply_modal", "close_escalation_modal"
CLAIM, RESUME, CLOSE = "claim_escalation", "resume_run", "close_escalation"
Message = tuple[str, list[dict[str, Any]]]


def slack_time(when: datetime) -> str:
    """A timestamp every reader sees in their own time zone, with a UTC fallback."""
    return f"<!date^{int(when.timestamp())}^{{time}}|{when:%H:%M} UTC>"


def mention_ids(text: str) -> str:
    """Bare Slack user ids (as the agent names approvers) become mentions."""
    return re.sub(r"(?<![<@\w])(U[A-Z0-9]{4,})\b", r"<@\1>", text)


def usage_line(steps: int, tokens: int, cost: float, run_id: int) -> str:
    return f"run #{run_id} · {steps} model call{'s' if steps != 1 else ''} · {tokens:,} tokens · ${cost:.4f}"


# --- the run's thread ------------------------------------------------------------------------------

def build_run_started(run_id: int, ticket_id: str, model: str) -> Message:
    text = f"On it: working {ticket_id} (run #{run_id})."
    return text, [mrkdwn_section(f":hourglass_flowing_sand: On it: working *{ticket_id}* (run #{run_id}, model `{model}`). "
                                 "I'll show my steps here and ask before anything reaches the customer.")]


def build_progress(lines: list[str]) -> Message:
    body = "\n".join(lines) or "…"
    return clip(body, MESSAGE_TEXT), fit_blocks([mrkdwn_section(chunk) for chunk in _chunks(body, 2900)])


def tool_line(call: dict[str, Any]) -> str:
    args = call.get("input") or {}
    subject = args.get("ticket_id") or args.get("query") or args.get("reason") or ""
    icon = {"held": ":raised_hand:", "refused": ":no_entry_sign:"}.get(call.get("status"), ":warning:" if
                                                                       call.get("is_error") else ":white_check_mark:")
    detail = " ".join(str(call.get("result", "")).split())
    return f"{icon} `{call.get('name')}` {escape(clip(str(subject), 80))} → {escape(clip(detail, 140))}"


def thought_line(text: str) -> str:
    return ":thought_balloon: " + escape(clip(" ".join(text.split()), 600))


def build_final(*, run_id: int, status: str, answer: str | None, reason: str | None, steps: int, tokens: int,
                cost: float) -> Message:
    usage = usage_line(steps, tokens, cost, run_id)
    if status == "completed":
        text = clip(answer or "", MESSAGE_TEXT - 200)
        blocks = [mrkdwn_section(chunk) for chunk in _chunks(mention_ids(escape(answer or "")), 2900)]
    else:
        text = f"Stopped ({status}): {reason}"
        blocks = [mrkdwn_section(f":octagonal_sign: *Stopped ({status})*: {escape(reason or '')}\n"
                                 "I've handed this to the human queue with everything I found.")]
    return text, fit_blocks([*blocks, context(usage)])


def _chunks(text: str, size: int) -> list[str]:
    lines, chunks, current = text.splitlines() or [""], [], ""
    for line in lines:
        while len(line) > size:
            chunks.append(current) if current else None
            current = ""
            chunks.append(line[:size])
            line = line[size:]
        if len(current) + len(line) + 1 > size:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current or not chunks:
        chunks.append(current)
    return chunks


# --- approvals -------------------------------------------------------------------------------------

def approval_value(approval_id: int, fingerprint: str) -> str:
    return json.dumps({"approval_id": approval_id, "fingerprint": fingerprint})


def build_approval_request(*, approval_id: int, fingerprint: str, ticket_id: str, customer: str, title: str,
                           message: str, approvers_hint: str) -> Message:
    value = approval_value(approval_id, fingerprint)
    text = f"Draft reply to {customer} on {ticket_id} waits for approval."
    blocks = [
        header(f"Reply to {customer} on {ticket_id}?"),
        mrkdwn_section(f"*{escape(ticket_id)}* · {escape(title)}\n*Customer:* {escape(customer)}"),
        mrkdwn_section(quote(message)),
        {"type": "actions", "block_id": f"approval-{approval_id}", "elements": [
            button("Approve and send", APPROVE, value, "primary"),
            button("Edit…", EDIT, value),
            button("Reject…", REJECT, value, "danger"),
        ]},
        context(f"Nothing is sent until someone decides. {approvers_hint}"),
    ]
    return text, blocks


def build_approval_decided(*, ticket_id: str, customer: str, message: str, status: str, actor: str,
                           when: datetime, reason: str | None = None) -> Message:
    verb = {"approved": "Approved", "edited": "Edited and sent", "rejected": "Rejected", "expired": "Expired"}[status]
    who = f"<@{actor}>" if actor and actor[:1] in "UW" else escape(actor or "nobody")
    line = f"*{verb}* by {who} at {slack_time(when)}"
    if reason:
        line += f": {escape(reason)}"
    text = f"{verb} by {actor} — reply to {customer} on {ticket_id}"
    return text, [mrkdwn_section(f"Reply to *{escape(customer)}* on *{escape(ticket_id)}*"), mrkdwn_section(quote(message)),
                  context(line)]


def _modal(callback_id: str, title: str, submit: str, metadata: dict, blocks: list[dict]) -> dict:
    return {"type": "modal", "callback_id": callback_id, "title": {"type": "plain_text", "text": title[:24]},
            "submit": {"type": "plain_text", "text": submit[:24]}, "close": {"type": "plain_text", "text": "Cancel"},
            "private_metadata": json.dumps(metadata)[:PRIVATE_METADATA], "blocks": blocks}


def build_edit_modal(*, metadata: dict, ticket_id: str, draft: str) -> dict:
    return _modal(EDIT_MODAL, "Edit the reply", "Send", metadata, [
        context(f"Edit the reply for {escape(ticket_id)}; what you submit is sent to the customer."),
        {"type": "input", "block_id": "reply", "label": {"type": "plain_text", "text": "Reply"},
         "element": {"type": "plain_text_input", "action_id": "message", "multiline": True,
                     "initial_value": draft[:INPUT_VALUE], "max_length": INPUT_VALUE}},
    ])


def build_reject_modal(*, metadata: dict, ticket_id: str) -> dict:
    return _modal(REJECT_MODAL, "Reject the draft", "Reject", metadata, [
        context(f"The agent reads your reason and revises the reply for {escape(ticket_id)}."),
        {"type": "input", "block_id": "reason", "label": {"type": "plain_text", "text": "Why?"},
         "element": {"type": "plain_text_input", "action_id": "reason", "multiline": True, "max_length": 2000}},
    ])


def build_close_modal(*, metadata: dict, ticket_id: str) -> dict:
    return _modal(CLOSE_MODAL, "Close the escalation", "Close", metadata, [
        {"type": "input", "block_id": "note", "label": {"type": "plain_text", "text": f"Note on {ticket_id}"},
         "element": {"type": "plain_text_input", "action_id": "note", "multiline": True, "max_length": 2000}},
    ])


# --- the human queue -----------------------------------------------------------------------------

def build_escalation(*, escalation_id: int, run_id: int, ticket_id: str, kind: str, reason: str, summary: str,
                     thread_link: str | None, status: str = "open", actor: str | None = None) -> Message:
    value = json.dumps({"escalation_id": escalation_id, "run_id": run_id})
    text = f"Run #{run_id} on {ticket_id} needs a person: {reason}"
    link = f"<{thread_link}|the run's thread>" if thread_link else "the run's thread"
    blocks = [
        header(f"{ticket_id} needs a person"),
        mrkdwn_section(f"*Why:* {escape(reason)}\n*Kind:* `{kind}` · run #{run_id} · see {link}; the full history is "
                       "in the transcript below."),
        mrkdwn_section(escape(summary or "No summary.")),
    ]
    if status == "open":
        blocks.append({"type": "actions", "block_id": f"escalation-{escalation_id}", "elements": [
            button("I'll take it", CLAIM, value, "primary"), button("Resume run", RESUME, value),
            button("Close…", CLOSE, value)]})
    else:
        who = f"<@{actor}>" if actor and actor[:1] in "UW" else escape(actor or "")
        blocks.append(context(f"*{status.capitalize()}* by {who}" if actor else status.capitalize()))
        if status == "claimed":
            blocks.append({"type": "actions", "block_id": f"escalation-{escalation_id}", "elements": [
                button("Resume run", RESUME, value), button("Close…", CLOSE, value)]})
    return text, fit_blocks(blocks)


# --- App Home ------------------------------------------------------------------------------------

def build_home(*, queue: list[dict], approvals: list[dict], runs: list[dict]) -> dict:
    blocks: list[dict] = [header("Kitebase ticket agent"),
                          context("Mention me with a ticket: `@Kitebase handle KITE-142`. Or `/kitebase queue`.")]
    blocks.append(header(f"Human queue ({len(queue)})"))
    blocks += [mrkdwn_section(f"*{escape(q['ticket_id'] or '-')}* · run #{q['run_id']} · `{q['kind']}`"
                              f"{' · claimed by <@' + q['claimed_by'] + '>' if q.get('claimed_by') else ''}\n"
                              f"{escape(clip(q['reason'], 400))}") for q in queue[:15]] or [context("Nothing waiting.")]
    blocks.append(header(f"Replies waiting for approval ({len(approvals)})"))
    blocks += [mrkdwn_section(f"*{escape(a['ticket_id'])}* · run #{a['run_id']} · drafted {slack_time(a['created_at'])}\n"
                              f"{quote(clip(a['message'], 300))}") for a in approvals[:15]] or [context("None.")]
    blocks.append(header("Latest runs"))
    blocks += [context(f"#{r['run_id']} · *{escape(r['ticket_id'] or '-')}* · {r['status'].replace('_', ' ')} · "
                       f"{escape(clip(r['goal'], 120))}") for r in runs[:15]] or [context("No runs yet.")]
    return {"type": "home", "blocks": fit_blocks(blocks, 100)}


def build_queue_message(queue: list[dict]) -> Message:
    if not queue:
        return "The human queue is empty.", [mrkdwn_section("The human queue is empty. :tada:")]
    lines = [f"• *{escape(q['ticket_id'] or '-')}* · run #{q['run_id']} · `{q['kind']}` — {escape(clip(q['reason'], 200))}"
             for q in queue]
    return f"{len(queue)} runs in the human queue.", fit_blocks([header(f"Human queue ({len(queue)})"),
                                                                 *[mrkdwn_section(c) for c in _chunks("\n".join(lines), 2900)]])
