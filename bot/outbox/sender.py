"""Where "post to Slack" lives: the one place that calls the Slack Web API for runs.

The sender delivers outbox rows (bot/outbox/writers.py): it never blocks a run or a listener; one process at a
time sends (a named lock, taken over within seconds if that process dies); it paces per channel and per
method as Slack publishes its limits and honours Retry-After; answers to people (cards, decisions, final
answers, queue posts) go before a run's first message, which goes before progress; progress is coalesced
(each row is rendered from the newest state when it is sent); posts within a thread go out in order; every
row is claimed before it is sent and records the ts Slack returned, and a post whose outcome is unknown (a
crash, a timeout, a 5xx) is looked for in Slack (by its message metadata) before it is posted again.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot import outbox
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Outbox, id_of
from bot.outbox import claims
from bot.outbox.claims import Due
from bot.outbox.pacing import Pacing
from bot.outbox.render import METADATA_TYPE, Call, Delivery, Renderer
from bot.pressure import let_requests_pass
from bot.redact import redact, redact_obj
from bot.runs import owner_name
from bot.runs.execution import processes
from bot.runs.intake import reach
from bot.telemetry.deliveries import note_outbox_row, note_slack_call, traced_delivery
from bot.vocabulary import OutboxKind

logger = logging.getLogger(__name__)

LOCK = "outbox-sender"
LOCK_SECONDS = 10.0
MIN_ROUND = 0.02  # seconds between two looks at the outbox
TRANSIENT = frozenset({"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout",
                       "timeout"})
AUTH = frozenset({"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"})
NO_STREAMING = frozenset({"feature_not_enabled", "unknown_method", "method_deprecated", "not_allowed",
                          "streaming_not_supported", "channel_type_not_supported"})
# agents.sessions.*: the app is not declared an agent, the workspace has no plan for it, the token or scopes do
# not allow it, or this Slack does not know the method. Sessions are then left alone: the run works as without.
NO_SESSIONS = frozenset({"unknown_method", "method_deprecated", "feature_not_enabled", "not_allowed",
                         "not_allowed_token_type", "missing_scope", "access_denied", "no_permission",
                         "team_access_not_granted", "paid_only"})
CANNOT_LOOK = frozenset({"missing_scope", "not_in_channel", "channel_not_found", "not_allowed_token_type",
                         "unknown_method", "method_deprecated", "access_denied"})
# messages a post of which may have landed unheard (a crash, a timeout, a 5xx) are looked for before a repost;
# every kind _post_or_update posts (render.py) carries the row in its metadata, so every such kind is listed here
VERIFIABLE = frozenset({OutboxKind.CARD, OutboxKind.FINAL, OutboxKind.NOTICE, OutboxKind.QUEUE, OutboxKind.DIGEST,
                        OutboxKind.TIMELINE, OutboxKind.REQUEST, OutboxKind.BATCH, OutboxKind.ANSWER})
# Rows that create no message whose ts they keep (a view, an ephemeral, an upload, a status, prompts).
NO_MESSAGE = frozenset({OutboxKind.HOME, OutboxKind.EPHEMERAL, OutboxKind.TRANSCRIPT, OutboxKind.AGENT_SESSION,
                        OutboxKind.PROMPTS})
SUGGEST = "assistant.threads.setSuggestedPrompts"
REACH_READ = 0.5
RECHECK_SECONDS = 300.0  # a channel that refuses the bot is looked at again this often (an invite's event lost)


class OutboxSender:
    def __init__(self, db: Database, settings: Settings, client: WebClient, *, workers: int = 8):
        self.db, self.settings, self.client = db, settings, client
        self.owner = f"{owner_name()}/sender-{uuid.uuid4().hex[:6]}"
        self.pacing = Pacing(settings.slack_min_interval_seconds, settings.slack_rate_scale)
        self.streaming_ok = settings.slack_streaming
        self.sessions_ok = settings.slack_agent_sessions
        # Without agent sessions Slack shows no Stop of its own: timelines are then posted messages, which carry
        # the Stop button (a stream cannot: docs/stop.md).
        self.render = Renderer(db, settings, permalink=self._permalink,
                               streaming=lambda: self.streaming_ok and self.sessions_ok,
                               sessions=lambda: self.sessions_ok)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kitebase-outbox")
        self._busy: dict[int, str] = {}  # row id -> lane, while being sent
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._leading_checked = 0.0
        self.leader = False
        self._told_no_prompts = False  # a workspace without agent features is logged once
        self._rechecked = time.monotonic()
        # channels refusing the bot and held rows, as last read (at most every REACH_READ seconds): a row they
        # name is held if the database still says so; one they miss is refused by Slack and held then
        self._refusing: frozenset[str] = frozenset()
        self._held: frozenset[int] = frozenset()
        self._reach_read = 0.0

    # --- life --------------------------------------------------------------------------------------

    def start(self) -> OutboxSender:
        self._thread = threading.Thread(target=self._loop, name="kitebase-outbox-sender", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        outbox.wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._pool.shutdown(wait=True)
        if self.leader:
            processes.release(self.db, LOCK, self.owner)

    def idle(self) -> bool:
        """Nothing in flight and nothing left to deliver (for tests and a graceful stop)."""
        with self._lock:
            if self._busy:
                return False
        return claims.count_pending(self.db) == 0

    def _loop(self) -> None:
        while not self._stop.is_set():
            outbox.wake.clear()
            let_requests_pass(0.5)
            started = time.monotonic()
            try:
                delay = self.tick()
            except Exception:
                logger.exception("outbox sender: a round failed; trying again")
                delay = 1.0
            outbox.wake.wait(delay)
            time.sleep(max(0.0, MIN_ROUND - (time.monotonic() - started)))  # a burst of wakes is one round

    # --- choosing what to send -----------------------------------------------------------------------

    def tick(self) -> float:
        """Start every delivery that may go now; returns how long to wait before looking again."""
        if not self._lead():
            return 1.0
        if time.monotonic() - self._rechecked > RECHECK_SECONDS:
            self._rechecked = time.monotonic()
            self._pool.submit(self.recheck)
        if time.monotonic() - self._reach_read > REACH_READ:
            self._reach_read = time.monotonic()
            self._refusing, self._held = reach.refusing(self.db)
        rows = claims.pending(self.db)
        wait = 0.5
        with self._lock:
            busy_rows, busy_lanes = set(self._busy), set(self._busy.values())
        creating: set[str] = set()
        unposted = {r.id for r in rows if r.ts is None}
        eligible = []
        for row in rows:  # oldest first: a thread's posts go out in order
            thread = _thread(row)
            held_back = thread is not None and thread in creating
            if thread is not None and _creates(row):
                creating.add(thread)
            if held_back or row.id in busy_rows or row.parent_id in unposted:
                continue
            if not row.due:
                wait = min(wait, 0.25)
                continue
            eligible.append(row)
        for row in sorted(eligible, key=lambda r: (r.priority, r.id)):
            lane = _lane(row)
            if lane in busy_lanes:
                continue
            key = self.pacing.key(_first_method(row), row.channel)
            if not self.pacing.try_take(key):
                wait = min(wait, max(0.02, self.pacing.ready_at(key) - time.monotonic()))
                continue
            busy_lanes.add(lane)
            with self._lock:
                self._busy[int(row.id)] = lane
            self._pool.submit(self._deliver, int(row.id))
        return wait

    def _lead(self) -> bool:
        if time.monotonic() - self._leading_checked < LOCK_SECONDS / 5:
            return self.leader
        self._leading_checked = time.monotonic()
        was = self.leader
        self.leader = processes.hold(self.db, LOCK, self.owner, LOCK_SECONDS, self.settings.process_stale_seconds)
        if self.leader != was:
            logger.info("outbox sender %s %s", self.owner, "now delivers" if self.leader else "stands by")
        return self.leader

    # --- sending one row ---------------------------------------------------------------------------

    @traced_delivery  # bot/telemetry: the row's run in the log lines; with tracing, a span per delivered row
    def _deliver(self, row_id: int) -> None:
        row: Outbox | None = None
        call: Call | None = None
        try:
            claimed = claims.claim(self.db, row_id, self.owner)
            if claimed is None:
                return
            row, uncertain = claimed
            note_outbox_row(row)
            probe = bool((row.state or {}).get(reach.PROBE))  # sent to learn whether its channel takes the bot now
            if not probe and self._may_hold(row) and reach.hold_if_blocked(self.db, self.settings, row):
                return  # its channel refuses the bot, or the row it goes under is held: kept for later
            if uncertain and row.ts is None and self._verifiable(row):
                try:
                    found = self._find_in_slack(row)
                except SlackApiError as exc:  # cannot look now: try again later, still uncertain
                    claims.retry(self.db, row_id, after=_backoff(row.attempts), uncertain=True,
                                        error=redact(f"looking for an uncertain post: {exc.response.get('error')}"))
                    return
                if found:
                    claims.found_in_slack(self.db, row_id, found)
                    row.ts = found
            if row.ts is None and (row.state or {}).get(claims.GONE):  # a pick-up message deleted in Slack
                claims.sent(self.db, row_id, version=row.version, ts=None, state=row.state or {})
                return  # stays gone: its run's thread is under the card, and its due line is all that changes
            delivery = self.render(row)
            if delivery is None and row.parent_id is not None and reach.hold_if_blocked(self.db, self.settings, row):
                return  # under a held message: not "nothing to show", it is shown when that one is
            if delivery is None:
                state = {k: v for k, v in (row.state or {}).items() if k != reach.PROBE}
                claims.sent(self.db, row_id, version=row.version, ts=row.ts, state=state)
                return
            delivery.state.pop(reach.PROBE, None)
            ts = row.ts
            for index, call in enumerate(delivery.calls):
                ts = self._send(row, call, ts, index == 0 and delivery.creates, delivery, index)
            claims.sent(self.db, row_id, version=row.version, ts=ts, state=delivery.state)
            if probe and delivery.creates and delivery.calls:  # a post went out: the channel takes the bot again
                logger.info("outbox row %s, tried again in %s, was posted: the channel takes the bot's posts again",
                            row_id, row.channel)
                reach.reachable(self.db, str(row.channel))
        except SlackApiError as exc:
            if row is not None:
                self._refused(row, call, exc)
        except Exception as exc:  # network trouble: the outcome is unknown
            if row is not None:
                logger.warning("outbox row %s (%s): %s; will retry", row_id, row.kind, redact(repr(exc)))
                claims.retry(self.db, row_id, after=_backoff(row.attempts), error=redact(repr(exc)),
                                    uncertain=True)
            else:
                logger.exception("outbox row %s could not be claimed", row_id)
        finally:
            with self._lock:
                self._busy.pop(row_id, None)
            outbox.wake.set()

    def _may_hold(self, row: Outbox) -> bool:
        return (row.channel in self._refusing) or (row.parent_id is not None and row.parent_id in self._held)

    def _send(self, row: Outbox, call: Call, ts: str | None, creates: bool, delivery: Delivery, index: int) -> str | None:
        args = redact_obj(dict(call.args))
        if "ts" in args and args["ts"] is None:
            args["ts"] = ts
        response = self._call(call.method, args)
        if creates:
            ts = response.get("ts") or ts
            if len(delivery.calls) > index + 1:  # keep the ts at once: a failure after this must not post twice
                claims.set_state(self.db, id_of(row), {**delivery.state, "stopped": False}, ts=ts)
        return ts

    def _call(self, method: str, args: dict[str, Any]) -> Any:
        note_slack_call(method)
        if method == "files.upload_v2":
            return self.client.files_upload_v2(**args)
        return self.client.api_call(method, json=args)

    def _refused(self, row: Outbox, call: Call | None, exc: SlackApiError) -> None:
        response = exc.response
        error = str(response.get("error") or "")
        status = getattr(response, "status_code", 200)
        detail = redact(f"{call.method if call else '?'}: {error} {response.get('response_metadata') or ''}")
        state = dict(row.state or {})
        if call and call.method.startswith("agents.sessions.") and error in NO_SESSIONS:
            self._no_sessions(row, error)
        elif error == "ratelimited" or status == 429:
            seconds = float(response.headers.get("Retry-After", response.headers.get("retry-after", 1)) or 1)
            self.pacing.block(self.pacing.key(call.method if call else "", row.channel), seconds)
            claims.retry(self.db, id_of(row), after=seconds, error=detail, uncertain=False)
        elif error == "message_not_in_streaming_state" or (call and call.method == "chat.startStream"
                                                             and error in NO_STREAMING):
            if error != "message_not_in_streaming_state":
                logger.info("streaming is not available (%s): timelines are posted messages from now on", error)
                self.streaming_ok = False
            claims.retry(self.db, id_of(row), after=0, error=detail, uncertain=False,
                                state={**state, "mode": "message"})
        elif error == "message_not_found" and row.ts is not None and _pick_up(row):
            logger.info("outbox row %s (%s) was deleted in Slack; it only tells what a run picked up, so it is not "
                        "posted again", row.id, row.kind)
            claims.gone(self.db, id_of(row), row.version, {k: v for k, v in state.items() if k not in ("mode", "streamed")})
        elif error == "message_not_found" and row.ts is not None:  # deleted in Slack: post it again
            claims.forget_ts(self.db, id_of(row), {k: v for k, v in state.items() if k not in ("mode", "streamed")})
        elif status >= 500 or error in TRANSIENT:
            claims.retry(self.db, id_of(row), after=_backoff(row.attempts), error=detail,
                                uncertain=row.ts is None)
        elif error in AUTH:
            logger.error("Slack refused our token (%s): fix SLACK_BOT_TOKEN; outbox delivery waits", error)
            claims.retry(self.db, id_of(row), after=300, error=detail, uncertain=False)
        elif call is not None and call.method == SUGGEST:  # no agent features in this workspace: prompts are a nicety
            (logger.debug if self._told_no_prompts else logger.warning)(
                "Slack refused the suggested prompts (%s); the prompts still work when typed", detail)
            self._told_no_prompts = True
            claims.failed(self.db, id_of(row), detail)
        elif error in reach.REFUSED and row.kind not in reach.NEVER_HELD and reach.postable(row.channel):
            # held, never marked sent; a card goes elsewhere. Not when the bot was invited while it was on its way
            if reach.refused(self.db, self.settings, row, error, detail):
                logger.error("Slack refused outbox row %s (%s): %s; it waits until the bot can post there: %s",
                             row.id, row.kind, detail, reach.why(error, str(row.channel)))
                self._refusing = self._refusing | {str(row.channel)}
            else:
                logger.info("Slack refused outbox row %s (%s): %s, but the bot was found able to post there after "
                            "it was sent; it is sent again", row.id, row.kind, detail)
        else:
            logger.error("Slack refused outbox row %s (%s) for good: %s", row.id, row.kind, detail)
            claims.failed(self.db, id_of(row), detail)

    def _no_sessions(self, row: Outbox, error: str) -> None:
        """This workspace cannot have agent sessions: said once, and no session method is called again (every
        session row is then done as it is rendered); the threads work as they do without sessions."""
        if self.sessions_ok:
            logger.warning("Slack agent sessions are not available (%s): runs go on without a session status "
                           "(docs/slack-agent.md says what they need)", error)
            self.sessions_ok = False
        claims.sent(self.db, id_of(row), version=row.version, ts=None, state=dict(row.state or {}))

    def recheck(self) -> None:
        """The channels recorded as refusing the bot, looked at again: one that takes it now (its invite's event
        was missed, say while no serve ran) releases what waits for it. A refusal conversations.info cannot see
        (reach.UNSEEN: only admins may post there...) is tried instead: the oldest message waiting there is sent
        again, and only if it is posted is the channel released (in _deliver)."""
        try:
            channels = {}
            for b in reach.blocked(self.db):
                if b.error not in reach.UNSEEN:
                    channels[b.channel] = "a channel that refused the bot"
                elif reach.probe(self.db, b.channel) is None:
                    self._nothing_to_try(b.channel)
            if channels:
                reach.check(self.db, self.settings, channels, lambda channel: look(self.client, channel))
        except Exception:
            logger.exception("looking again at the channels that refuse the bot failed; trying later")

    def _nothing_to_try(self, channel: str) -> None:
        """An UNSEEN refusal with no message left waiting there to try: a look that finds the bot a member
        releases it, and the rule's next post is the try (else the channel would stay refused for good)."""
        seen = look(self.client, channel)
        if seen.known and seen.error is None:
            logger.info("no message waits in %s to try again; Slack shows the bot a member, so its posts are tried "
                        "there again", channel)
            reach.reachable(self.db, channel, seen.name)

    # --- looking in Slack -----------------------------------------------------------------------------

    def _verifiable(self, row: Outbox) -> bool:
        return row.kind in VERIFIABLE and (row.state or {}).get("mode") != "stream" and bool(row.channel)

    def _find_in_slack(self, row: Outbox) -> str | None:
        """The ts of this row's message if an earlier attempt did post it (its metadata names the row)."""
        params: dict[str, Any] = {"channel": row.channel, "include_all_metadata": True, "limit": 200}
        if row.thread_ts:
            method, params["ts"] = "conversations.replies", row.thread_ts
        else:
            method, params["oldest"] = "conversations.history", f"{row.created_at.timestamp() - 60:.6f}"
        try:
            messages: list[dict[str, Any]] = self.client.api_call(method, http_verb="GET", params=params).get(
                "messages", [])
        except SlackApiError as exc:
            error = exc.response.get("error")
            if error in ("thread_not_found", "message_not_found"):
                return None
            if error in CANNOT_LOOK:  # e.g. the app lacks the history scopes: post again rather than never
                logger.warning("cannot look for outbox row %s in Slack (%s); posting it again", row.id, error)
                return None
            raise
        for message in messages:
            metadata = message.get("metadata") or {}
            if metadata.get("event_type") == METADATA_TYPE and (metadata.get("event_payload") or {}).get("row") == row.id:
                logger.info("outbox row %s was already in Slack (%s); not posting it again", row.id, message["ts"])
                return str(message["ts"])
        return None

    def _permalink(self, channel: str, ts: str) -> str | None:
        try:
            return self.client.api_call("chat.getPermalink", http_verb="GET",
                                        params={"channel": channel, "message_ts": ts}).get("permalink")
        except Exception:
            logger.warning("no permalink for %s/%s", channel, ts)
            return None


def look(client: WebClient, channel: str) -> reach.Look:
    """Whether the bot can post in `channel`, as Slack says it (conversations.info: `is_member`, `is_archived`; a
    private channel the bot is not in is `channel_not_found`). What it says is recorded by the run layer."""
    try:
        info = client.conversations_info(channel=channel).get("channel") or {}
    except SlackApiError as exc:
        error = str(exc.response.get("error") or "")
        if error in reach.REFUSED:
            return reach.Look(error)
        hint = (" (the app needs the channels:read and groups:read scopes: reinstall it from manifest.json)"
                if error == "missing_scope" else "")
        return reach.Look(None, known=False, detail=f"conversations.info: {error}{hint}")
    name = info.get("name") if isinstance(info.get("name"), str) else None
    if info.get("is_archived"):
        return reach.Look("is_archived", name)
    if info.get("is_member") is False and not info.get("is_im"):
        return reach.Look("not_in_channel", name)
    return reach.Look(None, name)


def _pick_up(row: Outbox) -> bool:
    """An intake run's pick-up message (a request row): once deleted in Slack it is not posted again, whatever
    changes (only its due line does, and the run's thread lives under its card). A card or a queue item that
    someone deletes is posted again, as ever: a person must still be able to decide on it."""
    return row.kind == OutboxKind.REQUEST


def _backoff(attempts: int) -> float:
    return min(30.0, 2.0 ** max(0, attempts - 1)) * random.uniform(0.75, 1.0)


def _thread(row: Due | Outbox) -> str | None:
    threaded = row.channel and row.thread_ts and row.kind != OutboxKind.EPHEMERAL
    return f"{row.channel}:{row.thread_ts}" if threaded else None


def _creates(row: Due) -> bool:
    return row.ts is None and row.kind not in NO_MESSAGE


def _lane(row: Due) -> str:
    """Deliveries of one lane go one at a time (a thread; else the message itself)."""
    if row.kind == OutboxKind.HOME:
        return f"home:{row.user}"
    if row.kind == OutboxKind.TRANSCRIPT:
        return f"row:{row.parent_id}"
    return _thread(row) or f"row:{row.id}"


def _first_method(row: Due) -> str:
    if row.kind == OutboxKind.HOME:
        return "views.publish"
    if row.kind == OutboxKind.EPHEMERAL:
        return "chat.postEphemeral"
    if row.kind == OutboxKind.TRANSCRIPT:
        return "files.completeUploadExternal"
    if row.kind == OutboxKind.AGENT_SESSION:
        return "agents.sessions.setStatus"
    if row.kind == OutboxKind.PROMPTS:
        return SUGGEST
    if row.ts is None:
        return "chat.postMessage"
    return "chat.appendStream" if row.streaming else "chat.update"
