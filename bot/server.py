"""`kitebase serve`: Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP on $PORT with /slack/events and
/healthz. With a Zendesk desk, POST /zendesk/webhook arrives on $PORT too: beside /slack/events in HTTP mode, and
in Socket Mode (no public URL for Slack) on a port serve opens for it, with /healthz. In the default embedded
mode this process also continues runs, runs the timers and delivers the outbox to Slack; with
KITEBASE_EXECUTION=queue the workers do those and this process only records requests."""

from __future__ import annotations

import io
import json
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from sqlalchemy import text

from bot import heap
from bot.app import build_app
from bot.config import Settings
from bot.db.engine import Database
from bot.db.open import open_database
from bot.listeners.context import SlackContext
from bot.pressure import answering
from bot.runs.execution.dispatch import Dispatcher
from bot.runs.execution.processes import Liveness
from bot.runs.intake.arrivals import in_force
from bot.search.warm import warm_up_in_background
from bot.telemetry.slack_requests import traced_wsgi

logger = logging.getLogger(__name__)
Start = Callable[..., Any]
MAX_BODY = 1_000_000  # Slack's payloads and Zendesk's webhooks are far smaller
READ_PIECE = 65536


def make_wsgi(app: App, ctx: SlackContext) -> Callable[..., Iterable[bytes]]:
    """/healthz, and /slack/events through Bolt (its own signature check, then our listeners). A body too large
    is a 413, and one Bolt cannot even parse (not UTF-8, not JSON) a 400: never a 500."""
    slack = SlackRequestHandler(app, path="/slack/events")
    db = ctx.service.db

    def wsgi(environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            return _health(db, start_response)
        if environ.get("PATH_INFO") == "/zendesk/webhook" and environ.get("REQUEST_METHOD") == "POST":
            return _zendesk_webhook(ctx, environ, start_response)
        if environ.get("PATH_INFO") == "/slack/events" and environ.get("REQUEST_METHOD") == "POST":
            body = _read(environ)
            if body is None:
                return _json(start_response, "413 Payload Too Large", {"ok": False, "error": "request too large"})
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(body), str(len(body))
            try:
                with answering():  # Slack waits for this answer: background work steps aside meanwhile
                    return slack(environ, start_response)
            except Exception as exc:  # Bolt could not parse the body (our listeners' errors are handled inside)
                logger.warning("a Slack request Bolt could not parse (%s); answered 400", type(exc).__name__)
                return _json(start_response, "400 Bad Request", {"ok": False, "error": "unprocessable request"})
        return slack(environ, start_response)

    return traced_wsgi(wsgi)  # with tracing, a span per Slack request (else `wsgi` itself)


def make_desk_wsgi(ctx: SlackContext) -> Callable[..., Iterable[bytes]]:
    """What Socket Mode's serve answers on $PORT: POST /zendesk/webhook and GET /healthz (Slack's own requests
    come over the socket, so there is no /slack/events here)."""

    def wsgi(environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            return _health(ctx.service.db, start_response)
        if environ.get("PATH_INFO") == "/zendesk/webhook" and environ.get("REQUEST_METHOD") == "POST":
            return _zendesk_webhook(ctx, environ, start_response)
        return _json(start_response, "404 Not Found", {"ok": False, "error": "in Socket Mode this port takes POST "
                                                       "/zendesk/webhook and GET /healthz; Slack comes over the socket"})

    return wsgi


def _zendesk_webhook(ctx: SlackContext, environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
    """Zendesk says tickets changed: signature and timestamp checked (else 401, nothing changes), answered at
    once, the named tickets read through the API in the background (bot/runs/execution/desk_work.py)."""
    from bot.runs.execution.desk_work import webhook

    body = _read(environ)
    if body is None:
        return _json(start_response, "413 Payload Too Large", {"ok": False, "error": "request too large"})
    headers = {key[5:].replace("_", "-").lower(): str(value) for key, value in environ.items()
               if key.startswith("HTTP_")}
    status, answer = webhook(ctx.service.db, ctx.settings, headers, body)
    return _json(start_response, status, answer)


def _read(environ: dict[str, Any]) -> bytes | None:
    """The request's body, or None when it is larger than MAX_BODY. A body without a length (chunked, which
    waitress turns into a length itself, refusing it past the limit while it reads) is read in pieces and
    refused once it passes the limit, never read whole."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or -1)
    except ValueError:
        length = -1
    if length > MAX_BODY:
        return None
    if length >= 0:
        return environ["wsgi.input"].read(length) if length > 0 else b""
    if not environ.get("wsgi.input_terminated"):
        return b""  # no length and a stream that may not end: no body (PEP 3333)
    pieces: list[bytes] = []
    size = 0
    while size <= MAX_BODY:
        piece = environ["wsgi.input"].read(min(READ_PIECE, MAX_BODY + 1 - size))
        if not piece:
            return b"".join(pieces)
        pieces.append(piece)
        size += len(piece)
    return None


def _json(start_response: Start, status: str, body: dict[str, Any]) -> Iterable[bytes]:
    payload = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
    return [payload]


def _health(db: Database, start_response: Start) -> Iterable[bytes]:
    try:
        with db.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return _json(start_response, "200 OK", {"ok": True})
    except Exception:
        logger.exception("health check: database unreachable")
        return _json(start_response, "503 Service Unavailable", {"ok": False, "error": "database unreachable"})


def serve(settings: Settings) -> int:
    missing = [name for name, value in (("SLACK_BOT_TOKEN", settings.slack_bot_token),
                                        ("SLACK_SIGNING_SECRET", settings.slack_signing_secret
                                         if settings.slack_app_token is None else True)) if not value]
    if missing:
        print(f"kitebase serve: set {' and '.join(missing)} (see docs/design.md, Install it in a workspace).", file=sys.stderr)
        return 2
    db = open_database(settings)
    warming = warm_up_in_background(db)  # the search's index, beside the rest of start-up (bot/search/warm.py)
    rules = in_force(db, settings)  # the intake rules, in force before the webhook or the poll records anything
    app, ctx = build_app(settings, db)
    ctx.identity.learn_in_background(ctx.client)
    check_channels_in_background(settings, db, rules)  # can the bot post where the rules and escalations go?
    if isinstance(ctx.dispatch, Dispatcher):
        ctx.dispatch.start_threads()  # nor for starting the run threads (embedded: runs continue here)
    liveness = Liveness(db, ctx.service.owner, "serve").start()
    background = Background(settings, ctx) if settings.execution == "embedded" else None
    if background is None:
        from bot.runs.execution.workqueue import QueueDispatcher, ensure_schema

        ensure_schema(settings)
        if isinstance(ctx.dispatch, QueueDispatcher):
            ctx.dispatch.start_threads()  # the thread that defers jobs, before the first request
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        if background is not None:
            background.start()
        if warming is not None:
            warming.join(timeout=60)  # ready means the first mention's first search costs what the hundredth does
            if warming.took is not None:
                print(f"Search ready (its index loaded in {warming.took * 1000:.0f} ms)", flush=True)
        heap.settle("serve start-up")  # a full garbage collection must not land in an acknowledgement
        return _listen(settings, app, ctx)
    finally:
        if background is not None:
            background.stop()
        ctx.identity.stop()
        liveness.stop()


def check_channels_in_background(settings: Settings, db: Database, rules: list[Any]) -> threading.Thread:
    """Whether the bot can post in every intake rule's channel and the escalation channel: each it cannot is said
    in the log (what to do about it) and recorded for every process (bot/runs/intake/reach.py), so that rule starts
    no runs until it can. In the background: a Slack that is slow to answer never delays listening."""
    from bot.outbox.sender import look
    from bot.runs.intake import reach
    from bot.slack.client import make_client

    client = make_client(settings)
    channels = reach.channels_to_check(settings, rules)

    def check() -> None:
        try:
            if not reach.check(db, settings, channels, lambda channel: look(client, channel)) and channels:
                logger.info("Kitebase can post in all %d channel(s) the rules and escalations use", len(channels))
        except Exception:
            logger.exception("checking the channels the bot posts in failed; a refused post is noticed when it "
                             "happens")

    thread = threading.Thread(target=check, name="kitebase-channel-check", daemon=True)
    thread.start()
    return thread


def _listen(settings: Settings, app: App, ctx: SlackContext) -> int:
    if settings.slack_app_token is not None:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        handler = SocketModeHandler(app, settings.slack_app_token.get_secret_value())
        if settings.desk == "zendesk":
            return _socket_mode_with_webhook(settings, handler, ctx)
        print("Kitebase agent connecting over Socket Mode", flush=True)
        handler.start()
        return 0
    server = http_server(make_wsgi(app, ctx), port=settings.port, threads=settings.http_threads)
    print(f"Kitebase agent listening on :{settings.port} (POST /slack/events, GET /healthz)", flush=True)
    server.run()
    return 0


def _socket_mode_with_webhook(settings: Settings, handler: Any, ctx: SlackContext) -> int:
    """Socket Mode needs no public URL for Slack, but Zendesk's webhook needs one: serve opens $PORT for it."""
    try:
        server = http_server(make_desk_wsgi(ctx), port=settings.port, threads=2)
    except OSError as exc:
        print(f"kitebase serve: PORT {settings.port} is taken ({exc.strerror}). In Socket Mode with "
              "KITEBASE_DESK=zendesk, serve opens PORT for Zendesk's webhook: set PORT to a free port.",
              file=sys.stderr)
        return 2
    print("Kitebase agent connecting over Socket Mode", flush=True)
    handler.connect()
    print(f"Zendesk webhooks: POST /zendesk/webhook on :{settings.port} (and GET /healthz)", flush=True)
    try:
        server.run()
    finally:
        handler.close()
    return 0


def http_server(wsgi: Callable[..., Iterable[bytes]], *, port: int, threads: int, host: str = "0.0.0.0") -> Any:
    """waitress serving `wsgi` on host:port (port 0: a free one, see `.effective_port`); `.run()` serves."""
    from waitress.server import create_server

    # waitress warns once per request queued behind its busy threads: in a burst of mentions that is a log line
    # per mention, written by the thread that reads the next requests (and a burst is normal here).
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    # A body past MAX_BODY is refused (413) while waitress reads it, a chunked one included: waitress would
    # otherwise buffer up to 1 GB of it before the application sees its length.
    return create_server(wsgi, host=host, port=port, threads=threads, ident="kitebase",
                         max_request_body_size=MAX_BODY + 1)


class Background:
    """What an embedded `serve` does beside answering Slack: deliver the outbox, run the timers, and continue
    at start-up the runs a dead process left (queued, or owned by a process that stopped beating)."""

    def __init__(self, settings: Settings, ctx: Any):
        from bot.outbox.sender import OutboxSender
        from bot.runs.execution.timers import build_scheduler
        from bot.slack.client import make_client

        self.ctx = ctx
        self.sender = OutboxSender(ctx.service.db, settings, make_client(settings))
        self.scheduler = build_scheduler(settings, ctx.service, ctx.dispatch, groups=ctx.groups,
                                         client=self.sender.client)

    def start(self) -> None:
        from bot.runs.execution.desk_work import start_sender
        from bot.runs.execution.sweeps import database_now, recover

        self.sender.start()
        self.desk_sender = start_sender(self.ctx.service.db, self.ctx.settings)
        self.scheduler.start()
        for approver in sorted(a for a in self.ctx.settings.approvers if a.startswith(("U", "W"))):
            self.ctx.service.home_opened(approver)  # their App Home shows the drafts waiting for them
        recover(self.ctx.service, database_now(self.ctx.service.db), self.ctx.dispatch, at_start=True)

    def stop(self) -> None:
        self.scheduler.shutdown(wait=False)
        self.ctx.dispatch.shutdown()
        self.sender.stop()
        if getattr(self, "desk_sender", None) is not None:
            self.desk_sender.stop()
