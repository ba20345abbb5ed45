"""The figures and the knowledge gaps in Block Kit: a table block in messages (the daily digest), section
fields in App Home, one section per topic for the gaps. Builders are pure; the data comes from
bot/runs/reports/stats.py and bot/runs/reports/gaps.py."""

from __future__ import annotations

from typing import Any

from bot.runs.reports.first_replies import line as first_replies_line
from bot.runs.reports.gaps import SIGNALS
from bot.runs.reports.stats import rows
from bot.slack_ui.limits import FIELD_TEXT, clip, context, escape, header, mrkdwn_section

MAX_FIELDS = 10  # per section
GAP_TOPICS_SHOWN = 5
GAP_TICKETS_SHOWN = 6


def _cell(text: str) -> dict[str, str]:
    return {"type": "raw_text", "text": text or " "}


def build_figures_table(fig: dict[str, Any]) -> dict[str, Any]:
    """The figures as one table block for a message (rows of label, value, detail)."""
    table = [[_cell("Figure"), _cell("Value"), _cell("Detail")]]
    table += [[_cell(label.strip() if not label.startswith("  ") else "· " + label.strip()), _cell(value),
               _cell(detail)] for label, value, detail in rows(fig)]
    return {"type": "table", "rows": table,
            "column_settings": [{"is_wrapped": False}, {"align": "right"}, {"is_wrapped": True}]}


def build_figures_fields(fig: dict[str, Any]) -> list[dict[str, Any]]:
    """The same figures as section fields, one figure per line (its name on the left, its value on the right),
    for App Home (the table block is only used in messages, one per message)."""
    fields = []
    for label, value, detail in rows(fig):
        name = f"*{escape(label.strip())}*" if not label.startswith("  ") else f"     ↳ {escape(label.strip())}"
        shown = escape(value) + (f" · _{escape(detail)}_" if detail else "")
        fields += [{"type": "mrkdwn", "text": clip(name, FIELD_TEXT)}, {"type": "mrkdwn", "text": clip(shown, FIELD_TEXT)}]
    return [{"type": "section", "fields": fields[i:i + MAX_FIELDS]} for i in range(0, len(fields), MAX_FIELDS)]


def build_first_replies(fig: dict[str, Any] | None) -> list[dict[str, Any]]:
    """App Home's line for today's first replies against their targets (nothing when there is no data)."""
    if fig is None:
        return []
    return [mrkdwn_section(escape(first_replies_line(fig))),
            context("By tier and by intent, agent-drafted and the rest: `kitebase stats`.")]


def _topic_text(topic: dict[str, Any]) -> str:
    signals = ", ".join(f"{SIGNALS[k]} ×{n}" for k, n in topic["signals"].items())
    todo = ("fix or extend " + ", ".join(f"`{escape(a)}`" for a in topic["articles"])) if topic["articles"] \
        else "write an article (the help center has nothing the agent could use)"
    lines = [f"*{escape(topic['topic'])}* · {len(topic['tickets'])} ticket(s): {escape(signals)}", f"To do: {todo}"]
    for ticket in topic["tickets"][:GAP_TICKETS_SHOWN]:
        lines.append(f"• *{escape(ticket['ticket_id'])}* “{escape(clip(ticket['title'], 120))}” "
                     f"({escape(ticket['customer'] or '?')}) · run " + ", ".join(f"#{r}" for r in ticket["runs"]))
    if len(topic["tickets"]) > GAP_TICKETS_SHOWN:
        lines.append(f"_… and {len(topic['tickets']) - GAP_TICKETS_SHOWN} more (`kitebase gaps`)_")
    return "\n".join(lines)


def build_gaps(found: dict[str, Any], title: str = "Knowledge gaps") -> list[dict[str, Any]]:
    topics = found.get("topics") or []
    blocks = [header(f"{title} ({len(topics)})")]
    if not topics:
        blocks.append(context("None: every question the agent met was answered from the help center."))
    blocks += [mrkdwn_section(_topic_text(t)) for t in topics[:GAP_TOPICS_SHOWN]]
    if len(topics) > GAP_TOPICS_SHOWN:
        blocks.append(context(f"… {len(topics) - GAP_TOPICS_SHOWN} more topics: `kitebase gaps`."))
    policy = found.get("policy") or []
    if policy:  # the agent rightly handed these to a person: no article would have answered them
        groups = " · ".join(f"{escape(g['reason'])} ×{len(g['tickets'])} ("
                            + ", ".join(escape(t["ticket_id"]) for t in g["tickets"][:GAP_TICKETS_SHOWN]) + ")"
                            for g in policy)
        blocks.append(context(f"Handed to a person by policy, not gaps: {groups}"))
    return blocks
