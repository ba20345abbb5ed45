"""The sources of a draft reply: the help-center sections it cites, the similar tickets the run looked at,
what is wrong with its citations (a section that does not exist, one the run never retrieved, an internal one,
none at all), and the internal text it repeats word for word (quotes.py).

Computed from what the run stores (its messages: every tool call and result) and the help center, so the
card, the step log and `kitebase replay` show the same check. Nothing here talks to Slack.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from sqlmodel import Session, col, select

from bot.agent.history import text_of
from bot.db.models import HelpSection
from bot.desk.ids import normalise_ticket_id
from bot.desk.links import ANY_ANCHOR
from bot.runs.lifecycle import quotes
from tools.tickets import like_hits

logger = logging.getLogger(__name__)

# An anchor as the help center writes them, "[account-recovery#2]"; also bare or inside a help-center link.
CITATION = re.compile(r"(?<![\w-])([a-z0-9]+(?:-[a-z0-9]+)*#\d+)(?![\w-])")
HIT_HEAD = re.compile(r"^\[([a-z0-9]+(?:-[a-z0-9]+)*#\d+)\] (.+)$", re.MULTILINE)
TICKET_ID = re.compile(r'"id": "(KITE-\d+)"')
SIMILAR_SHOWN = 6
DRAFT_TOOLS = frozenset({"reply_to_customer"})


def cited(text: str) -> list[str]:
    """Every section anchor the text names, in order, without repeats."""
    found: list[str] = []
    for anchor in CITATION.findall(text or ""):
        if anchor not in found:
            found.append(anchor)
    return found


def _results(messages: list[dict[str, Any]]) -> dict[str, str]:
    results = {}
    for message in messages:
        if message.get("role") != "user" or not isinstance(message.get("content"), list):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result" and not block.get("is_error"):
                content = block.get("content", "")
                results[block.get("tool_use_id")] = content if isinstance(content, str) else text_of(content)
    return results


def calls_before(messages: list[dict[str, Any]], tool_use_id: str | None) -> list[tuple[dict[str, Any], str]]:
    """(tool_use, result text) of every call the run made before the turn that holds `tool_use_id`."""
    results = _results(messages)
    calls = []
    for message in messages:
        uses = [b for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"] \
            if message.get("role") == "assistant" else []
        if tool_use_id is not None and any(u.get("id") == tool_use_id for u in uses):
            break
        calls += [(u, results[u["id"]]) for u in uses if u.get("id") in results]
    return calls


def retrieved(messages: list[dict[str, Any]], tool_use_id: str | None = None) -> dict[str, Any]:
    """What the run had read before a draft: help sections (anchor -> heading), similar tickets, and the
    tickets it opened with get_ticket (their ids as either desk writes them)."""
    sections: dict[str, str] = {}
    tickets: dict[str, dict[str, Any]] = {}
    opened: list[str] = []
    for use, text in calls_before(messages, tool_use_id):
        if use.get("name") == "search_help":
            for anchor, heading in HIT_HEAD.findall(text):
                sections.setdefault(anchor, heading.strip())
        elif use.get("name") == "search_tickets":
            for hit in _ticket_hits(text):
                tickets.setdefault(hit["id"], hit)
        elif use.get("name") == "get_ticket":
            opened += _ticket_ids(str((use.get("input") or {}).get("ticket_id") or ""))
    return {"sections": sections, "tickets": list(tickets.values()), "opened": opened}


def _ticket_ids(raw: str) -> list[str]:
    return [i for i in (normalise_ticket_id(raw, "embedded"), normalise_ticket_id(raw, "zendesk")) if i]


def _draft_ticket(messages: list[dict[str, Any]], tool_use_id: str | None) -> list[str]:
    for message in messages:
        content = message.get("content") if message.get("role") == "assistant" else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id") == tool_use_id:
                return _ticket_ids(str((block.get("input") or {}).get("ticket_id") or ""))
    return []


def _ticket_hits(text: str) -> list[dict[str, Any]]:
    """A search_tickets result's hits; of a like-ticket search, those likely the same problem and (marked
    `worth_a_look`) the ones only worth a look."""
    tiered = like_hits(text, partial=True)
    if tiered is not None:
        return [{k: h.get(k) for k in ("id", "title", "customer", "status", "tier")} for h in tiered]
    try:
        hits = json.loads(text)
    except ValueError:  # cut by KITEBASE_TOOL_RESULT_MAX_CHARS: keep the ids that are there
        return [{"id": ticket_id} for ticket_id in TICKET_ID.findall(text)]
    if not isinstance(hits, list):
        return []
    return [{k: h.get(k) for k in ("id", "title", "customer", "status")} for h in hits
            if isinstance(h, dict) and h.get("id")]


def check(session: Session, text: str, messages: list[dict[str, Any]], tool_use_id: str | None) -> dict[str, Any]:
    """The sources of `text` (a draft held as `tool_use_id`), the problems with its citations, the internal
    help sections the run read, and the internal text the draft quotes."""
    seen = retrieved(messages, tool_use_id)
    anchors = cited(text)
    wanted = sorted({*anchors, *seen["sections"]})
    known = {s.id: s for s in session.exec(select(HelpSection).where(col(HelpSection.id).in_(wanted))).all()} \
        if wanted else {}
    sources = [{"id": a, "exists": a in known, "retrieved": a in seen["sections"],
                "heading": known[a].heading if a in known else None,
                "article": known[a].article_title if a in known else None,
                "internal": a in known and known[a].internal} for a in anchors]
    tickets = [*seen["opened"], *(t["id"] for t in seen["tickets"]), *_draft_ticket(messages, tool_use_id)]
    # a ticket only worth a look is shown once the run has read it (it is not yet judged the same problem before)
    similar = [{k: v for k, v in t.items() if k != "tier"} for t in seen["tickets"]
               if t.get("tier") != "worth_a_look" or t["id"] in seen["opened"]]
    return {"cited": sources, "similar": similar[:SIMILAR_SHOWN], "problems": problems(sources),
            "internal_read": [{"id": a, "heading": known[a].heading} for a in seen["sections"]
                              if a in known and known[a].internal],
            "quotes": quotes.find(session, text, tickets=tickets, sections=wanted)}


def problems(sources: list[dict[str, Any]]) -> list[str]:
    if not sources:
        return ["cites no help-center section"]
    found = []
    for source in sources:
        if not source["exists"]:
            found.append(f"cites {source['id']}, which does not exist")
        elif source.get("internal"):
            found.append(f"cites {source['id']}, which is internal (restricted to a user segment: the customer "
                         "cannot open it)")
        elif not source["retrieved"]:
            found.append(f"cites {source['id']}, which the run never retrieved")
    return found


def annotate(session: Session, messages: list[dict[str, Any]], tool_calls: list[dict[str, Any]]) -> None:
    """Add the check to every draft in a step's tool calls (as `sources`), before the step is stored and
    logged. A failing check is logged and left out: it never stops a run."""
    for call in tool_calls or []:
        arguments = call.get("input")
        if call.get("name") not in DRAFT_TOOLS or not isinstance(arguments, dict) or "sources" in call:
            continue
        try:
            call["sources"] = check(session, str(arguments.get("message") or ""), messages, call.get("id"))
        except Exception:
            logger.exception("could not check the sources of draft %s", call.get("id"))


def unknown_sections(session: Session, message: str) -> list[str]:
    """The citation codes in `message` that name no help-center section (a person's edit may mistype one): they
    would reach the customer as raw codes."""
    anchors = list(dict.fromkeys(ANY_ANCHOR.findall(message)))
    if not anchors:
        return []
    known = set(session.exec(select(HelpSection.id).where(col(HelpSection.id).in_(anchors))).all())
    return [a for a in anchors if a not in known]
