"""A model response is checked before anything in it is acted on. A response that breaks the Messages API's
own shape (a tool call without an id, an id used twice in the turn or earlier in the run, arguments that are
not an object, a block type we do not know) is not appended to the history and none of its tool calls run:
the run escalates as `model_error` with the raw response kept in the step log."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.agent.history import tool_uses

# Every block type a Messages API response may hold (the SDK's ContentBlock union; tests/test_loop.py checks this
# list against the installed SDK, so a new type shows up as a failing test, not as a refused run). The server's
# own tools (server_tool_use and the *_tool_result blocks) run at Anthropic: a paused turn carrying them goes back
# as it came. Written out rather than read from the SDK, so checking a reply does not import it.
KNOWN_BLOCKS = frozenset({
    "text", "tool_use", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result",
    "web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result", "tool_search_tool_result", "container_upload",
})


def earlier_tool_ids(messages: Iterable[dict[str, Any]]) -> set[str]:
    return {str(u.get("id")) for m in messages if m.get("role") == "assistant" for u in tool_uses(m)}


def response_problems(content: Any, earlier_ids: set[str]) -> list[str]:
    """Everything wrong with a response's content; empty when it may be acted on."""
    if not isinstance(content, list):
        return [f"the content is {type(content).__name__}, not a list of blocks"]
    problems: list[str] = []
    seen: set[str] = set()
    for index, block in enumerate(content):
        where = f"block {index}"
        if not isinstance(block, dict):
            problems.append(f"{where} is {type(block).__name__}, not an object")
            continue
        kind = block.get("type")
        if kind not in KNOWN_BLOCKS:
            problems.append(f"{where} has the unknown type {str(kind)[:40]!r}")
        elif kind == "text" and not isinstance(block.get("text"), str):
            problems.append(f"{where} is text without a string")
        elif kind == "tool_use":
            problems.extend(_tool_use_problems(block, where, seen, earlier_ids))
    return problems


def _tool_use_problems(block: dict[str, Any], where: str, seen: set[str], earlier: set[str]) -> list[str]:
    found = []
    tool_id, name = block.get("id"), block.get("name")
    if not isinstance(tool_id, str) or not tool_id.strip():
        found.append(f"{where}: a tool call without an id")
    elif tool_id in seen:
        found.append(f"{where}: the tool call id {tool_id[:60]!r} appears twice in this response")
    elif tool_id in earlier:
        found.append(f"{where}: the tool call id {tool_id[:60]!r} was already used earlier in this run")
    else:
        seen.add(tool_id)
    if not isinstance(name, str) or not name:
        found.append(f"{where}: a tool call without a tool name")
    if not isinstance(block.get("input"), dict):
        found.append(f"{where}: the arguments of {str(name)[:40]} are {type(block.get('input')).__name__}, "
                     "not an object")
    return found
