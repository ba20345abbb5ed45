"""Help-center search: returns a few sections with their anchors so answers can cite them."""

from __future__ import annotations

from tools.base import Tool, ToolContext, ToolResult


def search_help(ctx: ToolContext, query: str, limit: int = 2) -> ToolResult:
    sections = ctx.desk.search_help(query, limit)
    if not sections:
        return ToolResult(f"No help-center sections match {' '.join(query.split())[:80]!r}. Try other words.", [])
    hits = [{"id": s.id, "heading": s.heading, "article": s.article_title, "body": s.body, "matched": hit.matched,
             "score": round(hit.score, 3)} for s, hit in sections]
    text = "\n\n".join(f"[{h['id']}] {h['heading']} — {h['article']}\n{h['body']}" for h in hits)
    return ToolResult(text, hits)


SEARCH_HELP = Tool(
    name="search_help",
    description=(
        "Search the Kitebase help center. Returns the best few sections, each headed by its anchor such as "
        "[account-recovery#2]; cite that anchor in replies so the customer can read more. Write the question "
        "as the customer would or in a few keywords: synonyms (MFA, 2FA, two-step), identity provider names, "
        "typos and pasted messages are understood."),
    input_schema={
        "type": "object", "additionalProperties": False, "required": ["query"],
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 2000},
            "limit": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        },
    },
    fn=search_help,
)
