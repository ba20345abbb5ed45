"""What a fan-out child is told: the ticket it works, the ticket whose approved reply may fit it too, that reply
and its sources, and how to decide. One function builds it (the batch, the evals), one pattern reads it back
(the offline model); the words are ours, the decision is the model's.

It lives in the agent layer, beside the system prompt, because both sides read it: the run layer's batch and
the evals build the request, and the offline model (bot/agent/offline.py), which may not import the run layer,
reads it back."""

from __future__ import annotations

import re
from dataclasses import dataclass

DECLINED = "Declined:"  # the line a child ends with when the fix does not apply (the batch card shows its reason)

# The first line of a child's request, read back by the offline model.
CHILD_REQUEST = re.compile(r"^handle (?P<ticket>\S+): it may have the same problem as (?P<parent>\S+), which was "
                           r"answered with the approved reply below\.")
REFERENCE = re.compile(r'\n"""\n(?P<reply>.*?)\n"""\n', re.DOTALL)
SOURCE = re.compile(r"\[(?P<id>[a-z0-9]+(?:-[a-z0-9]+)*#\d+)\] (?P<heading>[^;\n]+)")


@dataclass(frozen=True)
class Reference:
    """The approved reply a batch starts from."""

    ticket_id: str  # the parent's ticket, the problem
    message: str  # the text the customer received (the edit, if a person edited it)
    approved_by: str | None
    sources: tuple[tuple[str, str], ...]  # (section id, heading) it cites


def child_goal(ticket_id: str, parent_ticket: str) -> str:
    """The goal a child run shows (timelines, the queue, `kitebase runs`)."""
    return f"handle {ticket_id} (may have the same problem as {parent_ticket}: does its approved fix apply?)"


def child_request(ticket_id: str, reference: Reference) -> str:
    """The child's first message."""
    who = f" (approved by {reference.approved_by})" if reference.approved_by else ""
    sources = "; ".join(f"[{anchor}] {heading}" for anchor, heading in reference.sources) or "none"
    return (
        f"handle {ticket_id}: it may have the same problem as {reference.ticket_id}, which was answered with the "
        f"approved reply below.\n\n"
        f"The reply sent on {reference.ticket_id}{who}:\n"
        f'"""\n{reference.message.strip()}\n"""\n'
        f"Sources it cited: {sources}\n\n"
        f"Read {ticket_id} yourself and decide whether the same fix applies to it.\n"
        f"- If it does: draft a reply with reply_to_customer for {ticket_id}'s own customer, in their words and in "
        f"the language they wrote in (their name, their details), citing the same sources. Do not copy the reply "
        f"word for word, and do not mention {reference.ticket_id} or its customer.\n"
        f"- If it does not (another cause, another product, already solved): draft nothing, and end with one line "
        f"that starts \"{DECLINED}\" and says why.\n"
        f"Nothing reaches the customer until a person approves it.")


def read_request(text: str) -> tuple[str, Reference] | None:
    """(the child's ticket, the reference) from a child's first message; None if it is not one."""
    first = CHILD_REQUEST.match(text)
    if first is None:
        return None
    reply = REFERENCE.search(text)
    cited_line = next((line for line in text.splitlines() if line.startswith("Sources it cited: ")), "")
    sources = tuple((m.group("id"), m.group("heading").strip()) for m in SOURCE.finditer(cited_line))
    approved = re.search(r"\(approved by ([^)]+)\):\n", text)
    return first.group("ticket"), Reference(first.group("parent"), reply.group("reply") if reply else "",
                                            approved.group(1) if approved else None, sources)


def declined_reason(answer: str | None) -> str | None:
    """The reason a child gave for drafting nothing (its "Declined: …" line), or None if it did not decline."""
    for line in (answer or "").splitlines():
        stripped = line.strip().lstrip("*_ ")
        if stripped.lower().startswith(DECLINED.lower()):
            return stripped[len(DECLINED):].strip(" *_") or "no reason given"
    return None
