"""A short, model-free account of what a run learned: for the human queue and for stopped runs."""

from __future__ import annotations

import json
import re
from typing import Any

from bot.agent.history import blocks, text_of, tool_uses
from bot.agent.sent import sent_reply
from tools.tickets import like_hits

ANCHOR = re.compile(r"\[([a-z0-9-]+#\d+)\]")
TICKET = re.compile(r"\bKITE-\d+\b")
MAX_CHARS = 1800


def summarize(messages: list[dict[str, Any]], pending: list[dict[str, Any]] | None = None) -> str:
    results = {b.get("tool_use_id"): b for m in messages if m.get("role") == "user"
               for b in blocks(m) if b.get("type") == "tool_result"}
    lines: list[str] = []
    last_thought = ""
    for message in messages:
        if message.get("role") != "assistant":
            continue
        last_thought = text_of(message.get("content") or []) or last_thought
        for use in tool_uses(message):
            lines.append("- " + _describe(use, results.get(use.get("id"))))
    for call in pending or []:
        lines.append(f"- {call['name']} waiting for a person's approval")
    if not lines:
        lines.append("- nothing yet: the model made no tool calls")
    summary = "What the agent did:\n" + "\n".join(lines)
    if last_thought:
        summary += f"\nLast thing the agent said: {_clip(last_thought, 400)}"
    return _clip(summary, MAX_CHARS)


def _describe(use: dict[str, Any], result: dict[str, Any] | None) -> str:
    name, args = use.get("name", "?"), given if isinstance(given := use.get("input"), dict) else {}
    subject = args.get("ticket_id") or args.get("query") or args.get("reason") or ""
    if args.get("like_ticket_id"):
        subject = f"like {args['like_ticket_id']}" + (f", {subject}" if subject else "")
    head = f"{name}({_clip(str(subject), 60)!r})" if subject else f"{name}()"
    if result is None:
        return f"{head}: not run"
    content = result.get("content")
    body = content if isinstance(content, str) else text_of(content or [])
    if result.get("is_error"):
        return f"{head}: error: {_clip(body, 160)}"
    if name == "search_help":
        found = list(dict.fromkeys(ANCHOR.findall(body)))
        return f"{head}: {', '.join('[' + a + ']' for a in found) or 'no sections'}"
    if name == "get_ticket" and body.lstrip().startswith("{"):
        try:
            ticket = json.loads(body)
            customer = (ticket.get("customer") or {}).get("name", "?")
            return f"{head}: “{ticket.get('title')}” · {customer} · {ticket.get('status')}"
        except ValueError:
            pass  # truncated: fall through to the first line
    if name == "search_tickets":
        tiered = like_hits(body, partial=True)
        if tiered is not None:
            likely = ", ".join(h["id"] for h in tiered if h["tier"] == "likely") or "none"
            worth = ", ".join(h["id"] for h in tiered if h["tier"] == "worth_a_look") or "none"
            return f"{head}: likely the same problem {likely}; worth a look {worth}"
        found = list(dict.fromkeys(TICKET.findall(body)))
        return f"{head}: {', '.join(found) or 'no tickets'}"
    if name == "reply_to_customer":
        return f"{head}: {_sent(args, body)}"
    return f"{head}: {_clip(body.splitlines()[0] if body else '', 120)}"


def _sent(args: dict[str, Any], body: str) -> str:
    """A sent reply as it went out: the desk's first sentence, who let it out (a person's edit named), and the
    sections the sent text cites (the edit's, not the draft's)."""
    reply = sent_reply(args, body)
    said = _clip(body.split(". ", 1)[0].rstrip("."), 100) if body else "sent"
    cites = ", ".join(f"[{a}]" for a in reply.cited) or "no help-center section"
    return f"{said}{f', {reply.how}' if reply.how else ''}; cites {cites}"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" not in text[:limit] else text
    return text if len(text) <= limit else text[: limit - 1] + "…"
