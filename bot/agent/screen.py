"""What happens to each tool call of a turn before anything runs: refused (a repeat after a warning), held for
a person (an approval tool, or any write to a ticket other than the run's own), or run now.

A held call's ticket id is resolved first ("kite-144", " KITE 0144 " → KITE-144), so what the approver sees
and what is executed name the same ticket; the held arguments are the resolved ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.agent.guards import Limits
from bot.vocabulary import PendingCall, RunState, fingerprint
from tools import Tool, ToolContext, ToolError, ToolResult
from tools.tickets import normalise_ticket_id


@dataclass(frozen=True)
class Screen:
    registry: dict[str, Tool]
    approval_tools: frozenset[str]
    limits: Limits

    def __call__(self, state: RunState, use: dict[str, Any], ctx: ToolContext) -> ToolResult | PendingCall | None:
        """A refusal (the model reads it), a call held for a person, or None to run it now."""
        name, args = str(use.get("name", "")), use.get("input")
        refusal = self._repeat(state, name, args)
        if refusal is not None:
            return refusal
        tool = self.registry.get(name)
        if tool is None or not isinstance(args, dict) or tool.argument_problems(args):
            return None  # execute() answers with the precise error; no person needs to see it
        other_ticket = self._other_ticket(state, tool, args, ctx.settings.desk)
        if name not in self.approval_tools and not other_ticket:
            return None
        resolved = self._resolved(args, ctx.settings.desk)
        if isinstance(resolved, ToolResult):
            return resolved
        if tool.preflight is not None:
            try:
                tool.preflight(ctx, **resolved)
            except ToolError as exc:
                return ToolResult(str(exc), is_error=True)
        return PendingCall(str(use["id"]), name, resolved, fingerprint(name, resolved), other_ticket=other_ticket)

    def _repeat(self, state: RunState, name: str, args: Any) -> ToolResult | None:
        if not isinstance(args, dict):
            return None
        count = self.limits.repeat_count(state, name, args)
        if count > self.limits.max_repeats + 1:
            return ToolResult(f"Not run: {name} was called again with the same arguments after a warning. "
                              "The run is stopping.", is_error=True)
        if count > self.limits.max_repeats:
            return ToolResult(
                f"Not run: you have called {name} with these same arguments {count} times; the result will not "
                "change. Change course: try different arguments or another tool, or finish with what you have.",
                is_error=True)
        return None

    @staticmethod
    def _other_ticket(state: RunState, tool: Tool, args: dict[str, Any], kind: str) -> bool:
        """A write to a ticket the run was not started for (e.g. an instruction planted in a ticket)."""
        if tool.read_only or "ticket_id" not in args or not state.ticket_id:
            return False
        try:
            return normalise_ticket_id(str(args["ticket_id"]), kind) != state.ticket_id
        except ToolError:
            return False  # not a ticket id at all: execute() says so

    @staticmethod
    def _resolved(args: dict[str, Any], kind: str) -> Any:
        if "ticket_id" not in args:
            return dict(args)
        try:
            return {**args, "ticket_id": normalise_ticket_id(str(args["ticket_id"]), kind)}
        except ToolError as exc:
            return ToolResult(str(exc), is_error=True)
