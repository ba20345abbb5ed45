"""The ticket and help-center tools. They know nothing of Slack or of the agent loop."""

from bot.desk import ticket_ids_in
from tools.base import Execute, Tool, ToolContext, ToolError, ToolResult, execute, truncate
from tools.escalate import ESCALATE_TO_HUMAN
from tools.help_center import SEARCH_HELP
from tools.tickets import GET_TICKET, REPLY_TO_CUSTOMER, SEARCH_TICKETS, UPDATE_TICKET

ALL_TOOLS: tuple[Tool, ...] = (GET_TICKET, SEARCH_TICKETS, SEARCH_HELP, REPLY_TO_CUSTOMER, UPDATE_TICKET,
                               ESCALATE_TO_HUMAN)
REGISTRY: dict[str, Tool] = {tool.name: tool for tool in ALL_TOOLS}

__all__ = ["ALL_TOOLS", "REGISTRY", "Execute", "Tool", "ToolContext", "ToolError", "ToolResult", "execute", "ticket_ids_in",
           "truncate"]
