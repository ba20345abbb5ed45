"""Help-center search: returns a few sections with their anchors so answers can cite them."""

from __future__ import annotations

from bot.db import fts
from bot.db.models import HelpSection
from tools.base import Tool, ToolContext, ToolError, ToolResult


def search_help(ctx: ToolContext, query: str, limit: int = 2) -> ToolResult:
    try:
        terms = fts.query_terms(query)
    except fts.EmptyQuery:
        raise ToolError("The query has no searchable words. Use a few plain keywords, e.g. 'locked out sso'.") from None
    with ctx.db.session() as session:
        ranked = fts.search_help_ids(session, terms, limit=limit)
        sections = [(session.get(HelpSection, section_id), score) for section_id, score in ranked]
    if not sections:
        return ToolResult(f"No help-center sections match {' '.join(terms)!r}. Try other words.", [])
    hits = [{"id": s.id, "heading": s.heading, "article": s.article_title, "body": s.body, "score": round(score, 3)}
            for s, score in sections]
    text = "\n\n".join(f"[{h['id']}] {h['heading']} — {h['article']}\n{h['body']}" for h in hits)
    return ToolResult(text, hits)


SEARCH_HELP = Tool(
    name="search_help",
    description=(
        "Search the Kitebase help center. Returns the best few sections, each headed by its anchor such as "
        "[account-recovery#2]; cite that anchor in replies so the customer can read more. Plain keywords work best."),
    input_schema={
        "type": "object", "additionalProperties": False, "required": ["query"],
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 500},
            "limit": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        },
    },
    fn=search_help,
)
