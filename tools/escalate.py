"""escalate_to_human: the model hands the run to a person. The run layer records the hand-off."""

from __future__ import annotations

from tools.base import Tool, ToolContext, ToolError, ToolResult


def escalate_to_human(ctx: ToolContext, reason: str) -> ToolResult:
    if not reason.strip():
        raise ToolError("Say in a sentence why a person should take over.")
    return ToolResult("Handed to a person. The run stops here; they will see your reason and the history.",
                      {"reason": reason.strip()})


ESCALATE_TO_HUMAN = Tool(
    name="escalate_to_human",
    description=(
        "Hand this ticket to a person and stop. Use it when you cannot finish safely: the request needs a "
        "decision or access you do not have, the ticket asks for something risky (refunds, deleting data, "
        "security exceptions), tools keep failing, or the reviewer rejected your drafts. Give the reason and "
        "what you found so far."),
    input_schema={
        "type": "object", "additionalProperties": False, "required": ["reason"],
        "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 2000}},
    },
    fn=escalate_to_human,
    ends_run=True,
)
