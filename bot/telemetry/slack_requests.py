"""A server span per Slack HTTP request (`POST /slack/events`): the signature check, Bolt and our listeners
inside it (a decision made there is its child), the status Slack got, and what kind of request it was
(`event_callback:app_mention`, `block_actions:approve_reply`, `command:/kitebase`...). When tracing is off,
`traced_wsgi` hands back the application unchanged."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from bot.telemetry import conventions as c
from bot.telemetry import tracing
from bot.telemetry.scope import run_scope
from bot.telemetry.spans import fail, guarded

if TYPE_CHECKING:
    from opentelemetry.trace import Span

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
ROUTE = "/slack/events"


def traced_wsgi(app: Wsgi) -> Wsgi:
    if tracing.tracer() is None:
        return app

    def traced(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != ROUTE or environ.get("REQUEST_METHOD") != "POST":
            return app(environ, start_response)
        return _handle(app, environ, start_response)

    return traced


def _handle(app: Wsgi, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    from opentelemetry.trace import SpanKind, use_span

    tracer, span = tracing.tracer(), None
    with guarded("starting a Slack request span"):
        if tracer is not None:
            span = tracer.start_span(c.SPAN_SLACK_REQUEST, kind=SpanKind.SERVER, attributes={
                c.HTTP_METHOD: "POST", c.HTTP_ROUTE: ROUTE, c.URL_PATH: ROUTE})
    if span is None:
        return app(environ, start_response)
    status: list[str] = []

    def start(line: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
        status.append(line)
        return start_response(line, headers, *exc_info)

    with (use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False),
          run_scope() as scope):  # a listener that records a run names it (bot/telemetry/scope.note_run)
        try:
            body = app(environ, start)
        except BaseException as exc:
            with guarded("a Slack request span"):
                fail(span, type(exc).__qualname__)
                span.end()
            raise
    with guarded("a Slack request span"):
        _finish(span, environ, status, scope.run_id)
    return body


def _finish(span: Span, environ: dict[str, Any], status: list[str], run_id: int | None) -> None:
    try:
        code = int(status[0].split(" ", 1)[0]) if status else None
        if code is not None:
            span.set_attribute(c.HTTP_STATUS, code)
            if code >= 500:
                fail(span, str(code))
        kind = request_type(environ)
        if kind:
            span.set_attribute(c.SLACK_REQUEST_TYPE, kind)
        if run_id is not None:
            span.set_attributes({c.CONVERSATION_ID: str(run_id), c.RUN_ID: run_id})
    finally:
        span.end()


def request_type(environ: dict[str, Any]) -> str | None:
    """What Slack sent, from the body make_wsgi kept (a BytesIO); None for a body that could not be read."""
    stream = environ.get("wsgi.input")
    if not isinstance(stream, io.BytesIO):
        return None
    try:
        return _classify(stream.getvalue().decode("utf-8"), str(environ.get("CONTENT_TYPE") or ""))
    except (ValueError, AttributeError, TypeError):
        return None


def _classify(text: str, content_type: str) -> str | None:
    if content_type.startswith("application/json"):
        data = json.loads(text)
    else:
        form = {k: v[-1] for k, v in parse_qs(text).items()}
        if "command" in form:
            return f"command:{form['command']}"
        data = json.loads(form["payload"]) if "payload" in form else form
    kind = str(data.get("type") or "")
    if kind == "event_callback":
        return f"{kind}:{(data.get('event') or {}).get('type', '')}"
    if kind == "block_actions":
        return f"{kind}:{((data.get('actions') or [{}])[0]).get('action_id', '')}"
    if kind in ("view_submission", "view_closed"):
        return f"{kind}:{(data.get('view') or {}).get('callback_id', '')}"
    return kind or None
