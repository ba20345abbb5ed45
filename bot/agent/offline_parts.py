"""What the offline model reads from tool results and writes (its drafts and reports), and what it hands to a
person instead of drafting; shared by its flows (bot/agent/offline.py for a lead's request, offline_child.py for a
fan-out child)."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from bot.desk import ticket_ids_in
from bot.search.words import query_terms
from tools.help_center import INTERNAL_LABEL

INJECTION = re.compile(r"ignore (all |any )?(previous|prior|above) instructions|you are now in .{0,20}mode|"
                       r"system prompt", re.IGNORECASE)
GENERIC = {"issue", "problem", "help", "error", "working", "work", "need", "still", "get", "can", "cannot",
           "since", "after", "new", "urgent", "asap", "today", "change", "changed", "changes"}


def say(text: str) -> dict[str, Any]:
    """A text block of the assistant's turn."""
    return {"type": "text", "text": text}


def use(name: str, **arguments: Any) -> dict[str, Any]:
    """A tool_use block of the assistant's turn."""
    return {"type": "tool_use", "id": f"toolu_off_{uuid.uuid4().hex[:20]}", "name": name, "input": arguments}


def keywords(text: str) -> str:
    terms = [t for t in query_terms(text) if t not in GENERIC]
    return " ".join(terms[:6]) or " ".join(query_terms(text)[:6])


def sections_of(text: str) -> list[dict[str, str]]:
    """The citable sections of a search_help result (an INTERNAL one is context, never cited)."""
    found = []
    for chunk in text.split("\n\n["):
        match = re.match(r"\[?([a-z0-9-]+#\d+)\] (.+?)\n(.*)", chunk, re.DOTALL)
        if match and not match.group(3).startswith(INTERNAL_LABEL):
            heading = match.group(2).rsplit(" — ", 1)[0]
            found.append({"id": match.group(1), "heading": heading, "body": match.group(3).strip()})
    return found


def relevant(sections: list[dict[str, str]], query: str) -> list[dict[str, str]]:
    """The best section, plus the others from its article or whose heading shares a query word."""
    sections = [s for s in sections if not INJECTION.search(s["body"])]  # a section that gives orders is not help
    if not sections:
        return []
    words = set(query.lower().split())
    article = sections[0]["id"].split("#")[0]
    return [sections[0]] + [s for s in sections[1:] if s["id"].split("#")[0] == article
                            or words & set(re.findall(r"\w+", s["heading"].lower()))]


def hits_of(call: dict[str, Any], topic: str | None = None) -> list[dict[str, Any]]:
    """Search hits close enough to the best one (and, given a topic tag, sharing it)."""
    if call["error"] or not call["text"].lstrip().startswith("["):
        return []
    hits = json.loads(call["text"])
    if not hits:
        return []
    top = max(h["score"] for h in hits) or 1.0
    return [h for h in hits if h["score"] >= 0.5 * top and (topic is None or topic in h["tags"])]


def guidance(body: str, limit: int = 1100) -> str:
    """The section's first paragraph (two if the first is short), cut at a sentence near `limit`."""
    paragraphs = [p.strip() for p in body.split("\n\n") if p.strip()]
    text = paragraphs[0] if paragraphs else ""
    if len(text) < 200 and len(paragraphs) > 1:
        text += "\n\n" + paragraphs[1]
    text = text.replace("**", "")
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind(".\n"))
    return cut[: end + 1] if end > 0 else cut


def draft(ticket: dict[str, Any], sections: list[dict[str, str]]) -> str:
    customer = ticket.get("customer") or {}
    first = (customer.get("contact_name") or "there").split()[0]
    main = sections[0]
    more = [f"[{s['id']}]" for s in sections[1:]]
    see_also = f" You may also find {' and '.join(more)} useful." if more else ""
    return (f"Hi {first},\n\nThanks for letting us know, and sorry for the trouble with “{ticket['title']}”.\n\n"
            f"{guidance(main['body'])} [{main['id']}]\n\n"
            f"If that doesn't get you back on track, reply here and we'll work through it with you.{see_also}"
            "\n\nBest regards,\nKitebase Support")


def approved_how(reply: dict[str, Any]) -> str:
    """How a sent reply got out, from its result: ' (approved by X)', ' (edited by X before sending)', or ''."""
    who = re.search(r"Approved by (.+?)\.$", reply["text"].splitlines()[0])
    edited = re.search(r"([^\s.]+) edited your draft", reply["text"])
    return f" (edited by {edited.group(1)} before sending)" if edited else f" (approved by {who.group(1)})" if who else ""


def report(ticket: dict[str, Any], sections: list[dict[str, str]], reply: dict[str, Any],
           hits: list[dict[str, Any]], goal: str) -> str:
    customer = ticket.get("customer") or {}
    anchors = ", ".join(f"[{s['id']}]" for s in sections)
    how = approved_how(reply)
    lines = [f"Replied to {customer.get('name', 'the customer')} on {ticket['id']}{how}: the reply covers "
             f"“{sections[0]['heading']}” and cites {anchors}."]
    if ticket["status"] == "open":
        lines[0] += " I set the ticket to pending with an internal note."
    same = [h for h in hits if h["customer_id"] == customer.get("id")]
    others = [h for h in hits if h not in same]
    if same:
        lines.append(f"Earlier on {customer.get('name')}'s account:")
        lines += [f"- {h['id']} “{h['title']}” ({h['status']})" for h in same]
    affected = [h for h in others if h["status"] != "closed"]
    solved = [h for h in others if h["status"] == "closed"]
    if affected:
        lines.append("Other customers with the same kind of problem open:")
        lines += [f"- {h['id']} {h['customer']}: “{h['title']}” ({h['status']}, {h['assignee'] or 'unassigned'})"
                  for h in affected]
        unassigned = [h["id"] for h in affected if not h["assignee"]]
        if unassigned:
            lines.append(f"Nobody owns {' and '.join(unassigned)} yet; the same reply should help there.")
    elif "other" in goal.lower() or "same" in goal.lower():
        lines.append("I found no other customers with this problem open right now.")
    if solved:
        lines.append("Solved before for other customers: " + ", ".join(f"{h['id']} ({h['customer']})" for h in solved))
    if INJECTION.search(json.dumps(ticket)):
        lines.append("Note: the ticket contains text that tries to give me instructions; I ignored it.")
    return "\n".join(lines)


# What a careful colleague hands to a person instead of drafting (the system prompt's "a risky request"): the
# customer's own words are checked, never staff notes.
RISKS = [
    (re.compile(r"\b(refund (the|my|our|me|us|it|this|that)|(want|need|like) a refund|chargebacks?|money back|"
                r"dispute (the|this) charge)", re.IGNORECASE),
     "the customer asks for money back, and refunds are a person's decision"),
    (re.compile(r"\b(lawyer|legal action|attorney|solicitor|sue you|take (this|you) to court)", re.IGNORECASE),
     "the customer threatens legal action"),
    (re.compile(r"\b(breach|hacked|compromised|unauthori[sz]ed (access|logins?))", re.IGNORECASE),
     "the customer reports a possible security incident"),
    (re.compile(r"\b(other|another) (customer|company|client)s?'?s? (data|details|emails?|list|contacts)|"
                r"\blist of (your|all) customers", re.IGNORECASE),
     "the customer asks for another customer's data"),
    (re.compile(r"\b(asana|trello|clickup|monday\.com)\b", re.IGNORECASE),
     "the ticket is about another company's product, not Kitebase"),
]


def risk_of(ticket: dict[str, Any]) -> str | None:
    said = " ".join(m.get("body", "") for m in ticket.get("conversation") or [] if m.get("role") == "customer")
    return next((why for pattern, why in RISKS if pattern.search(said)), None)


def ticket_ids(text: str) -> list[str]:
    """The tickets a request names, on either desk (KITE-142 on the embedded one, 4821 on Zendesk)."""
    return ticket_ids_in(text) or ticket_ids_in(text, "zendesk")


def read_ticket(read: dict[str, Any], ticket_id: str) -> dict[str, Any] | list[dict[str, Any]]:
    """The ticket a get_ticket call returned; or, if it could not be read or needs a person (`risk_of`), the turn
    that hands it to one."""
    if read["error"]:
        return [use("escalate_to_human", reason=f"I could not read {ticket_id}: {read['text']}")]
    ticket: dict[str, Any] = json.loads(read["text"])
    risk = risk_of(ticket)
    if risk:
        return [say(f"{ticket['id']} needs a person: {risk}."),
                use("escalate_to_human", reason=f"{ticket['id']} needs a person, not a drafted reply: {risk}.")]
    return ticket


def not_sent(ticket: dict[str, Any], reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The turn after a draft that was rejected (or otherwise not sent): handed to a person."""
    why = re.search(r"Their reason: (.+?)\. Revise", reply["text"], re.DOTALL)
    reason = (f"The reviewer rejected my draft on {ticket['id']} ({why.group(1).strip()}); a person should "
              "write this reply." if why else f"My reply on {ticket['id']} was not sent: {reply['text']}")
    return [say("I can't revise this well on my own, so I'm handing it to a person."),
            use("escalate_to_human", reason=reason)]
