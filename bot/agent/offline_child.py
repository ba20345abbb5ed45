"""The offline model as a fan-out child (bot/agent/fan_out_text.py): does the fix approved on another ticket apply
to this one?

It reads its own ticket (a risky one goes to a person, as in the normal flow), then looks at once for the tickets
most like it and for the help sections the approved reply cites. It drafts only when the parent is among the
tickets most like the child and those sections came back (a draft may cite only what the run has read): the
draft greets the child's own customer, names the child's own ticket and cites the same sections; not when the
child's customer says they don't have or use what those sections assume ("we don't use SSO"). Otherwise it
drafts nothing and ends with a "Declined: …" line saying why. After the draft it goes on as the normal flow does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bot.agent.fan_out_text import DECLINED, Reference
from bot.agent.offline_parts import (
    INJECTION,
    approved_how,
    draft,
    fitting,
    hits_of,
    not_sent,
    read_ticket,
    same_cause,
    say,
    sections_of,
    use,
)
from tools.tickets import like_hits

Call = dict[str, Any]
Last = Callable[[str], Call | None]  # the last call of a tool in the run so far (its input, result text, error)
SHOWN = 2  # similar tickets a decline names


def child_turn(last: Last, read_of: Last, ticket_id: str, reference: Reference) -> list[dict[str, Any]]:
    """The next assistant turn of a child run working `ticket_id` against `reference` (`read_of`: the run's
    get_ticket call of a ticket)."""
    parent = reference.ticket_id
    read = read_of(ticket_id)
    if read is None:
        return [say(f"The fix approved on {parent} may apply to {ticket_id} too. I'll read {ticket_id} first."),
                use("get_ticket", ticket_id=ticket_id)]
    ticket = read_ticket(read, ticket_id)
    if not isinstance(ticket, dict):
        return ticket  # unreadable or risky: handed to a person
    if ticket["status"] == "closed":
        return [say(_declined(f"{ticket['id']} is already closed, so nobody is waiting for a reply on it.",
                              f"{ticket['id']} is already closed. I drafted nothing."))]
    if not reference.sources:
        return [say(_declined(f"The reply approved on {parent} cites no help section, and I draft a reply to a "
                              "customer only from a help section I can cite.",
                              f"the reply approved on {parent} cites no help section to draft from. "
                              "I drafted nothing."))]
    help_call, tickets_call = last("search_help"), last("search_tickets")
    if help_call is None or tickets_call is None:
        return _search(ticket, reference)
    reply = last("reply_to_customer")
    if reply is None:
        return _draft_or_decline(ticket, reference, help_call, tickets_call, read_of)
    if reply["error"]:
        return not_sent(ticket, reply)
    anchors = ", ".join(f"[{s['id']}]" for s in _sections(reference, help_call))
    if last("update_ticket") is None and ticket["status"] == "open":
        return [use("update_ticket", ticket_id=ticket["id"], status="pending",
                    note=f"Agent replied with the fix approved on {parent}, citing {anchors}; waiting for the "
                         "customer.")]
    customer = (ticket.get("customer") or {}).get("name", "the customer")
    done = (f"Replied to {customer} on {ticket['id']}{approved_how(reply)} with the fix approved on {parent}, "
            f"citing {anchors}.")
    if ticket["status"] == "open":
        done += " I set the ticket to pending with an internal note."
    return [say(done)]


def _search(ticket: dict[str, Any], reference: Reference) -> list[dict[str, Any]]:
    customer = (ticket.get("customer") or {}).get("name", "The customer")
    headings = " ".join(heading for _, heading in reference.sources)
    some = "section" if len(reference.sources) == 1 else "sections"
    return [
        say(f"{customer} reports “{ticket['title']}” ({ticket['status']}, {ticket.get('priority') or 'no'} "
            f"priority). I'll look for the tickets most like it and, at the same time, fetch the help {some} the "
            f"reply on {reference.ticket_id} cites."),
        use("search_tickets", like_ticket_id=ticket["id"], status="any", limit=5),
        use("search_help", query=headings, limit=min(5, max(3, len(reference.sources)))),
    ]


def _draft_or_decline(ticket: dict[str, Any], reference: Reference, help_call: Call,
                      tickets_call: Call, read_of: Last) -> list[dict[str, Any]]:
    child, parent, title = ticket["id"], reference.ticket_id, ticket["title"]
    if tickets_call["error"]:
        return [say(_declined(f"The ticket search failed ({tickets_call['text']}), so I cannot tell whether {child} "
                              f"has the problem solved on {parent}.",
                              f"I could not compare {child} with {parent}: the ticket search failed. "
                              "I drafted nothing."))]
    like = hits_of(tickets_call)
    worth = [h for h in like_hits(tickets_call["text"]) or [] if h["tier"] == "worth_a_look"]
    if parent not in [hit["id"] for hit in like] and parent in [hit["id"] for hit in worth]:
        parent_read = read_of(parent)  # only worth a look: read before judging, as in the normal flow
        if parent_read is None:
            return [say(f"{parent} is among the tickets worth a look next to {child}, not the likely ones; I'll "
                        f"read it before I judge whether its fix applies."), use("get_ticket", ticket_id=parent)]
        same, why = (False, f"I could not read {parent}") if parent_read["error"] else \
            same_cause(ticket, json.loads(parent_read["text"]))
        if not same:
            closest = ", ".join(f"{hit['id']} (“{hit['title']}”)" for hit in like[:SHOWN])
            evidence = f"; the tickets most like {child} are {closest}" if closest else ""
            return [say(_declined(f"{parent} is only worth a look next to {child}, and reading both, {why}, so the fix "
                                  f"approved on {parent} probably does not apply. Work {child} on its own (for "
                                  f"example “handle {child}”) rather than in this batch.",
                                  f"{child} looks like another cause: I read {parent}, only worth a look next to "
                                  f"it, and {why}{evidence}. I drafted nothing."))]
        like = [*like, *(h for h in worth if h["id"] == parent)]
    if parent not in [hit["id"] for hit in like]:
        closest = ", ".join(f"{hit['id']} (“{hit['title']}”)" for hit in like[:SHOWN])
        evidence = (f"the tickets most like it are {closest}, not {parent}" if closest
                    else f"no ticket on the desk is much like it, {parent} included")
        return [say(_declined(f"I read {child} and searched for the tickets most like it. {parent} is not among "
                              f"them, so the fix approved there probably does not apply. Work {child} on its own "
                              f"(for example “handle {child}”) rather than in this batch.",
                              f"{child} looks like another cause: {evidence}, and it is about “{title}”. "
                              "I drafted nothing."))]
    sections = _sections(reference, help_call)
    if not sections:
        wanted = "; ".join(f"[{anchor}] {heading}" for anchor, heading in reference.sources)
        return [say(_declined(f"{child} looks like the problem solved on {parent}, but the help center did not "
                              f"return the section its reply cites ({wanted}), and I cite only what I have read. "
                              f"A person should check that section, or write {child}'s reply.",
                              f"{child} looks like the same problem as {parent}, but the help section its reply "
                              f"cites did not come back from the help center. I drafted nothing."))]
    ruled_out = fitting(sections, ticket)[1]
    if ruled_out:  # the fix assumes what this customer says they don't have or use
        assumed = " or ".join(ruled_out)
        return [say(_declined(f"{child}'s customer says they don't have or use {assumed}, and the reply approved on "
                              f"{parent} assumes it, so that fix does not fit them. Work {child} on its own (for "
                              f"example “handle {child}”) rather than in this batch.",
                              f"the fix approved on {parent} assumes {assumed}, which {child}'s customer says they "
                              "don't have or use. I drafted nothing."))]
    contact = ((ticket.get("customer") or {}).get("contact_name") or "").split()
    some = "section" if len(sections) == 1 else "sections"
    return [say(f"{parent} is among the tickets most like {child}, and the help center still has the {some} its "
                f"reply cites. I'll draft a reply to {contact[0] if contact else 'the customer'} for the lead to "
                "review."),
            use("reply_to_customer", ticket_id=child, message=draft(ticket, sections))]


def _sections(reference: Reference, help_call: Call) -> list[dict[str, str]]:
    """The sections the approved reply cites that this run's help search returned, in the reply's order (one
    that gives orders is not help)."""
    found = {s["id"]: s for s in sections_of(help_call["text"])} if not help_call["error"] else {}
    return [found[anchor] for anchor, _ in reference.sources
            if anchor in found and not INJECTION.search(found[anchor]["body"])]


def _declined(explanation: str, reason: str) -> str:
    """A child's final answer when the fix does not apply: what it found, then the line the batch card reads."""
    return f"{explanation}\n\n{DECLINED} {reason}"
