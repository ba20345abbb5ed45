"""A local HTTP stand-in for the Zendesk REST API (Support + Help Center), for tests and benchmarks.

Point a client at it by its base URL (``ZendeskServer.url``, e.g. ``http://127.0.0.1:PORT``) instead of
``https://{subdomain}.zendesk.com``::

    with ZendeskServer() as zd:                       # accepts bot@kitebase.example / token zd-test-token
        ids = zd.load_kb_data("kb_data")              # the embedded desk: KITE-142 -> ticket 4821
        client = ZendeskClient(zd.url, email=zd.email, token=zd.token)   # bot/desk/zendesk/client.py
        ...
        assert zd.comments_of(4821)[-1]["body"] == "..."
        assert zd.requests_to("PUT", "/api/v2/tickets/4821")[0]["status"] == 200

zenpy has no base-URL argument; set ``ZENPY_FORCE_SCHEME=http`` and ``ZENPY_FORCE_NETLOC=127.0.0.1:PORT`` (process
wide) and keep ``Zenpy(subdomain="kitebase", email=..., token=...)``. Every link the stand-in answers
(``links.next``, ``after_url``, ``next_page``, ``url``, ``html_url``) points back at the stand-in.

What it keeps: users, organizations, tickets with their comments, Help Center articles, as plain dicts in the
API's JSON shape (``tickets``, ``comments_of()``, ``users``, ``organizations``, ``articles``), so a test asserts
on what the desk now holds. Every request is recorded in ``requests`` (method, path, query, lower-cased headers
with Authorization redacted, parsed JSON body, answer status, ``time.monotonic()``).

What it models, from Zendesk's documentation (/work/shared/zendesk-api.md):

* Auth: Basic ``{email}/token:{token}`` (any agent's email; the request acts as that user) or
  ``Bearer {oauth_token}``; anything else is ``401 {"error": "Couldn't authenticate you"}``. Help Center reads
  also answer anonymous requests, without drafts.
* Errors as ``{"error", "description", "details"}``; 429 as ``text/plain`` with ``Retry-After``; every answer
  carries ``X-Rate-Limit`` / ``X-Rate-Limit-Remaining`` (the Support and Help Center budgets are separate).
* Limits: ``requests_per_minute`` (700) per account, Update Ticket ``update_ticket_per_minute`` (100) per
  account and ``ticket_updates_per_10_minutes`` (30) per user and ticket, the incremental export's
  ``export_per_minute`` (None = off; Zendesk's is 10). Windows slide, measured with ``clock``.
* Cursor pagination (``page[size]`` <= 100, ``page[after]``/``page[before]``, ``meta``, ``links``) and offset
  pagination (``page``/``per_page``, ``next_page``, ``count``, at most 100 pages). A full cursor page says
  ``has_more: true`` even when nothing follows (``lazy_has_more``), so the last page can be empty, as zenpy
  warns it can be with Zendesk.
* The Incremental Ticket Export (cursor-based): ordered by (generated_timestamp, id), one entry per ticket with
  its newest state, deleted tickets as ``"status": "deleted"``, the last ``export_delay`` seconds left out, an
  opaque and stable cursor. A change made after a cursor was handed out always sorts after it.
* Problems and incidents: ``type`` (problem, incident, question, task) and ``problem_id`` on an update; a
  ``problem_id`` is refused (422) unless it names a live ticket of type ``problem`` and the ticket is an
  incident; a ticket that stops being an incident loses its ``problem_id``; a problem's ``has_incidents``
  follows its incidents; ``GET /api/v2/tickets/{id}/incidents`` lists them.
* Ticket updates (comment, status, assignee, priority, tags / additional_tags / remove_tags), ``safe_update`` +
  ``updated_stamp`` (409 and nothing applied), closed tickets (422), and ``Idempotency-Key`` on ticket creation
  (miss / hit / 400 IdempotentRequestError, two hours, only 2xx answers are kept).
* Comments' attachments as Zendesk's attachment objects (``file_name``, ``content_type``, ``size``,
  ``content_url``, ``inline``...; shape as recorded in zenpy's betamax fixtures). An inline image is listed only
  when the comments are read with ``include_inline_images=true``. No file is served: a request for a
  ``content_url`` answers 404 and is recorded, so a test can assert that nothing fetched one.
* People as real accounts have them: a null ``priority``; a user permanently deleted (``delete_user``: 404,
  left out of ``show_many`` and of side-loads, still named by the tickets and comments that named them); a
  deleted organization (``delete_organization``, the same); users and organizations the side-loads leave out
  although ``show_many`` finds them (``unsideloaded_users``, ``unsideloaded_organizations``), as bodies recorded
  from live accounts show.
* Faults: ``outage()``, ``ratelimit_window()``, ``fail_writes_after_applying()``,
  ``fail_writes_before_applying()``, ``drop_connection_after_applying()``, ``fail_path()``, ``slow()``;
  ``clear_faults()``. ``hold_writes(n)`` holds the next n ticket updates before they are applied until the test
  releases each one (a PUT that Zendesk keeps past a sender's claim); ``on_request`` is called with (method,
  path) as each request arrives, before it is answered (a test can pause the client there).
* Its own clock (``clock``): ``created_at``/``updated_at``, the windows, and the ``Date`` header of every answer
  come from it, so a test can run Zendesk's clock minutes away from ours.
* Ticket audits: every update's audit (its Comment and Change events) is kept, and
  ``GET /api/v2/tickets/{id}/audits/{audit_id}`` shows it.
* Webhooks: :func:`sign_webhook` and :meth:`ZendeskServer.send_webhook` (a trigger-connected webhook's POST,
  with the ``x-zendesk-*`` headers, ids rendered as strings); :meth:`ZendeskServer.event_webhook_payload` (an
  event webhook's fixed schema: ticket, user and organization events).
* An account without a Help Center: ``help_center_off(404)`` (or 403) for every Help Center endpoint.
* SLAs as Zendesk shows them (the SLA Policies page, the Side-loading page; shapes read from public clients):
  ``include=slas`` on ticket show, list and show_many adds ``"slas": {"policy_metrics": [...]}`` to each ticket,
  each metric ``{"breach_at", "stage", "metric"}`` plus the time left until ``breach_at`` in one unit (``days``,
  ``hours`` or ``minutes``, negative once past), as live bodies quoted in public client code show it. The
  incremental export leaves ``slas`` out (its page does not list it among the export's side-loads). The stand-in
  computes no SLA: a test sets what Zendesk's SLA engine would show with ``set_sla`` (a system update: the
  ticket's ``generated_timestamp`` moves, its ``updated_at`` does not). ``GET /api/v2/slas/policies`` lists
  what ``add_sla_policy`` added (admins only, as documented).
* Who may see an article (the Help Center's user segments API): an article's ``user_segment_id`` names the segment
  that may view it (``null``: everyone), or on Enterprise ``user_segment_ids`` (any of them). A segment is for
  ``signed_in_users`` or ``staff`` (agents and admins), narrowed by ``tags`` (all), ``or_tags`` (any),
  ``organization_ids`` and ``group_ids``, widened by ``added_user_ids``; the two built-in segments
  (``signed_in_segment_id``, ``staff_segment_id``) exist from the start. Anonymous requests see only articles for
  everyone, an admin sees every article, an agent or end-user those of the segments they are in (a restricted
  article they may not see is answered as not found). ``GET /api/v2/help_center/user_segments[/{id}].json``.

Not modelled: the audit list and ticket events endpoints, deleted_tickets, groups, custom fields, attachment
uploads and files, search export, Help Center search, the search index delay, admin-only access to the export,
group membership (a segment with ``group_ids`` admits only its ``added_user_ids``), user segments' write
endpoints, SLA computation (a test sets each metric), the ticket metric events, SLA policies' write endpoints.

Standard library only.
"""

from __future__ import annotations

import base64
import binascii
import copy
import email.utils
import hashlib
import hmac
import html
import itertools
import json
import math
import re
import secrets
import threading
import time
import traceback
import unicodedata
import urllib.error
import urllib.request
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from standins.local_http import LocalHTTPServer

__all__ = ["ZendeskServer", "ZendeskError", "sign_webhook", "heading_anchor", "markdown_to_html"]

Json = dict[str, Any]
WritePredicate = Callable[[Json], bool]

RATE_LIMIT_TEXT = "Number of allowed API requests per minute exceeded"
FORBIDDEN_DESCRIPTION = ("You do not have access to this page. Please contact the account owner of this help desk "
                         "for further help.")
CONFLICT_DESCRIPTION = ("Safe Update prevented the update due to outdated ticket data. Please fetch the latest "
                        "ticket data and try again.")
SEARCH_LIMIT_DESCRIPTION = "Invalid search: Requested response size was greater than Search Response Limits"
STATUSES = ("new", "open", "pending", "hold", "solved", "closed")
PRIORITIES = ("urgent", "high", "normal", "low")
AGENT_ROLES = ("agent", "admin")
TICKET_TYPES = ("problem", "incident", "question", "task")
IDEMPOTENCY_TTL = 2 * 3600.0
MAX_COMMENTS = 5000
KITE_OFFSET = 4679  # KITE-N becomes ticket 4679 + N (KITE-142 -> 4821)
SEARCH_RESULT_LIMIT = 1000
OFFSET_PAGE_LIMIT = 100


# --------------------------------------------------------------------------
# module helpers
# --------------------------------------------------------------------------


def sign_webhook(secret: str, body: bytes, timestamp: str) -> str:
    """Zendesk's webhook signature: base64(HMAC-SHA256(key=secret, msg=timestamp + body))."""
    digest = hmac.new(secret.encode("utf-8"), timestamp.encode("utf-8") + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def heading_anchor(heading: str) -> str:
    """The anchor a help center gives a heading: lower case, words joined by '-' (as bot/desk/links.py)."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def iso(ts: float) -> str:
    """``2026-11-24T09:12:00Z``: UTC, second precision."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(ts)))


def epoch(value: str | float | int) -> int:
    """Unix seconds from an ISO 8601 string or a number."""
    if isinstance(value, (int, float)):
        return int(value)
    return int(datetime.fromisoformat(value.strip().replace("Z", "+00:00")).timestamp())


def _inline(text: str) -> str:
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', out)


_UL = re.compile(r"\s{0,3}[-*]\s+(.*)")
_OL = re.compile(r"\s{0,3}\d+[.)]\s+(.*)")


def markdown_to_html(markdown: str, default_title: str = "") -> tuple[str, str]:
    """(title, body HTML) of a help article: ``# Title``, ``## Heading`` as ``<h2 id="anchor">``, paragraphs as
    ``<p>``, ``-``/``*`` lists as ``<ul><li>``, numbered lists as ``<ol><li>``."""
    title: str | None = None
    parts: list[str] = []
    kind: str | None = None  # "p", "ul", "ol" while a block is open
    items: list[str] = []

    def flush() -> None:
        nonlocal kind
        if kind == "p":
            parts.append(f"<p>{_inline(' '.join(items))}</p>")
        elif kind in ("ul", "ol"):
            parts.append(f"<{kind}>" + "".join(f"<li>{_inline(item)}</li>" for item in items) + f"</{kind}>")
        kind = None
        items.clear()

    for line in markdown.splitlines():
        stripped = line.strip()
        if line.startswith("# ") and title is None and not parts and kind is None:
            title = line[2:].strip()
        elif line.startswith("## "):
            flush()
            heading = line[3:].strip()
            parts.append(f'<h2 id="{heading_anchor(heading)}">{html.escape(heading, quote=False)}</h2>')
        elif line.startswith("### "):
            flush()
            parts.append(f"<h3>{html.escape(line[4:].strip(), quote=False)}</h3>")
        elif not stripped:
            flush()
        elif (m := _UL.fullmatch(line)) or (m := _OL.fullmatch(line)):
            wanted = "ul" if _UL.fullmatch(line) else "ol"
            if kind != wanted:
                flush()
                kind = wanted
            items.append(m.group(1).strip())
        elif kind in ("ul", "ol") and line[:1].isspace():  # a list item's continuation line
            items[-1] += " " + stripped
        else:
            if kind != "p":
                flush()
                kind = "p"
            items.append(stripped)
    flush()
    return title or default_title, "\n".join(parts)


def _html_to_text(value: str) -> str:
    text = re.sub(r"(?i)<br\s*/?>|</p>|</li>|</h\d>|</div>", "\n", value)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return "\n".join(line for line in lines if line).strip()


def _text_to_html(value: str) -> str:
    paragraphs = [p for p in re.split(r"\n\s*\n", value.strip()) if p.strip()] or [""]
    inner = "".join("<p>" + html.escape(p.strip(), quote=False).replace("\n", "<br>") + "</p>" for p in paragraphs)
    return f'<div class="zd-comment" dir="auto">{inner}</div>'


def _stringify(value: Any) -> Any:
    """What a trigger's placeholders render: numbers as text, structure kept."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict):
        return {k: _stringify(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stringify(v) for v in value]
    return value


def _encode_cursor(*parts: Any) -> str:
    raw = json.dumps(list(parts), separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode_cursor(cursor: str, kind: str) -> list[Any]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        parts = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        parts = None
    if not isinstance(parts, list) or not parts or parts[0] != kind:
        raise ZendeskError(400, "InvalidPaginationParameter", "Invalid cursor")
    return parts[1:]


def _flatten(parsed: dict[str, list[str]]) -> dict[str, str]:
    return {k: v[-1] for k, v in parsed.items()}


def _handle_of(name: str) -> str:
    """`priya` for Priya Raman, `tomas` for Tomás Ferreira: the embedded desk's assignee handles."""
    first = name.split()[0] if name.split() else name
    return heading_anchor(first).replace("-", "")


def _ascii_email_part(name: str) -> str:
    return ".".join(heading_anchor(word).replace("-", "") for word in name.split()) or "user"


class ZendeskError(Exception):
    """An error answer: ``{"error", "description"?, "details"?}`` (or plain text when ``text`` is set)."""

    def __init__(self, status: int, error: str, description: str | None = None, details: Json | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status} {error}: {description or ''}")
        self.status = status
        self.error = error
        self.description = description
        self.details = details
        self.headers = headers or {}

    def body(self) -> Json:
        out: Json = {"error": self.error}
        if self.description is not None:
            out["description"] = self.description
        if self.details is not None:
            out["details"] = self.details
        return out


def _invalid(field_name: str, description: str, error: str = "InvalidValue") -> ZendeskError:
    return ZendeskError(422, "RecordInvalid", "Record validation errors",
                        {field_name: [{"description": description, "error": error}]})


@dataclass
class _Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the socket without answering


@dataclass
class _Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    raw: bytes
    body: Any
    user: Json | None
    entry: Json


@dataclass
class _Fault:
    every_nth: int | None
    predicate: WritePredicate | None
    seen: int = 0

    def fires(self, entry: Json) -> bool:
        if self.predicate is not None:
            return bool(self.predicate(entry))
        self.seen += 1
        return bool(self.every_nth) and self.seen % int(self.every_nth or 1) == 0


@dataclass
class HeldWrite:
    """A ticket update the stand-in holds before applying it: ``arrived`` is set when it is held, and it is
    applied once the test calls ``release()``."""
    arrived: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.released.set()


@dataclass
class _Route:
    method: str
    pattern: re.Pattern[str]
    handler: Callable[..., _Answer]
    anonymous: bool = False  # Help Center reads answer anonymous requests (public content only)
    budget: str = "support"


def _audit_value(value: Any) -> Any:
    """A Change event's value as audits render it: ids and numbers as strings, lists as lists, null as null."""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _json_answer(status: int, body: Json, headers: dict[str, str] | None = None) -> _Answer:
    return _Answer(status, json.dumps(body).encode("utf-8"),
                   {"Content-Type": "application/json; charset=utf-8", **(headers or {})})


def _too_many(retry_after: int) -> _Answer:
    return _Answer(429, RATE_LIMIT_TEXT.encode("utf-8"),
                   {"Content-Type": "text/plain; charset=utf-8", "Retry-After": str(max(0, int(retry_after)))})


def _int_param(query: dict[str, str], name: str, default: int, lo: int = 1, hi: int | None = None,
               *, clamp: bool = True) -> int:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ZendeskError(400, "InvalidPaginationParameter", f"{name} must be an integer") from None
    if value < lo:
        raise ZendeskError(400, "InvalidPaginationParameter", f"{name} must be at least {lo}")
    if hi is not None and value > hi:
        if not clamp:
            raise ZendeskError(400, "InvalidPaginationParameter", f"{name} must be at most {hi}")
        value = hi
    return value


# --------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server_version = "ZendeskStandIn/1.0"
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers after stop()

    @property
    def api(self) -> ZendeskServer:
        return self.server.api  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:  # the Date header, by Zendesk's clock
        return email.utils.formatdate(self.api.clock() if timestamp is None else timestamp, usegmt=True)

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        answer = self.api._handle(self.command, self.path, headers, raw)
        if answer.drop:
            self.close_connection = True
            return
        self.send_response(answer.status)
        for key, value in answer.headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)

    do_GET = _serve
    do_PUT = _serve
    do_POST = _serve
    do_DELETE = _serve
    do_PATCH = _serve


# --------------------------------------------------------------------------
# the stand-in
# --------------------------------------------------------------------------


class ZendeskServer(LocalHTTPServer):
    """Local stand-in for ``https://{subdomain}.zendesk.com/api/v2/...`` (see the module docstring)."""

    handler_class = _Handler

    def __init__(self, email: str = "bot@kitebase.example", token: str = "zd-test-token",
                 oauth_token: str | None = None, subdomain: str = "kitebase", export_delay: float = 60.0,
                 clock: Callable[[], float] = time.time, bot_role: str = "agent") -> None:
        self.email = email
        self.token = token
        self.oauth_token = oauth_token
        self.subdomain = subdomain
        self.export_delay = export_delay
        self.clock = clock
        self.url: str = ""
        # limits (None = off)
        self.requests_per_minute: int | None = 700
        self.help_center_requests_per_minute: int | None = 700
        self.update_ticket_per_minute: int | None = 100
        self.ticket_updates_per_10_minutes: int | None = 30
        self.export_per_minute: int | None = None
        self.lazy_has_more = True
        self.restricted_brands: set[int] = set()
        self.default_brand_id = 1
        self.account_id = 12345678
        self.webhook_id = "01HZENDESKSTANDINWEBHOOK01"
        # records
        self.requests: list[Json] = []
        self.webhooks_sent: list[Json] = []
        self._lock = threading.RLock()
        self._users: dict[int, Json] = {}
        self._orgs: dict[int, Json] = {}
        self._tickets: dict[int, Json] = {}
        self._comments: dict[int, list[Json]] = {}
        self._highest_ticket = 0
        self._articles: dict[int, Json] = {}
        self._segments: dict[int, Json] = {}
        self._segment_ids = itertools.count(5_000_001)
        self._user_ids = itertools.count(1_000_001)
        self._org_ids = itertools.count(2_000_001)
        self._comment_ids = itertools.count(3_000_001)
        self._audit_ids = itertools.count(4_000_001)
        self._article_ids = itertools.count(360_000_001)
        self._attachment_ids = itertools.count(5_000_001)
        self.unsideloaded_users: set[int] = set()  # found by show/show_many, left out of every include=users
        self.unsideloaded_organizations: set[int] = set()  # the same for include=organizations
        self._export_horizon = 0  # the newest generated_timestamp a handed-out export cursor has passed
        self._windows: dict[Any, deque[float]] = {}
        self._idempotency: dict[str, tuple[str, float, _Answer]] = {}
        # faults
        self._outage = False
        self._ratelimit_until: float | None = None
        self._ratelimit_retry = 1
        self._ratelimit_skip = self._ratelimit_left = 0  # ratelimit_requests: requests let through, then refused
        self._fail_before: _Fault | None = None
        self._fail_after: _Fault | None = None
        self._drop_after: _Fault | None = None
        self._failing_paths: dict[str, int] = {}
        self._help_center_answer: int | None = None
        self.latency = 0.0
        self._held: deque[HeldWrite] = deque()
        self.on_request: Callable[[str, str], None] | None = None
        self._audits: dict[int, dict[int, Json]] = {}
        self._sla_policies: list[Json] = []
        self._sla_policy_ids = itertools.count(360_001_000_001)
        self.agent_id = self.add_user("Kitebase Agent", email, role=bot_role)  # the user the token acts as
        self.signed_in_segment_id = self.add_user_segment("Signed-in users", "signed_in_users", built_in=True)
        self.staff_segment_id = self.add_user_segment("Agents and admins", "staff", built_in=True)
        self._routes = self._build_routes()

    # ------------------------------------------------------------------
    # seeding (no HTTP)
    # ------------------------------------------------------------------
    def add_user(self, name: str, email: str, role: str = "end-user", organization_id: int | None = None) -> int:
        if role not in ("end-user", "agent", "admin"):
            raise ValueError(f"role must be end-user, agent or admin, not {role!r}")
        with self._lock:
            if self._user_by_email(email) is not None:
                raise ValueError(f"a user with email {email!r} exists already")
            if organization_id is not None and organization_id not in self._orgs:
                raise ValueError(f"no organization {organization_id}")
            user_id = next(self._user_ids)
            now = iso(self.clock())
            self._users[user_id] = {
                "id": user_id, "name": name, "email": email, "role": role, "organization_id": organization_id,
                "active": True, "suspended": False, "verified": True, "shared": False, "time_zone": "UTC",
                "locale": "en-US", "tags": [], "details": "", "notes": "", "photo": None,
                "created_at": now, "updated_at": now}
            return user_id

    def add_organization(self, name: str, domain_names: Iterable[str] = (), details: str = "", notes: str = "",
                         tags: Iterable[str] = (), *, organization_fields: Json | None = None) -> int:
        with self._lock:
            org_id = next(self._org_ids)
            now = iso(self.clock())
            self._orgs[org_id] = {
                "id": org_id, "name": name, "domain_names": list(domain_names), "details": details, "notes": notes,
                "tags": list(tags), "organization_fields": dict(organization_fields or {}), "external_id": None,
                "group_id": None, "shared_tickets": False, "shared_comments": False,
                "created_at": now, "updated_at": now}
            return org_id

    def add_ticket(self, subject: str, description: str, requester_id: int, *, status: str = "open",
                   priority: str | None = "normal", tags: Iterable[str] = (), assignee_id: int | None = None,
                   brand_id: int | None = None, created_at: str | float | None = None,
                   ticket_id: int | None = None, via: str = "web", group_id: int | None = None) -> int:
        """A ticket whose description is its first public comment, by the requester, arriving by `via` (Zendesk's
        via.channel: web, email, api, chat, ...) into `group_id` (None: no group)."""
        with self._lock:
            rec = self._create_ticket(subject, description, requester_id, submitter_id=requester_id,
                                      status=status, priority=priority, tags=tags, assignee_id=assignee_id,
                                      brand_id=brand_id, at=None if created_at is None else epoch(created_at),
                                      ticket_id=ticket_id, channel=via, extra={"group_id": group_id})
            return int(rec["id"])

    def add_comment(self, ticket_id: int, body: str, *, author_id: int, public: bool = True,
                    created_at: str | float | None = None, attachments: Iterable[Json] = ()) -> int:
        """A comment (``public=False``: an internal note); bumps the ticket's updated_at. Each of `attachments`
        names a file: ``{"file_name", "content_type", "size", "inline"?, "width"?, "height"?}``."""
        with self._lock:
            rec = self._live_ticket(ticket_id)
            if author_id not in self._users:
                raise ValueError(f"no user {author_id}")
            at = self.clock() if created_at is None else epoch(created_at)
            comment = self._append_comment(rec, body=body, html_body=None, author_id=author_id, public=public,
                                           at=at, channel="web")
            comment["attachments"] = [self._attachment(spec) for spec in attachments]
            if public and self._users[author_id]["role"] == "end-user" and rec["status"] in ("pending", "solved"):
                rec["status"] = "open"  # Zendesk's statuses: a requester's answer sets pending or solved back to open
            self._touch(rec, at)
            return int(comment["id"])

    def delete_user(self, user_id: int) -> None:
        """Permanently delete a user: show answers 404, show_many and side-loads leave them out; tickets and
        comments keep naming them (requester_id, author_id)."""
        with self._lock:
            del self._users[user_id]

    def update_organization(self, org_id: int, *, name: str | None = None,
                            organization_fields: Json | None = None) -> None:
        """Change an organization as an admin would: its name, or some of its organization fields (the others
        stay). Its tickets are not updated by it (the export does not list them again)."""
        with self._lock:
            org = self._orgs[org_id]
            if name is not None:
                org["name"] = name
            org["organization_fields"].update(organization_fields or {})
            org["updated_at"] = iso(self.clock())

    def delete_organization(self, org_id: int) -> None:
        """Delete an organization: show answers 404, show_many and side-loads leave it out; tickets keep naming
        it in organization_id."""
        with self._lock:
            del self._orgs[org_id]

    def update_ticket(self, ticket_id: int, **fields: Any) -> None:
        """Change fields as an agent in the UI would (status, priority, assignee_id, subject, tags, brand_id,
        group_id; type and problem_id, checked as an update through the API checks them)."""
        with self._lock:
            rec = self._live_ticket(ticket_id)
            links = self._link_changes(rec, {k: v for k, v in fields.items() if k in ("type", "problem_id")})
            for name, value in fields.items():
                if name not in ("status", "priority", "assignee_id", "subject", "tags", "brand_id", "group_id",
                                "type", "problem_id"):
                    raise ValueError(f"update_ticket cannot change {name!r}")
                rec[name] = list(value) if name == "tags" else links.get(name, value)
                if name == "subject":
                    rec["raw_subject"] = value
            rec.update(links)
            self._count_incidents()
            self._touch(rec)

    def delete_ticket(self, ticket_id: int) -> None:
        """Exported afterwards with ``"status": "deleted"``; GET answers 404."""
        with self._lock:
            rec = self._live_ticket(ticket_id)
            rec["_deleted"] = True
            self._touch(rec)

    def set_sla(self, ticket_id: int, metric: str = "first_reply_time", *, stage: str = "active",
                breach_at: str | float | None = None) -> None:
        """What Zendesk's SLA engine shows for one of the ticket's metrics now (``first_reply_time``,
        ``next_reply_time``, ...): ``active`` with the time it breaches, ``paused`` (no breach time) or ``achieved``
        (the breach time it had, if given). Replaces that metric's entry; a system update (``generated_timestamp``
        moves, so the export lists the ticket again; ``updated_at`` does not)."""
        if stage not in ("active", "paused", "achieved"):
            raise ValueError("stage must be active, paused or achieved")
        if stage == "active" and breach_at is None:
            raise ValueError("an active metric needs its breach_at")
        with self._lock:
            rec = self._live_ticket(ticket_id)
            metrics = [m for m in rec.get("_slas", []) if m["metric"] != metric]
            metrics.append({"metric": metric, "stage": stage,
                            "_breach": None if breach_at is None else epoch(breach_at)})
            rec["_slas"] = metrics
            self._system_touch(rec)

    def clear_slas(self, ticket_id: int) -> None:
        """No SLA policy applies to the ticket any more (its ``slas`` side-load lists no metric)."""
        with self._lock:
            rec = self._live_ticket(ticket_id)
            rec["_slas"] = []
            self._system_touch(rec)

    def add_sla_policy(self, title: str, policy_metrics: Iterable[Json], *, filter: Json | None = None,
                       description: str = "", position: int | None = None) -> int:
        """An SLA policy as the SLA Policies API shows it: ``policy_metrics`` items are ``{"priority", "metric",
        "target" (minutes), "business_hours"}``; ``filter`` is ``{"all": [...], "any": [...]}``."""
        with self._lock:
            policy_id = next(self._sla_policy_ids)
            now = iso(self.clock())
            metrics = [{**m, "target_in_seconds": int(m["target"]) * 60} for m in policy_metrics]
            self._sla_policies.append({
                "id": policy_id, "url": f"{self.base_url}/api/v2/slas/policies/{policy_id}.json", "title": title,
                "description": description, "position": position or len(self._sla_policies) + 1,
                "filter": filter or {"all": [], "any": []}, "policy_metrics": metrics,
                "created_at": now, "updated_at": now})
            return policy_id

    def add_user_segment(self, name: str, user_type: str = "signed_in_users", *, tags: Iterable[str] = (),
                         or_tags: Iterable[str] = (), organization_ids: Iterable[int] = (),
                         group_ids: Iterable[int] = (), added_user_ids: Iterable[int] = (),
                         built_in: bool = False) -> int:
        """A user segment (who may view the articles that name it); its id."""
        if user_type not in ("signed_in_users", "staff"):
            raise ValueError(f"user_type must be signed_in_users or staff, not {user_type!r}")
        with self._lock:
            segment_id = next(self._segment_ids)
            now = iso(self.clock())
            self._segments[segment_id] = {
                "id": segment_id, "name": name, "user_type": user_type, "built_in": built_in,
                "tags": _tags(tags), "or_tags": _tags(or_tags), "organization_ids": list(organization_ids),
                "group_ids": list(group_ids), "added_user_ids": list(added_user_ids),
                "created_at": now, "updated_at": now}
            return segment_id

    def add_article(self, title: str, body_html: str, *, draft: bool = False, section_id: int = 1,
                    locale: str = "en-us", article_id: int | None = None, slug: str | None = None,
                    author_id: int | None = None, user_segment_id: int | None = None,
                    user_segment_ids: Iterable[int] | None = None) -> int:
        """An article; `user_segment_id` (or on Enterprise `user_segment_ids`) restricts who may view it."""
        with self._lock:
            aid = article_id if article_id is not None else next(self._article_ids)
            if aid in self._articles:
                raise ValueError(f"article {aid} exists already")
            now = self.clock()
            self._articles[aid] = {
                "id": aid, "title": title, "name": title, "body": body_html, "locale": locale,
                "source_locale": locale, "section_id": section_id, "author_id": author_id or self.agent_id,
                "draft": draft, "promoted": False, "position": 0, "vote_sum": 0, "vote_count": 0,
                "comments_disabled": False, "outdated": False, "outdated_locales": [], "permission_group_id": 1,
                **self._segment_fields(user_segment_id, user_segment_ids), "label_names": [], "content_tag_ids": [],
                "created_at": iso(now), "updated_at": iso(now), "edited_at": iso(now),
                "_slug": slug or heading_anchor(title) or f"article-{aid}", "_updated": int(now)}
            return aid

    def restrict_article(self, article_id: int, user_segment_id: int | None = None,
                         user_segment_ids: Iterable[int] | None = None) -> None:
        """Change who may view an article (None and None: everyone); bumps updated_at like an edit."""
        with self._lock:
            art = self._articles[article_id]
            art.update(self._segment_fields(user_segment_id, user_segment_ids))
            stamp = max(int(self.clock()), art["_updated"] + 1)
            art["_updated"] = stamp
            art["updated_at"] = iso(stamp)

    def _segment_fields(self, user_segment_id: int | None, user_segment_ids: Iterable[int] | None) -> Json:
        """As a live account answers: one segment shows in both fields (`user_segment_ids: [id]`); several, given
        as `user_segment_ids` on Enterprise, leave `user_segment_id` null."""
        ids = list(user_segment_ids) if user_segment_ids is not None else \
            [user_segment_id] if user_segment_id is not None else []
        unknown = [i for i in [user_segment_id, *ids] if i is not None and i not in self._segments]
        if unknown:
            raise ValueError(f"no user segment {unknown[0]}")
        return {"user_segment_id": user_segment_id, "user_segment_ids": ids}

    def update_article(self, article_id: int, *, title: str | None = None, body_html: str | None = None,
                       draft: bool | None = None) -> None:
        """Edit an article (bumps updated_at, so the incremental article export sees it)."""
        with self._lock:
            art = self._articles[article_id]
            if title is not None:
                art["title"] = art["name"] = title
            if body_html is not None:
                art["body"] = body_html
            if draft is not None:
                art["draft"] = draft
            stamp = max(int(self.clock()), art["_updated"] + 1)
            art["_updated"] = stamp
            art["updated_at"] = art["edited_at"] = iso(stamp)

    def remove_article(self, article_id: int) -> None:
        """Archive an article: it leaves every list."""
        with self._lock:
            del self._articles[article_id]

    def load_kb_data(self, path: str | Path) -> dict[str, int]:
        """Load the embedded desk (customers.json, tickets.json, help/*.md); answer {"KITE-142": 4821, ...}.

        Customers become organizations (plan, seats, region and SSO in ``details`` and ``organization_fields``,
        the tier as the ``support_plan`` field's value: enterprise, business, standard)
        with their contact as an end-user; other customer authors become end-users of the same organization.
        The requester is the first message's author. Staff and internal authors become agents (email
        ``{handle}@{agent email domain}``); ``assignee`` handles (``priya``) name those agents."""
        root = Path(path)
        customers = json.loads((root / "customers.json").read_text(encoding="utf-8"))
        tickets = json.loads((root / "tickets.json").read_text(encoding="utf-8"))
        mapping: dict[str, int] = {}
        domain = self.email.rpartition("@")[2] or "kitebase.example"
        with self._lock:
            org_of: dict[str, int] = {}
            end_users: dict[tuple[int, str], int] = {}
            contact_domain: dict[int, str] = {}
            for row in customers:
                sso = row.get("sso_provider")
                details = (f"Plan: {row.get('plan')}. Seats: {row.get('seats')}. Region: {row.get('region')}. "
                           f"SSO: {sso or 'none'}.")
                org_id = self.add_organization(
                    row["name"], details=details, notes=row.get("notes") or "", tags=(row["id"],),
                    organization_fields={"plan": row.get("plan"), "seats": row.get("seats"),
                                         "region": row.get("region"), "sso_provider": sso,
                                         # a dropdown field's value is its option's tag: enterprise, business
                                         "support_plan": str(row["tier"]).lower() if row.get("tier") else None})
                org_of[row["id"]] = org_id
                email = row.get("contact_email") or f"{_ascii_email_part(row['contact_name'])}@example.com"
                existing = self._user_by_email(email)
                user_id = int(existing["id"]) if existing else self.add_user(row["contact_name"], email,
                                                                             organization_id=org_id)
                end_users[(org_id, row["contact_name"])] = user_id
                contact_domain[org_id] = email.rpartition("@")[2]

            agents_by_handle: dict[str, int] = {}

            def agent(name: str | None = None, handle: str | None = None) -> int:
                key = handle or _handle_of(name or "agent")
                if key not in agents_by_handle:
                    email = f"{key}@{domain}"
                    found = self._user_by_email(email)
                    agents_by_handle[key] = int(found["id"]) if found else self.add_user(
                        name or key.capitalize(), email, role="agent")
                return agents_by_handle[key]

            for row in tickets:  # real names first, so that assignee handles find them
                for message in row["messages"]:
                    if message["role"] != "customer":
                        agent(message["author"])

            def end_user(org_id: int, name: str) -> int:
                if (org_id, name) not in end_users:
                    email = f"{_ascii_email_part(name)}@{contact_domain[org_id]}"
                    found = self._user_by_email(email)
                    end_users[(org_id, name)] = int(found["id"]) if found else self.add_user(
                        name, email, organization_id=org_id)
                return end_users[(org_id, name)]

            for row in tickets:
                number = KITE_OFFSET + int(str(row["id"]).rsplit("-", 1)[1])
                org_id = org_of[row["customer_id"]]
                messages = row["messages"]
                first_customer = next((m for m in messages if m["role"] == "customer"), None)
                contact = next(c["contact_name"] for c in customers if c["id"] == row["customer_id"])
                requester = end_user(org_id, first_customer["author"] if first_customer else contact)

                def author_of(message: Json, org_id: int = org_id) -> int:
                    if message["role"] == "customer":
                        return end_user(org_id, message["author"])
                    return agent(message["author"])

                status = {"closed": "closed", "pending": "pending", "solved": "solved"}.get(row["status"], "open")
                rec = self._create_ticket(
                    row["title"], messages[0]["body"] if messages else "", requester,
                    submitter_id=author_of(messages[0]) if messages else requester, status=status,
                    priority=row.get("priority") or None, tags=row.get("tags") or (),
                    assignee_id=agent(handle=row["assignee"]) if row.get("assignee") else None,
                    brand_id=None, at=epoch(row["created_at"]), ticket_id=number, channel="web", touch=False,
                    first_public=messages[0]["role"] != "internal" if messages else True)
                for message in messages[1:]:
                    self._append_comment(rec, body=message["body"], html_body=None, author_id=author_of(message),
                                         public=message["role"] != "internal", at=epoch(message["created_at"]),
                                         channel="web")
                self._touch(rec, epoch(row["updated_at"]))
                mapping[str(row["id"])] = number

            for md in sorted((root / "help").glob("*.md")):
                title, body = markdown_to_html(md.read_text(encoding="utf-8"),
                                               md.stem.replace("-", " ").capitalize())
                self.add_article(title, body, slug=md.stem)
        return mapping

    # ------------------------------------------------------------------
    # read access for tests
    # ------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return self.url or f"https://{self.subdomain}.zendesk.com"

    @property
    def tickets(self) -> dict[int, Json]:
        """Live tickets (deleted ones are in ``deleted_tickets``), with ``generated_timestamp``."""
        with self._lock:
            return {tid: self._render_ticket(rec, export=True) for tid, rec in sorted(self._tickets.items())
                    if not rec.get("_deleted")}

    @property
    def deleted_tickets(self) -> dict[int, Json]:
        with self._lock:
            return {tid: self._render_ticket(rec, export=True) for tid, rec in sorted(self._tickets.items())
                    if rec.get("_deleted")}

    def comments_of(self, ticket_id: int) -> list[Json]:
        with self._lock:
            return [copy.deepcopy(c) for c in self._sorted_comments(ticket_id)]

    @property
    def users(self) -> dict[int, Json]:
        with self._lock:
            return {uid: self._render_user(u) for uid, u in self._users.items()}

    @property
    def organizations(self) -> dict[int, Json]:
        with self._lock:
            return {oid: self._render_org(o) for oid, o in self._orgs.items()}

    @property
    def articles(self) -> dict[int, Json]:
        with self._lock:
            return {aid: self._render_article(a) for aid, a in sorted(self._articles.items())}

    def user_by_email(self, email: str) -> Json | None:
        with self._lock:
            user = self._user_by_email(email)
            return self._render_user(user) if user else None

    def requests_to(self, method: str, path_prefix: str) -> list[Json]:
        with self._lock:
            return [r for r in self.requests if r["method"] == method.upper() and r["path"].startswith(path_prefix)]

    def ticket_webhook_payload(self, ticket_id: int) -> Json:
        """What a typical trigger body renders for a ticket: ids and all as strings."""
        with self._lock:
            rec = self._tickets[ticket_id]
            return {"ticket_id": str(ticket_id), "title": rec["subject"],
                    "status": "deleted" if rec.get("_deleted") else rec["status"], "updated_at": rec["updated_at"],
                    "link": f"{self.subdomain}.zendesk.com/agent/tickets/{ticket_id}"}

    # ------------------------------------------------------------------
    # fault injection
    # ------------------------------------------------------------------
    def outage(self, on: bool = True) -> None:
        """Every request answers 503 ``{"error": "ServiceUnavailable"}`` with ``Retry-After: 1`` until off."""
        self._outage = on

    def ratelimit_window(self, seconds: float, retry_after: int = 1) -> None:
        """Every request answers 429 for ``seconds`` (measured with the clock)."""
        self._ratelimit_until = self.clock() + seconds
        self._ratelimit_retry = retry_after

    def ratelimit_requests(self, count: int, *, after: int = 0, retry_after: int = 1) -> None:
        """The ``count`` requests that come after the next ``after`` answer 429: a window counted in requests, for
        a test that must meet it however fast or slow the client is."""
        with self._lock:
            self._ratelimit_skip, self._ratelimit_left, self._ratelimit_retry = after, count, retry_after

    def fail_writes_after_applying(self, every_nth: int | WritePredicate | None = 3) -> None:
        """Ticket writes (PUT, POST) are applied, then answered 500: the client cannot know. A predicate gets the
        request record (method, path, body...). None switches it off."""
        self._fail_after = self._fault(every_nth)

    def fail_writes_before_applying(self, every_nth: int | WritePredicate | None = 3) -> None:
        """Ticket writes answered 500 without being applied."""
        self._fail_before = self._fault(every_nth)

    def drop_connection_after_applying(self, every_nth: int | WritePredicate | None = 3) -> None:
        """Ticket writes applied, then the socket is closed without an answer."""
        self._drop_after = self._fault(every_nth)

    def hold_writes(self, count: int = 1) -> list[HeldWrite]:
        """The next ``count`` ticket updates (PUT) wait, before anything is applied, until released."""
        held = [HeldWrite() for _ in range(count)]
        with self._lock:
            self._held.extend(held)
        return held

    def fail_path(self, path_prefix: str, status: int | None = 503) -> None:
        """GET requests whose path starts with `path_prefix` answer `status` (``{"error": ...}``) until
        ``fail_path(path_prefix, None)`` or ``clear_faults()``."""
        if status is None:
            self._failing_paths.pop(path_prefix, None)
        else:
            self._failing_paths[path_prefix] = status
    def help_center_off(self, status: int | None = 404) -> None:
        """An account without a Help Center (404) or one this user may not read (403): every Help Center
        endpoint answers ``status`` with Zendesk's error body. None: the Help Center answers again."""
        if status not in (None, 403, 404):
            raise ValueError("help_center_off takes 403, 404 or None")
        self._help_center_answer = status

    def slow(self, seconds: float) -> None:
        """Add this much latency to every answer (0: none)."""
        self.latency = max(0.0, seconds)

    def clear_faults(self) -> None:
        self._outage = False
        self._ratelimit_until = None
        self._ratelimit_left = 0
        self._fail_before = self._fail_after = self._drop_after = None
        self._failing_paths.clear()
        self._help_center_answer = None
        self.latency = 0.0
        with self._lock:
            held, self._held = list(self._held), deque()
        for gate in held:
            gate.release()

    @staticmethod
    def _fault(every_nth: int | WritePredicate | None) -> _Fault | None:
        if every_nth is None or every_nth == 0:
            return None
        if callable(every_nth):
            return _Fault(None, every_nth)
        return _Fault(int(every_nth), None)

    # ------------------------------------------------------------------
    # webhooks
    # ------------------------------------------------------------------
    def event_webhook_payload(self, event_type: str, subject_id: int, *, event: Json | None = None) -> Json:
        """What an event-subscribed webhook POSTs (developer.zendesk.com, webhooks/event-types): the fixed schema
        with ``type`` (``zen:event-type:ticket.status_changed``, ``zen:event-type:user.active_changed``,
        ``zen:event-type:organization.created``...), ``subject`` ``zen:<domain>:<id>`` and the record's
        properties in ``detail``, its ``id`` a string. Send it with ``send_webhook(..., stringify=False)``."""
        domain = event_type.rsplit(":", 1)[-1].split(".", 1)[0]
        with self._lock:
            if domain == "ticket":
                rec = self._tickets.get(subject_id) or {}
                detail = {key: rec.get(key) for key in ("assignee_id", "brand_id", "created_at", "group_id",
                                                        "organization_id", "priority", "requester_id", "status",
                                                        "subject", "submitter_id", "tags", "type", "updated_at")}
                detail["via"] = {"channel": "web"}
            elif domain == "user":
                rec = self._users.get(subject_id) or {}
                detail = {key: rec.get(key) for key in ("created_at", "email", "organization_id", "role",
                                                        "updated_at")}
            else:
                rec = self._orgs.get(subject_id) or {}
                detail = {key: rec.get(key) for key in ("created_at", "name", "updated_at")}
        detail = {k: (str(v) if isinstance(v, int) and not isinstance(v, bool) else v) for k, v in detail.items()}
        detail["id"] = str(subject_id)
        return {"type": event_type, "account_id": self.account_id, "id": str(uuid.uuid4()),
                "time": iso(self.clock()), "zendesk_event_version": "2022-11-06",
                "subject": f"zen:{domain}:{subject_id}", "detail": detail, "event": event or {}}

    def send_webhook(self, target_url: str, payload: Json, secret: str, *, timestamp: str | None = None,
                     invocation_id: str | None = None, bad_signature: bool = False, stringify: bool = True,
                     timeout: float = 10.0) -> tuple[int, bytes]:
        """POST ``payload`` to ``target_url`` as a trigger-connected webhook does (numbers rendered as strings;
        ``stringify=False`` for an event webhook's fixed schema), signed with ``secret``; answer (status, body).
        ``bad_signature`` signs with another secret."""
        body = json.dumps(_stringify(payload) if stringify else payload).encode("utf-8")
        stamp = timestamp or iso(self.clock())
        signature = sign_webhook(secret + "-wrong" if bad_signature else secret, body, stamp)
        invocation = invocation_id or str(secrets.randbelow(10**15))
        headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "Zendesk Webhook",
                   "x-zendesk-account-id": str(self.account_id), "x-zendesk-webhook-id": self.webhook_id,
                   "x-zendesk-webhook-invocation-id": invocation, "x-zendesk-webhook-signature": signature,
                   "x-zendesk-webhook-signature-timestamp": stamp}
        request = urllib.request.Request(target_url, data=body, headers=headers, method="POST")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=timeout) as response:
                status, answer = int(response.status), response.read()
        except urllib.error.HTTPError as exc:
            status, answer = exc.code, exc.read()
        with self._lock:
            self.webhooks_sent.append({"url": target_url, "headers": headers, "body": json.loads(body),
                                       "status": status, "answer": answer})
        return status, answer

    # ------------------------------------------------------------------
    # request handling
    # ------------------------------------------------------------------
    def _build_routes(self) -> list[_Route]:
        n = r"(\d+)"
        j = r"(?:\.json)?"
        loc = r"([a-z]{2}(?:-[a-z]{2,4})?)"
        table: list[tuple[str, str, Callable[..., _Answer], bool, str]] = [
            ("GET", f"/api/v2/users/me{j}", self._get_me, False, "support"),
            ("GET", f"/api/v2/users/show_many{j}", self._show_many_users, False, "support"),
            ("GET", f"/api/v2/users/{n}{j}", self._get_user, False, "support"),
            ("GET", f"/api/v2/organizations/show_many{j}", self._show_many_orgs, False, "support"),
            ("GET", f"/api/v2/organizations/{n}{j}", self._get_org, False, "support"),
            ("GET", f"/api/v2/tickets{j}", self._list_tickets, False, "support"),
            ("POST", f"/api/v2/tickets{j}", self._create_ticket_request, False, "support"),
            ("GET", f"/api/v2/tickets/show_many{j}", self._show_many_tickets, False, "support"),
            ("GET", f"/api/v2/tickets/{n}{j}", self._get_ticket, False, "support"),
            ("PUT", f"/api/v2/tickets/{n}{j}", self._update_ticket_request, False, "support"),
            ("GET", f"/api/v2/tickets/{n}/comments{j}", self._list_comments, False, "support"),
            ("GET", f"/api/v2/tickets/{n}/incidents{j}", self._list_incidents, False, "support"),
            ("GET", f"/api/v2/tickets/{n}/audits/{n}{j}", self._get_audit, False, "support"),
            ("GET", f"/api/v2/incremental/tickets/cursor{j}", self._export_tickets, False, "support"),
            ("GET", f"/api/v2/search{j}", self._search, False, "support"),
            ("GET", f"/api/v2/slas/policies{j}", self._list_sla_policies, False, "support"),
            ("GET", f"/api/v2/help_center/incremental/articles{j}", self._incremental_articles, False,
             "help_center"),
            ("GET", f"/api/v2/help_center/articles{j}", self._list_articles, True, "help_center"),
            ("GET", f"/api/v2/help_center/{loc}/articles{j}", self._list_articles, True, "help_center"),
            ("GET", f"/api/v2/help_center/articles/{n}{j}", self._get_article, True, "help_center"),
            ("GET", f"/api/v2/help_center/{loc}/articles/{n}{j}", self._get_article_localized, True,
             "help_center"),
            ("GET", f"/api/v2/help_center/user_segments{j}", self._list_segments, False, "help_center"),
            ("GET", f"/api/v2/help_center/user_segments/{n}{j}", self._get_segment, False, "help_center"),
        ]
        return [_Route(m, re.compile(p), h, anon, budget) for m, p, h, anon, budget in table]

    def _handle(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> _Answer:
        parts = urlsplit(target)
        query = _flatten(parse_qs(parts.query, keep_blank_values=True))
        body: Any = None
        if raw:
            try:
                body = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                body = raw.decode("utf-8", errors="replace")
        entry: Json = {"method": method.upper(), "path": parts.path, "query": query,
                       "headers": {k: ("<redacted>" if k == "authorization" else v) for k, v in headers.items()},
                       "body": body, "status": None, "time": time.monotonic(), "user_id": None}
        if self.on_request is not None:
            self.on_request(method.upper(), parts.path)
        if method.upper() == "PUT" and re.fullmatch(r"/api/v2/tickets/\d+(?:\.json)?", parts.path):
            with self._lock:
                gate = self._held.popleft() if self._held else None
            if gate is not None:  # held outside the lock: other requests go on meanwhile
                gate.arrived.set()
                gate.released.wait(timeout=120)
        try:
            answer = self._dispatch(method.upper(), parts.path, query, headers, raw, body, entry)
        except Exception:  # a bug here: answer 500, keep the traceback for the test
            entry["exception"] = traceback.format_exc()
            answer = _json_answer(500, {"error": "InternalError", "description": "stand-in error"})
        entry["status"] = None if answer.drop else answer.status
        entry["dropped"] = answer.drop
        with self._lock:
            self.requests.append(entry)
        if self.latency > 0:
            time.sleep(self.latency)
        return answer

    def _dispatch(self, method: str, path: str, query: dict[str, str], headers: dict[str, str], raw: bytes,
                  body: Any, entry: Json) -> _Answer:
        route, groups = self._route(method, path)
        budget = route.budget if route else "support"
        limit = self.help_center_requests_per_minute if budget == "help_center" else self.requests_per_minute
        with self._lock:
            try:
                answer = self._admit_and_run(route, groups, budget, limit, method, path, query, headers, raw,
                                             body, entry)
            except ZendeskError as exc:
                answer = _json_answer(exc.status, exc.body(), exc.headers)
            window = self._windows.get(budget, deque())
            remaining = 0 if answer.status == 429 or limit is None else max(0, limit - len(window))
            answer.headers.setdefault("X-Rate-Limit", str(limit if limit is not None else 0))
            answer.headers["X-Rate-Limit-Remaining"] = str(remaining)
            return answer

    def _admit_and_run(self, route: _Route | None, groups: tuple[str, ...], budget: str, limit: int | None,
                       method: str, path: str, query: dict[str, str], headers: dict[str, str], raw: bytes,
                       body: Any, entry: Json) -> _Answer:
        now = self.clock()
        if self._outage:
            raise ZendeskError(503, "ServiceUnavailable", headers={"Retry-After": "1"})
        if self._ratelimit_until is not None and now < self._ratelimit_until:
            return _too_many(self._ratelimit_retry)
        if self._ratelimit_left and self._ratelimit_skip:
            self._ratelimit_skip -= 1
        elif self._ratelimit_left:
            self._ratelimit_left -= 1
            return _too_many(self._ratelimit_retry)
        user = self._authenticate(headers, anonymous=route.anonymous if route else False)
        entry["user_id"] = user["id"] if user else None
        wait = self._admit(budget, limit, 60.0, now)
        if wait is not None:
            return _too_many(wait)
        failing = next((status for prefix, status in self._failing_paths.items()
                        if method == "GET" and path.startswith(prefix)), None)
        if failing is not None:
            error = {403: "Forbidden", 404: "RecordNotFound", 503: "ServiceUnavailable"}.get(failing, "InternalError")
            raise ZendeskError(failing, error, headers={"Retry-After": "1"} if failing == 503 else None)
        if route is None:
            raise ZendeskError(404, "InvalidEndpoint", "Not found")
        if budget == "help_center" and self._help_center_answer == 404:
            raise ZendeskError(404, "RecordNotFound", "Not found")
        if budget == "help_center" and self._help_center_answer == 403:
            raise ZendeskError(403, "Forbidden", FORBIDDEN_DESCRIPTION)
        return route.handler(_Request(method, path, query, headers, raw, body, user, entry), *groups)

    def _route(self, method: str, path: str) -> tuple[_Route | None, tuple[str, ...]]:
        for route in self._routes:
            if route.method == method and (m := route.pattern.fullmatch(path)):
                return route, m.groups()
        return None, ()

    def _authenticate(self, headers: dict[str, str], *, anonymous: bool) -> Json | None:
        auth = headers.get("authorization", "").strip()
        if not auth and anonymous:
            return None
        scheme, _, credentials = auth.partition(" ")
        credentials = credentials.strip()
        user: Json | None = None
        if scheme.lower() == "bearer" and self.oauth_token and credentials:
            if hmac.compare_digest(credentials.encode(), self.oauth_token.encode()):
                user = self._user_by_email(self.email)
        elif scheme.lower() == "basic" and credentials:
            try:
                decoded = base64.b64decode(credentials, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                decoded = ""
            login, _, secret = decoded.partition(":")
            if login.endswith("/token") and hmac.compare_digest(secret.encode(), self.token.encode()):
                found = self._user_by_email(login[: -len("/token")])
                if found and found["role"] in AGENT_ROLES and found["active"] and not found["suspended"]:
                    user = found
        if user is None:
            raise ZendeskError(401, "Couldn't authenticate you")
        return user

    def _admit(self, key: Any, limit: int | None, period: float, now: float) -> int | None:
        """None when the request fits the sliding window (and is counted), else the seconds to wait."""
        if limit is None:
            return None
        window = self._windows.setdefault(key, deque())
        while window and window[0] <= now - period:
            window.popleft()
        if len(window) >= limit:
            return max(1, math.ceil(window[0] + period - now))
        window.append(now)
        return None

    def _write(self, request: _Request, apply: Callable[[], _Answer]) -> _Answer:
        """Run a ticket write under the write faults."""
        if self._fail_before is not None and self._fail_before.fires(request.entry):
            return _json_answer(500, {"error": "InternalServerError", "description": "Internal Server Error"})
        answer = apply()
        if answer.status >= 400:
            return answer
        if self._drop_after is not None and self._drop_after.fires(request.entry):
            return _Answer(0, drop=True)
        if self._fail_after is not None and self._fail_after.fires(request.entry):
            return _json_answer(500, {"error": "InternalServerError", "description": "Internal Server Error"})
        return answer

    # ------------------------------------------------------------------
    # internals: records
    # ------------------------------------------------------------------
    def _user_by_email(self, email: str) -> Json | None:
        wanted = email.strip().lower()
        return next((u for u in self._users.values() if str(u["email"]).lower() == wanted), None)

    def _live_ticket(self, ticket_id: int) -> Json:
        rec = self._tickets.get(ticket_id)
        if rec is None or rec.get("_deleted"):
            raise ValueError(f"no ticket {ticket_id}")
        return rec

    def _touch(self, rec: Json, at: float | None = None) -> None:
        """Bump updated_at and generated_timestamp: strictly increasing per ticket, and past every export cursor
        handed out (so no change can sort before a cursor a client holds)."""
        now = self.clock() if at is None else at
        updated = max(int(now), int(rec["_updated"]) + 1)
        generated = max(updated, int(rec["generated_timestamp"]) + 1, self._export_horizon + 1)
        rec["_updated"] = updated
        rec["updated_at"] = iso(updated)
        rec["generated_timestamp"] = generated

    def _system_touch(self, rec: Json) -> None:
        """A system update (an SLA's stage changed): generated_timestamp moves past every handed-out cursor, so the
        export lists the ticket again; updated_at stays (no ticket event)."""
        rec["generated_timestamp"] = max(int(self.clock()), int(rec["generated_timestamp"]) + 1,
                                         self._export_horizon + 1)

    def _render_slas(self, rec: Json) -> Json:
        """The ticket's ``slas`` side-load: each metric with its breach time and the time left until it, in the
        largest whole unit (as live bodies quoted in public clients show: ``"hours": 21``, ``"days": -141``)."""
        now = self.clock()
        metrics = []
        for m in rec.get("_slas", []):
            out: Json = {"breach_at": iso(m["_breach"]) if m["_breach"] is not None else None,
                         "stage": m["stage"], "metric": m["metric"]}
            if m["_breach"] is not None:
                left = (m["_breach"] - now) / 60
                unit, size = next(((u, n) for u, n in (("days", 1440), ("hours", 60)) if abs(left) >= n),
                                  ("minutes", 1))
                out[unit] = int(left / size)
            metrics.append(out)
        return {"policy_metrics": metrics}

    def _create_ticket(self, subject: str, description: str, requester_id: int, *, submitter_id: int,
                       status: str | None, priority: str | None, tags: Iterable[str], assignee_id: int | None,
                       brand_id: int | None, at: float | None, ticket_id: int | None, channel: str,
                       description_html: str | None = None, first_public: bool = True, touch: bool = True,
                       extra: Json | None = None) -> Json:
        requester = self._users.get(requester_id)
        if requester is None:
            raise ValueError(f"no user {requester_id}")
        if status is not None and status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}")
        if priority is not None and priority not in PRIORITIES:
            raise ValueError(f"priority must be one of {PRIORITIES}")
        if assignee_id is not None and (assignee_id not in self._users
                                        or self._users[assignee_id]["role"] not in AGENT_ROLES):
            raise ValueError(f"assignee {assignee_id} is not an agent")
        tid = ticket_id if ticket_id is not None else self._highest_ticket + 1  # not max(): 100,000 tickets
        self._highest_ticket = max(self._highest_ticket, tid)
        if tid in self._tickets:
            raise ValueError(f"ticket {tid} exists already")
        created = self.clock() if at is None else at
        rec: Json = {
            "id": tid, "external_id": None, "type": None, "subject": subject, "raw_subject": subject,
            "description": "", "priority": priority, "status": status or ("open" if assignee_id else "new"),
            "recipient": None, "requester_id": requester_id, "submitter_id": submitter_id,
            "assignee_id": assignee_id, "organization_id": requester.get("organization_id"), "group_id": None,
            "collaborator_ids": [], "follower_ids": [], "email_cc_ids": [], "problem_id": None,
            "has_incidents": False, "is_public": False, "due_at": None, "tags": _tags(tags), "custom_fields": [],
            "satisfaction_rating": None, "via": {"channel": channel},
            "brand_id": brand_id if brand_id is not None else self.default_brand_id,
            "created_at": iso(created), "updated_at": iso(created), "generated_timestamp": 0, "_updated": 0}
        rec.update(extra or {})
        self._tickets[tid] = rec
        self._comments[tid] = []
        first = self._append_comment(rec, body=description if description_html is None else None,
                                     html_body=description_html, author_id=submitter_id, public=first_public,
                                     at=created, channel=channel)
        rec["description"] = first["body"]
        if touch:
            self._touch(rec, created)
        return rec

    def _append_comment(self, rec: Json, *, body: str | None, html_body: str | None, author_id: int,
                        public: bool, at: float, channel: str, audit_id: int | None = None) -> Json:
        if html_body is not None:
            text, markup = _html_to_text(html_body), html_body
        else:
            text, markup = body or "", _text_to_html(body or "")
        comment: Json = {"id": next(self._comment_ids), "type": "Comment", "author_id": author_id, "body": text,
                         "html_body": markup, "plain_body": text, "public": bool(public), "attachments": [],
                         "audit_id": audit_id if audit_id is not None else next(self._audit_ids),
                         "via": {"channel": channel}, "metadata": {}, "created_at": iso(at), "_at": int(at)}
        self._comments[int(rec["id"])].append(comment)
        if public:
            rec["is_public"] = True
        return comment

    def _sorted_comments(self, ticket_id: int) -> list[Json]:
        comments = sorted(self._comments.get(ticket_id, []), key=lambda c: (c["_at"], c["id"]))
        return [{**{k: v for k, v in c.items() if not k.startswith("_")},
                 "attachments": [self._render_attachment(a) for a in c["attachments"]]} for c in comments]

    def _attachment(self, spec: Json) -> Json:
        if not spec.get("file_name"):
            raise ValueError("an attachment needs a file_name")
        return {"id": next(self._attachment_ids), "file_name": str(spec["file_name"]),
                "content_type": spec.get("content_type") or "application/octet-stream",
                "size": int(spec.get("size") or 0), "width": spec.get("width"), "height": spec.get("height"),
                "inline": bool(spec.get("inline", False)), "deleted": False, "_token": secrets.token_urlsafe(18)}

    def _render_attachment(self, att: Json) -> Json:
        """Zendesk's attachment object (the fields of the one recorded in zenpy's TestAttachmentUpload)."""
        content = f"{self.base_url}/attachments/token/{att['_token']}/?name={quote(att['file_name'])}"
        return {"url": f"{self.base_url}/api/v2/attachments/{att['id']}.json", "id": att["id"],
                "file_name": att["file_name"], "content_url": content, "mapped_content_url": content,
                "content_type": att["content_type"], "size": att["size"], "width": att["width"],
                "height": att["height"], "inline": att["inline"], "deleted": att["deleted"],
                "malware_access_override": False, "malware_scan_result": "not_scanned", "thumbnails": []}

    def _render_ticket(self, rec: Json, *, export: bool = False) -> Json:
        out = {k: copy.deepcopy(v) for k, v in rec.items() if not k.startswith("_")}
        out["url"] = f"{self.base_url}/api/v2/tickets/{rec['id']}.json"
        if rec.get("_deleted"):
            out["status"] = "deleted"
        if not export:
            out.pop("generated_timestamp", None)
        return out

    def _render_user(self, user: Json) -> Json:
        return {**copy.deepcopy(user), "url": f"{self.base_url}/api/v2/users/{user['id']}.json"}

    def _render_org(self, org: Json) -> Json:
        return {**copy.deepcopy(org), "url": f"{self.base_url}/api/v2/organizations/{org['id']}.json"}

    def _render_article(self, art: Json) -> Json:
        out = {k: copy.deepcopy(v) for k, v in art.items() if not k.startswith("_")}
        out["url"] = f"{self.base_url}/api/v2/help_center/{art['locale']}/articles/{art['id']}.json"
        out["html_url"] = f"{self.base_url}/hc/{art['locale']}/articles/{art['id']}-{art['_slug']}"
        return out

    def _link(self, path: str, query: dict[str, str], **changes: Any) -> str:
        params = {**query, **{k: str(v) for k, v in changes.items()}}
        return f"{self.base_url}{path}?{urlencode(params, safe='[],:')}"

    def _visible_ticket(self, ticket_id: int) -> Json:
        rec = self._tickets.get(ticket_id)
        if rec is None or rec.get("_deleted"):
            raise ZendeskError(404, "RecordNotFound", "Not found")
        if rec["brand_id"] in self.restricted_brands:
            raise ZendeskError(403, "Forbidden", FORBIDDEN_DESCRIPTION)
        return rec

    @staticmethod
    def _ids(query: dict[str, str]) -> list[int]:
        try:
            ids = [int(part) for part in query.get("ids", "").split(",") if part.strip()]
        except ValueError:
            raise ZendeskError(400, "InvalidValue", "ids must be a comma-separated list of integers") from None
        if len(ids) > 100:
            raise ZendeskError(400, "InvalidValue", "ids may name at most 100 records")
        return ids

    # ------------------------------------------------------------------
    # pagination
    # ------------------------------------------------------------------
    def _paginate(self, request: _Request, items: list[Json], key: str, sort_key: Callable[[Json], list[Any]], *,
                  default_per_page: int = 100, descending: bool = False, extra: Json | None = None) -> Json:
        """Cursor pagination when page[size] is given (or a page[after]/page[before] cursor), else offset."""
        q = request.query
        ordered = sorted(items, key=sort_key, reverse=descending)
        if any(k in q for k in ("page[size]", "page[after]", "page[before]")):
            size = _int_param(q, "page[size]", default_per_page, 1, 100, clamp=False)

            def beyond(item: Json, mark: list[Any]) -> bool:
                k = sort_key(item)
                return k < mark if descending else k > mark

            mark: list[Any] | None
            if q.get("page[before]"):
                mark = _decode_cursor(q["page[before]"], key)
                earlier = [i for i in ordered if sort_key(i) != mark and not beyond(i, mark)]
                page = earlier[-size:]
                has_more = len(page) == size if self.lazy_has_more else len(earlier) > size
            else:
                mark = _decode_cursor(q["page[after]"], key) if q.get("page[after]") else None
                rest = ordered if mark is None else [i for i in ordered if beyond(i, mark)]
                page = rest[:size]
                has_more = len(page) == size if self.lazy_has_more else len(rest) > size
            after = _encode_cursor(key, *sort_key(page[-1])) if page else None
            before = _encode_cursor(key, *sort_key(page[0])) if page else None
            base = {k: v for k, v in q.items() if k not in ("page[after]", "page[before]")}
            base["page[size]"] = str(size)
            return {key: page, **(extra or {}),
                    "meta": {"has_more": has_more, "after_cursor": after, "before_cursor": before},
                    "links": {"next": self._link(request.path, {**base, "page[after]": after})
                              if has_more and after else None,
                              "prev": self._link(request.path, {**base, "page[before]": before}) if before else None}}
        page_no = _int_param(q, "page", 1, 1)
        per_page = _int_param(q, "per_page", default_per_page, 1, 100)
        if page_no > OFFSET_PAGE_LIMIT:
            raise ZendeskError(400, "InvalidPaginationParameter",
                               "Offset pagination is limited to the first 100 pages. Use cursor pagination instead.")
        start = (page_no - 1) * per_page
        page = ordered[start:start + per_page]
        more = start + per_page < len(ordered)
        return {key: page, **(extra or {}),
                "next_page": self._link(request.path, q, page=page_no + 1) if more else None,
                "previous_page": self._link(request.path, q, page=page_no - 1) if page_no > 1 else None,
                "count": len(ordered), "page": page_no, "per_page": per_page,
                "page_count": max(1, math.ceil(len(ordered) / per_page))}

    # ------------------------------------------------------------------
    # endpoints: users, organizations
    # ------------------------------------------------------------------
    def _get_me(self, request: _Request) -> _Answer:
        assert request.user is not None
        return _json_answer(200, {"user": self._render_user(request.user)})

    def _get_user(self, request: _Request, user_id: str) -> _Answer:
        user = self._users.get(int(user_id))
        if user is None:
            raise ZendeskError(404, "RecordNotFound", "Not found")
        return _json_answer(200, {"user": self._render_user(user)})

    def _show_many_users(self, request: _Request) -> _Answer:
        found = [self._render_user(self._users[i]) for i in self._ids(request.query) if i in self._users]
        return _json_answer(200, {"users": found, "next_page": None, "previous_page": None, "count": len(found)})

    def _get_org(self, request: _Request, org_id: str) -> _Answer:
        org = self._orgs.get(int(org_id))
        if org is None:
            raise ZendeskError(404, "RecordNotFound", "Not found")
        return _json_answer(200, {"organization": self._render_org(org)})

    def _show_many_orgs(self, request: _Request) -> _Answer:
        found = [self._render_org(self._orgs[i]) for i in self._ids(request.query) if i in self._orgs]
        return _json_answer(200, {"organizations": found, "next_page": None, "previous_page": None,
                                  "count": len(found)})

    # ------------------------------------------------------------------
    # endpoints: tickets
    # ------------------------------------------------------------------
    def _sideload(self, body: Json, tickets: list[Json], query: dict[str, str], *, slas: bool = True) -> Json:
        """``include=users,organizations``: the tickets' requesters, submitters, assignees and organizations;
        ``include=slas`` (not on the export): each ticket's own ``slas``."""
        include = set(query.get("include", "").split(","))
        if "slas" in include and slas:
            for ticket in tickets:
                ticket["slas"] = self._render_slas(self._tickets[int(ticket["id"])])
        if "users" in include:
            ids = sorted({int(i) for t in tickets for i in (t["requester_id"], t["submitter_id"], t["assignee_id"])
                          if i is not None})
            body["users"] = [self._render_user(self._users[i]) for i in ids
                             if i in self._users and i not in self.unsideloaded_users]
        if "organizations" in include:
            org_ids = sorted({int(t["organization_id"]) for t in tickets if t["organization_id"] is not None})
            body["organizations"] = [self._render_org(self._orgs[i]) for i in org_ids
                                     if i in self._orgs and i not in self.unsideloaded_organizations]
        return body

    def _readable_tickets(self) -> list[Json]:
        return [self._render_ticket(r) for r in self._tickets.values()
                if not r.get("_deleted") and r["brand_id"] not in self.restricted_brands]

    def _list_tickets(self, request: _Request) -> _Answer:
        body = self._paginate(request, self._readable_tickets(), "tickets", lambda t: [t["id"]])
        return _json_answer(200, self._sideload(body, body["tickets"], request.query))

    def _get_ticket(self, request: _Request, ticket_id: str) -> _Answer:
        ticket = self._render_ticket(self._visible_ticket(int(ticket_id)))
        return _json_answer(200, self._sideload({"ticket": ticket}, [ticket], request.query))

    def _show_many_tickets(self, request: _Request) -> _Answer:
        found = []
        for tid in self._ids(request.query):
            rec = self._tickets.get(tid)
            if rec is not None and not rec.get("_deleted") and rec["brand_id"] not in self.restricted_brands:
                found.append(self._render_ticket(rec))
        body = {"tickets": found, "next_page": None, "previous_page": None, "count": len(found)}
        return _json_answer(200, self._sideload(body, found, request.query))

    def _list_comments(self, request: _Request, ticket_id: str) -> _Answer:
        rec = self._visible_ticket(int(ticket_id))
        comments = self._sorted_comments(int(rec["id"]))
        q = request.query
        if q.get("include_inline_images") != "true":  # inline images are listed only when asked for
            comments = [{**c, "attachments": [a for a in c["attachments"] if not a["inline"]]} for c in comments]
        descending = q.get("sort") == "-created_at" or q.get("sort_order") == "desc"
        body = self._paginate(request, comments, "comments", lambda c: [epoch(c["created_at"]), c["id"]],
                              descending=descending)
        if "users" in q.get("include", "").split(","):
            authors = sorted({int(c["author_id"]) for c in body["comments"]})
            body["users"] = [self._render_user(self._users[a]) for a in authors
                             if a in self._users and a not in self.unsideloaded_users]
        return _json_answer(200, body)

    def _get_audit(self, request: _Request, ticket_id: str, audit_id: str) -> _Answer:
        rec = self._visible_ticket(int(ticket_id))
        audit = self._audits.get(int(rec["id"]), {}).get(int(audit_id))
        if audit is None:
            raise ZendeskError(404, "RecordNotFound", "Not found")
        return _json_answer(200, {"audit": audit})

    def _update_ticket_request(self, request: _Request, ticket_id: str) -> _Answer:
        rec = self._visible_ticket(int(ticket_id))
        assert request.user is not None
        now = self.clock()
        wait = self._admit("update_ticket", self.update_ticket_per_minute, 60.0, now)
        if wait is None:
            wait = self._admit(("update_ticket", request.user["id"], rec["id"]), self.ticket_updates_per_10_minutes,
                               600.0, now)
        if wait is not None:
            return _too_many(wait)
        changes = request.body.get("ticket") if isinstance(request.body, dict) else None
        if not isinstance(changes, dict):
            raise ZendeskError(400, "InvalidValue", 'Expected a JSON body {"ticket": {...}}')
        return self._write(request, lambda: self._apply_update(rec, changes, request.user or {}))

    def _apply_update(self, rec: Json, changes: Json, user: Json) -> _Answer:
        if changes.get("safe_update") is True and changes.get("updated_stamp") is not None:
            try:
                stamp: int | None = epoch(str(changes["updated_stamp"]))
            except ValueError:
                stamp = None
            if stamp != rec["_updated"]:
                raise ZendeskError(409, "UpdateConflict", CONFLICT_DESCRIPTION)
        if rec["status"] == "closed":
            raise _invalid("status", "Status: closed prevents ticket update", "ClosedPreventsUpdate")
        new: Json = {}
        if "status" in changes:
            if changes["status"] not in STATUSES:
                raise _invalid("status", f"Status: {changes['status']} is not valid")
            new["status"] = changes["status"]
        if "priority" in changes:
            if changes["priority"] is not None and changes["priority"] not in PRIORITIES:
                raise _invalid("priority", f"Priority: {changes['priority']} is not valid")
            new["priority"] = changes["priority"]
        if "assignee_id" in changes:
            assignee = changes["assignee_id"]
            if assignee is not None and (not isinstance(assignee, int) or assignee not in self._users
                                         or self._users[assignee]["role"] not in AGENT_ROLES):
                raise _invalid("assignee_id", "Assignee: is not an agent")
            new["assignee_id"] = assignee
        if isinstance(changes.get("subject"), str):
            new["subject"] = changes["subject"]
        new.update(self._link_changes(rec, changes))
        tags = list(rec["tags"])
        if isinstance(changes.get("tags"), list):
            tags = _tags(changes["tags"])
        if isinstance(changes.get("additional_tags"), list):
            tags = _tags([*tags, *changes["additional_tags"]])
        if isinstance(changes.get("remove_tags"), list):
            removed = set(_tags(changes["remove_tags"]))
            tags = [t for t in tags if t not in removed]
        if tags != rec["tags"]:
            new["tags"] = tags
        comment = changes.get("comment")
        text = html_body = None
        if isinstance(comment, dict):
            if isinstance(comment.get("html_body"), str) and comment["html_body"].strip():
                html_body = comment["html_body"]
            elif isinstance(comment.get("body"), str) and comment["body"].strip():
                text = comment["body"]
        author_id = user.get("id")
        if isinstance(comment, dict) and comment.get("author_id") is not None:
            author_id = comment["author_id"]
            if author_id not in self._users:
                raise _invalid("author_id", "Author: is invalid")
        if (text is not None or html_body is not None) and len(self._comments[rec["id"]]) >= MAX_COMMENTS:
            raise _invalid("base", f"Ticket has reached the maximum of {MAX_COMMENTS} comments", "TooManyComments")
        audit_id = next(self._audit_ids)
        events: list[Json] = []
        # one moment for the whole update: its comment's created_at is the ticket's new updated_at, as in Zendesk
        # (the stamp is kept strictly increasing per ticket, so `safe_update` tells every update apart)
        now = float(max(int(self.clock()), int(rec["_updated"]) + 1))
        if text is not None or html_body is not None:
            assert isinstance(comment, dict)
            public = comment.get("public", True) is not False
            added = self._append_comment(rec, body=text, html_body=html_body, author_id=int(author_id or 0),
                                         public=public, at=now, channel="api", audit_id=audit_id)
            events.append({"id": added["id"], "type": "Comment", "author_id": added["author_id"],
                           "body": added["body"], "html_body": added["html_body"],
                           "plain_body": added["plain_body"], "public": added["public"], "attachments": [],
                           "audit_id": audit_id})
        for name, value in new.items():
            if rec.get(name) != value:
                events.append({"id": next(self._audit_ids), "type": "Change", "field_name": name,  # ids as text
                               "value": _audit_value(value), "previous_value": _audit_value(rec.get(name))})
                rec[name] = value
                if name == "subject":
                    rec["raw_subject"] = value
        if "problem_id" in new:
            self._count_incidents()
        if events:
            self._touch(rec, now)
        audit = {"id": audit_id, "ticket_id": rec["id"], "created_at": iso(now), "author_id": user.get("id"),
                 "metadata": {}, "via": {"channel": "api"}, "events": events}
        if events:
            self._audits.setdefault(int(rec["id"]), {})[audit_id] = copy.deepcopy(audit)
        return _json_answer(200, {"ticket": self._render_ticket(rec), "audit": audit})

    def _link_changes(self, rec: Json, changes: Json) -> Json:
        """`type` and `problem_id` as Zendesk checks them: an incident's problem is a live ticket of type problem;
        a ticket that is not an incident has no problem."""
        new: Json = {}
        if "type" in changes:
            if changes["type"] is not None and changes["type"] not in TICKET_TYPES:
                raise _invalid("type", f"Type: {changes['type']} is not valid")
            new["type"] = changes["type"]
        kind = new.get("type", rec.get("type"))
        if "problem_id" in changes and changes["problem_id"] is not None:
            problem_id = changes["problem_id"]
            problem = self._tickets.get(problem_id) if isinstance(problem_id, int) else None
            if kind != "incident":
                raise _invalid("problem_id", "Problem: can only be set on a ticket of type incident")
            if (problem is None or problem.get("_deleted") or problem_id == rec["id"]
                    or problem.get("type") != "problem"):
                raise _invalid("problem_id", "Problem: must be a ticket of type problem")
            new["problem_id"] = problem_id
        elif (kind != "incident" and rec.get("problem_id") is not None) or changes.get("problem_id", 0) is None:
            new["problem_id"] = None
        return new

    def _count_incidents(self) -> None:
        linked = {t["problem_id"] for t in self._tickets.values() if t.get("problem_id") and not t.get("_deleted")}
        for tid, t in self._tickets.items():
            t["has_incidents"] = tid in linked

    def _list_incidents(self, request: _Request, ticket_id: str) -> _Answer:
        rec = self._visible_ticket(int(ticket_id))
        incidents = [t for t in self._readable_tickets() if t.get("problem_id") == rec["id"]]
        return _json_answer(200, self._paginate(request, incidents, "tickets", lambda t: [t["id"]]))

    def _create_ticket_request(self, request: _Request) -> _Answer:
        key = request.headers.get("idempotency-key")
        fingerprint = (json.dumps(request.body, sort_keys=True, separators=(",", ":"))
                       if not isinstance(request.body, str) else request.body)
        now = self.clock()
        if key:
            cached = self._idempotency.get(key)
            if cached is not None and now - cached[1] >= IDEMPOTENCY_TTL:
                del self._idempotency[key]
                cached = None
            if cached is not None:
                if cached[0] != fingerprint:
                    raise ZendeskError(400, "IdempotentRequestError",
                                       "Request parameters don't match the given idempotency key")
                stored = cached[2]
                return _Answer(stored.status, stored.body, {**stored.headers, "x-idempotency-lookup": "hit"})

        def apply() -> _Answer:
            answer = self._create_from_body(request)
            if key:
                answer.headers["x-idempotency-lookup"] = "miss"
                if 200 <= answer.status < 300:
                    self._idempotency[key] = (fingerprint, now, _Answer(answer.status, answer.body,
                                                                        dict(answer.headers)))
            return answer

        return self._write(request, apply)

    def _create_from_body(self, request: _Request) -> _Answer:
        t = request.body.get("ticket") if isinstance(request.body, dict) else None
        if not isinstance(t, dict):
            raise ZendeskError(400, "InvalidValue", 'Expected a JSON body {"ticket": {...}}')
        assert request.user is not None
        comment: Json = t["comment"] if isinstance(t.get("comment"), dict) else {}
        html_body = comment.get("html_body") if isinstance(comment.get("html_body"), str) else None
        text = comment.get("body") if isinstance(comment.get("body"), str) else None
        if not ((html_body or "").strip() or (text or "").strip()):
            raise _invalid("description", "Description: cannot be blank", "BlankValue")
        if t.get("requester_id") is not None:
            requester_id = t["requester_id"]
            if requester_id not in self._users:
                raise _invalid("requester_id", "Requester: is invalid")
        elif isinstance(t.get("requester"), dict):
            who = t["requester"]
            email = str(who.get("email") or "").strip()
            if not email:
                raise _invalid("requester", "Requester: Email is required")
            found = self._user_by_email(email)
            requester_id = int(found["id"]) if found else self.add_user(str(who.get("name") or email), email)
        else:
            requester_id = int(request.user["id"])
        submitter_id = t.get("submitter_id") or comment.get("author_id") or request.user["id"]
        if submitter_id not in self._users:
            raise _invalid("submitter_id", "Submitter: is invalid")
        status, priority, assignee = t.get("status"), t.get("priority"), t.get("assignee_id")
        if status is not None and status not in STATUSES:
            raise _invalid("status", f"Status: {status} is not valid")
        if priority is not None and priority not in PRIORITIES:
            raise _invalid("priority", f"Priority: {priority} is not valid")
        if assignee is not None and (assignee not in self._users or self._users[assignee]["role"] not in AGENT_ROLES):
            raise _invalid("assignee_id", "Assignee: is not an agent")
        subject = t.get("subject") if isinstance(t.get("subject"), str) and t["subject"].strip() else None
        description = text if html_body is None else _html_to_text(html_body)
        rec = self._create_ticket(
            subject or (description or "")[:50], text or "", requester_id, submitter_id=int(submitter_id),
            status=status, priority=priority, tags=t["tags"] if isinstance(t.get("tags"), list) else (),
            assignee_id=assignee,
            brand_id=t.get("brand_id"), at=None, ticket_id=None, channel="api", description_html=html_body,
            first_public=comment.get("public", True) is not False,
            extra={k: t[k] for k in ("external_id", "type", "due_at") if k in t})
        location = f"{self.base_url}/api/v2/tickets/{rec['id']}.json"
        first = self._comments[int(rec["id"])][0]
        audit = {"id": first["audit_id"], "ticket_id": rec["id"], "created_at": rec["created_at"],
                 "author_id": request.user["id"], "metadata": {}, "via": {"channel": "api"},
                 "events": [{"id": first["id"], "type": "Comment", "author_id": first["author_id"],
                             "body": first["body"], "html_body": first["html_body"], "public": first["public"],
                             "audit_id": first["audit_id"]}]}
        return _json_answer(201, {"ticket": self._render_ticket(rec), "audit": audit}, {"Location": location})

    # ------------------------------------------------------------------
    # endpoints: the incremental ticket export (cursor-based)
    # ------------------------------------------------------------------
    def _export_tickets(self, request: _Request) -> _Answer:
        q = request.query
        now = self.clock()
        wait = self._admit("export", self.export_per_minute, 60.0, now)
        if wait is not None:
            return _too_many(wait)
        per_page = _int_param(q, "per_page", 1000, 1, 1000)
        delay = self.export_delay
        backwards = False
        if q.get("cursor"):
            cursor = q["cursor"]
            try:
                parts = _decode_cursor(cursor, "export")
            except ZendeskError:
                parts = _decode_cursor(cursor, "export-before")
                backwards = True
            if len(parts) != 2 or not all(isinstance(p, int) for p in parts):
                raise ZendeskError(400, "InvalidPaginationParameter", "Invalid cursor")
            position = (int(parts[0]), int(parts[1]))
        elif q.get("start_time") is not None:
            try:
                start = int(q["start_time"])
            except ValueError:
                raise ZendeskError(400, "InvalidValue", "start_time must be a unix timestamp") from None
            if delay > 0 and start > now - delay:
                raise ZendeskError(400, "InvalidValue",
                                   "Too recent start_time. Use a start_time older than 1 minute")
            position = (start, 0)
        else:
            raise ZendeskError(400, "InvalidValue", "start_time or cursor is required")
        cutoff = now - delay if delay > 0 else math.inf
        exclude_deleted = q.get("exclude_deleted", "").lower() == "true"
        keyed = sorted(((int(r["generated_timestamp"]), int(r["id"])), r) for r in self._tickets.values()
                       if r["generated_timestamp"] <= cutoff and not (exclude_deleted and r.get("_deleted")))
        if backwards:
            earlier = [kr for kr in keyed if kr[0] < position]
            chosen = earlier[-per_page:]
            end_of_stream = False
        else:
            later = [kr for kr in keyed if kr[0] > position]
            chosen = later[:per_page]
            end_of_stream = len(later) <= per_page
        last = chosen[-1][0] if chosen else position
        first = chosen[0][0] if chosen else position
        if chosen and not backwards:
            self._export_horizon = max(self._export_horizon, last[0])
        after_cursor = _encode_cursor("export", *last)
        before_cursor = _encode_cursor("export-before", *first)
        base = {k: v for k, v in q.items() if k not in ("cursor", "start_time")}
        tickets = [self._render_ticket(r, export=True) for _, r in chosen]
        body: Json = {"tickets": tickets,
                      "after_url": self._link(request.path, {**base, "cursor": after_cursor}),
                      "after_cursor": after_cursor,
                      "before_url": self._link(request.path, {**base, "cursor": before_cursor}),
                      "before_cursor": before_cursor, "end_of_stream": end_of_stream}
        return _json_answer(200, self._sideload(body, tickets, q, slas=False))

    # ------------------------------------------------------------------
    # endpoints: SLA policies
    # ------------------------------------------------------------------
    def _list_sla_policies(self, request: _Request) -> _Answer:
        assert request.user is not None
        if request.user["role"] != "admin":  # "Allowed For: Admins"
            raise ZendeskError(403, "Forbidden", FORBIDDEN_DESCRIPTION)
        policies = sorted(self._sla_policies, key=lambda p: (p["position"], p["id"]))
        return _json_answer(200, {"sla_policies": copy.deepcopy(policies), "next_page": None,
                                  "previous_page": None, "count": len(policies)})

    # ------------------------------------------------------------------
    # endpoints: search
    # ------------------------------------------------------------------
    def _search(self, request: _Request) -> _Answer:
        q = request.query
        query = q.get("query", "")
        per_page = _int_param(q, "per_page", 100, 1, 100)
        page_no = _int_param(q, "page", 1, 1)
        if page_no * per_page > SEARCH_RESULT_LIMIT:
            raise ZendeskError(422, "invalid", SEARCH_LIMIT_DESCRIPTION)
        filters: dict[str, list[str]] = {}
        words: list[str] = []
        for match in re.finditer(r'(\w+):("[^"]*"|\S+)|"([^"]*)"|(\S+)', query):
            if match.group(1):
                filters.setdefault(match.group(1).lower(), []).append(match.group(2).strip('"').lower())
            else:
                words.append((match.group(3) or match.group(4) or "").lower())
        types = filters.get("type", ["ticket"])
        results: list[Json] = []
        if "ticket" in types:
            for rec in self._tickets.values():
                if rec.get("_deleted") or rec["brand_id"] in self.restricted_brands:
                    continue
                haystack = f"{rec['subject']} {rec['description']}".lower()
                if not all(w in haystack for w in words if w):
                    continue
                if "status" in filters and rec["status"] not in filters["status"]:
                    continue
                if "priority" in filters and rec["priority"] not in filters["priority"]:
                    continue
                wanted_tags = filters.get("tags", []) + filters.get("tag", [])
                if wanted_tags and not set(wanted_tags) & set(rec["tags"]):
                    continue
                results.append({**self._render_ticket(rec), "result_type": "ticket"})
        sort_by = q.get("sort_by", "updated_at")
        field_name = sort_by if sort_by in ("updated_at", "created_at", "priority", "status") else "updated_at"
        results.sort(key=lambda r: (str(r.get(field_name) or ""), r["id"]), reverse=q.get("sort_order") != "asc")
        start = (page_no - 1) * per_page
        more = start + per_page < min(len(results), SEARCH_RESULT_LIMIT)
        return _json_answer(200, {
            "results": results[start:start + per_page], "facets": None, "count": len(results),
            "next_page": self._link(request.path, q, page=page_no + 1) if more else None,
            "previous_page": self._link(request.path, q, page=page_no - 1) if page_no > 1 else None})

    # ------------------------------------------------------------------
    # endpoints: Help Center
    # ------------------------------------------------------------------
    def _list_articles(self, request: _Request, locale: str | None = None) -> _Answer:
        q = request.query
        items = [self._render_article(a) for a in self._articles.values()
                 if (locale is None or a["locale"] == locale) and (request.user is not None or not a["draft"])
                 and self._may_view(request.user, a)]
        sort_by = q.get("sort_by", "position")
        if sort_by not in ("position", "title", "created_at", "updated_at", "edited_at"):
            sort_by = "position"
        descending = q.get("sort_order") == "desc"
        body = self._paginate(request, items, "articles", lambda a: [a[sort_by], a["id"]], default_per_page=30,
                              descending=descending, extra={"sort_by": sort_by,
                                                            "sort_order": "desc" if descending else "asc"})
        return _json_answer(200, body)

    def _get_article(self, request: _Request, article_id: str) -> _Answer:
        art = self._articles.get(int(article_id))
        if art is None or (request.user is None and art["draft"]) or not self._may_view(request.user, art):
            raise ZendeskError(404, "RecordNotFound", "Not found")
        return _json_answer(200, {"article": self._render_article(art)})

    def _get_article_localized(self, request: _Request, locale: str, article_id: str) -> _Answer:
        return self._get_article(request, article_id)

    def _incremental_articles(self, request: _Request) -> _Answer:
        q = request.query
        try:
            start = int(q["start_time"])
        except (KeyError, ValueError):
            raise ZendeskError(400, "InvalidValue", "start_time must be a unix timestamp") from None
        per_page = _int_param(q, "per_page", 100, 1, 100)
        found = sorted((a for a in self._articles.values() if a["_updated"] >= start
                        and self._may_view(request.user, a)),
                       key=lambda a: (a["_updated"], a["id"]))
        page = found[:per_page]
        end_time = page[-1]["_updated"] if page else start
        more = len(found) > per_page
        return _json_answer(200, {
            "articles": [self._render_article(a) for a in page], "count": len(page), "end_time": end_time,
            "next_page": self._link(request.path, q, start_time=end_time) if more else None})


    def _may_view(self, user: Json | None, art: Json) -> bool:
        """Whether `user` (None: anonymous) may view `art`: everyone when it names no segment, an admin always,
        anyone else when they are in one of its segments."""
        ids = {i for i in [art.get("user_segment_id"), *(art.get("user_segment_ids") or [])] if i is not None}
        if not ids:
            return True
        if user is None:
            return False
        return user["role"] == "admin" or any(self._in_segment(user, self._segments[i]) for i in ids)

    @staticmethod
    def _in_segment(user: Json, segment: Json) -> bool:
        if user["id"] in segment["added_user_ids"]:
            return True
        if segment["user_type"] == "staff" and user["role"] not in AGENT_ROLES:
            return False
        tags = set(user.get("tags") or [])
        return (set(segment["tags"]) <= tags and (not segment["or_tags"] or bool(tags & set(segment["or_tags"])))
                and (not segment["organization_ids"] or user.get("organization_id") in segment["organization_ids"])
                and not segment["group_ids"])  # groups are not modelled: nobody is in one

    def _list_segments(self, request: _Request) -> _Answer:
        items = [copy.deepcopy(s) for s in self._segments.values()]
        return _json_answer(200, self._paginate(request, items, "user_segments", lambda s: [s["id"]]))

    def _get_segment(self, request: _Request, segment_id: str) -> _Answer:
        segment = self._segments.get(int(segment_id))
        if segment is None:
            raise ZendeskError(404, "RecordNotFound", "Not found")
        return _json_answer(200, {"user_segment": copy.deepcopy(segment)})


def _tags(tags: Iterable[Any]) -> list[str]:
    """Zendesk's tags: lower case, split at spaces (a tag cannot hold one), no repeats."""
    out: list[str] = []
    for tag in tags:
        for part in str(tag).lower().split():
            if part and part not in out:
                out.append(part)
    return out
