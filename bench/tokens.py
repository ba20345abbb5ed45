"""Item 6: billed tokens and dollars per ticket, this harness against a naive loop.

Both talk to the Messages API stand-in through the real `anthropic` client; the stand-in bills prompt
caching by the documented rules (standins/prompt_cache.py). The naive loop has the seed's shape: the
whole history every call, no cache_control, tool results never truncated. Billed input is counted in
base-price input-token equivalents (plain input + 1.25 × cache writes + 0.1 × cache reads); dollars by
bot/agent/pricing.py (output included).

- The 10-turn run: a scripted model works KITE-142 in ten calls (reads four tickets, searches three times,
  drafts, updates the ticket, reports); the draft is approved at once.
- The desk: twenty tickets back to back, the offline model's reasoning, each draft approved at once (the
  system prompt and tools are the same for every run, so the cache carries over between runs).
- Breakpoints: the same workloads with the breakpoints the harness used before (system, tools, last
  block), and a run with a wide turn (twelve lookups at once, 25 blocks: more than the 20 the cache looks
  back from a breakpoint).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anthropic

import bot.agent.model as model_module
from bench.common import Figure, seeded
from bench.doubles import BENCH_MODEL, offline_responder, scripted_responder, stand_in
from bench.overhead import run_approving
from bot.agent import capabilities, pricing
from bot.agent.prompts import SYSTEM_PROMPT
from bot.runs.lifecycle.service import RunService
from standins.anthropic_server import MessagesAPIServer
from tools import REGISTRY, ToolContext, execute

KEY = "sk-ant-bench-0123456789"
DRAFT = ("Hi Dana,\n\nSorry for the trouble signing in. Your workspace uses single sign-on, so password sign-in "
         "is off; after an identity-provider change Kitebase still expects the old settings. A workspace owner "
         "can use \"Trouble with SSO?\" → \"Email me an owner bypass link\" on the sign-in page and update "
         "Settings → Security → Single sign-on [account-recovery#2].\n\nBest regards,\nKitebase Support")


def _use(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_ten_{name}", "name": name, "input": arguments}


def _say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


TEN_TURNS: list[list[dict[str, Any]]] = [
    [_say("I'll start by reading KITE-142."), _use("get_ticket", ticket_id="KITE-142")],
    [_say("Checking the help center and similar tickets together."), _use("search_help", query="locked out sso"),
     _use("search_tickets", query="sso login okta locked out", exclude_ticket_id="KITE-142")],
    [_say("KITE-144 looks like the same problem; reading it."), _use("get_ticket", ticket_id="KITE-144")],
    [_say("Looking for tickets like KITE-142."), _use("search_tickets", like_ticket_id="KITE-142")],
    [_say("Reading KITE-162."), _use("get_ticket", ticket_id="KITE-162")],
    [_say("Checking how the owner bypass works."), _use("search_help", query="owner bypass link sso")],
    [_say("Checking the customer's earlier ticket."), _use("get_ticket", ticket_id="KITE-139")],
    [_say("Drafting the reply."), _use("reply_to_customer", ticket_id="KITE-142", message=DRAFT)],
    [_use("update_ticket", ticket_id="KITE-142", status="pending", note="Replied citing [account-recovery#2].")],
    [_say("Replied to Northwind Studio on KITE-142 citing [account-recovery#2]; KITE-144 and KITE-162 look like "
          "the same SSO change and are open.")],
]
WIDE_TURNS: list[list[dict[str, Any]]] = [
    *TEN_TURNS[:3],
    [_say("Reading the twelve newest tickets at once."),
     *[{**_use("get_ticket", ticket_id=f"KITE-{206 + i}"), "id": f"toolu_wide_{i}"} for i in range(12)]],
    [_say("Checking how the owner bypass works."), _use("search_help", query="owner bypass link sso")],
    [_say("KITE-144 and KITE-162 look like the same SSO change; none of the twelve newest tickets does.")],
]


def billed(server: MessagesAPIServer) -> dict[str, float]:
    """What the stand-in billed: tokens by kind, input-token equivalents, dollars."""
    totals = {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0, "calls": 0}
    for request in server.requests:
        usage = (request.get("response") or {}).get("usage")
        if not usage:
            continue
        totals["calls"] += 1
        totals["input"] += usage["input_tokens"]
        totals["cache_write"] += usage["cache_creation_input_tokens"]
        totals["cache_read"] += usage["cache_read_input_tokens"]
        totals["output"] += usage["output_tokens"]
    price = pricing.price_for(BENCH_MODEL)
    equivalents = (totals["input"] * price.input + totals["cache_write"] * price.cache_write
                   + totals["cache_read"] * price.cache_read) / price.input
    dollars = pricing.cost_usd(BENCH_MODEL, input_tokens=totals["input"], output_tokens=totals["output"],
                               cache_read_tokens=totals["cache_read"], cache_write_tokens=totals["cache_write"])
    return {**totals, "input_equivalents": round(equivalents, 1), "usd": round(dollars, 6)}


def harness_runs(url: str, responder: Callable[[dict[str, Any]], Any], goals: list[str]) -> dict[str, float]:
    settings, db = seeded(url, model=BENCH_MODEL)
    with stand_in(responder, 0.0) as api:
        client = model_module.AnthropicModel(api_key=KEY, model=BENCH_MODEL, base_url=api.url, max_retries=0)
        service = RunService(db, settings, model_factory=lambda: client)
        for goal in goals:
            run_approving(service, goal)
        bill = billed(api)
    db.engine.dispose()
    return bill


def naive_runs(url: str, responder: Callable[[dict[str, Any]], Any], goals: list[str],
               max_turns: int = 15) -> dict[str, float]:
    """The seed's loop: the whole history every call, no cache_control, results never cut, no approvals."""
    settings, db = seeded(url, model=BENCH_MODEL, tool_result_max_chars=10**9)
    definitions = [tool.definition() for tool in REGISTRY.values()]
    with stand_in(responder, 0.0) as api:
        client = anthropic.Anthropic(api_key=KEY, base_url=api.url, max_retries=0)
        for goal in goals:
            messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": goal}]}]
            for _ in range(max_turns):
                reply = client.messages.create(model=BENCH_MODEL, max_tokens=capabilities.max_tokens(settings),
                                               system=SYSTEM_PROMPT, tools=definitions, messages=messages)
                content = [block.model_dump(mode="json", exclude_none=True) for block in reply.content]
                messages.append({"role": "assistant", "content": content})
                uses = [b for b in content if b["type"] == "tool_use"]
                if reply.stop_reason != "tool_use" or not uses:
                    break
                results = []
                for use in uses:
                    ctx = ToolContext(db=db, settings=settings, tool_use_id=use["id"])
                    result = execute(REGISTRY, ctx, use["name"], use["input"])
                    results.append({"type": "tool_result", "tool_use_id": use["id"], "content": result.text,
                                    **({"is_error": True} if result.is_error else {})})
                messages.append({"role": "user", "content": results})
        bill = billed(api)
    db.engine.dispose()
    return bill


def previous_breakpoints(system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
                         ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The breakpoints before this benchmark: the system prompt, the last tool, the last block."""
    system_blocks = [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]
    tools = [dict(t) for t in tools]
    if tools:
        tools[-1]["cache_control"] = {"type": "ephemeral"}
    messages = copy.deepcopy(messages)
    for block in reversed(messages[-1]["content"]):
        if block.get("type") in model_module.CACHEABLE:
            block["cache_control"] = {"type": "ephemeral"}
            break
    return system_blocks, tools, messages


@contextmanager
def breakpoints(strategy: Callable[..., Any] | None) -> Iterator[None]:
    original = model_module.with_cache_breakpoints
    if strategy is not None:
        model_module.with_cache_breakpoints = strategy
    try:
        yield
    finally:
        model_module.with_cache_breakpoints = original


def desk_goals(runs: int) -> list[str]:
    skip = {"KITE-142"}
    ids = [f"KITE-{101 + i}" for i in range(117) if f"KITE-{101 + i}" not in skip][:runs]
    return [f"handle {ticket}, and tell me if other customers have hit the same problem" for ticket in ids]


def workloads(desk_runs: int) -> dict[str, tuple[Callable[[dict[str, Any]], Any], list[str]]]:
    ten = "handle KITE-142, and tell me if other customers have hit the same problem"
    return {"ten_turns": (scripted_responder(TEN_TURNS), [ten]),
            "desk": (offline_responder, desk_goals(desk_runs)),
            "wide_turn": (scripted_responder(WIDE_TURNS), ["handle KITE-142, and read the twelve newest tickets"])}


def measure(fresh: Callable[[str], str], desk_runs: int = 20) -> list[Figure]:
    """`fresh(name)` gives a new empty database URL."""
    figures = []
    for name, (responder, goals) in workloads(desk_runs).items():
        naive = naive_runs(fresh(f"naive_{name}"), responder, goals)
        ours = harness_runs(fresh(f"ours_{name}"), responder, goals)
        with breakpoints(previous_breakpoints):
            before = harness_runs(fresh(f"before_{name}"), responder, goals)
        ratio = ours["input_equivalents"] / naive["input_equivalents"]
        label = {"ten_turns": "the 10-turn run", "desk": f"a desk of {len(goals)} runs back to back",
                 "wide_turn": "a run with a 12-lookup turn"}[name]
        figures.append(Figure(
            6, f"billed input per ticket, {label}", ours["input_equivalents"] / len(goals), "input-token equiv.",
            reference=naive["input_equivalents"] / len(goals), reference_name="naive loop (no caching, no "
            "truncation), same requests", target="≤ 0.35×" if name == "ten_turns" else "",
            met=(ratio <= 0.35) if name == "ten_turns" else None,
            detail={"runs": len(goals), "usd_per_ticket": round(ours["usd"] / len(goals), 5),
                    "naive_usd_per_ticket": round(naive["usd"] / len(goals), 5),
                    "usd_ratio": round(ours["usd"] / naive["usd"], 4),
                    "previous_breakpoints_ratio": round(before["input_equivalents"] / naive["input_equivalents"], 4),
                    "ours": ours, "naive": naive, "previous_breakpoints": before}))
    return figures
