"""Checks on a Slack HTTP request before Bolt sees it: a malformed request gets a clear 400 (or 401 for a bad
signature), never a 500, and nothing is recorded."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

MAX_BODY = 1_000_000  # Slack's payloads are far smaller


@dataclass(frozen=True)
class Problem:
    status: str
    message: str


def check_request(headers: dict[str, str], body: bytes, signing_secret: str | None) -> Problem | None:
    if signing_secret is not None:
        problem = _check_signature(headers, body, signing_secret)
        if problem:
            return problem
    try:
        data = _parse(headers.get("content-type", ""), body)
    except ValueError as exc:
        return Problem("400 Bad Request", str(exc))
    return _check_shape(data)


def _check_signature(headers: dict[str, str], body: bytes, secret: str) -> Problem | None:
    timestamp = headers.get("x-slack-request-timestamp", "")
    signature = headers.get("x-slack-signature", "")
    if not timestamp.isdigit():
        return Problem("401 Unauthorized", "missing or non-numeric X-Slack-Request-Timestamp")
    if abs(time.time() - int(timestamp)) > 60 * 5:
        return Problem("401 Unauthorized", "stale request")
    expected = "v0=" + hmac.new(secret.encode(), b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return Problem("401 Unauthorized", "invalid signature")
    return None


def _parse(content_type: str, body: bytes) -> dict[str, Any]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("the body is not UTF-8") from None
    if content_type.startswith("application/json"):
        data = _json_object(text, "the JSON body")
    else:
        form = {k: v[-1] for k, v in parse_qs(text, keep_blank_values=True).items()}
        data = _json_object(form["payload"], "the payload field") if "payload" in form else form
    return data


def _json_object(text: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError(f"{what} is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a JSON object")
    return data


OBJECTS = ("event", "view", "container", "message", "actions_block", "enterprise", "state")


def _check_shape(data: dict[str, Any]) -> Problem | None:
    for key in OBJECTS:
        if key in data and data[key] is not None and not isinstance(data[key], dict):
            return Problem("400 Bad Request", f"{key} must be an object")
    for key in ("user", "team", "channel"):
        if key in data and data[key] is not None and not isinstance(data[key], dict | str):
            return Problem("400 Bad Request", f"{key} must be an object or an id")
    kind = data.get("type")
    if kind == "url_verification" and not isinstance(data.get("challenge"), str):
        return Problem("400 Bad Request", "url_verification needs a challenge")
    if kind == "event_callback":
        event = data.get("event")
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return Problem("400 Bad Request", "event_callback needs an event object with a type")
        if event["type"] in ("app_mention", "message") and event.get("subtype") is None:
            for name in ("channel", "ts"):
                if not isinstance(event.get(name), str) or not event[name]:
                    return Problem("400 Bad Request", f"{event['type']} needs a {name}")
            if not isinstance(event.get("text", ""), str):
                return Problem("400 Bad Request", f"{event['type']} text must be a string")
    elif kind in ("block_actions", "view_submission", "view_closed"):
        if not isinstance(data.get("user"), dict):
            return Problem("400 Bad Request", f"{kind} needs a user object")
        if kind == "block_actions" and not (isinstance(data.get("actions"), list)
                                            and all(isinstance(a, dict) for a in data["actions"])):
            return Problem("400 Bad Request", "block_actions needs a list of action objects")
        view = data.get("view")
        if kind != "block_actions" and not (isinstance(view, dict) and isinstance(view.get("type"), str)
                                            and isinstance(view.get("callback_id", ""), str)):
            return Problem("400 Bad Request", f"{kind} needs a view object with a type")
    elif "command" in data and not isinstance(data.get("command"), str):
        return Problem("400 Bad Request", "command must be text")
    return None
