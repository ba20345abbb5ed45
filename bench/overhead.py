"""Item 1: what the harness costs per turn on top of the model and the tools.

Zero-latency model (the offline model, its thinking time subtracted), the real tools, a seeded database. Each
ticket is worked twice, alternately: through the harness (run layer, loop, checks, checkpoints, approvals,
outbox rows; the draft approved at once) and through a minimal in-memory loop of the same shape (call the
model, run the tools one by one, append, repeat; nothing stored but what the tools write). Per turn =
(wall time − model time) / model calls; overhead = harness − minimal, per ticket.
"""

from __future__ import annotations

import time
from typing import Any

from sqlmodel import select

from bench.common import Figure, pct, seeded
from bench.doubles import ZeroLatencyModel
from bot.agent.prompts import SYSTEM_PROMPT
from bot.db.models import Approval
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import RunStatus
from tools import REGISTRY, Tool, ToolContext, execute


def run_approving(service: RunService, goal: str) -> int:
    """Start a run and work it to its end, approving every draft at once (as a lead who clicks Approve)."""
    run_id = service.start(goal)
    state = service.resume(run_id)
    while state is not None and state.status == RunStatus.AWAITING_APPROVAL:
        with service.db.session() as session:
            pending = session.exec(select(Approval.id).where(Approval.run_id == run_id,
                                                             Approval.status == "pending")).all()
        for approval_id in pending:
            service.decide(approval_id, action="approve", actor="bench")
        state = service.resume(run_id)
    return run_id


def harness_run(service: RunService, model: ZeroLatencyModel, ticket: str) -> tuple[float, int]:
    """Seconds per turn (model time taken out) of one run through the harness, and its turns."""
    model.spent, model.calls = 0.0, 0
    started = time.perf_counter()
    run_approving(service, f"handle {ticket}")
    wall = time.perf_counter() - started
    return (wall - model.spent) / max(1, model.calls), model.calls


def minimal_run(model: ZeroLatencyModel, registry: dict[str, Tool], ctx: ToolContext, ticket: str,
                max_turns: int = 15) -> tuple[float, int]:
    """The same work in the smallest loop that does it: no checks, no storage, no approvals."""
    model.spent, model.calls = 0.0, 0
    definitions = [tool.definition() for tool in registry.values()]
    started = time.perf_counter()
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": f"handle {ticket}"}]}]
    for _ in range(max_turns):
        response = model.complete(system=SYSTEM_PROMPT, tools=definitions, messages=messages, max_tokens=4096)
        messages.append({"role": "assistant", "content": response.content})
        uses = [b for b in response.content if b.get("type") == "tool_use"]
        if response.stop_reason != "tool_use" or not uses:
            break
        results = []
        for use in uses:
            result = execute(registry, ToolContext(db=ctx.db, settings=ctx.settings, tool_use_id=use["id"]),
                             use["name"], use["input"])
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": result.text,
                            **({"is_error": True} if result.is_error else {})})
        messages.append({"role": "user", "content": results})
    wall = time.perf_counter() - started
    return (wall - model.spent) / max(1, model.calls), model.calls


def tickets(n: int) -> list[str]:
    return [f"KITE-{101 + i % 117}" for i in range(n)]


def measure(url: str, backend: str, runs: int, warm: int = 5) -> Figure:
    settings, db = seeded(url)
    model = ZeroLatencyModel()
    service = RunService(db, settings, model_factory=lambda: model)
    ctx = ToolContext(db=db, settings=settings)
    harness, minimal, overhead, turns = [], [], [], 0
    for i, ticket in enumerate(tickets(runs + warm)):
        h, calls = harness_run(service, model, ticket)
        m, _ = minimal_run(model, REGISTRY, ctx, ticket)
        if i >= warm:
            harness.append(h * 1000)
            minimal.append(m * 1000)
            overhead.append((h - m) * 1000)
            turns += calls
    db.engine.dispose()
    median = pct(overhead, 0.5)
    return Figure(1, f"harness overhead per turn, {backend}", round(median, 2), "ms",
                  reference=round(pct(minimal, 0.5), 2), reference_name="minimal in-memory loop, ms per turn",
                  target="≤ 5 ms median" if backend == "SQLite" else "",
                  met=(median <= 5.0) if backend == "SQLite" else None,
                  detail={"runs": runs, "turns": turns, "overhead_p99_ms": round(pct(overhead, 0.99), 2),
                          "harness_per_turn_ms": {"p50": round(pct(harness, 0.5), 2),
                                                  "p99": round(pct(harness, 0.99), 2)},
                          "minimal_per_turn_ms": {"p50": round(pct(minimal, 0.5), 2),
                                                  "p99": round(pct(minimal, 0.99), 2)}})
