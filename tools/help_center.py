"""Help-center search: returns a few sections with their anchors so answers can cite them."""

from __future__ import annotations

from typing import Any

from tools.base import Tool, ToolContext, ToolResult

# The line under an internal section's head: the model reads it with the section, a lead in `kitebase search help`.
INTERNAL_LABEL = ("INTERNAL: its article is restricted to a user segment, so the customer cannot open it. Context "
                  "for you only: never cite it or quote it in a reply to the customer.")


def search_help(ctx: ToolContext, query: str, limit: int = 2) -> ToolResult:
    sections = ctx.desk.search_help(query, limit)
    if not sections:
        return ToolResult(f"No help-center sections match {' '.join(query.split())[:80]!r}. Try other words.", [])
    hits = [{"id": s.id, "heading": s.heading, "article": s.article_title, "body": s.body, "internal": s.internal,
             "matched": hit.matched, "score": round(hit.score, 3)} for s, hit in sections]
    return ToolResult("\n\n".join(_hit_text(h) for h in hits), hits)


def _hit_text(hit: dict[str, Any]) -> str:
    label = f"{INTERNAL_LABEL}\n" if hit["internal"] else ""
    # an article's introduction (section 0) is headed by the article's own title: say it once
    head = hit["heading"] if hit["heading"] == hit["article"] else f"{hit['heading']} — {hit['article']}"
    return f"[{hit['id']}] {head}\n{label}{hit['body']}"


SEARCH_HELP = Tool(
    name="search_help",
    description=(
        "Search the Kitebase help center. Returns the best few sections, each headed by its anchor such as "
        "[account-recovery#2]; cite that anchor in replies so the customer can read more (a section marked "
        "INTERNAL is for you only: never cite or quote it to the customer). Write the question "
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
