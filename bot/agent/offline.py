"""An offline model: speaks the Messages API response shape and really reads the tool results.

It works any ticket in the desk the way the system prompt asks: read the ticket, search the help center
and similar tickets together, draft a reply citing a help section, ask to send it, then report what it
did and who else looks affected. It is deterministic, so runs can be compared, and costs nothing.

A fan-out child's request (bot/agent/fan_out_text.py) is worked by offline_child.py; what both flows read
from tool results and write is in offline_parts.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.agent.fan_out_text import read_request
from bot.agent.history import blocks, text_of
from bot.agent.model import ModelResponse
from bot.agent.offline_child import child_turn
from bot.agent.offline_parts import (
    answered_before,
    draft,
    fitting,
    hits_of,
    keywords,
    not_sent,
    read_ticket,
    relevant,
    repeat_turn,
    report,
    same_cause,
    say,
    sections_of,
    ticket_ids,
    use,
    worth_reading,
)
from bot.agent.offline_triage import triage
from bot.agent.prompts import CONTINUE_NOTE, INTAKE_MARK
from bot.agent.sent import sent_reply
from bot.search.words import EmptyQuery
from bot.vocabulary import Usage

# What the intake says when a customer answers a ticket one of its runs worked (bot/runs/intake/arrivals.py).
CUSTOMER_AGAIN = re.compile(r"The customer \((?P<who>[^\n]*?)\) wrote again on ticket (?P<ticket>\S+):\n\n"
                            r"(?P<body>.*)\n\nRead the ticket's new message", re.DOTALL)


class OfflineModel:
    name = "kitebase-offline"  # bot.agent.clients.OFFLINE_NAME

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        content = _Turn(messages, tools).decide()
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        sent = len(system) + len(json.dumps(tools)) + len(json.dumps(messages))
        usage = Usage(input_tokens=sent // 4, output_tokens=max(1, len(json.dumps(content)) // 4))
        return ModelResponse(content=content, stop_reason=stop, usage=usage, model=self.name)


class _Turn:
    """Reads the conversation so far and decides the next assistant turn."""

    def __init__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None):
        self.messages = messages
        self.tools = {str(t.get("name")): t for t in tools or []}
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
        child = read_request(self.goal)
        if child is not None:  # a fan-out child: does the fix approved on another ticket apply to this one?
            return child_turn(self.last, self.read_of, *child)
        ids = ticket_ids(self.goal)
        if not ids:
            return [say("The request names no ticket, so there is nothing for me to work. Ask again with a "
                        "ticket id such as KITE-142.")]
        ticket_id = ids[0]
        read = self.read_of(ticket_id)
        if read is None:
            return [say(f"I'll start by reading {ticket_id}."), use("get_ticket", ticket_id=ticket_id)]
        triaged = self.triage(read)  # an intake run's triage, with the turn after reading the ticket
        ticket = read_ticket(read, ticket_id)
        if not isinstance(ticket, dict):
            return [*ticket[:-1], *triaged, ticket[-1]]  # unreadable or risky: handed to a person
        help_call, tickets_call = self.last("search_help"), self.last("search_tickets")
        if help_call is None or tickets_call is None:
            return [*self.search(ticket), *triaged]
        return self.reply_or_report(ticket, help_call, tickets_call)

    def drafting(self, said: str, ticket: dict[str, Any], tickets_call: dict[str, Any],
                 sections: list[dict[str, str]]) -> list[dict[str, Any]]:
        """The turn that drafts, which also reads the tickets only worth a look this run has not read yet (they
        change the report, not the draft): one get_ticket each, beside the draft."""
        unread = [h for h in self.worth_reading(ticket, tickets_call) if self.read_of(h["id"]) is None]
        if unread:
            names = ", ".join(h["id"] for h in unread[:-1]) + (" and " if len(unread) > 1 else "") + unread[-1]["id"]
            said += (f" Meanwhile I'm reading {names}, only worth a look (the same symptoms, perhaps another "
                     "cause), before I say whether they share this problem.")
        return [say(said), *[use("get_ticket", ticket_id=h["id"]) for h in unread],
                use("reply_to_customer", ticket_id=ticket["id"], message=draft(ticket, sections))]

    def read_of(self, ticket_id: str) -> dict[str, Any] | None:
        """The first get_ticket call of `ticket_id` (a run reads the ticket it works first, and others later)."""
        found = [c for c in self.calls if c["name"] == "get_ticket"
                 and str(c["input"].get("ticket_id", "")).strip().upper() == ticket_id.upper()]
        return found[0] if found else None

    @staticmethod
    def worth_reading(ticket: dict[str, Any], tickets_call: dict[str, Any]) -> list[dict[str, Any]]:
        return worth_reading(tickets_call, ticket["tags"][0] if ticket["tags"] else None)

    def looked(self, ticket: dict[str, Any], tickets_call: dict[str, Any]) -> tuple[
            list[dict[str, Any]], list[tuple[dict[str, Any], str]], int]:
        """The "worth a look" tickets read: those confirmed as the same problem, those set aside with why, and how
        many could not be read (never named: they were not read, so not judged)."""
        confirmed, set_aside, unreadable = [], [], []
        for hit in self.worth_reading(ticket, tickets_call):
            read = self.read_of(hit["id"])
            if read is None:
                continue  # never named: it was not read
            if read["error"]:
                unreadable.append(hit)  # not read, so not judged: never named
                continue
            same, why = same_cause(ticket, json.loads(read["text"]))
            if same:
                confirmed.append(hit)
            else:
                set_aside.append((hit, why))
        return confirmed, set_aside, len(unreadable)

    def triage(self, read: dict[str, Any]) -> list[dict[str, Any]]:
        """record_triage for a ticket a rule picked up, once (an error is not tried again); else nothing."""
        definition = self.tools.get("record_triage")
        if INTAKE_MARK not in self.goal or definition is None or read["error"] or self.last("record_triage"):
            return []
        return [use("record_triage", **triage(json.loads(read["text"]), definition))]

    def search(self, ticket: dict[str, Any]) -> list[dict[str, Any]]:
        query = keywords(f"{ticket['title']} {' '.join(ticket['tags'])}")
        customer = (ticket.get("customer") or {}).get("name", "The customer")
        try:
            help_query = keywords(ticket["title"])
        except EmptyQuery:
            help_query = query
        return [
            say(f"{customer} reports “{ticket['title']}” ({ticket['status']}, "
                f"{ticket.get('priority') or 'no'} priority). "
                "I'll check the help center and look for similar tickets at the same time."),
            use("search_help", query=help_query, limit=2),
            use("search_tickets", like_ticket_id=ticket["id"], status="any", limit=5),
        ]

    def reply_or_report(self, ticket: dict[str, Any], help_call: dict[str, Any],
                        tickets_call: dict[str, Any]) -> list[dict[str, Any]]:
        found = relevant(sections_of(help_call["text"]), help_call["input"]["query"]) if not help_call["error"] else []
        sections, ruled_out = fitting(found, ticket)  # nothing that assumes what the customer says they don't use
        reply = self.last("reply_to_customer")
        if reply is None or (reply["error"] and "stopped the run" in reply["text"]):  # a draft withdrawn by a stop
            if reply is not None and sections:  # resumed after a stop: the draft was never decided, so draft again
                return self.drafting("The run was stopped before my draft was decided; drafting it again for "
                                     "review.", ticket, tickets_call, sections)
            if not sections:
                return [use("escalate_to_human", reason=self.nothing_fits(ticket, found, ruled_out))]
            earlier = answered_before(ticket, sections[0])
            if earlier is not None:  # the customer already has this answer: sending it again would not help
                return repeat_turn(ticket, sections[0], earlier)
            fits = (f" I left out what assumes {' or '.join(ruled_out)}, which the customer says they don't have "
                    "or use." if ruled_out else "")
            return self.drafting(f"The help center covers this.{fits} I'll draft a reply for the lead to review.",
                                 ticket, tickets_call, sections)
        if reply["error"]:
            return not_sent(ticket, reply)
        update = self.last("update_ticket")
        if update is None and ticket["status"] == "open":
            sent = sent_reply(reply.get("input"), reply["text"])  # a person's edit, not the draft, is what went out
            anchors = ", ".join(f"[{a}]" for a in sent.cited)
            how = f" ({sent.how})" if sent.edited_by else ""
            cites = f" citing {anchors}" if anchors else " citing no help-center section"
            return [use("update_ticket", ticket_id=ticket["id"], status="pending",
                        note=f"Agent replied{how}{cites}; waiting for the customer.")]
        topic = ticket["tags"][0] if ticket["tags"] else None
        confirmed, set_aside, unreadable = self.looked(ticket, tickets_call)
        said = report(ticket, sections, reply, hits_of(tickets_call, topic) + confirmed, self.goal, set_aside)
        if unreadable:
            one = unreadable == 1
            said += (f"\n{unreadable} more {'ticket' if one else 'tickets'} only worth a look could not be opened, so "
                     f"I have not judged {'it' if one else 'them'}; search again for tickets like "
                     f"{ticket['id']} to see {'it' if one else 'them'}.")
        return [say(said)]

    @staticmethod
    def nothing_fits(ticket: dict[str, Any], found: list[dict[str, str]], ruled_out: list[str]) -> str:
        if found and ruled_out:
            anchors = ", ".join(f"[{s['id']}]" for s in found)
            return (f"The help center's sections on “{ticket['title']}” ({anchors}) assume "
                    f"{' or '.join(ruled_out)}, which the customer says they don't have or use, so a person should "
                    "write this reply.")
        return f"The help center has nothing on “{ticket['title']}”, so a person should write this reply."

    def follow_up(self, at: int) -> list[dict[str, Any]]:
        request = text_of(self.messages[at]["content"])
        lookups = [c for c in self.calls if c["at"] > at]
        again = CUSTOMER_AGAIN.search(request)  # also after a person's note when they resumed the run
        if again:
            return self.customer_again(again, lookups)
        if not lookups:
            ids = ticket_ids(request)
            if ids:
                return [say(f"Let me look at {', '.join(ids)}."), *[use("get_ticket", ticket_id=i) for i in ids]]
            try:
                query = keywords(request)
            except EmptyQuery:
                return [say("I'm not sure what to look up for that; could you name a ticket or a topic?")]
            return [say("Let me search the tickets for that."), use("search_tickets", query=query, limit=5)]
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
                for hit in hits_of(call)[:5]:
                    lines.append(f"- {hit['id']} “{hit['title']}” — {hit['customer']} ({hit['status']}, "
                                 f"{hit['assignee'] or 'unassigned'})")
        return [say("\n".join(lines))]


    def customer_again(self, again: re.Match[str], lookups: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A customer answered after our reply (an intake follow-up): the ticket is read again, then handed to a
        person with the new message. Judging a second answer is beyond what this offline model does well."""
        ticket_id, who = again.group("ticket"), again.group("who")
        if not any(c["name"] == "get_ticket" for c in lookups):
            return [say(f"{who} wrote again on {ticket_id}. I'll read the ticket as it is now."),
                    use("get_ticket", ticket_id=ticket_id)]
        said = " ".join(again.group("body").split())
        said = said if len(said) <= 300 else said[:299] + "…"
        return [say(f"{who}'s new message needs a person's judgement; I'm handing {ticket_id} over."),
                use("escalate_to_human", reason=f"{who} wrote again on {ticket_id} after our reply: “{said}” "
                                                "The offline model does not write a second answer on its own; a "
                                                "person should (the earlier reply and the ticket are in this run).")]
