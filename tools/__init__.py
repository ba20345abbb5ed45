"""The ticket and help-center tools. They know nothing of Slack or of the agent loop."""

from bot.config import Settings
from bot.desk import ticket_ids_in
from tools import triage
from tools.base import Execute, Tool, ToolContext, ToolError, ToolResult, execute, truncate
from tools.escalate import ESCALATE_TO_HUMAN
from tools.help_center import SEARCH_HELP
from tools.tickets import GET_TICKET, REPLY_TO_CUSTOMER, SEARCH_TICKETS, UPDATE_TICKET
from tools.triage import RECORD_TRIAGE

ALL_TOOLS: tuple[Tool, ...] = (GET_TICKET, SEARCH_TICKETS, SEARCH_HELP, REPLY_TO_CUSTOMER, UPDATE_TICKET,
                               RECORD_TRIAGE, ESCALATE_TO_HUMAN)
REGISTRY: dict[str, Tool] = {tool.name: tool for tool in ALL_TOOLS}


def registry_for(settings: Settings) -> dict[str, Tool]:
    """The registry as this deployment configures it: record_triage lists its intents (KITEBASE_TRIAGE_INTENTS)."""
    return {**REGISTRY, RECORD_TRIAGE.name: triage.for_settings(settings)}


__all__ = ["ALL_TOOLS", "REGISTRY", "Execute", "Tool", "ToolContext", "ToolError", "ToolResult", "execute",
           "registry_for", "ticket_ids_in", "truncate"]
