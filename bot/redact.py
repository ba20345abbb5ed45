"""One secret filter for every string that leaves the process: reasons and summaries stored for people,
Slack text and blocks, CLI output, logs, the step log and transcripts all pass through `redact`.

The filter knows the configured secret values (registered when Settings are read) and the shapes of the
keys and tokens we use (an upstream may echo a key we never configured, e.g. in an error body)."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

PATTERNS = [
    re.compile(r"xox[abposre]-[A-Za-z0-9-]{6,}"),  # Slack tokens
    re.compile(r"xapp-[A-Za-z0-9-]{6,}"),  # Slack app-level tokens
    re.compile(r"sk-ant-[A-Za-z0-9_-]{6,}"),  # Anthropic keys
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{12,}"),  # bearer tokens
    re.compile(r"(?i)(x-api-key|authorization|api[_-]?key|signing[_-]?secret)([\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]{6,}"),
]
MARK = "[redacted]"
_known: set[str] = set()
_lock = threading.Lock()


def register(*values: str | None) -> None:
    """Remember secret values so that they are cut wherever they appear."""
    with _lock:
        _known.update(v for v in values if v and len(v) >= 6)


def redact(text: str) -> str:
    if not text:
        return text
    for secret in sorted(_known, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MARK)
    for pattern in PATTERNS:
        text = pattern.sub(_replace, text)
    return text


def _replace(match: re.Match[str]) -> str:
    if match.lastindex and match.lastindex >= 2:  # "api_key: xyz" keeps its name, loses its value
        return f"{match.group(1)}{match.group(2)}{MARK}"
    return MARK


def redact_obj(value: Any) -> Any:
    """`redact` over every string in a JSON-like structure (Slack arguments, step records)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_obj(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_obj(v) for v in value]
    return value


class RedactingFormatter(logging.Formatter):
    """Log lines, tracebacks included, through the same filter."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))
