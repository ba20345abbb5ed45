"""A small Zendesk REST client over httpx2 (the HTTP client the anthropic SDK already brings).

Why not zenpy: it builds `https://{subdomain}.zendesk.com` itself (a local stand-in needs process-wide
ZENPY_FORCE_* variables), sleeps inside the call for a 429's whole Retry-After (a run or the desk sender would
block up to a minute), and sends no per-request headers. What we need is a dozen endpoints; each failure here
becomes one of the desk's errors with a sentence that says what to do, and no call ever sleeps on a 429."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from typing import Any

import httpx2

from bot.desk.base import DeskError, DeskRefused, DeskUnavailable, NoSuchTicket

logger = logging.getLogger(__name__)


class AuthFailed(DeskRefused):
    """401: the email/token (or OAuth token) was refused. Nothing more will work until it is fixed."""


class Forbidden(DeskRefused):
    """403: authenticated, but this user may not see or change that (another brand, a role, a scope)."""


class Conflict(DeskError):
    """409: safe_update found the ticket changed since it was read; nothing was applied."""


class Invalid(DeskRefused):
    """422: Zendesk refused the change (a closed ticket, a comment limit...); `description` says why."""


class RateLimited(DeskUnavailable):
    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Unknown(DeskUnavailable):
    """The request may have been applied: a timeout after sending, a dropped connection, a 5xx."""


class ZendeskClient:
    def __init__(self, base_url: str, *, email: str | None = None, token: str | None = None,
                 oauth_token: str | None = None, timeout: float = 20.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout  # each phase of a request (connect, send, each read) waits at most this long
        if oauth_token:
            authorization = f"Bearer {oauth_token}"
        elif email and token:
            authorization = "Basic " + base64.b64encode(f"{email}/token:{token}".encode()).decode()
        else:
            raise DeskError("Zendesk needs ZENDESK_EMAIL and ZENDESK_API_TOKEN (or ZENDESK_OAUTH_TOKEN).")
        self._http = httpx2.Client(base_url=self.base_url, timeout=timeout, headers={
            "Authorization": authorization, "Accept": "application/json", "User-Agent": "kitebase-agent"})

    def close(self) -> None:
        self._http.close()

    def agent_link(self, ticket_id: str | int) -> str:
        return f"{self.base_url}/agent/tickets/{ticket_id}"

    # --- requests ----------------------------------------------------------------------------------------
    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._request("GET", path, params=params)

    def put(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._request("PUT", path, json=body)

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
        return self._request("POST", path, json=body, headers=headers)

    def _request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        writes = method != "GET"
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx2.ConnectError as exc:  # nothing was sent
            raise DeskUnavailable(f"Zendesk could not be reached ({type(exc).__name__}). Try again shortly.") \
                from None
        except httpx2.TransportError as exc:
            kind = Unknown if writes else DeskUnavailable
            raise kind(f"Zendesk did not answer ({type(exc).__name__}). Try again shortly.") from None
        return _answer(response, writes)

    def pages(self, path: str, params: dict[str, Any], key: str) -> Iterator[list[dict[str, Any]]]:
        """Every page of a cursor-paginated list (page[size]); the last page may be empty."""
        params = {**params, "page[size]": params.get("page[size]", 100)}
        while True:
            body = self.get(path, params)
            yield list(body.get(key) or [])
            meta = body.get("meta") or {}
            if not meta.get("has_more") or not meta.get("after_cursor"):
                return
            params = {**params, "page[after]": meta["after_cursor"]}


def _answer(response: httpx2.Response, writes: bool) -> dict[str, Any]:
    status = response.status_code
    if 200 <= status < 300:
        return _without_nul(response.json()) if response.content else {}
    detail = _detail(response)
    if status == 401:
        raise AuthFailed("Zendesk refused the credentials (401 Couldn't authenticate you): check ZENDESK_EMAIL and "
                         "ZENDESK_API_TOKEN (or ZENDESK_OAUTH_TOKEN) and that API token access is enabled.")
    if status == 403:
        raise Forbidden(f"Zendesk says this account may not do that (403{detail}).")
    if status == 404:
        raise NoSuchTicket(f"Zendesk has no such record (404{detail}).")
    if status == 409:
        raise Conflict(f"the ticket changed meanwhile (409{detail})")
    if status == 422:
        raise Invalid(f"Zendesk refused the change (422{detail}).")
    if status == 429:
        retry = _retry_after(response)
        raise RateLimited(f"Zendesk is rate limiting this account (429); retry in {retry:.0f} s.", retry)
    if status >= 500:
        kind = Unknown if writes else DeskUnavailable  # a write answered 5xx may have been applied
        raise kind(f"Zendesk answered {status}{detail}. Try again shortly.")
    raise DeskError(f"Zendesk answered {status}{detail}.")


def _without_nul(value: Any) -> Any:
    """Zendesk's JSON may carry \\u0000 in any string (a name, a subject, a comment); no database keeps it in text
    (PostgreSQL refuses it, which would stick a sync's page), and it means nothing to a reader: dropped here, once,
    for every record the mirror and the live reads take in."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    return value


def _detail(response: httpx2.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    parts = [str(body.get("error") or ""), str(body.get("description") or "")]
    for problems in (body.get("details") or {}).values():
        for problem in problems if isinstance(problems, list) else []:
            if isinstance(problem, dict) and problem.get("description"):
                parts.append(str(problem["description"]))
    text = ": ".join(p for p in parts if p and p != "None")
    return f" {text[:300]}" if text else ""


def _retry_after(response: httpx2.Response) -> float:
    try:
        return max(1.0, float(response.headers.get("retry-after", "")))
    except ValueError:
        return 60.0
