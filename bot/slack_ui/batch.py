"""The batch card: one fix drafted for many tickets, decided on one message. Each ticket shows its customer
and recipient, its draft shortened with what differs from the approved reference in bold, its sources, and
Approve / Edit… / Reject… (the single card's own buttons, so one decision path serves both); Approve all
decides every draft shown at once. The card ends saying what each ticket got."""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from bot.slack_ui.blocks import APPROVE, APPROVE_ALL, EDIT, REJECT, Message, due_text, who
from bot.slack_ui.cards import approval_value, decision_line
from bot.slack_ui.limits import MAX_BLOCKS_MESSAGE, button, clip, context, escape, header, mrkdwn_section
from bot.slack_ui.notice import ai_notice
from bot.slack_ui.sources import section_link
from bot.vocabulary import ChildState

SAME_RUN_WORDS = 12  # an unchanged stretch longer than this is shown as its ends and "…"
SHOWN_CHARS = 1400  # of a draft on the card (the Edit form holds all of it)


def shortened_diff(draft: str, reference: str) -> str:
    """`draft` as mrkdwn: words not in `reference` in bold, long unchanged stretches cut to their ends; its
    paragraphs kept."""
    ours, theirs = _words(draft), _words(reference)
    parts: list[str] = []
    matcher = difflib.SequenceMatcher(a=theirs, b=ours, autojunk=False)
    for tag, _a1, _a2, b1, b2 in matcher.get_opcodes():
        words = ours[b1:b2]
        if tag == "equal" and sum(w != "\n" for w in words) > SAME_RUN_WORDS:
            words = [*words[:4], "…", *words[-4:]]
        for line, text in enumerate(" ".join(words).split("\n")):
            if line:
                parts.append("\n")
            text = escape(text.strip())
            if text:
                parts.append(text if tag == "equal" or text == "…" else f"*{_bold_safe(text)}*")
    joined = " ".join(parts).replace(" \n ", "\n").replace("\n ", "\n").replace(" \n", "\n")
    return clip(re.sub(r"\n{3,}", "\n\n", joined).strip(), SHOWN_CHARS)


def _words(text: str) -> list[str]:
    """Words, and a "\n" for each paragraph break (so a draft's paragraphs survive on the card)."""
    return [w if w.strip() else "\n" for w in re.findall(r"\S+|\n\s*\n", text)]


def _bold_safe(text: str) -> str:
    return re.sub(r"[*_~`]", "", text)  # a marker inside would end the bold early


def build_batch_card(view: dict[str, Any], *, help_url: str | None = None,
                     ticket_url: str | None = None) -> Message:
    reference = view.get("reference") or {}
    children = view["children"]
    total = len(children) + len(view["skipped"])
    title = f"The fix approved on {view['problem']}, for {total} more ticket{'s' if total != 1 else ''}"
    sources = ", ".join(section_link(anchor, help_url) for anchor, _ in reference.get("sources") or []) or "none"
    lines = [f"{who(view['requested_by'])} asked for drafts of the reply approved on *{escape(view['problem'])}* "
             f"(cites {sources}). Each child read its own ticket and decided whether the fix applies."]
    blocks: list[dict[str, Any]] = [header(title), mrkdwn_section("\n".join(lines))]
    for child in children:
        blocks += _child_blocks(child, reference.get("message") or "", help_url, ticket_url)
    blocks += [*_footer(view), ai_notice()]
    text = escape(f"{title}: " + "; ".join(f"{c['ticket_id']} {_word(c)}" for c in children))
    if len(blocks) > MAX_BLOCKS_MESSAGE:  # 10 children at most, 4 blocks each: never, but never cut a draft
        raise ValueError(f"a batch card needs {len(blocks)} blocks; Slack allows {MAX_BLOCKS_MESSAGE}")
    return text, blocks


def _child_blocks(child: dict[str, Any], reference: str, help_url: str | None,
                  ticket_url: str | None) -> list[dict[str, Any]]:
    ticket = child.get("ticket") or {}
    ticket_id = str(child["ticket_id"])
    name = f"<{ticket_url.format(id=ticket_id)}|{escape(ticket_id)}>" if ticket_url else escape(ticket_id)
    to = ticket.get("requester") or ticket.get("contact")
    head = (f"*{name}* · {escape(ticket.get('customer') or '?')}" + (f" · to {escape(to)}" if to else "")
            + f"\n{escape(ticket.get('title') or '')}" + (f"\n{due_text(child['due'])}" if child.get("due") else ""))
    state, approval = child["state"], child.get("approval")
    blocks = [mrkdwn_section(f"{head}\n{_status(child)}")]
    if approval is not None and state in (ChildState.DRAFT, ChildState.SENDING, ChildState.SENT, ChildState.NOT_SENT):
        blocks.append(mrkdwn_section("> " + shortened_diff(approval["message"], reference).replace("\n", "\n> ")))
        cited = [s for s in (approval.get("sources") or {}).get("cited") or []]
        problems = (approval.get("sources") or {}).get("problems") or []
        line = "Cites " + (", ".join(section_link(s["id"], help_url) for s in cited) if cited else "nothing")
        if problems and state == ChildState.DRAFT:
            line += " · :warning: " + escape("; ".join(problems))
        blocks.append(context(clip(line + " · bold: what differs from the approved reply", 2900)))
    if approval is not None and state == ChildState.DRAFT:
        value = approval_value(approval["id"], approval["fingerprint"])
        blocks.append({"type": "actions", "block_id": f"batch-approval-{approval['id']}", "elements": [
            button("Approve and send", APPROVE, value, "primary"), button("Edit…", EDIT, value),
            button("Reject…", REJECT, value, "danger")]})
    return blocks


def _status(child: dict[str, Any]) -> str:
    state, approval = child["state"], child.get("approval") or {}
    if state == ChildState.WORKING:
        rejected = approval.get("status") == "rejected"
        return (f"_Revising: {who(approval.get('decided_by'))} rejected the draft._" if rejected
                else "_Reading the ticket and deciding…_")
    if state == ChildState.DRAFT:
        return "*Draft waiting for a decision.*"
    if state == ChildState.CALL_WAITS:
        calls = ", ".join(f"`{c}`" for c in child.get("waiting_calls") or []) or "a call"
        return f":hourglass: {calls} waits for a decision on its own card in this thread."
    if state in (ChildState.SENDING, ChildState.SENT, ChildState.NOT_SENT):
        line = decision_line(approval["status"], approval.get("decided_by"), approval.get("decided_at"),
                             approval.get("reason"), approval.get("result"))
        return line + (" Linked as an incident of the problem." if child.get("linked") else "")
    if state == ChildState.DECLINED:
        return f":no_entry_sign: *Declined*: {escape(child.get('declined') or '')}"
    if state == ChildState.FINISHED:
        return f"*No draft*: {escape(clip(child.get('declined') or '', 400))}"
    return f":raising_hand: *Handed to a person* ({escape(str(child['run_status']))}): {escape(clip(child.get('reason') or '', 400))}"


def _word(child: dict[str, Any]) -> str:
    return _WORDS.get(child["state"], "handed to a person")


_WORDS = {ChildState.WORKING: "working", ChildState.DRAFT: "draft waiting", ChildState.SENDING: "sending",
          ChildState.SENT: "replied", ChildState.NOT_SENT: "not sent", ChildState.DECLINED: "declined",
          ChildState.FINISHED: "no draft", ChildState.CALL_WAITS: "a call waits"}


def _footer(view: dict[str, Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if view["skipped"]:
        blocks.append(mrkdwn_section("*Not drafted:* " + "; ".join(
            f"{escape(s['ticket_id'])} ({escape(s['reason'])})" for s in view["skipped"])))
    pending = view["pending"]
    if view["working"]:
        blocks.append(context(f":hourglass_flowing_sand: {view['working']} still working; Approve all appears when "
                              "every ticket has its draft or its reason."))
    elif pending:
        value = json.dumps({"batch_id": view["id"], "approvals": {str(a["id"]): a["fingerprint"] for a in pending}})
        blocks.append({"type": "actions", "block_id": f"batch-{view['id']}", "elements": [
            button(f"Approve all {len(pending)}" if len(pending) > 1 else "Approve the draft", APPROVE_ALL, value,
                   "primary")]})
        blocks.append(context("Approve all sends each draft shown above to its own customer, once."))
    elif view["done"]:
        blocks.append(context("Done: " + "; ".join(f"{escape(c['ticket_id'])} {_word(c)}" for c in view["children"])
                              + (f". {len(view['skipped'])} not drafted." if view["skipped"] else ".")))
    return blocks
