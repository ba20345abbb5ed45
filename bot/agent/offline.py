"""An offline model: speaks the Messages API response shape and really reads the tool results.

It works any ticket in the desk the way the system prompt asks: read the ticket, search the help center
and similar tickets together, draft a reply citing a help section, ask to send it, then report what it
did and who else looks affected. It is deterministic, so runs can be compared, and costs nothing.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from bot.agent.history import blocks, text_of
from bot.agent.model import ModelResponse
from bot.agent.prompts import CONTINUE_NOTE
from bot.desk import ticket_ids_in
from bot.search.words import EmptyQuery, query_terms
from bot.vocabulary import Usage
from tools.help_center import INTERNAL_LABEL

# What the intake says when a customer answers a ticket one of its runs worked (bot/runs/intake/arrivals.py).
CUSTOMER_AGAIN = re.compile(r"The customer \((?P<who>[^\n]*?)\) wrote again on ticket (?P<ticket>\S+):\n\n"
                            r"(?P<body>.*)\n\nRead the ticket's new message", re.DOTALL)
INJECTION = re.compile(r"ignore (all |any )?(previous|prior|above) instructions|you are now in .{0,20}mode|"
                       r"system prompt", re.IGNORECASE)
GENERIC = {"issue", "problem", "help", "error", "working", "work", "need", "still", "get", "can", "cannot",
           "since", "after", "new", "urgent", "asap", "today", "change", "changed", "changes"}


class OfflineModel:
    name = "kitebase-offline"  # bot.agent.clients.OFFLINE_NAME

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        content = _Turn(messages).decide()
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        sent = len(system) + len(json.dumps(tools)) + len(json.dumps(messages))
        usage = Usage(input_tokens=sent // 4, output_tokens=max(1, len(json.dumps(content)) // 4))
        return ModelResponse(content=content, stop_reason=stop, usage=usage, model=self.name)


class _Turn:
    """Reads the conversation so far and decides the next assistant turn."""

    def __init__(self, messages: list[dict[str, Any]]):
        self.messages = messages
        self.goal = text_of(messages[0]["content"])
        self.calls = self._calls()
        follow_ups = [i for i, m in enumerate(messages) if i and m["role"] == "user" and text_of(m["content"])
                      and not text_of(m["content"]).startswith(CONTINUE_NOTE)]
        self.follow_up_at = follow_ups[-1] if follow_ups else None

    def _calls(self) -> list[dict[str, Any]]:
        results = {b["tool_use_id"]: b for m in self.messages if m["role"] == "user"
                   for b in blocks(m) if b.get("type") == "tool_result"}
        calls = []
        for index, message in enumerate(self.messages):
            for block in blocks(message) if message["role"] == "assistant" else []:
                if block.get("type") == "tool_use":
                    result = results.get(block["id"], {})
                    content = result.get("content", "")
                    calls.append({"name": block["name"], "input": block["input"], "at": index,
                                  "text": content if isinstance(content, str) else text_of(content),
                                  "error": bool(result.get("is_error"))})
        return calls

    def last(self, name: str, since: int = 0) -> dict[str, Any] | None:
        found = [c for c in self.calls if c["name"] == name and c["at"] >= since]
        return found[-1] if found else None

    # --- the plan -----------------------------------------------------------------------------

    def decide(self) -> list[dict[str, Any]]:
        if self.follow_up_at is not None:
            return self.follow_up(self.follow_up_at)
        ids = _ticket_ids(self.goal)
        if not ids:
            return [_text("The request names no ticket, so there is nothing for me to work. Ask again with a "
                          "ticket id such as KITE-142.")]
        ticket_id = ids[0]
        read = self.last("get_ticket")
        if read is None:
            return [_text(f"I'll start by reading {ticket_id}."), _tool("get_ticket", ticket_id=ticket_id)]
        if read["error"]:
            return [_tool("escalate_to_human", reason=f"I could not read {ticket_id}: {read['text']}")]
        ticket = json.loads(read["text"])
        risk = _risk(ticket)
        if risk:
            return [_text(f"{ticket['id']} needs a person: {risk}."),
                    _tool("escalate_to_human", reason=f"{ticket['id']} needs a person, not a drafted reply: {risk}.")]
        help_call, tickets_call = self.last("search_help"), self.last("search_tickets")
        if help_call is None or tickets_call is None:
            return self.search(ticket)
        return self.reply_or_report(ticket, help_call, tickets_call)

    def search(self, ticket: dict[str, Any]) -> list[dict[str, Any]]:
        query = _keywords(f"{ticket['title']} {' '.join(ticket['tags'])}")
        customer = (ticket.get("customer") or {}).get("name", "The customer")
        try:
            help_query = _keywords(ticket["title"])
        except EmptyQuery:
            help_query = query
        return [
            _text(f"{customer} reports “{ticket['title']}” ({ticket['status']}, "
                  f"{ticket.get('priority') or 'no'} priority). "
                  "I'll check the help center and look for similar tickets at the same time."),
            _tool("search_help", query=help_query, limit=2),
            _tool("search_tickets", like_ticket_id=ticket["id"], status="any", limit=5),
        ]

    def reply_or_report(self, ticket: dict[str, Any], help_call: dict[str, Any],
                        tickets_call: dict[str, Any]) -> list[dict[str, Any]]:
        sections = _relevant(_sections(help_call["text"]), help_call["input"]["query"]) if not help_call["error"] else []
        reply = self.last("reply_to_customer")
        if reply is None:
            if not sections:
                return [_tool("escalate_to_human", reason=f"The help center has nothing on “{ticket['title']}”, "
                                                          "so a person should write this reply.")]
            return [_text("The help center covers this. I'll draft a reply for the lead to review."),
                    _tool("reply_to_customer", ticket_id=ticket["id"], message=_draft(ticket, sections))]
        if reply["error"]:
            why = re.search(r"Their reason: (.+?)\. Revise", reply["text"], re.DOTALL)
            reason = (f"The reviewer rejected my draft on {ticket['id']} ({why.group(1).strip()}); a person should "
                      "write this reply." if why else f"My reply on {ticket['id']} was not sent: {reply['text']}")
            return [_text("I can't revise this well on my own, so I'm handing it to a person."),
                    _tool("escalate_to_human", reason=reason)]
        update = self.last("update_ticket")
        if update is None and ticket["status"] == "open":
            anchors = ", ".join(f"[{s['id']}]" for s in sections)
            return [_tool("update_ticket", ticket_id=ticket["id"], status="pending",
                          note=f"Agent replied citing {anchors}; waiting for the customer.")]
        topic = ticket["tags"][0] if ticket["tags"] else None
        return [_text(_report(ticket, sections, reply, _hits(tickets_call, topic), self.goal))]

    def follow_up(self, at: int) -> list[dict[str, Any]]:
        request = text_of(self.messages[at]["content"])
        lookups = [c for c in self.calls if c["at"] > at]
        again = CUSTOMER_AGAIN.match(request)
        if again:
            return self.customer_again(again, lookups)
        if not lookups:
            ids = _ticket_ids(request)
            if ids:
                return [_text(f"Let me look at {', '.join(ids)}."), *[_tool("get_ticket", ticket_id=i) for i in ids]]
            try:
                query = _keywords(request)
            except EmptyQuery:
                return [_text("I'm not sure what to look up for that; could you name a ticket or a topic?")]
            return [_text("Let me search the tickets for that."), _tool("search_tickets", query=query, limit=5)]
        lines = [f"Here is what I found for “{request.strip()}”:"]
        for call in lookups:
            if call["error"]:
                lines.append(f"- {call['name']} failed: {call['text']}")
            elif call["name"] == "get_ticket":
                t = json.loads(call["text"])
                c = t.get("customer") or {}
                lines.append(f"- {t['id']} “{t['title']}” ({t['status']}, {t['assignee'] or 'unassigned'}): "
                             f"{c.get('name')} on the {c.get('plan')} plan, SSO provider: "
                             f"{c.get('sso_provider') or 'none on record'}.")
            else:
                for hit in _hits(call)[:5]:
                    lines.append(f"- {hit['id']} “{hit['title']}” — {hit['customer']} ({hit['status']}, "
                                 f"{hit['assignee'] or 'unassigned'})")
        return [_text("\n".join(lines))]


    def customer_again(self, again: re.Match[str], lookups: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A customer answered after our reply (an intake follow-up): the ticket is read again, then handed to a
        person with the new message. Judging a second answer is beyond what this offline model does well."""
        ticket_id, who = again.group("ticket"), again.group("who")
        if not any(c["name"] == "get_ticket" for c in lookups):
            return [_text(f"{who} wrote again on {ticket_id}. I'll read the ticket as it is now."),
                    _tool("get_ticket", ticket_id=ticket_id)]
        said = " ".join(again.group("body").split())
        said = said if len(said) <= 300 else said[:299] + "…"
        return [_text(f"{who}'s new message needs a person's judgement; I'm handing {ticket_id} over."),
                _tool("escalate_to_human", reason=f"{who} wrote again on {ticket_id} after our reply: “{said}” "
                                                  "The offline model does not write a second answer on its own; a "
                                                  "person should (the earlier reply and the ticket are in this run).")]


# --- helpers ------------------------------------------------------------------------------------

def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_off_{uuid.uuid4().hex[:20]}", "name": name, "input": arguments}


def _keywords(text: str) -> str:
    terms = [t for t in query_terms(text) if t not in GENERIC]
    return " ".join(terms[:6]) or " ".join(query_terms(text)[:6])


def _sections(text: str) -> list[dict[str, str]]:
    """The citable sections of a search_help result (an INTERNAL one is context, never cited)."""
    found = []
    for chunk in text.split("\n\n["):
        match = re.match(r"\[?([a-z0-9-]+#\d+)\] (.+?)\n(.*)", chunk, re.DOTALL)
        if match and not match.group(3).startswith(INTERNAL_LABEL):
            heading = match.group(2).rsplit(" — ", 1)[0]
            found.append({"id": match.group(1), "heading": heading, "body": match.group(3).strip()})
    return found


def _relevant(sections: list[dict[str, str]], query: str) -> list[dict[str, str]]:
    """The best section, plus the others from its article or whose heading shares a query word."""
    sections = [s for s in sections if not INJECTION.search(s["body"])]  # a section that gives orders is not help
    if not sections:
        return []
    words = set(query.lower().split())
    article = sections[0]["id"].split("#")[0]
    return [sections[0]] + [s for s in sections[1:] if s["id"].split("#")[0] == article
                            or words & set(re.findall(r"\w+", s["heading"].lower()))]


def _hits(call: dict[str, Any], topic: str | None = None) -> list[dict[str, Any]]:
    """Search hits close enough to the best one (and, given a topic tag, sharing it)."""
    if call["error"] or not call["text"].lstrip().startswith("["):
        return []
    hits = json.loads(call["text"])
    if not hits:
        return []
    top = max(h["score"] for h in hits) or 1.0
    return [h for h in hits if h["score"] >= 0.5 * top and (topic is None or topic in h["tags"])]


def _guidance(body: str, limit: int = 1100) -> str:
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


def _draft(ticket: dict[str, Any], sections: list[dict[str, str]]) -> str:
    customer = ticket.get("customer") or {}
    first = (customer.get("contact_name") or "there").split()[0]
    main = sections[0]
    more = [f"[{s['id']}]" for s in sections[1:]]
    see_also = f" You may also find {' and '.join(more)} useful." if more else ""
    return (f"Hi {first},\n\nThanks for letting us know, and sorry for the trouble with “{ticket['title']}”.\n\n"
            f"{_guidance(main['body'])} [{main['id']}]\n\n"
            f"If that doesn't get you back on track, reply here and we'll work through it with you.{see_also}"
            "\n\nBest regards,\nKitebase Support")


def _report(ticket: dict[str, Any], sections: list[dict[str, str]], reply: dict[str, Any],
            hits: list[dict[str, Any]], goal: str) -> str:
    customer = ticket.get("customer") or {}
    anchors = ", ".join(f"[{s['id']}]" for s in sections)
    who = re.search(r"Approved by (.+?)\.$", reply["text"].splitlines()[0])
    edited = re.search(r"([^\s.]+) edited your draft", reply["text"])
    how = f" (edited by {edited.group(1)} before sending)" if edited else f" (approved by {who.group(1)})" if who else ""
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


def _risk(ticket: dict[str, Any]) -> str | None:
    said = " ".join(m.get("body", "") for m in ticket.get("conversation") or [] if m.get("role") == "customer")
    return next((why for pattern, why in RISKS if pattern.search(said)), None)


def _ticket_ids(text: str) -> list[str]:
    """The tickets a request names, on either desk (KITE-142 on the embedded one, 4821 on Zendesk)."""
    return ticket_ids_in(text) or ticket_ids_in(text, "zendesk")
