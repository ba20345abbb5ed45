"""A local HTTP stand-in for the Anthropic Messages API, for tests.

Point the real SDK at it::

    with MessagesAPIServer() as srv:
        srv.queue(reply(tool_use("search", {"q": "x"})), reply(text("done")))
        client = anthropic.Anthropic(api_key="test-key", base_url=srv.url)
        ...
        assert srv.requests[1]["body"]["messages"][-1]["content"][0]["type"] == "tool_result"

Only ``POST /v1/messages`` (non-streaming) is served.  Each request is checked the
way the real API checks it (message order, content block shapes, tool_use /
tool_result pairing, tool definitions, cache_control limits) *before* the scripted
reply is produced; an invalid request gets a 400 ``invalid_request_error`` with a
specific message, which the SDK raises as ``anthropic.BadRequestError``.  That covers the
request parameters ``thinking`` (``adaptive`` with an optional ``display``, ``enabled`` with a
``budget_tokens`` >= 1024 and below ``max_tokens``, ``disabled``, ``between_tools``) and ``output_config``
(``effort``, ``format``), and assistant messages holding any block type a response can hold (the SDK's
``ContentBlock`` union: text, thinking, redacted_thinking, tool_use, server_tool_use, the server tools'
``*_tool_result`` blocks, container_upload).

Thinking is signed as the API signs it.  Script ``thinking("...")`` / ``redacted_thinking()`` blocks in a
reply; when the server answers, every thinking block without a signature gets one (an HMAC-SHA256 of its
text under a per-server secret, base64) and every redacted_thinking block without ``data`` gets opaque data
the server remembers.  A scripted block that brings its own non-empty signature / data keeps it, and that
value is then accepted back too.  A later request must send each thinking block back with a signature that
verifies for exactly its text, and each redacted block with data the server issued, else 400
(``messages.1.content.0: Invalid `signature` in `thinking` block``).  ``srv.thinking_verified`` counts the
blocks that came back verified::

    srv.queue(reply(thinking("Look it up first."), tool_use("lookup", {"q": "x"})), reply("done"))

Per-minute rate limits, as the API documents them (``MessagesAPIServer(limits=RateLimits(...))``, or
``srv.limits = ...`` later): a token bucket per dimension (requests, input tokens, output tokens) holding
at most the limit, refilled continuously at limit / ``minute_seconds`` per second (60 s unless a test
compresses time), starting full.  A request that arrives (authenticated and valid) needs one request
token, its uncached input tokens (with ``billing``: the ``input_tokens`` + ``cache_creation_input_tokens``
it would be billed, cache reads do not count; without: the stand-in's own estimate, ~4 characters of JSON
of system + tools + messages per token), and an output bucket that is not empty.  If a bucket is short,
the request is answered at once with 429 ``rate_limit_error`` and a ``retry-after`` (whole seconds for a
60 s minute, else seconds with 3 decimals), and nothing is taken; a request needing more input tokens than
the limit can never pass, and its ``retry-after`` is a whole minute.  Otherwise those are taken, the reply
is produced, and its ``usage.output_tokens`` are taken from the output bucket (which may go below zero:
later requests wait until it refills).  Every 200 and 429 (and scripted error reply) carries, for each
configured dimension, ``anthropic-ratelimit-{requests,input-tokens,output-tokens}-{limit,remaining,reset}``
(remaining: whole tokens left; reset: the RFC 3339 UTC time at which the bucket is full again), and
``anthropic-ratelimit-tokens-*`` for the more restrictive of the two token buckets.  ``srv.answered``
counts the 200s, ``srv.rate_limited`` the limiter's 429s.

Standard library only.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import itertools
import json
import math
import os
import re
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

from standins.clock import Clock, RealClock
from standins.local_http import LocalHTTPServer
from standins.prompt_cache import PromptCache, prompt_blocks

__all__ = [
    "MessagesAPIServer",
    "RateLimits",
    "InvalidRequest",
    "validate_request",
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "reply",
    "error",
    "Raw",
    "Drop",
]

Responder = Callable[[dict], dict | tuple]

MESSAGES_PATH = "/v1/messages"

# --------------------------------------------------------------------------
# helpers for scripted replies
# --------------------------------------------------------------------------

_tool_ids = itertools.count(1)


def text(t: str) -> dict:
    """A text content block."""
    return {"type": "text", "text": t}


def thinking(t: str) -> dict:
    """A thinking block with no signature yet: the server signs ``t`` when it answers with it."""
    return {"type": "thinking", "thinking": t, "signature": ""}


def redacted_thinking() -> dict:
    """A redacted_thinking block with no data yet: the server fills in opaque data when it answers."""
    return {"type": "redacted_thinking", "data": ""}


def tool_use(name: str, input: dict, id: str | None = None) -> dict:  # noqa: A002 - mirrors the API field
    """A tool_use content block; ``id`` defaults to a fresh ``toolu_stand_<n>``."""
    if id is None:
        id = f"toolu_stand_{next(_tool_ids)}"  # noqa: A001
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def reply(*blocks: dict | str, stop_reason: str | None = None, usage: dict | None = None) -> dict:
    """A Messages API response body.

    Plain strings are turned into text blocks.  ``stop_reason`` defaults to
    ``"tool_use"`` when a tool_use block is present, else ``"end_turn"`` (pass it
    explicitly to override).  ``usage`` is merged over the server's defaults.
    """
    content = [text(b) if isinstance(b, str) else b for b in blocks]
    if stop_reason is None:
        stop_reason = "tool_use" if any(b.get("type") == "tool_use" for b in content) else "end_turn"
    body: dict = {"content": content, "stop_reason": stop_reason}
    if usage is not None:
        body["usage"] = dict(usage)
    return body


def error(status: int, error_type: str, message: str, headers: dict | None = None) -> tuple:
    """An error reply, e.g. ``error(529, "overloaded_error", "Overloaded")``.

    ``headers`` (optional) are sent with the response, e.g. ``{"retry-after-ms": "10"}``
    to make the SDK retry after 10 ms instead of its exponential backoff.
    """
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return (status, body) if headers is None else (status, body, dict(headers))


def _error_body(error_type: str, message: str) -> dict:
    return {"type": "error", "error": {"type": error_type, "message": message}}


# --------------------------------------------------------------------------
# request validation
# --------------------------------------------------------------------------


class Raw:
    """A scripted answer sent byte for byte (a cut-off JSON body, an HTML error page...)."""

    def __init__(self, body: bytes | str, status: int = 200, content_type: str = "application/json"):
        self.body = body.encode() if isinstance(body, str) else body
        self.status, self.content_type = status, content_type


class Drop:
    """A scripted answer that never comes: the connection is closed (after `after` seconds)."""

    def __init__(self, after: float = 0.0):
        self.after = after


class InvalidRequest(Exception):
    """Raised by :func:`validate_request`; ``str(exc)`` is the API error message."""


_TOOL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")

_USER_BLOCK_TYPES = ("text", "image", "document", "tool_result")
# The results of the server's own tools (they run at Anthropic and come back in the response).
_SERVER_TOOL_RESULT_TYPES = (
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
)
# Every block type a response may hold (the SDK's ContentBlock union): an assistant turn sends them back.
_ASSISTANT_BLOCK_TYPES = (
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "server_tool_use",
    *_SERVER_TOOL_RESULT_TYPES,
    "container_upload",
)
# The fields each thinking block type has; anything else (cache_control included) is refused.
_THINKING_FIELDS = {"thinking": ("thinking", "signature"), "redacted_thinking": ("data",)}
_THINKING_TYPES = ("adaptive", "enabled", "disabled", "between_tools")
_THINKING_KEYS = {
    "adaptive": ("type", "display"),
    "enabled": ("type", "budget_tokens", "display"),
    "disabled": ("type",),
    "between_tools": ("type",),
}
_THINKING_DISPLAYS = ("summarized", "omitted")
_MIN_THINKING_BUDGET = 1024
_EFFORTS = ("low", "medium", "high", "xhigh", "max")
_OUTPUT_CONFIG_KEYS = ("effort", "format")
_TOOL_RESULT_CONTENT_TYPES = ("text", "image")
_MAX_CACHE_CONTROL = 4


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _tags(types: tuple) -> str:
    return ", ".join(f"'{t}'" for t in types)


def _one_of(values: tuple) -> str:
    """``'a', 'b' or 'c'``, as the API's validation messages list literals."""
    quoted = [f"'{v}'" for v in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _require_str(block: dict, key: str, loc: str) -> None:
    if key not in block:
        raise InvalidRequest(f"{loc}.{key}: Field required")
    if not isinstance(block[key], str):
        raise InvalidRequest(f"{loc}.{key}: Input should be a valid string")


def _check_cache_control(cc: Any, loc: str) -> None:
    if not isinstance(cc, dict):
        raise InvalidRequest(f"{loc}: Input should be a valid dictionary or object")
    if cc.get("type") != "ephemeral":
        raise InvalidRequest(f"{loc}.type: Input should be 'ephemeral'")
    for key in cc:
        if key not in ("type", "ttl"):
            raise InvalidRequest(f"{loc}.{key}: Extra inputs are not permitted")
    if "ttl" in cc and cc["ttl"] not in ("5m", "1h"):
        raise InvalidRequest(f"{loc}.ttl: Input should be '5m' or '1h'")


def _check_text_block(block: dict, loc: str) -> None:
    t = block.get("text")
    if not isinstance(t, str):
        raise InvalidRequest(
            f"{loc}.text: Field required"
            if "text" not in block
            else f"{loc}.text: Input should be a valid string"
        )
    if not t.strip():
        raise InvalidRequest(f"{loc}: text content blocks must contain non-whitespace text")


def _check_block(block: Any, loc: str, allowed: tuple, role: str) -> None:
    """Shape checks for one content block of a message."""
    if not isinstance(block, dict):
        raise InvalidRequest(f"{loc}: Input should be a valid dictionary or object")
    if "type" not in block:
        raise InvalidRequest(f"{loc}.type: Field required")
    btype = block["type"]
    if btype not in allowed:
        raise InvalidRequest(
            f"{loc}: Input tag '{btype}' found using 'type' does not match any of the expected tags "
            f"for {role} messages: {_tags(allowed)}"
        )
    if btype == "text":
        _check_text_block(block, loc)
    elif btype in ("image", "document"):
        if not isinstance(block.get("source"), dict):
            raise InvalidRequest(f"{loc}.source: Field required")
    elif btype in ("tool_use", "server_tool_use"):
        if not isinstance(block.get("id"), str) or not block["id"]:
            raise InvalidRequest(f"{loc}.id: Field required (non-empty string)")
        if not isinstance(block.get("name"), str) or not block["name"]:
            raise InvalidRequest(f"{loc}.name: Field required (non-empty string)")
        if not isinstance(block.get("input"), dict):
            raise InvalidRequest(f"{loc}.input: Input should be a valid dictionary")
    elif btype == "tool_result":
        if not isinstance(block.get("tool_use_id"), str) or not block["tool_use_id"]:
            raise InvalidRequest(f"{loc}.tool_use_id: Field required (non-empty string)")
        if "is_error" in block and not isinstance(block["is_error"], bool):
            raise InvalidRequest(f"{loc}.is_error: Input should be a valid boolean")
        content = block.get("content")
        if content is None or isinstance(content, str):
            pass
        elif isinstance(content, list):
            for k, sub in enumerate(content):
                sloc = f"{loc}.content.{k}"
                if not isinstance(sub, dict):
                    raise InvalidRequest(f"{sloc}: Input should be a valid dictionary or object")
                if sub.get("type") not in _TOOL_RESULT_CONTENT_TYPES:
                    raise InvalidRequest(
                        f"{sloc}: Input tag '{sub.get('type')}' found using 'type' does not match any of the "
                        f"expected tags: {_tags(_TOOL_RESULT_CONTENT_TYPES)}"
                    )
                if sub["type"] == "text":
                    _check_text_block(sub, sloc)
                elif not isinstance(sub.get("source"), dict):
                    raise InvalidRequest(f"{sloc}.source: Field required")
        else:
            raise InvalidRequest(f"{loc}.content: Input should be a valid string or a list of content blocks")
    elif btype in _THINKING_FIELDS:
        fields = _THINKING_FIELDS[btype]
        for key in fields:
            _require_str(block, key, loc)
        for key in block:
            if key != "type" and key not in fields:  # cache_control too: thinking cannot be a breakpoint
                raise InvalidRequest(f"{loc}.{btype}.{key}: Extra inputs are not permitted")
    elif btype in _SERVER_TOOL_RESULT_TYPES:
        _require_str(block, "tool_use_id", loc)
        if block.get("content") is None:
            raise InvalidRequest(f"{loc}.content: Field required")
    elif btype == "container_upload":
        _require_str(block, "file_id", loc)


def _blocks(msg: dict) -> list:
    content = msg.get("content")
    return content if isinstance(content, list) else []


def _check_messages(messages: list) -> None:
    # pass 1: roles, order and block shapes
    prev_role = None
    for i, msg in enumerate(messages):
        loc = f"messages.{i}"
        if not isinstance(msg, dict):
            raise InvalidRequest(f"{loc}: Input should be a valid dictionary or object")
        role = msg.get("role")
        if role not in ("user", "assistant"):
            raise InvalidRequest(f"{loc}.role: Input should be 'user' or 'assistant'")
        if i == 0 and role != "user":
            raise InvalidRequest('messages: first message must use the "user" role')
        if role == prev_role:
            raise InvalidRequest(
                f'messages: roles must alternate between "user" and "assistant", '
                f'but found multiple "{role}" roles in a row (messages.{i - 1} and messages.{i})'
            )
        prev_role = role
        if "content" not in msg:
            raise InvalidRequest(f"{loc}.content: Field required")
        content = msg["content"]
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            raise InvalidRequest(f"{loc}.content: Input should be a valid string or a list of content blocks")
        if not content:
            raise InvalidRequest(f"{loc}: all messages must have non-empty content")
        allowed = _USER_BLOCK_TYPES if role == "user" else _ASSISTANT_BLOCK_TYPES
        for j, block in enumerate(content):
            _check_block(block, f"{loc}.content.{j}", allowed, role)

    # pass 2: tool_use / tool_result pairing and id uniqueness
    seen_ids: set = set()
    for i, msg in enumerate(messages):
        if msg["role"] == "assistant":
            for j, block in enumerate(_blocks(msg)):
                if block["type"] in ("tool_use", "server_tool_use"):
                    if block["id"] in seen_ids:
                        raise InvalidRequest(
                            f"messages.{i}.content.{j}: `tool_use` ids must be unique (duplicate id: {block['id']})"
                        )
                    seen_ids.add(block["id"])
            continue

        prev = messages[i - 1] if i > 0 else None
        expected = [b["id"] for b in _blocks(prev) if b["type"] == "tool_use"] if prev else []
        answered: set = set()
        other_seen_at = None
        for j, block in enumerate(_blocks(msg)):
            loc = f"messages.{i}.content.{j}"
            if block["type"] != "tool_result":
                if other_seen_at is None:
                    other_seen_at = j
                continue
            tid = block["tool_use_id"]
            if tid not in expected:
                raise InvalidRequest(
                    f"{loc}: unexpected `tool_use_id` found in `tool_result` blocks: {tid}. "
                    f"Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
            if tid in answered:
                raise InvalidRequest(
                    f"{loc}: each `tool_use` must have a single result. "
                    f"Found multiple `tool_result` blocks with id: {tid}"
                )
            if other_seen_at is not None:
                raise InvalidRequest(
                    f"{loc}: `tool_result` blocks must come before any other content in the user message "
                    f"(found a '{_blocks(msg)[other_seen_at]['type']}' block at messages.{i}.content.{other_seen_at} "
                    f"before this `tool_result` for id: {tid})"
                )
            answered.add(tid)
        missing = [t for t in expected if t not in answered]
        if missing:
            raise InvalidRequest(
                f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                f"in the next message."
            )
    # A trailing assistant message with unanswered tool_use is accepted (prefill).


def _check_system(system: Any) -> None:
    if isinstance(system, str):
        return
    if not isinstance(system, list):
        raise InvalidRequest("system: Input should be a valid string or a list of text blocks")
    for k, block in enumerate(system):
        loc = f"system.{k}"
        if not isinstance(block, dict):
            raise InvalidRequest(f"{loc}: Input should be a valid dictionary or object")
        if block.get("type") != "text":
            raise InvalidRequest(f"{loc}.type: Input should be 'text'")
        _check_text_block(block, loc)


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, list):
        raise InvalidRequest("tools: Input should be a valid list")
    names: set = set()
    for k, tool in enumerate(tools):
        loc = f"tools.{k}"
        if not isinstance(tool, dict):
            raise InvalidRequest(f"{loc}: Input should be a valid dictionary or object")
        name = tool.get("name")
        if not isinstance(name, str):
            raise InvalidRequest(f"{loc}.name: Field required")
        if name in names:
            raise InvalidRequest(f"tools: Tool names must be unique. Duplicate name: {name!r}")
        names.add(name)
        if tool.get("type", "custom") != "custom":
            continue  # server tool (web_search_..., bash_..., ...): not checked further
        if not _TOOL_NAME_RE.match(name):
            raise InvalidRequest(f"{loc}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
        schema = tool.get("input_schema")
        if schema is None:
            raise InvalidRequest(f"{loc}.input_schema: Field required")
        if not isinstance(schema, dict):
            raise InvalidRequest(f"{loc}.input_schema: Input should be a valid dictionary")
        if schema.get("type") != "object":
            raise InvalidRequest(f"{loc}.input_schema.type: Input should be 'object'")


def _check_thinking_config(config: Any, max_tokens: int) -> None:
    if not isinstance(config, dict):
        raise InvalidRequest("thinking: Input should be a valid dictionary or object")
    if "type" not in config:
        raise InvalidRequest("thinking.type: Field required")
    kind = config["type"]
    if kind not in _THINKING_TYPES:
        raise InvalidRequest(f"thinking.type: Input should be {_one_of(_THINKING_TYPES)}")
    for key in config:
        if key not in _THINKING_KEYS[kind]:
            raise InvalidRequest(f"thinking.{kind}.{key}: Extra inputs are not permitted")
    display = config.get("display")
    if display is not None and display not in _THINKING_DISPLAYS:
        raise InvalidRequest(f"thinking.{kind}.display: Input should be {_one_of(_THINKING_DISPLAYS)}")
    if kind != "enabled":
        return
    if "budget_tokens" not in config:
        raise InvalidRequest("thinking.enabled.budget_tokens: Field required")
    budget = config["budget_tokens"]
    if not _is_int(budget):
        raise InvalidRequest("thinking.enabled.budget_tokens: Input should be a valid integer")
    if budget < _MIN_THINKING_BUDGET:
        raise InvalidRequest(
            f"thinking.enabled.budget_tokens: Input should be greater than or equal to {_MIN_THINKING_BUDGET}"
        )
    if max_tokens <= budget:
        raise InvalidRequest(
            f"`max_tokens` must be greater than `thinking.budget_tokens` (max_tokens: {max_tokens}, "
            f"thinking.budget_tokens: {budget}). Please consult our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
        )


def _check_output_config(config: Any) -> None:
    if not isinstance(config, dict):
        raise InvalidRequest("output_config: Input should be a valid dictionary or object")
    for key in config:
        if key not in _OUTPUT_CONFIG_KEYS:
            raise InvalidRequest(f"output_config.{key}: Extra inputs are not permitted")
    effort = config.get("effort")
    if effort is not None and effort not in _EFFORTS:
        raise InvalidRequest(f"output_config.effort: Input should be {_one_of(_EFFORTS)}")


def _check_cache_controls(body: dict) -> None:
    found: list = []  # (loc, value)
    if "cache_control" in body:
        found.append(("cache_control", body["cache_control"]))
    system = body.get("system")
    if isinstance(system, list):
        for k, block in enumerate(system):
            if isinstance(block, dict) and "cache_control" in block:
                found.append((f"system.{k}.cache_control", block["cache_control"]))
    for k, tool in enumerate(body.get("tools") or []):
        if isinstance(tool, dict) and "cache_control" in tool:
            found.append((f"tools.{k}.cache_control", tool["cache_control"]))
    for i, msg in enumerate(body["messages"]):
        for j, block in enumerate(_blocks(msg)):
            loc = f"messages.{i}.content.{j}"
            if "cache_control" in block:
                found.append((f"{loc}.cache_control", block["cache_control"]))
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                for k, sub in enumerate(block["content"]):
                    if "cache_control" in sub:
                        found.append((f"{loc}.content.{k}.cache_control", sub["cache_control"]))
    for loc, cc in found:
        _check_cache_control(cc, loc)
    if len(found) > _MAX_CACHE_CONTROL:
        raise InvalidRequest(
            f"A maximum of {_MAX_CACHE_CONTROL} blocks with cache_control may be provided. Found {len(found)}."
        )


def validate_request(body: Any) -> None:
    """Validate a Messages API request body; raise :class:`InvalidRequest` if the real API would reject it."""
    if not isinstance(body, dict):
        raise InvalidRequest("Request body must be a JSON object")
    if "model" not in body:
        raise InvalidRequest("model: Field required")
    if not isinstance(body["model"], str) or not body["model"]:
        raise InvalidRequest("model: Input should be a valid (non-empty) string")
    if "max_tokens" not in body:
        raise InvalidRequest("max_tokens: Field required")
    if not _is_int(body["max_tokens"]):
        raise InvalidRequest("max_tokens: Input should be a valid integer")
    if body["max_tokens"] < 1:
        raise InvalidRequest("max_tokens: Input should be greater than or equal to 1")
    if "messages" not in body:
        raise InvalidRequest("messages: Field required")
    if not isinstance(body["messages"], list):
        raise InvalidRequest("messages: Input should be a valid list")
    if not body["messages"]:
        raise InvalidRequest("messages: at least one message is required")
    _check_messages(body["messages"])
    if "system" in body:
        _check_system(body["system"])
    if "tools" in body:
        _check_tools(body["tools"])
    if body.get("thinking") is not None:
        _check_thinking_config(body["thinking"], body["max_tokens"])
    if body.get("output_config") is not None:
        _check_output_config(body["output_config"])
    _check_cache_controls(body)


# --------------------------------------------------------------------------
# rate limits
# --------------------------------------------------------------------------

_RATE_LIMITS_DOC = "https://docs.claude.com/en/api/rate-limits"
_EPSILON = 1e-9  # float slack, so that waiting exactly the retry-after is enough


@dataclass(frozen=True)
class RateLimits:
    """Per-minute limits, as an organization has them (``None``: that dimension is not limited).

    ``minute_seconds`` is how long a "minute" lasts, to compress time in tests: with
    ``RateLimits(requests_per_minute=5, minute_seconds=1.0)`` a request token comes back every 0.2 s.
    """

    requests_per_minute: int | None = None
    input_tokens_per_minute: int | None = None
    output_tokens_per_minute: int | None = None
    minute_seconds: float = 60.0

    def __post_init__(self) -> None:
        for name in ("requests_per_minute", "input_tokens_per_minute", "output_tokens_per_minute"):
            value = getattr(self, name)
            if value is not None and (not _is_int(value) or value < 1):
                raise ValueError(f"RateLimits.{name} must be a positive integer or None, got {value!r}")
        if not self.minute_seconds > 0:
            raise ValueError(f"RateLimits.minute_seconds must be positive, got {self.minute_seconds!r}")


class _Bucket:
    """A token bucket: at most ``limit`` tokens, refilled continuously at limit / minute, starting full."""

    def __init__(self, limit: int, minute_seconds: float, now: float):
        self.limit = limit
        self.rate = limit / minute_seconds  # tokens per second
        self.level = float(limit)
        self.updated = now

    def refill(self, now: float) -> None:
        self.level = min(float(self.limit), self.level + max(0.0, now - self.updated) * self.rate)
        self.updated = now

    def has(self, amount: float) -> bool:
        return self.level + _EPSILON >= amount

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` tokens are there; more than the bucket holds: a whole minute."""
        if amount > self.limit:
            return self.limit / self.rate
        return max(0.0, amount - self.level) / self.rate

    @property
    def remaining(self) -> int:
        return max(0, math.floor(self.level + _EPSILON))


def _rfc3339(when: float, whole_seconds: bool) -> str:
    """A wall-clock time as RFC 3339 UTC, rounded up (to the second, or to the millisecond)."""
    if whole_seconds:
        return datetime.fromtimestamp(math.ceil(when), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    stamp = datetime.fromtimestamp(math.ceil(when * 1000) / 1000, UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _retry_after(seconds: float, whole_seconds: bool) -> str:
    if whole_seconds:
        return str(max(1, math.ceil(seconds - _EPSILON)))
    return f"{max(1, math.ceil(seconds * 1000 - _EPSILON)) / 1000:.3f}"


class _Refusal:
    def __init__(self, message: str, headers: dict[str, str]):
        self.message, self.headers = message, headers


class _RateLimiter:
    """The buckets of one :class:`RateLimits`; thread-safe."""

    UNITS = {"requests": "requests", "input-tokens": "input tokens", "output-tokens": "output tokens"}

    def __init__(self, limits: RateLimits, clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time):
        self.limits = limits
        self.clock, self.wall_clock = clock, wall_clock
        self.whole_seconds = limits.minute_seconds == 60.0
        self._lock = threading.Lock()
        now = clock()
        configured = {
            "requests": limits.requests_per_minute,
            "input-tokens": limits.input_tokens_per_minute,
            "output-tokens": limits.output_tokens_per_minute,
        }
        self.buckets = {
            name: _Bucket(limit, limits.minute_seconds, now) for name, limit in configured.items() if limit
        }

    @property
    def counts_input(self) -> bool:
        return "input-tokens" in self.buckets

    def admit(self, input_tokens: int, model: Any) -> _Refusal | None:
        """Take what a request needs and answer None, or take nothing and answer why not."""
        needs = {"requests": 1, "input-tokens": input_tokens, "output-tokens": 1}  # output: only not empty
        with self._lock:
            now = self.clock()
            for bucket in self.buckets.values():
                bucket.refill(now)
            short = [name for name, bucket in self.buckets.items() if not bucket.has(needs[name])]
            if short:
                wait = max(self.buckets[name].wait_for(needs[name]) for name in short)
                headers = self._headers(now)
                headers["retry-after"] = _retry_after(wait, self.whole_seconds)
                return _Refusal(self._message(short[0], model, needs[short[0]]), headers)
            for name in ("requests", "input-tokens"):
                if name in self.buckets:
                    self.buckets[name].level -= needs[name]
        return None

    def debit_output(self, tokens: int) -> None:
        with self._lock:
            bucket = self.buckets.get("output-tokens")
            if bucket is not None:
                bucket.refill(self.clock())
                bucket.level -= tokens

    def headers(self) -> dict[str, str]:
        with self._lock:
            now = self.clock()
            for bucket in self.buckets.values():
                bucket.refill(now)
            return self._headers(now)

    def _headers(self, now: float) -> dict[str, str]:
        wall = self.wall_clock()
        headers: dict[str, str] = {}

        def describe(prefix: str, bucket: _Bucket) -> None:
            full_at = wall + (bucket.limit - bucket.level) / bucket.rate
            headers[f"anthropic-ratelimit-{prefix}-limit"] = str(bucket.limit)
            headers[f"anthropic-ratelimit-{prefix}-remaining"] = str(bucket.remaining)
            headers[f"anthropic-ratelimit-{prefix}-reset"] = _rfc3339(full_at, self.whole_seconds)

        for name, bucket in self.buckets.items():
            describe(name, bucket)
        token_buckets = [self.buckets[n] for n in ("input-tokens", "output-tokens") if n in self.buckets]
        if token_buckets:  # the most restrictive limit currently in effect
            describe("tokens", min(token_buckets, key=lambda b: (b.remaining, b.limit)))
        return headers

    def _message(self, name: str, model: Any, need: int) -> str:
        limit = self.buckets[name].limit
        minute = "" if self.whole_seconds else f" (a minute here lasts {self.limits.minute_seconds:g} s)"
        alone = f" This request alone needs {need:,} {self.UNITS[name]}." if need > limit else ""
        return (
            f"This request would exceed your organization's rate limit of {limit:,} {self.UNITS[name]} per "
            f"minute{minute} (model: {model}).{alone} For details, refer to: {_RATE_LIMITS_DOC}. You can see "
            "the response headers for current usage. Please reduce the prompt length or the maximum tokens "
            "requested, or try again later."
        )


def _estimate_input_tokens(request: dict) -> int:
    """The stand-in's input token estimate without billing: ~4 characters of JSON per token."""
    prompt = {k: request.get(k) for k in ("system", "tools", "messages") if k in request}
    return max(1, len(json.dumps(prompt)) // 4)


def _uncached_tokens(cache: PromptCache, request: dict) -> int:
    """``input_tokens + cache_creation_input_tokens`` the cache would bill ``request`` now, without billing
    it (a refused request writes nothing): every token of the prompt but the longest prefix it would read."""
    blocks = prompt_blocks(request)
    breakpoints = [i for i, b in enumerate(blocks) if b.ttl is not None]
    with cache._lock:
        hit = cache._longest_hit(blocks, breakpoints, cache.clock())
    return sum(b.tokens for b in blocks[hit + 1:])


# --------------------------------------------------------------------------
# server
# --------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server_version = "MessagesAPIStandIn/1.0"
    # HTTP/1.0: one request per connection, so nothing lingers after stop().
    protocol_version = "HTTP/1.0"

    @property
    def api(self) -> MessagesAPIServer:
        return self.server.api  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            data = bytearray()
            while True:
                size_line = self.rfile.readline()
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send(self, status: int, body: dict, extra_headers: dict | None = None) -> None:
        payload = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.send_header("request-id", self.api._next_request_id())
        for key, value in (extra_headers or {}).items():
            self.send_header(key, str(value))
        self.end_headers()
        self.wfile.write(payload)

    def _handle(self) -> None:
        arrived = self.api.clock()
        raw_path = self.path
        path, _, query = raw_path.partition("?")
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self._read_body()
        body: Any
        try:
            body = json.loads(raw) if raw else None
            parse_error = None
        except (ValueError, UnicodeDecodeError) as exc:
            body, parse_error = None, exc
        entry = {"path": path, "query": query, "method": self.command, "headers": headers, "body": body}
        self.api._record(entry)

        if self.command != "POST" or path.rstrip("/") != MESSAGES_PATH:
            self._send(
                404,
                _error_body(
                    "not_found_error",
                    f"Not found: {self.command} {path} (the stand-in only serves POST {MESSAGES_PATH})",
                ),
            )
            return
        api_key = headers.get("x-api-key", "").strip()
        auth = headers.get("authorization", "").strip()
        bearer = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
        if not api_key and not bearer:
            self._send(401, _error_body("authentication_error", "x-api-key header is required"))
            return
        if parse_error is not None:
            self._send(
                400, _error_body("invalid_request_error", f"Invalid JSON in request body: {parse_error}")
            )
            return
        if isinstance(body, dict) and body.get("stream") is True:
            self._send(
                400,
                _error_body(
                    "invalid_request_error", "stream: streaming is not supported by the test stand-in"
                ),
            )
            return
        try:
            validate_request(body)
            self.api._verify_thinking(body)
        except InvalidRequest as exc:
            self._send(400, _error_body("invalid_request_error", str(exc)))
            return

        limiter = self.api._limiter
        if limiter is not None:
            refusal = limiter.admit(self.api._uncached_input_tokens(body) if limiter.counts_input else 0,
                                    body.get("model"))
            if refusal is not None:  # answered at once, nothing taken, nothing scripted consumed
                self.api._count("rate_limited")
                self._send(429, _error_body("rate_limit_error", refusal.message), refusal.headers)
                return

        try:
            result = self.api._respond(body)
            if isinstance(result, Drop):
                self.api.clock.sleep(result.after)
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if isinstance(result, Raw):
                self.send_response(result.status)
                self.send_header("content-type", result.content_type)
                self.send_header("content-length", str(len(result.body)))
                self.end_headers()
                self.wfile.write(result.body)
                return
        except _OutOfScript as exc:
            self._send(500, _error_body("api_error", str(exc)), {"x-should-retry": "false"})
            return
        except Exception:  # responder bug: surface it to the test instead of hanging / retrying
            self._send(
                500,
                _error_body("api_error", "MessagesAPIServer responder raised:\n" + traceback.format_exc()),
                {"x-should-retry": "false"},
            )
            return

        if isinstance(result, tuple):
            if len(result) == 2:
                status, err_body = result
                extra: dict = {}
            elif len(result) == 3:
                status, err_body, extra = result
            else:
                self._send(
                    500,
                    _error_body("api_error", f"bad scripted reply tuple: {result!r}"),
                    {"x-should-retry": "false"},
                )
                return
            if limiter is not None:
                extra = {**limiter.headers(), **extra}
            self._send(int(status), err_body, extra)
            return
        if not isinstance(result, dict):
            self._send(
                500,
                _error_body(
                    "api_error", f"responder must return a dict or a (status, body) tuple, got {result!r}"
                ),
                {"x-should-retry": "false"},
            )
            return
        completed = self.api._complete_response(result, body)
        entry["response"] = copy.deepcopy(completed)  # what was answered, for tests that check round trips
        limit_headers: dict = {}
        if limiter is not None:
            output_tokens = completed["usage"].get("output_tokens")
            if _is_int(output_tokens):
                limiter.debit_output(output_tokens)
            limit_headers = limiter.headers()
        wait = arrived + self.api.latency - self.api.clock()
        if wait > 0:
            self.api.clock.sleep(wait)
        self.api._count("answered")
        self._send(200, completed, limit_headers)

    do_POST = _handle
    do_GET = _handle
    do_PUT = _handle
    do_PATCH = _handle
    do_DELETE = _handle


class _OutOfScript(Exception):
    pass


class MessagesAPIServer(LocalHTTPServer):
    handler_class = _Handler
    """Local stand-in for ``POST /v1/messages``.

    ``responder(request_body) -> dict | (status, body) | (status, body, headers)``.
    ``latency``: seconds from a request's arrival to its answer (the stand-in's own work included).
    ``billing``: a :class:`standins.prompt_cache.PromptCache` that fills ``usage`` the way the API bills
    prompt caching (unless the reply gives its own input token counts).
    ``limits``: per-minute :class:`RateLimits` (also settable later as ``srv.limits``; setting them starts
    full buckets).  ``latency`` applies to 200 answers; the limiter's 429s are answered at once.
    ``clock``: a :class:`standins.clock.Clock` for the buckets, the reset headers, the latency and
    :class:`Drop`'s wait (the real clock by default; tests pass a ``ManualClock`` so that what they check
    does not depend on how fast the machine runs).
    Without a responder, replies scripted with :meth:`queue` are served FIFO (queued
    replies are also served first when a responder is given, which then acts as the
    fallback).  When nothing is left: 500 ``api_error`` with ``x-should-retry: false``
    so the SDK does not retry.

    Counters: ``answered`` (200s with a message), ``rate_limited`` (the limiter's 429s),
    ``thinking_verified`` (thinking and redacted_thinking blocks that came back with a valid
    signature / data).
    """

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0,
                 billing: PromptCache | None = None, limits: RateLimits | None = None,
                 clock: Clock | None = None):
        self.responder = responder
        self.clock: Clock = clock or RealClock()
        self.latency = latency
        self.billing = billing
        self.url: str = ""
        self.requests: list[dict] = []
        self.answered = 0
        self.rate_limited = 0
        self.thinking_verified = 0
        self._lock = threading.Lock()
        self._queue: deque = deque()
        self._msg_ids = itertools.count(1)
        self._req_ids = itertools.count(1)
        self._secret = os.urandom(32)  # signs this server's thinking blocks
        self._scripted_signatures: set[tuple[str, str]] = set()  # (thinking, signature) a reply brought
        self._redacted_data: set[str] = set()  # redacted_thinking data this server answered with
        self._limits: RateLimits | None = None
        self._limiter: _RateLimiter | None = None
        self.limits = limits

    @property
    def limits(self) -> RateLimits | None:
        """The per-minute rate limits in force (None: unlimited)."""
        return self._limits

    @limits.setter
    def limits(self, limits: RateLimits | None) -> None:
        if limits is not None and not isinstance(limits, RateLimits):
            raise TypeError(f"limits must be a RateLimits or None, got {type(limits).__name__}")
        with self._lock:
            self._limits = limits
            self._limiter = (_RateLimiter(limits, self.clock, self.clock.wall) if limits is not None
                             else None)

    # -- scripting --------------------------------------------------------
    def queue(self, *responses: dict | tuple) -> None:
        """Append scripted replies (response dicts or ``(status, body[, headers])`` tuples)."""
        for r in responses:
            if not isinstance(r, (dict, tuple, Raw, Drop)):
                raise TypeError(f"queued reply must be a dict or a tuple, got {type(r).__name__}")
        with self._lock:
            self._queue.extend(responses)

    @property
    def pending(self) -> int:
        """Number of queued replies not yet served."""
        with self._lock:
            return len(self._queue)

    @property
    def message_requests(self) -> list[dict]:
        """Bodies of the recorded requests to /v1/messages (in arrival order)."""
        with self._lock:
            return [r["body"] for r in self.requests if r["path"].rstrip("/") == MESSAGES_PATH]

    # -- internals --------------------------------------------------------
    def _record(self, entry: dict) -> None:
        with self._lock:
            self.requests.append(entry)

    def _next_request_id(self) -> str:
        with self._lock:
            return f"req_test_{next(self._req_ids)}"

    def _count(self, counter: str) -> None:
        with self._lock:
            setattr(self, counter, getattr(self, counter) + 1)

    def _uncached_input_tokens(self, request: dict) -> int:
        """What a request takes from the input-token bucket: its uncached input (cache reads are free)."""
        if self.billing is not None:
            return _uncached_tokens(self.billing, request)
        return _estimate_input_tokens(request)

    # -- thinking signatures ------------------------------------------------
    def _signature(self, thought: str) -> str:
        mac = hmac.new(self._secret, b"thinking\x00" + thought.encode("utf-8"), hashlib.sha256).digest()
        return base64.b64encode(b"\x12\x20" + mac).decode("ascii")

    def _sign_thinking(self, content: Any) -> None:
        """Sign the reply's thinking blocks that have no signature; fill in redacted blocks' data."""
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
                given = block.get("signature")
                if isinstance(given, str) and given:  # scripted with its own: kept, and accepted back
                    with self._lock:
                        self._scripted_signatures.add((block["thinking"], given))
                else:
                    block["signature"] = self._signature(block["thinking"])
            elif block.get("type") == "redacted_thinking":
                data = block.get("data")
                if not (isinstance(data, str) and data):
                    data = block["data"] = base64.b64encode(b"\x12" + os.urandom(95)).decode("ascii")
                with self._lock:
                    self._redacted_data.add(data)

    def _verify_thinking(self, request: dict) -> None:
        """Every thinking block must come back as it was answered; raise InvalidRequest if one did not."""
        verified = 0
        for i, msg in enumerate(request["messages"]):
            if msg["role"] != "assistant":
                continue
            for j, block in enumerate(_blocks(msg)):
                loc = f"messages.{i}.content.{j}"
                if block["type"] == "thinking":
                    thought, given = block["thinking"], block["signature"]
                    expected = self._signature(thought)
                    if not hmac.compare_digest(expected.encode(), given.encode("utf-8")):
                        with self._lock:
                            scripted = (thought, given) in self._scripted_signatures
                        if not scripted:
                            raise InvalidRequest(f"{loc}: Invalid `signature` in `thinking` block")
                    verified += 1
                elif block["type"] == "redacted_thinking":
                    with self._lock:
                        issued = block["data"] in self._redacted_data
                    if not issued:
                        raise InvalidRequest(f"{loc}: Invalid `data` in `redacted_thinking` block")
                    verified += 1
        if verified:
            with self._lock:
                self.thinking_verified += verified

    def _respond(self, body: dict) -> dict | tuple:
        with self._lock:
            scripted = self._queue.popleft() if self._queue else None
            n = len(self.requests)
        if scripted is not None:
            return copy.deepcopy(scripted)
        if self.responder is not None:
            return self.responder(copy.deepcopy(body))
        raise _OutOfScript(
            f"MessagesAPIServer: the scripted responses ran out (request #{n} to {MESSAGES_PATH} had no reply queued)"
        )

    def _complete_response(self, result: dict, request: dict) -> dict:
        resp = copy.deepcopy(result)
        with self._lock:
            msg_n = next(self._msg_ids)
        resp.setdefault("id", f"msg_test_{msg_n}")
        resp.setdefault("type", "message")
        resp.setdefault("role", "assistant")
        resp.setdefault("model", request.get("model"))
        resp.setdefault("content", [])
        resp.setdefault("stop_reason", "end_turn")
        resp.setdefault("stop_sequence", None)
        self._sign_thinking(resp["content"])
        usage = resp.get("usage")
        usage = dict(usage) if isinstance(usage, dict) else {}
        # Rough, deterministic token estimates (~4 chars/token) unless the script gave numbers.
        if "input_tokens" not in usage and self.billing is not None:
            usage.update(self.billing.bill(request).usage())
        if "input_tokens" not in usage:
            usage["input_tokens"] = _estimate_input_tokens(request)
        if "output_tokens" not in usage:
            usage["output_tokens"] = max(1, len(json.dumps(resp["content"])) // 4)
        usage.setdefault("cache_creation_input_tokens", 0)
        usage.setdefault("cache_read_input_tokens", 0)
        resp["usage"] = usage
        return resp
