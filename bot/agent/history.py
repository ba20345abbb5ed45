"""The shape rules of a Messages API conversation: check them before every request, repair after a crash.

Rules (what the API answers with a 400 when broken): the first message is the user's; roles alternate;
every tool_use in an assistant message is answered exactly once by a tool_result in the very next user
message; in that message the tool_result blocks come first; no tool_result answers anything else.
"""

from __future__ import annotations

from typing import Any

from bot.agent.errors import MalformedHistory

Message = dict[str, Any]


def blocks(message: Message) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def tool_uses(message: Message) -> list[dict[str, Any]]:
    return [b for b in blocks(message) if b.get("type") == "tool_use"]


def text_of(content: list[dict[str, Any]] | str) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text" and b.get("text")).strip()


def thinking_of(content: list[dict[str, Any]] | None) -> str:
    """The thinking summary of a reply (the text of its thinking blocks): never a signature, never a redacted
    block's data. Empty when the model did not think, or the display was omitted."""
    return "\n".join(b["thinking"].strip() for b in content or [] if isinstance(b, dict) and b.get("type") == "thinking"
                     and isinstance(b.get("thinking"), str) and b["thinking"].strip())


def problems(messages: list[Message], *, allow_open_tool_use: bool = False) -> list[str]:
    """Every rule the history breaks; empty when it may be sent.

    `allow_open_tool_use` lets the last assistant message hold unanswered tool_use blocks (a stored
    history that waits for its tool results, e.g. during an approval).
    """
    found: list[str] = []
    if not messages:
        return ["the history is empty"]
    if messages[0].get("role") != "user":
        found.append("the first message must be the user's")
    seen_ids: set[str | None] = set()
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            found.append(f"message {i} has role {role!r}")
            continue
        if i and messages[i - 1].get("role") == role:
            found.append(f"messages {i - 1} and {i} are both {role}")
        content = blocks(message)
        if not content:
            found.append(f"message {i} is empty")
        if role == "assistant":
            for use in tool_uses(message):
                if use.get("id") in seen_ids:
                    found.append(f"tool_use id {use.get('id')} appears twice")
                seen_ids.add(use.get("id"))
            found.extend(_answer_problems(messages, i, allow_open_tool_use))
        elif (i == 0 or messages[i - 1].get("role") != "assistant" or not tool_uses(messages[i - 1])) and any(
                b.get("type") == "tool_result" for b in content):
            found.append(f"message {i} has tool_result blocks that answer no tool_use")
    return found


def _answer_problems(messages: list[Message], i: int, allow_open: bool) -> list[str]:
    asked = [u.get("id") for u in tool_uses(messages[i])]
    if not asked:
        return []
    if i + 1 == len(messages):
        return [] if allow_open else [f"tool_use {', '.join(map(str, asked))} in message {i} not answered"]
    answer = blocks(messages[i + 1])
    found = []
    results = [b for b in answer if b.get("type") == "tool_result"]
    leading = 0
    while leading < len(answer) and answer[leading].get("type") == "tool_result":
        leading += 1
    if leading != len(results):
        found.append(f"message {i + 1}: tool_result blocks must come before any other block")
    answered = [r.get("tool_use_id") for r in results]
    for tool_use_id in asked:
        count = answered.count(tool_use_id)
        if count != 1:
            found.append(f"tool_use {tool_use_id} answered {count} times in message {i + 1}")
    for tool_use_id in set(answered) - set(asked):
        found.append(f"message {i + 1} answers unknown tool_use {tool_use_id}")
    return found


def check(messages: list[Message]) -> None:
    """Raise MalformedHistory unless `messages` can be sent as a request."""
    found = problems(messages)
    if not found and messages[-1].get("role") != "user" and not _is_continuation(messages):
        found = ["the last message must be the user's"]
    if found:
        raise MalformedHistory(found)


def _is_continuation(messages: list[Message]) -> bool:
    # After pause_turn the assistant's paused content is sent back as the last message.
    return messages[-1].get("role") == "assistant" and not tool_uses(messages[-1])


def repair(messages: list[Message], note: str) -> tuple[list[Message], list[str]]:
    """Answer every tool_use left unanswered (by a crash or a stop) with an is_error result.

    Never runs a tool. Returns the repaired history and the ids that were answered this way.
    """
    out: list[Message] = []
    repaired: list[str] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        out.append(message)
        asked = [u["id"] for u in tool_uses(message)] if message.get("role") == "assistant" else []
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        if asked and nxt is not None and nxt.get("role") == "user":
            present = blocks(nxt)
            results = [b for b in present if b.get("type") == "tool_result"]
            missing = [t for t in asked if t not in {r.get("tool_use_id") for r in results}]
            if missing:
                rest = [b for b in present if b.get("type") != "tool_result"]
                out.append({"role": "user", "content": results + _filler(missing, note) + rest})
                repaired.extend(missing)
                i += 2
                continue
        elif asked:
            out.append({"role": "user", "content": _filler(asked, note)})
            repaired.extend(asked)
        i += 1
    return out, repaired


def _filler(ids: list[str], note: str) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": tid, "content": note, "is_error": True} for tid in ids]


def append_user_text(messages: list[Message], text: str) -> list[Message]:
    """Add a person's words to the conversation: after any tool results of the last user message."""
    if messages and messages[-1].get("role") == "user":
        last = messages[-1]
        return [*messages[:-1], {"role": "user", "content": [*blocks(last), {"type": "text", "text": text}]}]
    return [*messages, {"role": "user", "content": [{"type": "text", "text": text}]}]
