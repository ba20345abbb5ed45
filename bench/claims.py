"""What the offline model claims about other tickets, measured against a desk's known clusters (issue 50).

`claim(ctx, ticket)` works one ticket the way a lead asks ("handle KITE-7025, and tell me if other customers
have hit the same problem") with the offline model and the real read tools on the desk; the two writes a run
makes on its way to the report (the reply, after a lead's approval, and the ticket's update) are answered as a
lead's approval would be, without writing, so that one case never changes the desk the next one searches. It
returns what the run was given (each tier of its like-ticket search), what it read, and what its final report
claims: the tickets it names as having the same problem, and those it set aside.

Used by `bench.search_eval` (precision and recall of the claims on every desk) and by
tests/test_search_tiers.py (no ticket only worth a look is named unread).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bench.search_systems import tokens
from bot.agent.offline import OfflineModel
from bot.agent.prompts import SYSTEM_PROMPT
from bot.desk import ticket_ids_in
from bot.runs.intake.fan_out import set_aside
from tools import REGISTRY, ToolContext, execute
from tools.base import ToolResult
from tools.tickets import like_hits

MAX_TURNS = 12


@dataclass
class Claim:
    ticket: str
    likely: list[str] = field(default_factory=list)  # what the like-ticket search gave, by tier
    worth: list[str] = field(default_factory=list)
    given_tokens: int = 0  # the size of that search's result (bench.search_systems.tokens)
    read: set[str] = field(default_factory=set)  # tickets opened with get_ticket (its own included)
    report: str | None = None  # the final answer; None when the run handed the ticket to a person instead
    named: set[str] = field(default_factory=set)  # the other tickets the report says have the same problem
    set_aside: set[str] = field(default_factory=set)

    @property
    def named_unread(self) -> set[str]:
        """Tickets only worth a look that the report names without having read them (never, if it works)."""
        return (self.named | self.set_aside) & (set(self.worth) - set(self.likely) - self.read)


def _approved(name: str, arguments: dict[str, Any]) -> ToolResult:
    ticket = arguments.get("ticket_id", "?")
    if name == "reply_to_customer":
        return ToolResult(f"Reply sent to the customer on {ticket}. Approved by bench.", {})
    return ToolResult(f"Updated {ticket} (internal, not visible to the customer).", {})


def claim(ctx: ToolContext, ticket: str) -> Claim:
    model = OfflineModel()
    definitions = [tool.definition() for tool in REGISTRY.values()]
    goal = f"handle {ticket}, and tell me if other customers have hit the same problem"
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": goal}]}]
    found = Claim(ticket)
    for _ in range(MAX_TURNS):
        response = model.complete(system=SYSTEM_PROMPT, tools=definitions, messages=messages, max_tokens=4096)
        messages.append({"role": "assistant", "content": response.content})
        uses = [b for b in response.content if b["type"] == "tool_use"]
        if response.stop_reason != "tool_use" or not uses:
            found.report = "\n".join(b["text"] for b in response.content if b["type"] == "text")
            break
        if any(u["name"] == "escalate_to_human" for u in uses):
            break  # handed to a person: no report to measure
        results = []
        for use in uses:
            if use["name"] in ("reply_to_customer", "update_ticket"):
                result = _approved(use["name"], use["input"])
            else:
                result = execute(REGISTRY, ToolContext(db=ctx.db, settings=ctx.settings, tool_use_id=use["id"]),
                                 use["name"], use["input"])
            if use["name"] == "get_ticket" and not result.is_error:
                found.read.add(str(use["input"].get("ticket_id")))
            if use["name"] == "search_tickets" and use["input"].get("like_ticket_id"):
                hits = like_hits(result.text) or []
                found.likely = [h["id"] for h in hits if h["tier"] == "likely"]
                found.worth = [h["id"] for h in hits if h["tier"] == "worth_a_look"]
                found.given_tokens = tokens(result.text)
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": result.text,
                            **({"is_error": True} if result.is_error else {})})
        messages.append({"role": "user", "content": results})
    if found.report is not None:
        kind = ctx.settings.desk
        found.set_aside = set_aside(found.report, kind) - {ticket}
        found.named = set(ticket_ids_in(found.report, kind)) - found.set_aside - {ticket}
    return found
