"""Small helpers shared by the span makers (called only when tracing is on)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from bot.redact import redact, redact_obj
from bot.telemetry import conventions as c

if TYPE_CHECKING:
    from opentelemetry.trace import Span

logger = logging.getLogger(__name__)

MAX_CONTENT_CHARS = 100_000  # one content attribute (a long history is cut, and says so)


@contextmanager
def guarded(what: str) -> Iterator[None]:
    """Telemetry never breaks the work it watches: a failure of ours is logged, and the work goes on."""
    try:
        yield
    except Exception:
        logger.exception("telemetry: %s failed", what)


def error_type(exc: BaseException) -> str:
    """A low-cardinality name for an exception: its fully qualified type."""
    kind = type(exc)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def fail(span: Span, kind: str, description: str | None = None) -> None:
    """Mark the span as ended in error (error.type and an ERROR status; the description only if it is safe)."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute(c.ERROR_TYPE, kind)
    span.set_status(Status(StatusCode.ERROR, redact(description)[:300] if description else None))


def content_json(value: Any) -> str:
    """Opt-in content as a JSON string (span attributes cannot hold structures), secrets cut, size bounded."""
    text = json.dumps(redact_obj(value), ensure_ascii=False, default=str)
    if len(text) > MAX_CONTENT_CHARS:
        text = text[:MAX_CONTENT_CHARS] + f"… [cut: {len(text):,} chars]"
    return redact(text)
