"""Running a turn's tool calls: read-only ones at once (they are independent lookups), calls with side effects
one by one in the model's order, each bounded by KITEBASE_TOOL_TIMEOUT_SECONDS. A call that does not answer
in time gets an is_error result; its thread cannot be stopped, so the model is told that a change may still
land and to check before trying again."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from tools import Execute, Tool, ToolContext, ToolResult, execute

logger = logging.getLogger(__name__)
STOPPED_BY = "stopped_by"  # in a "Not run" result's data: who stopped the run
_pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="kitebase-tool")


def run_calls(registry: dict[str, Tool], uses: list[dict[str, Any]], context_for: Any,
              timeout: float, execute: Execute = execute,
              stopped: Callable[[], str | None] = lambda: None) -> dict[str, tuple[ToolResult, int]]:
    """tool_use id -> (result, latency in ms), for every call in `uses`. Once `stopped` names who stopped the run
    (asked before the reads start and before each write), no further call starts: each gets a "Not run" result
    whose data carries STOPPED_BY."""
    reads = [u for u in uses if _read_only(registry, u)]
    writes = [u for u in uses if not _read_only(registry, u)]
    if reads and (who := stopped()):
        return {str(u["id"]): (_not_run(who), 0) for u in uses}
    started = {str(u["id"]): time.monotonic() for u in reads}
    futures = {str(u["id"]): _pool.submit(_execute, execute, registry, context_for(u["id"]), u) for u in reads}
    results = {tool_id: _wait(future, registry, _use(uses, tool_id), timeout, started[tool_id])
               for tool_id, future in futures.items()}
    for use in writes:
        if who := stopped():
            results.update({str(u["id"]): (_not_run(who), 0) for u in writes if str(u["id"]) not in results})
            break
        begun = time.monotonic()
        results[str(use["id"])] = _wait(_pool.submit(_execute, execute, registry, context_for(use["id"]), use), registry,
                                        use, timeout, begun)
    return results


def _not_run(who: str) -> ToolResult:
    return ToolResult(f"Not run: {who} stopped the run.", {STOPPED_BY: who}, is_error=True)


def _execute(execute: Execute, registry: dict[str, Tool], ctx: ToolContext, use: dict[str, Any]) -> ToolResult:
    return execute(registry, ctx, str(use.get("name", "")), use.get("input"))


def _wait(future: Any, registry: dict[str, Tool], use: dict[str, Any], timeout: float,
          started: float) -> tuple[ToolResult, int]:
    remaining = max(0.0, timeout - (time.monotonic() - started))
    try:
        result = future.result(timeout=remaining)
    except FutureTimeout:
        name = str(use.get("name"))
        logger.error("tool %s did not answer within %g s (KITEBASE_TOOL_TIMEOUT_SECONDS)", name, timeout)
        change = "" if _read_only(registry, use) else (
            " It may still complete: check with get_ticket before doing it again.")
        result = ToolResult(f"{name} did not answer within {timeout:g} s and was abandoned.{change} Try another "
                            "approach, or call escalate_to_human if you cannot finish without it.", is_error=True)
    return result, int((time.monotonic() - started) * 1000)


def _read_only(registry: dict[str, Tool], use: dict[str, Any]) -> bool:
    tool = registry.get(str(use.get("name", "")))
    return tool is None or tool.read_only


def _use(uses: list[dict[str, Any]], tool_id: str) -> dict[str, Any]:
    return next(u for u in uses if str(u["id"]) == tool_id)
