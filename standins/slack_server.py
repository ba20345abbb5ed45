"""A local HTTP stand-in for the Slack Web API, for tests.

Point the real SDK at it::

    with SlackAPIServer() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.url + "/api/")
        client.chat_postMessage(channel="C1", text="hi", thread_ts="1700000000.000001")
        assert slack.calls_to("chat.postMessage")[0]["text"] == "hi"

Every call is recorded in ``calls`` (method, parsed args, lower-cased headers, the
answer, HTTP status and arrival ``time.monotonic()``).  Messages, views, reactions,
uploads and streams are kept as state, so tests can assert on what the channel
would now show (``messages``, ``thread()``, ``home_views``, ``uploads``...).

Block Kit is checked against Slack's documented limits before anything is stored;
a violation is answered the way Slack answers it::

    {"ok": false, "error": "invalid_blocks",
     "response_metadata": {"messages": ["[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"]}}

(``invalid_arguments`` for views).  The same checks are available without HTTP as
:func:`message_block_errors` and :func:`view_errors`.

How slack_sdk's ``WebClient`` talks to it (worth knowing when asserting on ``args``):

* Always ``POST``, even for methods the SDK calls with ``http_verb="GET"``
  (users.info, conversations.info, chat.getPermalink...): those arrive form-encoded.
* chat.postMessage / update / postEphemeral / start|append|stopStream and views.* send
  a JSON body (booleans stay booleans); the rest send
  ``application/x-www-form-urlencoded`` (booleans become ``"1"``/``"0"``, numbers become
  strings, ``files`` for files.completeUploadExternal is a JSON *string*).  JSON-valued
  form fields (blocks, attachments, view, files, chunks, metadata) are decoded in the
  recorded ``args`` so assertions look the same either way.
* The token goes in ``Authorization: Bearer ...``; a ``token`` form field is accepted too
  (Slack accepts it for form posts), never in a JSON body.
* files_upload_v2 = files.getUploadURLExternal -> raw-bytes POST to the returned
  ``upload_url`` (no auth header) -> files.completeUploadExternal.
* agents.sessions.setStatus / agents.sessions.rename (docs.slack.dev/ai/agent-sessions) keep
  ``agent_sessions``: ``(channel_id, thread_ts) -> {"status", "title", "initiator_user_id",
  "statuses": [every status set, in order], "titles": [...]}``; ``session_statuses(channel, thread_ts)``
  reads the sequence.  ``sessions_error = "not_allowed"`` (any error) answers both methods with it, as a
  workspace or app that cannot have sessions does; ``agent_session_stopped_subscribed = False`` adds the
  documented ``missing_agent_session_stopped_event_subscription`` warning to setStatus.
* Socket Mode clients call apps.connections.open with the app-level token (``xapp-...``,
  the only method that accepts one, as in Slack); it answers ``socket_mode_url``, which
  the test sets to its WebSocket stand-in (standins/socket_mode_server.py).

Standard library only.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP as _HTTP_POLICY
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from standins.local_http import LocalHTTPServer

__all__ = ["SlackAPIServer", "message_block_errors", "view_errors", "LIMITS"]

# --------------------------------------------------------------------------
# Block Kit limits (https://docs.slack.dev/reference/block-kit/)
# --------------------------------------------------------------------------

LIMITS = {
    "message_blocks": 50,
    "view_blocks": 100,
    "block_id": 255,
    "action_id": 255,
    "section_text": 3000,
    "section_fields": 10,
    "field_text": 2000,
    "header_text": 150,
    "context_elements": 10,
    "actions_elements": 25,
    "context_actions_elements": 5,
    "feedback_button_label": 75,  # accessibility_label of a feedback button
    "table_rows": 100,
    "table_cells": 20,  # per row
    "table_column_settings": 20,
    "button_text": 75,
    "button_value": 2000,
    "url": 3000,
    "input_label": 2000,
    "input_hint": 2000,
    "input_value": 3000,
    "placeholder": 150,
    "option_text": 75,
    "option_value": 150,
    "option_description": 75,
    "select_options": 100,
    "overflow_options_min": 2,
    "overflow_options_max": 5,
    "choice_options": 10,  # checkboxes, radio_buttons
    "confirm_title": 100,
    "confirm_text": 300,
    "confirm_button": 30,
    "image_alt_text": 2000,
    "image_title": 2000,
    "markdown_text": 12000,  # per markdown block, and cumulative per payload
    "message_text": 40000,
    "view_title": 24,
    "view_button": 24,  # submit / close
    "callback_id": 255,
    "external_id": 255,
    "private_metadata": 3000,
    "stream_markdown_text": 12000,
}

MESSAGE_BLOCK_TYPES = frozenset(
    {"section", "context", "actions", "divider", "header", "input", "rich_text", "image", "markdown",
     "context_actions", "file", "video", "table"}
)
TEXT_TYPES = ("plain_text", "mrkdwn")
BUTTON_STYLES = ("primary", "danger")
SELECTS_WITH_OPTIONS = frozenset({"static_select", "multi_static_select"})
CHOICE_ELEMENTS = frozenset({"checkboxes", "radio_buttons"})
INTERACTIVE_ELEMENTS = frozenset(
    {"button", "checkboxes", "radio_buttons", "overflow", "datepicker", "timepicker", "datetimepicker",
     "static_select", "external_select", "users_select", "conversations_select", "channels_select",
     "multi_static_select", "multi_external_select", "multi_users_select", "multi_conversations_select",
     "multi_channels_select", "plain_text_input", "email_text_input", "url_text_input", "number_input",
     "rich_text_input", "file_input", "workflow_button", "feedback_buttons", "icon_button"}
)
CONTEXT_ACTIONS_ELEMENTS = frozenset({"feedback_buttons", "icon_button"})  # only these, and only in context_actions
TEXT_INPUTS = frozenset({"plain_text_input", "email_text_input", "url_text_input", "number_input"})
POST_METHODS = frozenset({"chat.postMessage", "chat.startStream"})  # the per-channel posting limit
APP_TOKEN_METHODS = frozenset({"apps.connections.open"})  # need an app-level (xapp-) token, refuse others
# Methods that act in a channel, and the argument naming it: in a channel the bot is not in, Slack answers
# `not_in_channel` (public), `channel_not_found` (private: the bot cannot see it); in an archived one, a write
# answers `is_archived` (chat.postMessage's documented errors; conversations.info says `is_member`, `is_archived`).
MEMBER_METHODS = {"chat.postMessage": "channel", "chat.update": "channel", "chat.delete": "channel",
                  "chat.postEphemeral": "channel", "chat.startStream": "channel", "chat.appendStream": "channel",
                  "chat.stopStream": "channel", "reactions.add": "channel", "reactions.remove": "channel",
                  "conversations.history": "channel", "conversations.replies": "channel",
                  "agents.sessions.setStatus": "channel_id", "agents.sessions.rename": "channel_id",
                  "files.completeUploadExternal": "channel_id",
                  "assistant.threads.setSuggestedPrompts": "channel_id"}
READ_METHODS = frozenset({"conversations.history", "conversations.replies"})  # an archived channel can be read
JSON_FIELDS = ("blocks", "attachments", "view", "files", "chunks", "metadata", "user_auth_blocks", "prompts")
MAX_SUGGESTED_PROMPTS = 4  # "up to four suggested prompts" (assistant.threads.setSuggestedPrompts)
CHUNK_TYPES = frozenset({"markdown_text", "plan_update", "task_update", "blocks"})
SESSION_STATUSES = ("active", "processing", "suspended", "closed")  # agents.sessions.setStatus: acceptable values
SESSION_TITLE = 200  # characters, agents.sessions.setStatus and .rename
MAX_ERROR_MESSAGES = 20  # response_metadata.messages is cut after this many (plus one "... and N more")


class _Checker:
    """Collects Slack-style ``[ERROR] ... [json-pointer:/path]`` messages."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.block_ids: set[str] = set()
        self.markdown_chars = 0

    def err(self, path: str, msg: str) -> None:
        self.errors.append(f"[ERROR] {msg} [json-pointer:{path}]")

    # -- primitives -------------------------------------------------------
    def string(self, value: Any, path: str, limit: int | None = None, *, required: bool = False,
               min_len: int = 0) -> None:
        if value is None:
            if required:
                self.err(path, "missing required field: " + path.rsplit("/", 1)[-1])
            return
        if not isinstance(value, str):
            self.err(path, "expected string")
            return
        if len(value) < min_len:
            self.err(path, f"must be at least {min_len} character{'s' if min_len != 1 else ''}")
        if limit is not None and len(value) > limit:
            self.err(path, f"must be less than {limit + 1} characters")

    def text(self, obj: Any, path: str, limit: int | None, *, plain_only: bool = False,
             required: bool = True) -> None:
        if obj is None:
            if required:
                self.err(path, "missing required field: " + path.rsplit("/", 1)[-1])
            return
        if not isinstance(obj, dict):
            self.err(path, "expected a text object")
            return
        allowed = ("plain_text",) if plain_only else TEXT_TYPES
        if obj.get("type") not in allowed:
            self.err(path + "/type", f"must be one of {list(allowed)} (got {obj.get('type')!r})")
        self.string(obj.get("text"), path + "/text", limit, required=True, min_len=1)

    def items(self, value: Any, path: str, *, lo: int = 0, hi: int | None = None, required: bool = True) -> list:
        if value is None:
            if required:
                self.err(path, "missing required field: " + path.rsplit("/", 1)[-1])
            return []
        if not isinstance(value, list):
            self.err(path, "expected array")
            return []
        if len(value) < lo:
            self.err(path, f"must provide at least {lo} item{'s' if lo != 1 else ''}")
        if hi is not None and len(value) > hi:
            self.err(path, f"no more than {hi} items allowed")
        return value

    # -- composition objects ----------------------------------------------
    def confirm(self, obj: Any, path: str) -> None:
        if obj is None:
            return
        if not isinstance(obj, dict):
            self.err(path, "expected object")
            return
        self.text(obj.get("title"), path + "/title", LIMITS["confirm_title"], plain_only=True)
        self.text(obj.get("text"), path + "/text", LIMITS["confirm_text"])
        self.text(obj.get("confirm"), path + "/confirm", LIMITS["confirm_button"], plain_only=True)
        self.text(obj.get("deny"), path + "/deny", LIMITS["confirm_button"], plain_only=True)
        if "style" in obj and obj["style"] not in BUTTON_STYLES:
            self.err(path + "/style", f"must be one of {list(BUTTON_STYLES)}")

    def option(self, obj: Any, path: str, *, plain_only: bool) -> None:
        if not isinstance(obj, dict):
            self.err(path, "expected object")
            return
        self.text(obj.get("text"), path + "/text", LIMITS["option_text"], plain_only=plain_only)
        self.string(obj.get("value"), path + "/value", LIMITS["option_value"], required=True)
        self.text(obj.get("description"), path + "/description", LIMITS["option_description"],
                  plain_only=plain_only, required=False)
        self.string(obj.get("url"), path + "/url", LIMITS["url"])

    # -- elements ---------------------------------------------------------
    def image_element(self, el: dict, path: str) -> None:
        if "slack_file" not in el:
            self.string(el.get("image_url"), path + "/image_url", LIMITS["url"], required=True, min_len=1)
        self.string(el.get("alt_text"), path + "/alt_text", LIMITS["image_alt_text"], required=True)

    def feedback_button(self, obj: Any, path: str) -> None:
        if not isinstance(obj, dict):
            self.err(path, "missing required field: " + path.rsplit("/", 1)[-1])
            return
        self.text(obj.get("text"), path + "/text", LIMITS["button_text"], plain_only=True)
        self.string(obj.get("value"), path + "/value", LIMITS["button_value"], required=True)
        self.string(obj.get("accessibility_label"), path + "/accessibility_label", LIMITS["feedback_button_label"])

    def element(self, el: Any, path: str, *, allow_image: bool = False, in_context_actions: bool = False) -> None:
        if not isinstance(el, dict):
            self.err(path, "expected object")
            return
        t = el.get("type")
        if t == "image" and allow_image:
            self.image_element(el, path)
            return
        if t not in INTERACTIVE_ELEMENTS:
            self.err(path + "/type", f"unsupported element type: {t!r}")
            return
        if t in CONTEXT_ACTIONS_ELEMENTS and not in_context_actions:
            self.err(path + "/type", f"{t} can only be used inside a context_actions block")
            return
        if t == "feedback_buttons":
            self.string(el.get("action_id"), path + "/action_id", LIMITS["action_id"], min_len=1)
            self.feedback_button(el.get("positive_button"), path + "/positive_button")
            self.feedback_button(el.get("negative_button"), path + "/negative_button")
            return
        self.string(el.get("action_id"), path + "/action_id", LIMITS["action_id"], min_len=1)
        self.confirm(el.get("confirm"), path + "/confirm")
        if "placeholder" in el:
            self.text(el.get("placeholder"), path + "/placeholder", LIMITS["placeholder"], plain_only=True)
        if t == "button":
            self.text(el.get("text"), path + "/text", LIMITS["button_text"], plain_only=True)
            self.string(el.get("value"), path + "/value", LIMITS["button_value"])
            self.string(el.get("url"), path + "/url", LIMITS["url"])
            if "style" in el and el["style"] not in BUTTON_STYLES:
                self.err(path + "/style", f"must be one of {list(BUTTON_STYLES)} (got {el['style']!r})")
        elif t == "workflow_button":
            self.text(el.get("text"), path + "/text", LIMITS["button_text"], plain_only=True)
        elif t in SELECTS_WITH_OPTIONS:
            has_groups = "option_groups" in el
            options = self.items(el.get("options"), path + "/options", lo=1, hi=LIMITS["select_options"],
                                 required=not has_groups)
            for i, opt in enumerate(options):
                self.option(opt, f"{path}/options/{i}", plain_only=True)
            groups = self.items(el.get("option_groups"), path + "/option_groups", lo=1,
                                hi=LIMITS["select_options"], required=False)
            for g, group in enumerate(groups):
                if not isinstance(group, dict):
                    self.err(f"{path}/option_groups/{g}", "expected object")
                    continue
                self.text(group.get("label"), f"{path}/option_groups/{g}/label", LIMITS["option_text"],
                          plain_only=True)
                for i, opt in enumerate(self.items(group.get("options"), f"{path}/option_groups/{g}/options",
                                                   lo=1, hi=LIMITS["select_options"])):
                    self.option(opt, f"{path}/option_groups/{g}/options/{i}", plain_only=True)
        elif t == "overflow":
            options = self.items(el.get("options"), path + "/options", lo=LIMITS["overflow_options_min"],
                                 hi=LIMITS["overflow_options_max"])
            for i, opt in enumerate(options):
                self.option(opt, f"{path}/options/{i}", plain_only=True)
        elif t in CHOICE_ELEMENTS:
            options = self.items(el.get("options"), path + "/options", lo=1, hi=LIMITS["choice_options"])
            for i, opt in enumerate(options):
                self.option(opt, f"{path}/options/{i}", plain_only=False)
        elif t in TEXT_INPUTS:
            self.string(el.get("initial_value"), path + "/initial_value", LIMITS["input_value"])
            for key in ("max_length", "min_length"):
                if key in el:
                    v = el[key]
                    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                        self.err(f"{path}/{key}", "expected a non-negative integer")
                    elif v > LIMITS["input_value"]:
                        self.err(f"{path}/{key}", f"must be less than {LIMITS['input_value'] + 1}")

    # -- blocks -----------------------------------------------------------
    def blocks(self, blocks: Any, path: str, *, limit: int) -> None:
        items = self.items(blocks, path, hi=limit)
        for i, block in enumerate(items):
            self.block(block, f"{path}/{i}")

    def block(self, block: Any, path: str) -> None:
        if not isinstance(block, dict):
            self.err(path, "expected object")
            return
        t = block.get("type")
        if t not in MESSAGE_BLOCK_TYPES:
            self.err(path + "/type", f"unsupported block type: {t!r}")
            return
        if "block_id" in block:
            bid = block["block_id"]
            self.string(bid, path + "/block_id", LIMITS["block_id"], min_len=1)
            if isinstance(bid, str):
                if bid in self.block_ids:
                    self.err(path + "/block_id", f"duplicate block_id: {bid!r}")
                self.block_ids.add(bid)
        getattr(self, "_block_" + t, lambda b, p: None)(block, path)

    def _block_section(self, b: dict, path: str) -> None:
        if b.get("text") is None and b.get("fields") is None:
            self.err(path, "must provide either text or fields")
        if b.get("text") is not None:
            self.text(b["text"], path + "/text", LIMITS["section_text"])
        if b.get("fields") is not None:
            fields = self.items(b["fields"], path + "/fields", lo=1, hi=LIMITS["section_fields"])
            for i, f in enumerate(fields):
                self.text(f, f"{path}/fields/{i}", LIMITS["field_text"])
        if b.get("accessory") is not None:
            self.element(b["accessory"], path + "/accessory", allow_image=True)

    def _block_header(self, b: dict, path: str) -> None:
        self.text(b.get("text"), path + "/text", LIMITS["header_text"], plain_only=True)

    def _block_context(self, b: dict, path: str) -> None:
        elements = self.items(b.get("elements"), path + "/elements", lo=1, hi=LIMITS["context_elements"])
        for i, el in enumerate(elements):
            p = f"{path}/elements/{i}"
            if isinstance(el, dict) and el.get("type") == "image":
                self.image_element(el, p)
            else:
                self.text(el, p, None)

    def _block_actions(self, b: dict, path: str) -> None:
        elements = self.items(b.get("elements"), path + "/elements", lo=1, hi=LIMITS["actions_elements"])
        seen: set[str] = set()
        for i, el in enumerate(elements):
            self.element(el, f"{path}/elements/{i}")
            aid = el.get("action_id") if isinstance(el, dict) else None
            if isinstance(aid, str):
                if aid in seen:
                    self.err(f"{path}/elements/{i}/action_id", f"duplicate action_id: {aid!r}")
                seen.add(aid)

    def _block_context_actions(self, b: dict, path: str) -> None:
        elements = self.items(b.get("elements"), path + "/elements", lo=1, hi=LIMITS["context_actions_elements"])
        for i, el in enumerate(elements):
            if isinstance(el, dict) and el.get("type") not in CONTEXT_ACTIONS_ELEMENTS:
                self.err(f"{path}/elements/{i}/type", f"must be one of {sorted(CONTEXT_ACTIONS_ELEMENTS)} "
                                                      f"(got {el.get('type')!r})")
                continue
            self.element(el, f"{path}/elements/{i}", in_context_actions=True)

    def _block_table(self, b: dict, path: str) -> None:
        rows = self.items(b.get("rows"), path + "/rows", lo=1, hi=LIMITS["table_rows"])
        for r, row in enumerate(rows):
            for c, cell in enumerate(self.items(row, f"{path}/rows/{r}", lo=1, hi=LIMITS["table_cells"])):
                self.table_cell(cell, f"{path}/rows/{r}/{c}")
        settings = self.items(b.get("column_settings"), path + "/column_settings", hi=LIMITS["table_column_settings"],
                              required=False)
        for i, setting in enumerate(settings):
            if setting is None:
                continue
            if not isinstance(setting, dict):
                self.err(f"{path}/column_settings/{i}", "expected object or null")
                continue
            if "align" in setting and setting["align"] not in ("left", "center", "right"):
                self.err(f"{path}/column_settings/{i}/align", "must be one of ['left', 'center', 'right']")
            if "is_wrapped" in setting and not isinstance(setting["is_wrapped"], bool):
                self.err(f"{path}/column_settings/{i}/is_wrapped", "expected boolean")

    def table_cell(self, cell: Any, path: str) -> None:
        if not isinstance(cell, dict) or cell.get("type") not in ("raw_text", "rich_text"):
            self.err(path, "a table cell is a raw_text or rich_text object")
        elif cell["type"] == "raw_text":
            self.string(cell.get("text"), path + "/text", required=True)
        else:
            self.items(cell.get("elements"), path + "/elements")

    def _block_input(self, b: dict, path: str) -> None:
        self.text(b.get("label"), path + "/label", LIMITS["input_label"], plain_only=True)
        self.text(b.get("hint"), path + "/hint", LIMITS["input_hint"], plain_only=True, required=False)
        if b.get("element") is None:
            self.err(path + "/element", "missing required field: element")
        else:
            self.element(b["element"], path + "/element")

    def _block_image(self, b: dict, path: str) -> None:
        self.image_element(b, path)
        self.text(b.get("title"), path + "/title", LIMITS["image_title"], plain_only=True, required=False)

    def _block_markdown(self, b: dict, path: str) -> None:
        self.string(b.get("text"), path + "/text", LIMITS["markdown_text"], required=True, min_len=1)
        if isinstance(b.get("text"), str):
            before = self.markdown_chars
            self.markdown_chars += len(b["text"])
            if before <= LIMITS["markdown_text"] < self.markdown_chars and len(b["text"]) <= LIMITS["markdown_text"]:
                self.err(path + "/text", f"markdown blocks may hold at most {LIMITS['markdown_text']} characters "
                                         "in total per payload")

    def _block_rich_text(self, b: dict, path: str) -> None:
        self.items(b.get("elements"), path + "/elements")


def message_block_errors(blocks: Any, *, limit: int = LIMITS["message_blocks"], path: str = "/blocks") -> list[str]:
    """Slack-style error messages for a message's ``blocks`` (empty list: valid)."""
    c = _Checker()
    c.blocks(blocks, path, limit=limit)
    return c.errors


def view_errors(view: Any, allowed_types: tuple[str, ...] = ("modal", "home")) -> list[str]:
    """Slack-style error messages for a view payload (empty list: valid)."""
    c = _Checker()
    path = "/view"
    if not isinstance(view, dict):
        c.err(path, "expected object")
        return c.errors
    vtype = view.get("type")
    if vtype not in allowed_types:
        c.err(path + "/type", f"must be one of {list(allowed_types)} (got {vtype!r})")
    if vtype == "modal":
        c.text(view.get("title"), path + "/title", LIMITS["view_title"], plain_only=True)
        for key in ("submit", "close"):
            c.text(view.get(key), f"{path}/{key}", LIMITS["view_button"], plain_only=True, required=False)
    c.string(view.get("callback_id"), path + "/callback_id", LIMITS["callback_id"])
    c.string(view.get("external_id"), path + "/external_id", LIMITS["external_id"])
    c.string(view.get("private_metadata"), path + "/private_metadata", LIMITS["private_metadata"])
    c.blocks(view.get("blocks"), path + "/blocks", limit=LIMITS["view_blocks"])
    blocks = view.get("blocks") if isinstance(view.get("blocks"), list) else []
    if vtype == "modal" and view.get("submit") is None and any(
        isinstance(b, dict) and b.get("type") == "input" for b in blocks
    ):
        c.err(path, "must provide a submit property when using input blocks")
    return c.errors


# --------------------------------------------------------------------------
# the server
# --------------------------------------------------------------------------


class _SlackError(Exception):
    def __init__(self, error: str, messages: list[str] | None = None, status: int = 200, **extra: Any):
        super().__init__(error)
        self.error = error
        self.status = status
        self.extra = dict(extra)
        if messages:
            shown = list(messages[:MAX_ERROR_MESSAGES])
            if len(messages) > MAX_ERROR_MESSAGES:
                shown.append(f"[ERROR] ... and {len(messages) - MAX_ERROR_MESSAGES} more")
            self.extra["response_metadata"] = {"messages": shown}


def _missing(field: str) -> _SlackError:
    return _SlackError("invalid_arguments", [f"[ERROR] missing required field: {field}"])


def _ts_key(ts: str) -> tuple[int, int]:
    sec, _, frac = str(ts).partition(".")
    try:
        return int(sec), int((frac + "000000")[:6])
    except ValueError:
        return 0, 0


class _Handler(BaseHTTPRequestHandler):
    server_version = "SlackAPIStandIn/1.0"
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers after stop()

    @property
    def api(self) -> SlackAPIServer:
        return self.server.api  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send(self, status: int, payload: bytes, content_type: str, extra_headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for key, value in (extra_headers or {}).items():
            self.send_header(key, str(value))
        self.end_headers()
        self.wfile.write(payload)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self._read_body()
        if parts.path.startswith("/upload/"):
            status, text = self.api._receive_upload(parts.path, raw, headers)
            self._send(status, text.encode("utf-8"), "text/plain; charset=utf-8")
            return
        if not parts.path.startswith("/api/"):
            self._send(404, b'{"ok": false, "error": "not_found"}', "application/json; charset=utf-8")
            return
        method = parts.path[len("/api/"):].strip("/")
        status, body, extra = self.api._handle(method, self.command, parts.query, raw, headers)
        self._send(status, json.dumps(body).encode("utf-8"), "application/json; charset=utf-8", extra)

    do_POST = _handle
    do_GET = _handle


class SlackAPIServer(LocalHTTPServer):
    handler_class = _Handler
    """Local stand-in for ``https://slack.com/api/<method>`` (see the module docstring).

    State (all guarded by one lock; read it after :meth:`wait_for` or once calls returned):

    * ``calls``: every API call, ``{"method", "args", "headers", "response", "status", "time", "http_method"}``
    * ``warnings``: ``(method, warning)`` pairs, e.g. ``("chat.postMessage", "missing_text_in_blocks")``
    * ``messages``: ``(channel, ts) -> message`` (text, blocks, thread_ts, user, ...; streams add
      ``markdown_text``, ``chunks`` and ``stream_state``; shared uploads add ``files``)
    * ``ephemerals``, ``deleted``, ``reactions``, ``views`` (id -> view), ``home_views`` (user -> view), ``uploads``
    * ``suggested_prompts``: what assistant.threads.setSuggestedPrompts set, by channel (``agent_view`` False
      plays a legacy assistant app, whose prompts are set per thread)
    * ``usergroups``, ``users``, ``channels``: fixtures the read methods serve (users/channels are optional
      overrides; any ``U``/``W`` user id and ``C``/``G``/``D`` channel id is answered with a default)
    * ``not_joined``, ``archived``: the bot is in every channel unless :meth:`remove_bot` took it out (then posts
      there answer ``not_in_channel``, or ``channel_not_found`` for a private ``G`` channel or one whose
      ``channels`` entry says ``is_private``); :meth:`invite` puts it back and returns the
      ``member_joined_channel`` event Slack sends the app (the harness delivers it over signed HTTP)
    """

    BOT_ID = "B0BOT"
    APP_ID = "A0APP"

    def __init__(self, bot_user_id: str = "U0BOT", team_id: str = "T0TEAM"):
        self.bot_user_id = bot_user_id
        self.team_id = team_id
        self.url: str = ""
        self.streaming_supported: bool = True
        self.socket_mode_url: str | None = None  # what apps.connections.open answers (a ws:// URL)
        self.calls: list[dict] = []
        self.warnings: list[tuple[str, str]] = []
        self.messages: dict[tuple[str, str], dict] = {}
        self.ephemerals: list[dict] = []
        self.deleted: list[dict] = []
        self.reactions: dict[tuple[str, str], list[str]] = {}
        self.views: dict[str, dict] = {}
        self.home_views: dict[str, dict] = {}
        self.uploads: list[dict] = []
        self.usergroups: dict[str, list[str]] = {}
        self.users: dict[str, dict] = {}
        self.channels: dict[str, dict] = {}
        self.not_joined: set[str] = set()  # channels the bot is not a member of (every other one it is)
        self.archived: set[str] = set()
        self.agent_sessions: dict[tuple[str, str], dict] = {}
        self.sessions_error: str | None = None  # e.g. "not_allowed": this workspace/app cannot have sessions
        self.agent_session_stopped_subscribed = True
        self.agent_view: bool = True  # the app is an agent (manifest agent_view), not a legacy assistant
        self.suggested_prompts: dict[str, dict] = {}  # channel (a legacy assistant's "channel:thread_ts") -> set
        self._pending_files: dict[str, dict] = {}
        self._injected: dict[str, deque] = {}
        self._outage: tuple[float, int, str] | None = None  # (until, status, error) for every method
        self.post_interval: float | None = None  # seconds between posts per channel, as Slack enforces (~1 s)
        self.post_burst: int = 3  # posts allowed in a burst before the per-channel limit bites
        self._post_tat: dict[str, float] = {}
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._last_ts_micros = 0
        self._ts_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._methods: dict[str, Callable[[dict], dict]] = {
            "auth.test": self._auth_test,
            "apps.connections.open": self._apps_connections_open,
            "chat.postMessage": self._chat_post_message,
            "chat.update": self._chat_update,
            "chat.postEphemeral": self._chat_post_ephemeral,
            "chat.delete": self._chat_delete,
            "chat.getPermalink": self._chat_get_permalink,
            "chat.startStream": self._chat_start_stream,
            "chat.appendStream": self._chat_append_stream,
            "chat.stopStream": self._chat_stop_stream,
            "agents.sessions.setStatus": self._agents_sessions_set_status,
            "agents.sessions.rename": self._agents_sessions_rename,
            "reactions.add": self._reactions_add,
            "reactions.remove": self._reactions_remove,
            "views.open": self._views_open,
            "views.push": self._views_push,
            "views.update": self._views_update,
            "views.publish": self._views_publish,
            "files.getUploadURLExternal": self._files_get_upload_url,
            "files.completeUploadExternal": self._files_complete_upload,
            "users.info": self._users_info,
            "conversations.replies": self._conversations_replies,
            "conversations.history": self._conversations_history,
            "conversations.info": self._conversations_info,
            "usergroups.users.list": self._usergroups_users_list,
            "assistant.threads.setSuggestedPrompts": self._assistant_threads_set_suggested_prompts,
        }

    # -- scripting --------------------------------------------------------
    def ratelimit(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """The next ``times`` calls to ``method`` get HTTP 429, ``Retry-After``, ``{"ok": false, "error": "ratelimited"}``."""
        with self._lock:
            q = self._injected.setdefault(method, deque())
            q.extend([(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(int(retry_after))})] * times)

    def limit_posts(self, interval: float = 1.0, burst: int = 3) -> None:
        """Enforce Slack's per-channel posting limit (about one message a second, short bursts allowed):
        a chat.postMessage or chat.startStream over the limit gets HTTP 429 ``ratelimited`` with ``Retry-After``."""
        with self._lock:
            self.post_interval, self.post_burst = interval, burst

    def outage(self, seconds: float, status: int = 500, error: str = "internal_error") -> None:
        """Every call for the next ``seconds`` fails: HTTP ``status`` (500, or 429 with ``ratelimited``).
        ``math.inf``: until :meth:`end_outage` (a test that must know what happened during the outage)."""
        with self._lock:
            self._outage = (time.monotonic() + seconds, status, error)

    def end_outage(self) -> None:
        """Slack is back, now."""
        with self._lock:
            self._outage = None

    def _over_post_limit(self, method: str, args: dict) -> int | None:
        """Seconds to wait when this post breaks the per-channel limit (GCRA), else None."""
        if self.post_interval is None or method not in POST_METHODS:
            return None
        channel, now = str(args.get("channel")), time.monotonic()
        tat = max(self._post_tat.get(channel, now), now)
        if tat - now > self.post_interval * (self.post_burst - 1):
            return max(1, int(tat - now - self.post_interval * (self.post_burst - 1) + 0.999))
        self._post_tat[channel] = tat + self.post_interval
        return None

    def fail(self, method: str, error: str, times: int = 1) -> None:
        """The next ``times`` calls to ``method`` get HTTP 200 ``{"ok": false, "error": error}``."""
        with self._lock:
            self._injected.setdefault(method, deque()).extend([(200, {"ok": False, "error": error}, {})] * times)

    def remove_bot(self, channel: str) -> None:
        """The bot is not in ``channel`` (never invited, or removed): what it does there is refused."""
        with self._lock:
            self.not_joined.add(channel)

    def invite(self, channel: str, inviter: str = "ULEAD") -> dict:
        """A person invites the bot to ``channel``: it is a member from now, and this is the event Slack sends the
        app (docs.slack.dev/reference/events/member_joined_channel: ``user`` is the bot's user id, ``channel_type``
        a single letter)."""
        with self._lock:
            self.not_joined.discard(channel)
        return {"type": "member_joined_channel", "user": self.bot_user_id, "channel": channel,
                "channel_type": "G" if self._private(channel) else "C", "team": self.team_id, "inviter": inviter,
                "event_ts": self._next_ts()}

    def archive(self, channel: str) -> None:
        with self._lock:
            self.archived.add(channel)

    def _private(self, channel: str) -> bool:
        return channel.startswith("G") or bool(self.channels.get(channel, {}).get("is_private"))

    def _member_guard(self, method: str, args: dict) -> None:
        """Slack's answer for a channel the bot is not in, or an archived one (see MEMBER_METHODS)."""
        field = MEMBER_METHODS.get(method)
        channel = args.get(field) if field else None
        if not isinstance(channel, str):
            return
        if channel in self.not_joined:
            raise _SlackError("channel_not_found" if self._private(channel) else "not_in_channel")
        if channel in self.archived and method not in READ_METHODS:
            raise _SlackError("is_archived")

    # -- inspection -------------------------------------------------------
    def calls_to(self, method: str) -> list[dict]:
        """Args of every call to ``method`` (successful or not), in arrival order."""
        with self._lock:
            return [c["args"] for c in self.calls if c["method"] == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 10.0,
                 predicate: Callable[[dict], bool] | None = None) -> list[dict]:
        """Block until at least ``count`` calls to ``method`` (matching ``predicate(args)``) arrived.

        Returns the matching args.  A predicate that raises counts as "no match".  On
        timeout raises AssertionError listing the calls seen so far.
        """

        def matches(args: dict) -> bool:
            if predicate is None:
                return True
            try:
                return bool(predicate(args))
            except Exception:
                return False

        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [c["args"] for c in self.calls if c["method"] == method and matches(c["args"])]
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"waited {timeout}s for {count} call(s) to {method}"
                        f"{' matching the predicate' if predicate else ''}, got {len(found)}. "
                        f"Calls so far:\n{self.summary()}"
                    )
                self._cond.wait(min(remaining, 0.1))

    def summary(self) -> str:
        """One line per recorded call, for failure messages."""
        with self._lock:
            lines = []
            for i, c in enumerate(self.calls):
                resp = c["response"]
                outcome = "ok" if resp.get("ok") else f"error={resp.get('error')}"
                args = ", ".join(f"{k}={_short(v)}" for k, v in c["args"].items())
                lines.append(f"  {i}. {c['method']}({args}) -> {c['status']} {outcome}")
            return "\n".join(lines) or "  (none)"

    def thread(self, channel: str, thread_ts: str) -> list[dict]:
        """Messages of that thread (the parent too, if it was posted here), in ts order."""
        with self._lock:
            found = [
                copy.deepcopy(m) for (ch, ts), m in self.messages.items()
                if ch == channel and (ts == thread_ts or m.get("thread_ts") == thread_ts)
            ]
        return sorted(found, key=lambda m: _ts_key(m["ts"]))

    def session_statuses(self, channel: str, thread_ts: str) -> list[str]:
        """Every status agents.sessions.setStatus set on that thread's session, in order ([] if none)."""
        with self._lock:
            return list(self.agent_sessions.get((channel, thread_ts), {}).get("statuses", []))

    # -- request handling -------------------------------------------------
    def _handle(self, method: str, verb: str, query: str, raw: bytes, headers: dict) -> tuple[int, dict, dict]:
        entry: dict[str, Any] = {"method": method, "args": {}, "headers": headers, "http_method": verb,
                                 "time": time.monotonic()}
        status, extra_headers = 200, {}
        try:
            args, from_json = self._parse_args(query, raw, headers)
            entry["args"] = args
            self._check_auth(method, args, headers, from_json)
            with self._lock:
                injected = self._injected.get(method)
                scripted = injected.popleft() if injected else None
                if scripted is None and self._outage is not None and time.monotonic() < self._outage[0]:
                    _, code, error = self._outage
                    scripted = (code, {"ok": False, "error": error}, {"Retry-After": "1"} if code == 429 else {})
                if scripted is None:
                    wait = self._over_post_limit(method, args)
                    if wait is not None:
                        scripted = (429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(wait)})
            if scripted is not None:
                status, body, extra_headers = scripted
                body = dict(body)
            else:
                handler = self._methods.get(method)
                if handler is None:
                    raise _SlackError("unknown_method", req_method=method)
                with self._lock:
                    self._member_guard(method, args)
                    body = {"ok": True, **handler(args)}
        except _SlackError as exc:
            status = exc.status
            body = {"ok": False, "error": exc.error, **exc.extra}
        except Exception:  # a bug here: answer like Slack's internal error, keep the traceback for the test
            status = 500
            body = {"ok": False, "error": "fatal_error"}
            entry["exception"] = traceback.format_exc()
        entry["status"] = status
        entry["response"] = body
        with self._cond:
            self.calls.append(entry)
            self._cond.notify_all()
        return status, body, extra_headers

    def _parse_args(self, query: str, raw: bytes, headers: dict) -> tuple[dict, bool]:
        args: dict[str, Any] = _flatten(parse_qs(query, keep_blank_values=True))
        ctype = headers.get("content-type", "").lower()
        from_json = False
        if raw:
            if ctype.startswith("application/json"):
                try:
                    body = json.loads(raw.decode("utf-8"))
                except (ValueError, UnicodeDecodeError) as exc:
                    raise _SlackError("invalid_json", [f"[ERROR] {exc}"]) from None
                if not isinstance(body, dict):
                    raise _SlackError("invalid_json", ["[ERROR] the JSON body must be an object"])
                args.update(body)
                from_json = True
            elif ctype.startswith("multipart/form-data"):
                args.update(_parse_multipart(raw, headers["content-type"]))
            else:
                args.update(_flatten(parse_qs(raw.decode("utf-8"), keep_blank_values=True)))
        for key in JSON_FIELDS:
            value = args.get(key)
            if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
                with contextlib.suppress(ValueError):  # else left as a string: the method answers *_format
                    args[key] = json.loads(value)
        return args, from_json

    def _check_auth(self, method: str, args: dict, headers: dict, from_json: bool) -> None:
        auth = headers.get("authorization", "").strip()
        token = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
        if not token and not from_json and isinstance(args.get("token"), str):
            token = args["token"].strip()
        args.pop("token", None)
        if not token:
            raise _SlackError("not_authed")
        if not token.startswith(("xox", "xapp-")):
            raise _SlackError("invalid_auth")
        if token.startswith("xapp-") != (method in APP_TOKEN_METHODS):  # app-level tokens: these methods only
            raise _SlackError("not_allowed_token_type")

    # -- helpers ----------------------------------------------------------
    def _next_ts(self) -> str:
        """Like Slack's: the post's time in epoch seconds (a client's `oldest` in conversations.history is a
        time), unique and increasing in this server."""
        with self._ts_lock:
            micros = max(time.time_ns() // 1000, self._last_ts_micros + 100)
            self._last_ts_micros = micros
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):08d}"

    @staticmethod
    def _required(args: dict, field: str, error: str | None = None) -> str:
        value = args.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise _SlackError(error) if error else _missing(field)
        return str(value)

    @staticmethod
    def _message_blocks(args: dict) -> list | None:
        if "blocks" not in args or args["blocks"] is None:
            return None
        blocks = args["blocks"]
        if isinstance(blocks, str):
            raise _SlackError("invalid_blocks_format", ["[ERROR] blocks must be a JSON array [json-pointer:/blocks]"])
        if not isinstance(blocks, list):
            raise _SlackError("invalid_blocks_format", ["[ERROR] expected array [json-pointer:/blocks]"])
        errors = message_block_errors(blocks)
        if errors:
            raise _SlackError("invalid_blocks", errors)
        return blocks

    @staticmethod
    def _text(args: dict) -> str | None:
        text = args.get("text")
        if text is None:
            return None
        text = str(text)
        if len(text) > LIMITS["message_text"]:
            raise _SlackError("msg_too_long", [f"[ERROR] text must be less than {LIMITS['message_text'] + 1} "
                                               f"characters (got {len(text)}) [json-pointer:/text]"])
        return text

    @staticmethod
    def _markdown_text(args: dict, field: str = "markdown_text") -> str | None:
        md = args.get(field)
        if md is None:
            return None
        md = str(md)
        if len(md) > LIMITS["stream_markdown_text"]:
            raise _SlackError("msg_too_long", [f"[ERROR] {field} must be less than "
                                               f"{LIMITS['stream_markdown_text'] + 1} characters (got {len(md)}) "
                                               f"[json-pointer:/{field}]"])
        return md

    def _content(self, method: str, args: dict, *, require: bool = True) -> tuple[str | None, list | None, Any, str | None, dict]:
        """text, blocks, attachments, markdown_text (validated) + the response extras (warnings)."""
        blocks = self._message_blocks(args)
        text = self._text(args)
        md = self._markdown_text(args)
        attachments = args.get("attachments")
        if md is not None and (text is not None or blocks is not None):
            raise _SlackError("markdown_text_conflict",
                              ["[ERROR] markdown_text cannot be used together with text or blocks"])
        if require and not (text and text.strip()) and not blocks and not attachments and not md:
            raise _SlackError("no_text")
        extra: dict = {}
        if blocks and not (text and text.strip()):
            self.warnings.append((method, "missing_text_in_blocks"))
            extra = {"warning": "missing_text_in_blocks",
                     "response_metadata": {"warnings": ["missing_text_in_blocks"]}}
        return text, blocks, attachments, md, extra

    def _new_message(self, channel: str, ts: str, **fields: Any) -> dict:
        msg = {"type": "message", "channel": channel, "ts": ts, "user": self.bot_user_id, "bot_id": self.BOT_ID,
               "app_id": self.APP_ID, "team": self.team_id, "text": ""}
        msg.update({k: v for k, v in fields.items() if v is not None})
        return msg

    @staticmethod
    def _public(msg: dict) -> dict:
        out = copy.deepcopy(msg)
        out.pop("channel", None)
        return out

    def _get_message(self, args: dict, ts_field: str = "ts") -> tuple[str, str, dict]:
        channel = self._required(args, "channel", "channel_not_found")
        ts = self._required(args, ts_field, "message_not_found")
        msg = self.messages.get((channel, ts))
        if msg is None:
            raise _SlackError("message_not_found")
        return channel, ts, msg

    # -- auth / chat ------------------------------------------------------
    def _auth_test(self, args: dict) -> dict:
        return {"url": "https://example.slack.com/", "team": "Test Team", "user": "kitebase",
                "team_id": self.team_id, "user_id": self.bot_user_id, "bot_id": self.BOT_ID,
                "is_enterprise_install": False}

    def _apps_connections_open(self, args: dict) -> dict:
        if not self.socket_mode_url:  # a test set-up slip: say so rather than hand out a dead URL
            raise _SlackError("socket_mode_not_configured",
                              ["[ERROR] set SlackAPIServer.socket_mode_url to the Socket Mode stand-in's url"])
        return {"url": self.socket_mode_url}

    def _chat_post_message(self, args: dict) -> dict:
        channel = self._required(args, "channel", "channel_not_found")
        text, blocks, attachments, md, extra = self._content("chat.postMessage", args)
        ts = self._next_ts()
        thread_ts = str(args["thread_ts"]) if args.get("thread_ts") else None
        msg = self._new_message(channel, ts, text=md if md is not None else text, blocks=blocks,
                                attachments=attachments, markdown_text=md, thread_ts=thread_ts,
                                metadata=args.get("metadata"))
        self.messages[(channel, ts)] = msg
        parent = self.messages.get((channel, thread_ts)) if thread_ts else None
        if parent is not None and parent is not msg:
            parent["reply_count"] = parent.get("reply_count", 0) + 1
            parent["latest_reply"] = ts
        return {"channel": channel, "ts": ts, "message": self._public(msg), **extra}

    def _chat_update(self, args: dict) -> dict:
        channel, ts, msg = self._get_message(args)
        text, blocks, attachments, md, extra = self._content("chat.update", args)
        if text is not None:
            msg["text"] = text
        if md is not None:
            msg["text"] = msg["markdown_text"] = md
        if blocks is not None:
            msg["blocks"] = blocks
        if attachments is not None:
            msg["attachments"] = attachments
        msg["edited"] = {"user": self.bot_user_id, "ts": self._next_ts()}
        return {"channel": channel, "ts": ts, "text": msg.get("text", ""), "message": self._public(msg), **extra}

    def _chat_post_ephemeral(self, args: dict) -> dict:
        channel = self._required(args, "channel", "channel_not_found")
        user = self._required(args, "user", "user_not_found")
        text, blocks, attachments, md, extra = self._content("chat.postEphemeral", args)
        message_ts = self._next_ts()
        self.ephemerals.append({"channel": channel, "user": user, "text": text, "blocks": blocks,
                                "attachments": attachments, "thread_ts": args.get("thread_ts"),
                                "message_ts": message_ts})
        return {"message_ts": message_ts, **extra}

    def _chat_delete(self, args: dict) -> dict:
        channel, ts, msg = self._get_message(args)
        self.deleted.append(self.messages.pop((channel, ts)))
        return {"channel": channel, "ts": ts}

    def _chat_get_permalink(self, args: dict) -> dict:
        channel = self._required(args, "channel", "channel_not_found")
        ts = self._required(args, "message_ts", "message_not_found")
        link = f"https://example.slack.com/archives/{channel}/p{ts.replace('.', '')}"
        msg = self.messages.get((channel, ts))
        if msg is not None and msg.get("thread_ts") and msg["thread_ts"] != ts:
            link += f"?thread_ts={msg['thread_ts']}&cid={channel}"
        return {"channel": channel, "permalink": link}

    def _reactions_key(self, args: dict) -> tuple[tuple[str, str], str]:
        channel = self._required(args, "channel", "channel_not_found")
        ts = self._required(args, "timestamp", "message_not_found")
        name = self._required(args, "name", "invalid_name")
        return (channel, ts), name

    def _reactions_add(self, args: dict) -> dict:
        key, name = self._reactions_key(args)
        names = self.reactions.setdefault(key, [])
        if name in names:
            raise _SlackError("already_reacted")
        names.append(name)
        return {}

    def _reactions_remove(self, args: dict) -> dict:
        key, name = self._reactions_key(args)
        names = self.reactions.get(key, [])
        if name not in names:
            raise _SlackError("no_reaction")
        names.remove(name)
        return {}

    # -- streaming --------------------------------------------------------
    def _streaming_guard(self) -> None:
        if not self.streaming_supported:
            raise _SlackError("feature_not_enabled")

    @staticmethod
    def _chunks(args: dict) -> list[dict]:
        chunks = args.get("chunks")
        if chunks is None:
            return []
        if not isinstance(chunks, list):
            raise _SlackError("invalid_arguments", ["[ERROR] expected array [json-pointer:/chunks]"])
        errors = []
        for i, ch in enumerate(chunks):
            if not isinstance(ch, dict) or ch.get("type") not in CHUNK_TYPES:
                errors.append(f"[ERROR] unsupported chunk type [json-pointer:/chunks/{i}/type]")
            elif ch["type"] == "markdown_text":
                if not isinstance(ch.get("text"), str):
                    errors.append(f"[ERROR] missing required field: text [json-pointer:/chunks/{i}/text]")
                elif len(ch["text"]) > LIMITS["stream_markdown_text"]:
                    errors.append(f"[ERROR] must be less than {LIMITS['stream_markdown_text'] + 1} characters "
                                  f"[json-pointer:/chunks/{i}/text]")
            elif ch["type"] == "blocks":
                errors.extend(message_block_errors(ch.get("blocks"), path=f"/chunks/{i}/blocks"))
        if errors:
            raise _SlackError("invalid_arguments", errors)
        return chunks

    @staticmethod
    def _apply_stream(msg: dict, md: str | None, chunks: list[dict]) -> None:
        if md:
            msg["markdown_text"] += md
        for ch in chunks:
            msg["chunks"].append(ch)
            if ch.get("type") == "markdown_text":
                msg["markdown_text"] += ch["text"]
        msg["text"] = msg["markdown_text"]

    def _stream_message(self, args: dict) -> tuple[str, str, dict]:
        channel, ts, msg = self._get_message(args)
        if msg.get("stream_state") != "in_progress":
            raise _SlackError("message_not_in_streaming_state")
        return channel, ts, msg

    def _chat_start_stream(self, args: dict) -> dict:
        self._streaming_guard()
        channel = self._required(args, "channel", "channel_not_found")
        thread_ts = self._required(args, "thread_ts")
        md = self._markdown_text(args)
        chunks = self._chunks(args)
        ts = self._next_ts()
        msg = self._new_message(channel, ts, thread_ts=thread_ts, markdown_text="", chunks=[],
                                stream_state="in_progress")
        self._apply_stream(msg, md, chunks)
        self.messages[(channel, ts)] = msg
        return {"channel": channel, "ts": ts}

    def _chat_append_stream(self, args: dict) -> dict:
        self._streaming_guard()
        channel, ts, msg = self._stream_message(args)
        md = self._markdown_text(args)
        chunks = self._chunks(args)
        if not md and not chunks:
            raise _SlackError("invalid_arguments", ["[ERROR] provide markdown_text or chunks"])
        self._apply_stream(msg, md, chunks)
        return {"channel": channel, "ts": ts}

    def _chat_stop_stream(self, args: dict) -> dict:
        self._streaming_guard()
        channel, ts, msg = self._stream_message(args)
        md = self._markdown_text(args)
        chunks = self._chunks(args)
        blocks = self._message_blocks(args)
        self._apply_stream(msg, md, chunks)
        if blocks is not None:
            msg["blocks"] = blocks
        if args.get("metadata") is not None:
            msg["metadata"] = args["metadata"]
        msg["stream_state"] = "completed"
        return {"channel": channel, "ts": ts, "message": self._public(msg)}

    # -- agent sessions ---------------------------------------------------
    def _session_key(self, args: dict) -> tuple[str, str]:
        if self.sessions_error:
            raise _SlackError(self.sessions_error)
        channel = self._required(args, "channel_id", "channel_not_found")
        thread_ts = args.get("thread_ts")
        if not isinstance(thread_ts, str) or not thread_ts:  # required for thread-based sessions (all of ours)
            raise _SlackError("invalid_arguments", ["[ERROR] missing required field: thread_ts"])
        return channel, thread_ts

    @staticmethod
    def _session_title(args: dict, *, required: bool) -> str | None:
        title = args.get("title")
        if title is None and not required:
            return None
        if not isinstance(title, str) or not 1 <= len(title) <= SESSION_TITLE:
            raise _SlackError("invalid_arguments", [f"[ERROR] title must be 1-{SESSION_TITLE} characters "
                                                    "[json-pointer:/title]"])
        return title

    def _agents_sessions_set_status(self, args: dict) -> dict:
        """Creates the session if needed; title and initiator_user_id count only when it is created."""
        key = self._session_key(args)
        status = args.get("status")
        if status not in SESSION_STATUSES:
            raise _SlackError("invalid_arguments", [f"[ERROR] status must be one of {', '.join(SESSION_STATUSES)} "
                                                    "[json-pointer:/status]"])
        title = self._session_title(args, required=False)
        session = self.agent_sessions.get(key)
        if session is None:
            session = self.agent_sessions[key] = {"status": None, "title": title, "statuses": [], "titles": [],
                                                  "initiator_user_id": args.get("initiator_user_id")}
        session["status"] = status
        session["statuses"].append(status)
        extra: dict[str, Any] = {}
        if not self.agent_session_stopped_subscribed:
            warning = "missing_agent_session_stopped_event_subscription"
            self.warnings.append(("agents.sessions.setStatus", warning))
            extra = {"warning": warning, "response_metadata": {"warnings": [warning]}}
        return {"status": status, "title": session["title"], **extra}

    def _agents_sessions_rename(self, args: dict) -> dict:
        key = self._session_key(args)
        title = self._session_title(args, required=True)
        session = self.agent_sessions.get(key)
        if session is None:
            raise _SlackError("session_not_found")
        session["title"] = title
        session["titles"].append(title)
        return {"title": title}

    # -- views ------------------------------------------------------------
    def _view_arg(self, args: dict, allowed: tuple[str, ...]) -> dict:
        view = args.get("view")
        if view is None:
            raise _missing("view")
        if not isinstance(view, dict):
            raise _SlackError("invalid_arguments", ["[ERROR] view must be a JSON object [json-pointer:/view]"])
        errors = view_errors(view, allowed)
        if errors:
            raise _SlackError("invalid_arguments", errors)
        return view

    def _store_view(self, view: dict, view_id: str, *, root_view_id: str | None = None,
                    previous_view_id: str | None = None) -> dict:
        ext = view.get("external_id")
        if ext:
            for vid, other in self.views.items():
                if vid != view_id and other.get("external_id") == ext:
                    raise _SlackError("duplicate_external_id")
        stored = copy.deepcopy(view)
        stored.update({
            "id": view_id, "team_id": self.team_id, "app_id": self.APP_ID, "bot_id": self.BOT_ID,
            "app_installed_team_id": self.team_id,
            "hash": f"{int(time.time())}.{next(self._ids):08x}",
            "private_metadata": view.get("private_metadata", ""), "callback_id": view.get("callback_id", ""),
            "external_id": view.get("external_id", ""), "state": {"values": {}},
            "root_view_id": root_view_id or view_id, "previous_view_id": previous_view_id,
            "clear_on_close": bool(view.get("clear_on_close", False)),
            "notify_on_close": bool(view.get("notify_on_close", False)),
        })
        self.views[view_id] = stored
        return stored

    def _views_open(self, args: dict) -> dict:
        if not (args.get("trigger_id") or args.get("interactivity_pointer")):
            raise _missing("trigger_id")
        view = self._view_arg(args, ("modal",))
        return {"view": copy.deepcopy(self._store_view(view, self._next_id("V")))}

    def _views_push(self, args: dict) -> dict:
        if not (args.get("trigger_id") or args.get("interactivity_pointer")):
            raise _missing("trigger_id")
        view = self._view_arg(args, ("modal",))
        return {"view": copy.deepcopy(self._store_view(view, self._next_id("V")))}

    def _views_update(self, args: dict) -> dict:
        view_id, external_id = args.get("view_id"), args.get("external_id")
        if not view_id and not external_id:
            raise _missing("view_id")
        if view_id:
            current = self.views.get(str(view_id))
        else:
            current = next((v for v in self.views.values() if v.get("external_id") == external_id), None)
        if current is None:
            raise _SlackError("not_found")
        if args.get("hash") and args["hash"] != current["hash"]:
            raise _SlackError("hash_conflict")
        view = self._view_arg(args, (current["type"],))
        stored = self._store_view(view, current["id"], root_view_id=current["root_view_id"],
                                  previous_view_id=current["previous_view_id"])
        for user, home in self.home_views.items():
            if home["id"] == stored["id"]:
                self.home_views[user] = stored
        return {"view": copy.deepcopy(stored)}

    def _views_publish(self, args: dict) -> dict:
        user_id = self._required(args, "user_id")
        view = self._view_arg(args, ("home",))
        current = self.home_views.get(user_id)
        if current is not None and args.get("hash") and args["hash"] != current["hash"]:
            raise _SlackError("hash_conflict")
        stored = self._store_view(view, current["id"] if current else self._next_id("V"))
        self.home_views[user_id] = stored
        return {"view": copy.deepcopy(stored)}

    # -- files ------------------------------------------------------------
    def _files_get_upload_url(self, args: dict) -> dict:
        filename = self._required(args, "filename")
        length = self._required(args, "length")
        if not length.isdigit() or int(length) <= 0:
            raise _SlackError("invalid_arguments", ["[ERROR] length must be a positive integer [json-pointer:/length]"])
        file_id = self._next_id("F")
        self._pending_files[file_id] = {"file_id": file_id, "filename": filename, "length": int(length),
                                        "content": None, "alt_txt": args.get("alt_txt"),
                                        "snippet_type": args.get("snippet_type")}
        return {"upload_url": f"{self.url}/upload/v1/{file_id}", "file_id": file_id}

    def _receive_upload(self, path: str, raw: bytes, headers: dict) -> tuple[int, str]:
        file_id = path.rstrip("/").rsplit("/", 1)[-1]
        ctype = headers.get("content-type", "").lower()
        if ctype.startswith("multipart/form-data"):
            parts = _parse_multipart(raw, headers["content-type"])
            raw = next((v for v in parts.values() if isinstance(v, bytes)), raw)
        with self._lock:
            pending = self._pending_files.get(file_id)
            if pending is None:
                return 404, "Not Found"
            pending["content"] = raw
        return 200, f"OK - {len(raw)}"

    def _files_complete_upload(self, args: dict) -> dict:
        files = args.get("files")
        if files is None:
            raise _missing("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, dict) and f.get("id") for f in files):
            raise _SlackError("invalid_arguments", ["[ERROR] files must be a JSON array of {id, title} [json-pointer:/files]"])
        channel_id = args.get("channel_id") or None
        channels = [c for c in str(args.get("channels") or "").split(",") if c]
        thread_ts = args.get("thread_ts") or None
        if thread_ts and not (channel_id or channels):
            raise _SlackError("invalid_arguments", ["[ERROR] thread_ts requires channel_id"])
        entries = []
        for f in files:
            pending = self._pending_files.get(f["id"])
            if pending is None or pending["content"] is None:
                raise _SlackError("file_not_found")
            entries.append((f, pending))
        out = []
        targets = [channel_id] if channel_id else channels
        now = int(time.time())
        for f, pending in entries:
            del self._pending_files[f["id"]]
            data: bytes = pending["content"]
            title = f.get("title") or pending["filename"]
            record = {"file_id": f["id"], "filename": pending["filename"], "title": title,
                      "content": data.decode("utf-8", errors="replace"), "channel_id": channel_id,
                      "channels": targets, "thread_ts": thread_ts, "initial_comment": args.get("initial_comment"),
                      "length": pending["length"], "size": len(data)}
            self.uploads.append(record)
            out.append({"id": f["id"], "name": pending["filename"], "title": title, "size": len(data),
                        "mimetype": "text/plain", "filetype": "text", "user": self.bot_user_id, "created": now,
                        "permalink": f"https://example.slack.com/files/{self.bot_user_id}/{f['id']}/"
                                     f"{pending['filename']}",
                        "channels": targets})
        for channel in targets:  # the share shows up as a message, as in Slack
            ts = self._next_ts()
            self.messages[(channel, ts)] = self._new_message(
                channel, ts, text=args.get("initial_comment") or "", thread_ts=thread_ts,
                files=copy.deepcopy(out), subtype="file_share")
        return {"files": out}

    # -- reads ------------------------------------------------------------
    def _users_info(self, args: dict) -> dict:
        user = self._required(args, "user", "user_not_found")
        if user in self.users:
            info = {"id": user, "name": user.lower(), "real_name": user, "tz": "UTC", **self.users[user]}
        elif user[:1] in ("U", "W"):
            is_bot = user == self.bot_user_id
            name = "kitebase" if is_bot else f"user_{user.lower()}"
            info = {"id": user, "team_id": self.team_id, "name": name, "real_name": name.replace("_", " ").title(),
                    "tz": "UTC", "tz_offset": 0, "is_bot": is_bot, "deleted": False,
                    "profile": {"real_name": name.replace("_", " ").title(), "display_name": name}}
        else:
            raise _SlackError("user_not_found")
        return {"user": info}

    def _conversations_replies(self, args: dict) -> dict:
        channel = self._required(args, "channel", "channel_not_found")
        ts = self._required(args, "ts", "thread_not_found")
        found = [self._public(m) for (ch, t), m in self.messages.items()
                 if ch == channel and (t == ts or m.get("thread_ts") == ts)]
        if not found:
            raise _SlackError("thread_not_found")
        found.sort(key=lambda m: _ts_key(m["ts"]))
        if str(args.get("include_all_metadata", "")).lower() not in ("1", "true"):
            for message in found:
                message.pop("metadata", None)
        return {"messages": found, "has_more": False}

    def _conversations_history(self, args: dict) -> dict:
        channel = self._required(args, "channel", "channel_not_found")
        oldest = _ts_key(str(args.get("oldest") or "0"))
        found = [self._public(m) for (ch, ts), m in self.messages.items()
                 if ch == channel and not m.get("thread_ts") and _ts_key(ts) >= oldest]
        found.sort(key=lambda m: _ts_key(m["ts"]), reverse=True)  # newest first, as Slack answers
        if str(args.get("include_all_metadata", "")).lower() not in ("1", "true"):
            for message in found:
                message.pop("metadata", None)
        return {"messages": found, "has_more": False}

    def _conversations_info(self, args: dict) -> dict:
        channel = self._required(args, "channel", "channel_not_found")
        if channel in self.not_joined and self._private(channel):
            raise _SlackError("channel_not_found")  # a private channel the bot is not in: it cannot see it
        if channel in self.channels:
            info = {"id": channel, "name": channel.lower(), "is_member": True, "is_archived": False,
                    **self.channels[channel]}
        elif channel[:1] in ("C", "G", "D"):
            info = {"id": channel, "name": f"channel-{channel.lower()}", "is_channel": channel[0] == "C",
                    "is_private": channel[0] == "G", "is_im": channel[0] == "D", "is_member": True,
                    "is_archived": False}
        else:
            raise _SlackError("channel_not_found")
        if channel in self.not_joined:
            info["is_member"] = False
        if channel in self.archived:
            info["is_archived"] = True
        return {"channel": info}

    def _assistant_threads_set_suggested_prompts(self, args: dict) -> dict:
        """As docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts describes it: `channel_id`
        and `prompts` (up to four, each with a `title` and a `message`) required, `title` optional. `thread_ts` is
        for the legacy assistant experience only: an agent app's call with one "silently fails" (ok, nothing
        set), which `suggested_prompts` shows by not changing."""
        channel = self._required(args, "channel_id")
        if channel[:1] not in "CDG":
            raise _SlackError("channel_not_found")
        prompts = args.get("prompts")
        if not isinstance(prompts, list) or not prompts:
            raise _missing("prompts") if prompts in (None, "", []) else _SlackError(
                "invalid_arguments", ["[ERROR] prompts must be an array of {title, message}"])
        if len(prompts) > MAX_SUGGESTED_PROMPTS:
            raise _SlackError("invalid_arguments", [f"[ERROR] no more than {MAX_SUGGESTED_PROMPTS} items allowed "
                                                    "[json-pointer:/prompts]"])
        for i, prompt in enumerate(prompts):
            if not isinstance(prompt, dict) or not all(isinstance(prompt.get(f), str) and prompt[f].strip()
                                                       for f in ("title", "message")):
                raise _SlackError("invalid_arguments", [f"[ERROR] a prompt needs a title and a message "
                                                        f"[json-pointer:/prompts/{i}]"])
        thread_ts = args.get("thread_ts")
        if thread_ts and self.agent_view:
            return {}
        key = f"{channel}:{thread_ts}" if thread_ts else channel
        self.suggested_prompts[key] = {"title": args.get("title"), "prompts": copy.deepcopy(prompts)}
        return {}

    def _usergroups_users_list(self, args: dict) -> dict:
        group = self._required(args, "usergroup", "no_such_subteam")
        if group not in self.usergroups:
            raise _SlackError("no_such_subteam")
        return {"users": list(self.usergroups[group])}


# --------------------------------------------------------------------------
# parsing helpers
# --------------------------------------------------------------------------


def _flatten(parsed: dict[str, list[str]]) -> dict[str, Any]:
    return {k: v[0] if len(v) == 1 else v for k, v in parsed.items()}


def _parse_multipart(raw: bytes, content_type: str) -> dict[str, Any]:
    """Form fields as str, file parts as bytes."""
    msg = BytesParser(policy=_HTTP_POLICY).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw
    )
    out: dict[str, Any] = {}
    if not msg.is_multipart():
        return out
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        payload = part.get_payload(decode=True) or b""
        if part.get_filename() is not None:
            out[name] = payload
        else:
            out[name] = payload.decode("utf-8", errors="replace")
    return out


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 1] + "…"
