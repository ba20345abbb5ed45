"""Log lines that carry the run: every record written while working on a run (bot/telemetry/scope.py) names
the run and its Slack thread, in text by default and one JSON object a line with KITEBASE_LOG_FORMAT=json.
Both formats pass every line, tracebacks included, through the secret filter (bot/redact.py)."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO, Any

from bot.redact import RedactingFormatter, redact
from bot.telemetry import tracing
from bot.telemetry.scope import current

TEXT = "%(levelname)s %(name)s%(run_label)s: %(message)s"


class RunFilter(logging.Filter):
    """Puts the current run on the record: `run_id`, `run_thread` and `run_label` (" [run=12 thread=C1:17.1]")."""

    def filter(self, record: logging.LogRecord) -> bool:
        scope = current()
        run_id, thread = (scope.run_id, scope.thread) if scope else (None, None)
        record.__dict__.update(run_id=run_id, run_thread=thread, run_label=_label(run_id, thread))
        return True


def _label(run_id: int | None, thread: str | None) -> str:
    if run_id is None:
        return ""
    return f" [run={run_id}" + (f" thread={thread}]" if thread else "]")


class TextFormatter(RedactingFormatter):
    def __init__(self) -> None:
        super().__init__(TEXT)

    def format(self, record: logging.LogRecord) -> str:
        if not hasattr(record, "run_label"):  # a handler without RunFilter
            RunFilter().filter(record)
        return super().format(record)


class JsonFormatter(logging.Formatter):
    """{"time", "level", "logger", "message", "run_id", "thread", "exception", "trace_id", "span_id"}."""

    def format(self, record: logging.LogRecord) -> str:
        if not hasattr(record, "run_id"):
            RunFilter().filter(record)
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name, "message": redact(record.getMessage())}
        if record.__dict__.get("run_id") is not None:
            entry["run_id"] = record.__dict__["run_id"]
        if record.__dict__.get("run_thread"):
            entry["thread"] = record.__dict__["run_thread"]
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        if record.stack_info:
            entry["stack"] = redact(self.formatStack(record.stack_info))
        entry.update(_trace_ids())
        return redact(json.dumps(entry, ensure_ascii=False, default=str))


def _trace_ids() -> dict[str, str]:
    """The span the line was written in, when tracing is on (to jump from a log line to its trace)."""
    if tracing.tracer() is None:
        return {}
    from opentelemetry import trace

    from bot.telemetry.segment import current_segment

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:  # the run's own thread: its segment's span, once some work made it
        segment = current_segment()
        started = segment.started() if segment is not None else None
        if started is None:
            return {}
        context = started.get_span_context()
    return {"trace_id": f"{context.trace_id:032x}", "span_id": f"{context.span_id:016x}"}


def run_handler(stream: IO[str], log_format: str = "text") -> logging.Handler:
    """A handler writing to `stream` in `log_format` ("text" or "json"), every line naming its run."""
    handler = logging.StreamHandler(stream)
    handler.addFilter(RunFilter())
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    return handler


def configure_logging(level: int, log_format: str = "text") -> None:
    """The entry points' one logging set-up: stderr, every line redacted and naming the run it was written for;
    `log_format` "json" (KITEBASE_LOG_FORMAT) writes one JSON object a line."""
    handler = run_handler(sys.stderr, log_format)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
