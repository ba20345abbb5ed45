"""The step log: one JSON line per step, secrets redacted, and a readable timeline for replay."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from bot.redact import redact

logger = logging.getLogger("kitebase.steps")
RESULT_LOG_CHARS = 600


def step_line(run_id: int, step: dict[str, Any]) -> str:
    """One JSON line for the step log (tool results cut to a few hundred characters)."""
    record = {"run": run_id, **step}
    record["tool_calls"] = [
        {**call, "result": _cut(str(call.get("result", "")))} for call in step.get("tool_calls") or []
    ]
    record.pop("response", None)  # the full content is in the database; the line stays readable
    return redact(json.dumps(record, ensure_ascii=False, default=str))


def write_step(run_id: int, step: dict[str, Any], path: Path | None) -> None:
    if path is None and not logger.isEnabledFor(logging.INFO):
        return  # nobody reads it: the step is in the database
    line = step_line(run_id, step)
    logger.info(line)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def _cut(text: str) -> str:
    return text if len(text) <= RESULT_LOG_CHARS else text[:RESULT_LOG_CHARS] + f"… [{len(text):,} chars]"
