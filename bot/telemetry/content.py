"""Messages API content in the shapes of the GenAI conventions' opt-in content attributes
(gen-ai-input-messages.json, gen-ai-output-messages.json, gen-ai-system-instructions.json). Used only with
KITEBASE_TRACE_CONTENT=1; the caller serialises through bot/telemetry/spans.content_json (secrets cut)."""

from __future__ import annotations

from typing import Any

# Our stop reasons in the output messages' finish_reason vocabulary (stop | length | content_filter | tool_call);
# gen_ai.response.finish_reasons keeps the provider's own values.
FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_call",
          "refusal": "content_filter"}


def system_instructions(system: str) -> list[dict[str, Any]]:
    return [{"type": "text", "content": system}]


def input_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_message(m.get("role", "user"), m.get("content")) for m in messages]


def output_messages(content: list[dict[str, Any]], stop_reason: str | None) -> list[dict[str, Any]]:
    message = _message("assistant", content)
    message["finish_reason"] = FINISH.get(stop_reason or "", stop_reason or "")
    return [message]


def _message(role: str, content: Any) -> dict[str, Any]:
    parts = [_part(block) for block in _blocks(content)]
    if parts and all(p["type"] == "tool_call_response" for p in parts):
        role = "tool"
    return {"role": role, "parts": parts}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _part(block: dict[str, Any]) -> dict[str, Any]:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "content": block.get("text", "")}
    if kind == "tool_use":
        return {"type": "tool_call", "id": block.get("id"), "name": block.get("name", ""),
                "arguments": block.get("input")}
    if kind == "tool_result":
        return {"type": "tool_call_response", "id": block.get("tool_use_id"), "response": _text(block.get("content"))}
    if kind == "thinking":
        return {"type": "reasoning", "content": block.get("thinking", "")}
    return {"type": str(kind or "unknown")}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in _blocks(content) if b.get("type") == "text")
