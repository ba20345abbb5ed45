"""Where a turn's milliseconds go: the harness of item 1 again, with a timer around each part of it.

The parts are wrapped in place (module attributes and methods), timed with perf_counter and summed; a part
called inside another is shown indented under it, and the time of the parent is its own share plus its
children's. "unattributed" is the rest of the wall time (loop bookkeeping, the observer, Python itself).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from bench.common import seeded
from bench.doubles import ZeroLatencyModel
from bench.overhead import harness_run, tickets
from bot.runs.lifecycle.service import RunService

# (module, attribute path, label, parent label or None); "with" parts are context managers
PARTS = [
    ("bot.runs.lifecycle.service", "RunService.start", "start a run (goal check, insert)", None),
    ("bot.runs.lifecycle.service", "claim", "claim: take the lease and read the run", None),
    ("bot.runs.lifecycle.service", "release_lease", "give the lease back (when no checkpoint did)", None),
    ("bot.runs.lifecycle.checkpoint", "LeaseKeeper.holding", "lease keeper (register, unregister)", None),
    ("bot.runs.lifecycle.service", "approvals.decide", "record the decision", None),
    ("bot.runs.lifecycle.service", "approvals.settle", "run the approved call, store its result", None),
    ("bot.runs.lifecycle.approvals", "outcome", "the approved tool itself", "run the approved call, store its result"),
    ("bot.agent.loop", "history.check", "history check before the call", None),
    ("bot.agent.loop", "checks.response_problems", "response check", None),
    ("bot.agent.loop", "Screen.__call__", "screen calls (repeats, approvals, preflight)", None),
    ("bot.agent.loop", "run_calls", "tools (thread pool)", None),
    ("bot.agent.loop", "summarize", "summary at the end", None),
    ("bot.agent.loop", "Limits.check", "guards", None),
    ("bot.runs.lifecycle.checkpoint", "Checkpoint.__call__", "checkpoint (one transaction)", None),
    ("bot.runs.lifecycle.checkpoint", "Checkpoint._write_run", "run UPDATE (lease, state, history JSON)", "checkpoint (one transaction)"),
    ("bot.runs.lifecycle.checkpoint", "citations.annotate", "citation check of drafts", "checkpoint (one transaction)"),
    ("bot.runs.lifecycle.checkpoint", "add_approvals", "approval rows", "checkpoint (one transaction)"),
    ("bot.runs.lifecycle.checkpoint", "outbox.after_step", "outbox rows", "checkpoint (one transaction)"),
]
CONTEXTS = {"lease keeper (register, unregister)"}


def _resolve(module: str, path: str) -> tuple[Any, str]:
    owner: Any = importlib.import_module(module)
    *parents, name = path.split(".")
    for parent in parents:
        owner = getattr(owner, parent)
    return owner, name


@contextlib.contextmanager
def timed_parts(totals: dict[str, float]) -> Iterator[None]:
    """Wrap every part; restore the originals afterwards."""
    originals = []
    for module, path, label, _ in PARTS:
        owner, name = _resolve(module, path)
        original = getattr(owner, name)
        originals.append((owner, name, original))
        wrap = _context_timer if label in CONTEXTS else _timer
        setattr(owner, name, wrap(original, label, totals))
    try:
        yield
    finally:
        for owner, name, original in reversed(originals):
            setattr(owner, name, original)


def _timer(fn: Callable[..., Any], label: str, totals: dict[str, float]) -> Any:
    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[label] += time.perf_counter() - started
    return timed


def _context_timer(fn: Callable[..., Any], label: str, totals: dict[str, float]) -> Any:
    """A context manager's entering and leaving, not the time inside it."""
    @contextlib.contextmanager
    def timed(*args: Any, **kwargs: Any) -> Iterator[Any]:
        started = time.perf_counter()
        manager = fn(*args, **kwargs)
        value = manager.__enter__()
        totals[label] += time.perf_counter() - started
        try:
            yield value
        finally:
            started = time.perf_counter()
            manager.__exit__(None, None, None)
            totals[label] += time.perf_counter() - started
    return timed


def profile(url: str, runs: int, warm: int = 5) -> dict[str, Any]:
    """Milliseconds per turn for each part, over `runs` harness runs (after `warm`)."""
    settings, db = seeded(url)
    model = ZeroLatencyModel()
    service = RunService(db, settings, model_factory=lambda: model)
    for ticket in tickets(warm):
        harness_run(service, model, ticket)
    totals: dict[str, float] = defaultdict(float)
    turns, wall = 0, 0.0
    with timed_parts(totals):
        for ticket in tickets(warm + runs)[warm:]:
            started = time.perf_counter()
            per_turn, calls = harness_run(service, model, ticket)
            wall += time.perf_counter() - started
            turns += calls
            totals["model (subtracted)"] += model.spent
    db.engine.dispose()
    per_turn_ms = {label: round(seconds * 1000 / turns, 3) for label, seconds in totals.items()}
    top = sum(v for label, v in per_turn_ms.items() if _parent(label) is None)
    per_turn_ms["unattributed"] = round(wall * 1000 / turns - top, 3)
    return {"turns": turns, "wall_per_turn_ms": round(wall * 1000 / turns, 3),
            "parts": [{"part": label, "parent": _parent(label), "ms_per_turn": per_turn_ms[label]}
                      for label in _order(per_turn_ms)]}


def _parent(label: str) -> str | None:
    return next((parent for _, _, name, parent in PARTS if name == label), None)


def _order(per_turn: dict[str, float]) -> list[str]:
    tops = sorted((label for label in per_turn if _parent(label) is None), key=lambda lb: -per_turn[lb])
    ordered = []
    for label in tops:
        ordered.append(label)
        ordered += sorted((c for c in per_turn if _parent(c) == label), key=lambda lb: -per_turn[lb])
    return ordered
