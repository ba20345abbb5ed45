"""The approval card and its modals. What the approver sees is exactly what is sent: the whole draft (over as
many sections as it takes, never cut), the ticket, its title and the customer the text goes to, and a warning
when that is not the ticket the run was started for."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from bot.slack_ui.blocks import (
    APPROVE,
    CLOSE_MODAL,
    EDIT,
    EDIT_MODAL,
    REJECT,
    REJECT_MODAL,
    Message,
    due_text,
    slack_time,
    stop_element,
    who,
)
from bot.slack_ui.limits import (
    INPUT_VALUE,
    MAX_BLOCKS_MESSAGE,
    PRIVATE_METADATA,
    button,
    context,
    escape,
    header,
    mrkdwn_section,
    quote_sections,
)
from bot.slack_ui.notice import ai_notice
from bot.slack_ui.sources import build_sources
from bot.vocabulary import SENT, ApprovalStatus

DRAFT_MAX_CHARS = INPUT_VALUE  # the Edit modal holds the whole draft; the reply tool allows no more than this


def approval_value(approval_id: int, fingerprint: str) -> str:
    return json.dumps({"approval_id": approval_id, "fingerprint": fingerprint})


def _recipient(tool: str, arguments: dict[str, Any], target: dict[str, Any] | None) -> tuple[str, str]:
    ticket_id = str(arguments.get("ticket_id") or "?")
    customer = target["customer"] if target else "an unknown customer"
    if tool == "reply_to_customer":
        return f"Reply to {customer} on {ticket_id}?", f"Draft reply to {customer} on {ticket_id}"
    return f"{tool} on {ticket_id} ({customer})?", f"{tool} on {ticket_id} ({customer})"


def _ticket_lines(arguments: dict[str, Any], target: dict[str, Any] | None,
                  run_ticket: dict[str, Any] | None, ticket_url: str | None = None,
                  due: str | None = None, triage: str | None = None) -> list[dict[str, Any]]:
    """The ticket, its customer and files; while a draft waits, what is due on the ticket and the run's triage."""
    ticket_id = str(arguments.get("ticket_id") or "?")
    if target is None:
        return [mrkdwn_section(f":warning: *There is no ticket {escape(ticket_id)}*: this cannot be sent.")]
    contact = f" (contact: {escape(target['contact'])})" if target.get("contact") else ""
    if target.get("requester"):  # a real desk: the ticket's own requester, of this organization
        contact = f" · *Requester:* {escape(target['requester'])}"
    name = f"<{ticket_url.format(id=target['id'])}|{escape(target['id'])}>" if ticket_url else escape(target['id'])
    files = "".join("\n:paperclip: " + (f"<{f['url']}|{escape(f['line'])}>" if _link(f.get("url")) else escape(f["line"]))
                    for f in target.get("files") or [])
    blocks = [mrkdwn_section(f"*{name}* · {escape(target['title'])}\n"
                             f"*Customer:* {escape(target['customer'])}{contact} · status {escape(target['status'])}"
                             + (f"\n*Files from the customer* (not read by the agent):{files}" if files else "")
                             + (f"\n{due_text(due)}" if due else "")
                             + (f"\n:mag: {escape(triage)}" if triage else ""))]
    if run_ticket is not None and run_ticket["id"] != target["id"]:
        blocks.append(mrkdwn_section(
            f":warning: *Not the ticket this run was started for.* The run works *{escape(run_ticket['id'])}* "
            f"({escape(run_ticket['customer'])}); this goes to *{escape(target['customer'])}* on "
            f"*{escape(target['id'])}*. Check the recipient before you approve."))
    return blocks


def _link(url: object) -> bool:
    """A link Slack may show as one: a web address with nothing that would break the `<url|text>` form."""
    return isinstance(url, str) and url.startswith(("https://", "http://")) and not any(c in url for c in "<>| \n")


def _body(tool: str, arguments: dict[str, Any], target: dict[str, Any] | None,
          customer_copy: str | None = None) -> list[dict[str, Any]]:
    if tool == "reply_to_customer":  # the customer's copy: citations as the desk shows them (links or titles)
        return quote_sections(customer_copy if customer_copy is not None else str(arguments.get("message", "")))
    changes = []
    if arguments.get("status"):
        was = target["status"] if target else "?"
        changes.append(f"*Status:* {escape(str(was))} → {escape(str(arguments['status']))}")
    if "assignee" in arguments:
        changes.append(f"*Assignee:* {escape(str(arguments['assignee'] or 'unassigned'))}")
    blocks = [mrkdwn_section("\n".join(changes))] if changes else []
    if arguments.get("note"):
        blocks += [mrkdwn_section("*Internal note:*"), *quote_sections(str(arguments["note"]))]
    return blocks or [mrkdwn_section(f"`{escape(json.dumps(arguments, ensure_ascii=False))[:2800]}`")]


def build_approval_request(*, approval_id: int, fingerprint: str, tool: str, arguments: dict[str, Any],
                           target: dict[str, Any] | None, run_ticket: dict[str, Any] | None,
                           approvers_hint: str, sources: dict[str, Any] | None = None,
                           help_url: str | None = None, ticket_url: str | None = None,
                           stop_run: int | None = None, customer_copy: str | None = None,
                           due: str | None = None, triage: str | None = None) -> Message:
    """A draft waiting for a decision. `stop_run`: the card also offers **Stop run** (the whole run ends, the
    draft is withdrawn; who may: the person who asked and the approvers). `customer_copy`: the reply exactly as
    the customer will read it (Desk.customer_text of the draft); the sources under it keep the codes. `due`: the
    ticket's due line; `triage`: the intake run's triage line (bot/runs/reports/due.py)."""
    title, text = _recipient(tool, arguments, target)
    value = approval_value(approval_id, fingerprint)
    blocks = [header(title), *_ticket_lines(arguments, target, run_ticket, ticket_url, due, triage),
              *_body(tool, arguments, target, customer_copy),
              *build_sources(sources, help_url),
              {"type": "actions", "block_id": f"approval-{approval_id}", "elements": [
                  button("Approve and send" if tool == "reply_to_customer" else "Approve", APPROVE, value, "primary"),
                  *([button("Edit…", EDIT, value)] if tool == "reply_to_customer" else []),
                  button("Reject…", REJECT, value, "danger"),
                  *([stop_element(stop_run, "Stop run")] if stop_run is not None else [])]},
              context(_who_decides(tool, arguments, approvers_hint, customer_copy))]
    return escape(f"{text} waits for approval."), _fit_card(blocks)


def _who_decides(tool: str, arguments: dict[str, Any], approvers_hint: str, customer_copy: str | None = None) -> str:
    """The line over the AI notice: who may decide (the notice already says a person approves every reply)."""
    if tool == "reply_to_customer":
        shown = customer_copy if customer_copy is not None else str(arguments.get("message", ""))
        line = f"The whole reply is above, as the customer will read it ({len(shown):,} characters). {approvers_hint}" \
            if customer_copy is not None else f"The whole draft is above ({len(shown):,} characters). {approvers_hint}"
    else:
        line = f"Nothing changes on the ticket until someone decides. {approvers_hint}"
    return line.strip()


def decision_line(status: str, actor: str | None, when: datetime | None, reason: str | None,
                  result: dict[str, Any] | None) -> str:
    at = f" at {slack_time(when)}" if when else ""
    if status == ApprovalStatus.EXPIRED:
        return f"*Expired*{at}: nobody decided in time; *nothing was sent*."
    if status == ApprovalStatus.WITHDRAWN:
        return f"*Withdrawn*{at}: {who(actor)} stopped the run before anyone decided; *nothing was sent*."
    if status == ApprovalStatus.REJECTED:
        return f"*Rejected* by {who(actor)}{at}: {escape(reason or '')}. Nothing was sent; the agent revises."
    verb = "Edited" if status == ApprovalStatus.EDITED else "Approved"
    if result is None:
        return f"*{verb}* by {who(actor)}{at}; sending…"
    if result.get("is_error"):
        return f"*{verb}* by {who(actor)}{at}, but it was *not sent*: {escape(str(result.get('text', ''))[:500])}"
    return f"*{verb} and sent* by {who(actor)}{at}."


def build_approval_decided(*, tool: str, arguments: dict[str, Any], target: dict[str, Any] | None,
                           run_ticket: dict[str, Any] | None, status: str, actor: str | None,
                           when: datetime | None, reason: str | None, result: dict[str, Any] | None,
                           sources: dict[str, Any] | None = None, help_url: str | None = None,
                           ticket_url: str | None = None, customer_copy: str | None = None) -> Message:
    title, text = _recipient(tool, arguments, target)
    line = decision_line(status, actor, when, reason, result)
    label = "What was sent:" if status in SENT and result and not result.get("is_error") \
        else "The draft (not sent):" if status in (ApprovalStatus.REJECTED, ApprovalStatus.EXPIRED, ApprovalStatus.WITHDRAWN) else "The text:"
    blocks = [header(title.rstrip("?")), *_ticket_lines(arguments, target, run_ticket, ticket_url), mrkdwn_section(label),
              *_body(tool, arguments, target, customer_copy), *build_sources(sources, help_url, warn=False), context(line)]
    plain = line.replace("*", "")
    return escape(f"{text}: ") + plain, _fit_card(blocks)


def _fit_card(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The card and the AI notice under it; never cut (part of a draft must not look like all of it)."""
    if len(blocks) + 1 > MAX_BLOCKS_MESSAGE:
        raise ValueError(f"an approval card needs {len(blocks) + 1} blocks; Slack allows {MAX_BLOCKS_MESSAGE}")
    return [*blocks, ai_notice()]


# --- modals ------------------------------------------------------------------------------------------

def _modal(callback_id: str, title: str, submit: str, metadata: dict, blocks: list[dict]) -> dict:
    private = json.dumps(metadata)
    if len(private) > PRIVATE_METADATA:
        raise ValueError("modal metadata too long")
    return {"type": "modal", "callback_id": callback_id, "title": {"type": "plain_text", "text": title[:24]},
            "submit": {"type": "plain_text", "text": submit[:24]}, "close": {"type": "plain_text", "text": "Cancel"},
            "private_metadata": private, "blocks": blocks}


def build_edit_modal(*, metadata: dict, ticket_id: str, customer: str, draft: str) -> dict:
    if len(draft) > DRAFT_MAX_CHARS:
        raise ValueError(f"a {len(draft):,}-character draft does not fit the Edit modal ({DRAFT_MAX_CHARS:,})")
    return _modal(EDIT_MODAL, "Edit the reply", "Send", metadata, [
        context(f"What you submit is sent to *{escape(customer)}* on *{escape(ticket_id)}*, exactly as written "
                f"(up to {DRAFT_MAX_CHARS:,} characters)."),
        {"type": "input", "block_id": "reply", "label": {"type": "plain_text", "text": "Reply"},
         "element": {"type": "plain_text_input", "action_id": "message", "multiline": True,
                     "initial_value": draft, "max_length": DRAFT_MAX_CHARS}},
    ])


def build_reject_modal(*, metadata: dict, ticket_id: str) -> dict:
    return _modal(REJECT_MODAL, "Reject the draft", "Reject", metadata, [
        context(f"The agent reads your reason and revises the reply for {escape(ticket_id)}."),
        {"type": "input", "block_id": "reason", "label": {"type": "plain_text", "text": "Why?"},
         "element": {"type": "plain_text_input", "action_id": "reason", "multiline": True, "max_length": 2000}},
    ])


def build_close_modal(*, metadata: dict, ticket_id: str) -> dict:
    return _modal(CLOSE_MODAL, "Close the escalation", "Close", metadata, [
        {"type": "input", "block_id": "note", "label": {"type": "plain_text", "text": f"Note on {ticket_id}"[:2000]},
         "element": {"type": "plain_text_input", "action_id": "note", "multiline": True, "max_length": 2000}},
    ])
