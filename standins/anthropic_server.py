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
specific message, which the SDK raises as ``anthropic.BadRequestError``.

Standard library only.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from standins.local_http import LocalHTTPServer
from standins.prompt_cache import PromptCache

__all__ = [
    "MessagesAPIServer",
    "InvalidRequest",
    "validate_request",
    "text",
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
_ASSISTANT_BLOCK_TYPES = (
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "server_tool_use",
    "web_search_tool_result",
)
_TOOL_RESULT_CONTENT_TYPES = ("text", "image")
_MAX_CACHE_CONTROL = 4


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _tags(types: tuple) -> str:
    return ", ".join(f"'{t}'" for t in types)


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
    elif btype == "thinking":
        if not isinstance(block.get("thinking"), str):
            raise InvalidRequest(f"{loc}.thinking: Field required")
        if not isinstance(block.get("signature"), str):
            raise InvalidRequest(f"{loc}.signature: Field required")
    elif btype == "redacted_thinking":
        if not isinstance(block.get("data"), str):
            raise InvalidRequest(f"{loc}.data: Field required")
    elif btype == "web_search_tool_result" and not isinstance(block.get("tool_use_id"), str):
        raise InvalidRequest(f"{loc}.tool_use_id: Field required")


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
    _check_cache_controls(body)


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
        arrived = time.monotonic()
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
        except InvalidRequest as exc:
            self._send(400, _error_body("invalid_request_error", str(exc)))
            return

        try:
            result = self.api._respond(body)
            if isinstance(result, Drop):
                time.sleep(result.after)
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
        time.sleep(max(0.0, arrived + self.api.latency - time.monotonic()))
        self._send(200, completed)

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
    Without a responder, replies scripted with :meth:`queue` are served FIFO (queued
    replies are also served first when a responder is given, which then acts as the
    fallback).  When nothing is left: 500 ``api_error`` with ``x-should-retry: false``
    so the SDK does not retry.
    """

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0,
                 billing: PromptCache | None = None):
        self.responder = responder
        self.latency = latency
        self.billing = billing
        self.url: str = ""
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._queue: deque = deque()
        self._msg_ids = itertools.count(1)
        self._req_ids = itertools.count(1)

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
        usage = resp.get("usage")
        usage = dict(usage) if isinstance(usage, dict) else {}
        # Rough, deterministic token estimates (~4 chars/token) unless the script gave numbers.
        if "input_tokens" not in usage and self.billing is not None:
            usage.update(self.billing.bill(request).usage())
        if "input_tokens" not in usage:
            prompt = {k: request.get(k) for k in ("system", "tools", "messages") if k in request}
            usage["input_tokens"] = max(1, len(json.dumps(prompt)) // 4)
        if "output_tokens" not in usage:
            usage["output_tokens"] = max(1, len(json.dumps(resp["content"])) // 4)
        usage.setdefault("cache_creation_input_tokens", 0)
        usage.setdefault("cache_read_input_tokens", 0)
        resp["usage"] = usage
        return resp
