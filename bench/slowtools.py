"""The agent's real tools, each made to take at least a given time (a desk API answering over the network)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from tools import REGISTRY, Tool, ToolContext, ToolResult


def slowed(fn: Callable[..., ToolResult], seconds: float) -> Callable[..., ToolResult]:
    def call(ctx: ToolContext, **arguments: Any) -> ToolResult:
        started = time.monotonic()
        try:
            return fn(ctx, **arguments)
        finally:
            time.sleep(max(0.0, started + seconds - time.monotonic()))
    return call


def slow_registry(seconds: float, registry: dict[str, Tool] = REGISTRY) -> dict[str, Tool]:
    """Every tool of `registry`, each call taking `seconds` in all (its own work included)."""
    if seconds <= 0:
        return dict(registry)
    return {name: dataclasses.replace(tool, fn=slowed(tool.fn, seconds)) for name, tool in registry.items()}
