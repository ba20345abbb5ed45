"""`kitebase serve`: Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP on $PORT with /slack/events and /healthz."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from sqlalchemy import text

from bot.app import build_app
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk

logger = logging.getLogger(__name__)


def make_wsgi(app: App, db: Database) -> Callable[..., Iterable[bytes]]:
    slack = SlackRequestHandler(app, path="/slack/events")

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            return _health(db, start_response)
        return slack(environ, start_response)

    return wsgi


def _health(db: Database, start_response: Callable[..., Any]) -> Iterable[bytes]:
    try:
        with db.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        status, body = "200 OK", {"ok": True}
    except Exception:
        logger.exception("health check: database unreachable")
        status, body = "503 Service Unavailable", {"ok": False, "error": "database unreachable"}
    payload = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
    return [payload]


def serve(settings: Settings) -> int:
    missing = [name for name, value in (("SLACK_BOT_TOKEN", settings.slack_bot_token),
                                        ("SLACK_SIGNING_SECRET", settings.slack_signing_secret
                                         if settings.slack_app_token is None else True)) if not value]
    if missing:
        print(f"kitebase serve: set {' and '.join(missing)} (see the README's Slack section).")
        return 2
    db = Database.from_url(settings.database_url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    app, ctx = build_app(settings, db)
    scheduler = None
    if settings.execution == "embedded":  # with workers (queue mode), the workers run the timers
        from bot.jobs import build_scheduler

        scheduler = build_scheduler(settings, ctx.service, ctx.dispatch, slack=ctx)
        scheduler.start()
    else:
        from bot.runs.workqueue import ensure_schema

        ensure_schema(settings)
    if settings.slack_app_token is not None:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        print("Kitebase agent connecting over Socket Mode", flush=True)
        SocketModeHandler(app, settings.slack_app_token.get_secret_value()).start()
        return 0
    from waitress import serve as waitress_serve

    print(f"Kitebase agent listening on :{settings.port} (POST /slack/events, GET /healthz)", flush=True)
    waitress_serve(make_wsgi(app, db), host="0.0.0.0", port=settings.port, threads=16, ident="kitebase")
    return 0
