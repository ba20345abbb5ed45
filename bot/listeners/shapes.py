"""A Slack payload whose shape our listeners cannot read (an event that is a string, a mention without a
channel, actions that are not a list...) gets a clear 400 and nothing is recorded, never a 500. A Bolt global
middleware: it runs after Bolt has checked the request's signature and parsed its body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slack_bolt import BoltRequest, BoltResponse


def check_shape(req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse:  # noqa: A002
    problem = _problem(req.body) if req.mode == "http" else None
    if problem is not None:
        return BoltResponse(status=400, body={"ok": False, "error": problem})
    return next()


OBJECTS = ("event", "view", "container", "message", "actions_block", "enterprise", "state")


def _problem(data: dict[str, Any]) -> str | None:
    for key in OBJECTS:
        if key in data and data[key] is not None and not isinstance(data[key], dict):
            return f"{key} must be an object"
    for key in ("user", "team", "channel"):
        if key in data and data[key] is not None and not isinstance(data[key], dict | str):
            return f"{key} must be an object or an id"
    kind = data.get("type")
    if kind == "url_verification" and not isinstance(data.get("challenge"), str):
        return "url_verification needs a challenge"
    if kind == "event_callback":
        event = data.get("event")
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return "event_callback needs an event object with a type"
        if event["type"] in ("app_mention", "message") and event.get("subtype") is None:
            for name in ("channel", "ts"):
                if not isinstance(event.get(name), str) or not event[name]:
                    return f"{event['type']} needs a {name}"
            if not isinstance(event.get("text", ""), str):
                return f"{event['type']} text must be a string"
    elif kind in ("block_actions", "view_submission", "view_closed"):
        if not isinstance(data.get("user"), dict):
            return f"{kind} needs a user object"
        if kind == "block_actions" and not (isinstance(data.get("actions"), list)
                                            and all(isinstance(a, dict) for a in data["actions"])):
            return "block_actions needs a list of action objects"
        view = data.get("view")
        if kind != "block_actions" and not (isinstance(view, dict) and isinstance(view.get("type"), str)
                                            and isinstance(view.get("callback_id", ""), str)):
            return f"{kind} needs a view object with a type"
    elif "command" in data and not isinstance(data.get("command"), str):
        return "command must be text"
    return None
