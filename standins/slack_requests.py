"""Signed Slack requests built the way Slack sends them, posted to the real app over HTTP."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

_ids = itertools.count(1)


def sign(secret: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    timestamp = int(time.time()) if timestamp is None else timestamp
    base = f"v0:{timestamp}:".encode() + body
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": str(timestamp), "X-Slack-Signature": signature}


class SlackSender:
    def __init__(self, url: str, secret: str, team: str = "T0TEAM", bot_user: str = "U0BOT"):
        self.url, self.secret, self.team, self.bot_user = url, secret, team, bot_user

    def post(self, body: bytes, content_type: str, *, headers: dict[str, str] | None = None,
             signed: bool = True, timestamp: int | None = None) -> tuple[int, str]:
        all_headers = {"Content-Type": content_type, **(sign(self.secret, body, timestamp) if signed else {}),
                       **(headers or {})}
        request = urllib.request.Request(self.url, data=body, headers=all_headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    # --- what Slack sends ----------------------------------------------------------------------------

    def event(self, event: dict[str, Any], *, event_id: str | None = None, retry: int | None = None,
              **kwargs: Any) -> tuple[int, str]:
        headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else None
        return self.post(self._envelope(event, event_id), "application/json", headers=headers, **kwargs)

    def _envelope(self, event: dict[str, Any], event_id: str | None = None) -> bytes:
        return json.dumps({"token": "legacy", "team_id": self.team, "api_app_id": "A0APP", "type": "event_callback",
                           "event": event, "event_id": event_id or f"Ev{next(_ids):06d}",
                           "event_time": int(time.time()),
                           "authorizations": [{"team_id": self.team, "user_id": self.bot_user, "is_bot": True}]}
                          ).encode()

    def _mention_event(self, text: str, user: str, channel: str, ts: str | None,
                       thread_ts: str | None) -> dict[str, Any]:
        ts = ts or f"{1_800_000_000 + next(_ids)}.000100"
        event = {"type": "app_mention", "user": user, "text": f"<@{self.bot_user}> {text}", "ts": ts,
                 "channel": channel, "event_ts": ts, "team": self.team}
        if thread_ts:
            event["thread_ts"] = thread_ts
        return event

    def mention(self, text: str, *, user: str = "ULEAD", channel: str = "CSUPPORT", ts: str | None = None,
                thread_ts: str | None = None, **kwargs: Any) -> tuple[str, tuple[int, str]]:
        event = self._mention_event(text, user, channel, ts, thread_ts)
        return event["ts"], self.event(event, **kwargs)

    def mention_bytes(self, text: str, *, user: str = "ULEAD", channel: str = "CSUPPORT") -> bytes:
        """The whole signed HTTP request of a mention, ready to write on a socket (for load generators: the
        signing and encoding are done before the clock starts, as they are on Slack's side)."""
        body = self._envelope(self._mention_event(text, user, channel, None, None))
        target = urllib.parse.urlsplit(self.url)
        head = [f"POST {target.path or '/'} HTTP/1.1", f"Host: {target.netloc}", "Content-Type: application/json",
                f"Content-Length: {len(body)}", "Connection: close",
                *(f"{name}: {value}" for name, value in sign(self.secret, body).items())]
        return ("\r\n".join(head) + "\r\n\r\n").encode() + body

    def agent_session_stopped(self, *, channel: str, thread_ts: str, user: str = "ULEAD",
                              streaming_message_ts: list[str] | None = None, **kwargs: Any) -> tuple[int, str]:
        """Slack's `agent_session_stopped` event, signed, as docs.slack.dev/reference/events/agent_session_stopped
        shows it: a person clicked the native Stop button of the agent session of `channel`/`thread_ts` (Slack
        shows it while the session is `processing`). The event's fields:

        - `type`: "agent_session_stopped"
        - `channel`: the channel of the session's thread (C…, or D… for a DM)
        - `thread_ts`: the ts of the thread's root message, which the session is scoped to
        - `user`: who clicked Stop
        - `streaming_message_ts`: the app's in-progress streams Slack stopped for the click (an empty list when
          no stream was active: the work must still stop)
        - `event_ts`

        `team_id` is on the enclosing `event_callback` envelope, not in the event. Slack does not change the
        session's status on the click: the app moves it away from `processing` (agents.sessions.setStatus or
        chat.stopStream)."""
        event_ts = f"{time.time():.6f}"
        return self.event({"type": "agent_session_stopped", "channel": channel, "thread_ts": thread_ts, "user": user,
                           "streaming_message_ts": list(streaming_message_ts or []), "event_ts": event_ts}, **kwargs)

    def interaction(self, payload: dict[str, Any], **kwargs: Any) -> tuple[int, str]:
        body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kwargs)

    def click(self, action_id: str, value: str, *, user: str = "ULEAD", channel: str = "CSUPPORT",
              message_ts: str = "1.0", thread_ts: str | None = None, trigger_id: str | None = None) -> tuple[int, str]:
        return self.interaction({
            "type": "block_actions", "team": {"id": self.team}, "user": {"id": user, "username": user},
            "api_app_id": "A0APP", "trigger_id": trigger_id or f"trig-{next(_ids)}", "channel": {"id": channel},
            "container": {"type": "message", "message_ts": message_ts, "channel_id": channel, "thread_ts": thread_ts},
            "message": {"ts": message_ts, "text": ""},
            "actions": [{"type": "button", "action_id": action_id, "block_id": "b", "value": value,
                         "action_ts": str(time.time())}]})

    def submit(self, view: dict[str, Any], values: dict[str, dict[str, str]], *, user: str = "ULEAD") -> tuple[int, str]:
        state = {"values": {block: {action: {"type": "plain_text_input", "value": value}
                                    for action, value in actions.items()} for block, actions in values.items()}}
        return self.interaction({"type": "view_submission", "team": {"id": self.team}, "user": {"id": user},
                                 "api_app_id": "A0APP", "trigger_id": f"trig-{next(_ids)}",
                                 "view": {**view, "id": "V1", "state": state}})

    def command(self, text: str, *, user: str = "ULEAD", channel: str = "CSUPPORT") -> tuple[int, str]:
        body = urllib.parse.urlencode({"token": "legacy", "team_id": self.team, "channel_id": channel,
                                       "user_id": user, "command": "/kitebase", "text": text,
                                       "response_url": "http://127.0.0.1:9/response",
                                       "trigger_id": f"trig-{next(_ids)}", "api_app_id": "A0APP"}).encode()
        return self.post(body, "application/x-www-form-urlencoded")
