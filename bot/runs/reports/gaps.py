"""Knowledge gaps: the questions the help center did not answer well, grouped by topic, each with the tickets
behind it, for the docs team to read as "write or fix these articles".

A run of the window counts when one of these signals shows in what it stored:
- `no_help_found`: a search_help call found no section at all;
- `no_citation`: a draft cited no existing help section;
- `rewritten`: a person edited most of a draft (at least REWRITE_SHARE of its words) before it was sent;
- `escalated_no_answer`: the agent handed the ticket to a person and no reply went out in that run (it found
  nothing to answer with, or the lead rejected what it drafted from the help center).
A run the agent handed to a person for a reason the help center cannot settle (a refund, a legal matter, a
security incident, an angry customer: handoffs.py) is no gap: it is counted under `policy`, by that reason, and
its "found nothing" signals are dropped (the signals of a draft a person rejected or rewrote stay).
Tickets are grouped into one topic when they share at least two tags (transitively); the topic is named by
the tags its tickets share.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Approval, Customer, Escalation, HelpSection, Run, Ticket, id_of
from bot.runs.lifecycle import citations
from bot.runs.reports import handoffs
from bot.runs.reports.stats import changed_share, runs_in
from bot.vocabulary import SENT, ApprovalStatus, StopKind

REWRITE_SHARE = 0.5
NO_HITS = "No help-center sections match"
SIGNALS = {"no_help_found": "search_help found nothing", "no_citation": "the draft cited no help section",
           "rewritten": "a lead rewrote most of the draft", "escalated_no_answer": "escalated without an answer"}


def knowledge_gaps(session: Session, since: datetime, until: datetime) -> dict[str, Any]:
    runs = [r for r in runs_in(session, since, until) if r.ticket_id]
    ids = [id_of(r) for r in runs]
    drafts = _by_run(session.exec(select(Approval).where(col(Approval.run_id).in_(ids),
                                                         col(Approval.tool_name).in_(citations.DRAFT_TOOLS))
                                  .order_by(col(Approval.id))).all()) if ids else {}
    asked = {e.run_id: e.reason for e in session.exec(
        select(Escalation).where(col(Escalation.run_id).in_(ids), Escalation.kind == StopKind.MODEL_REQUEST)
        .order_by(col(Escalation.id))).all()} if ids else {}
    existing = set(session.exec(select(HelpSection.id)).all())
    tickets: dict[str, dict[str, Any]] = {}
    by_policy: dict[str, dict[str, dict[str, Any]]] = {}
    for run in runs:
        sent = any(d.status in SENT for d in drafts.get(id_of(run), []))
        policy = handoffs.policy_of(asked.get(id_of(run))) if id_of(run) in asked and not sent else None
        found = run_signals(run, drafts.get(id_of(run), []), id_of(run) in asked, existing, policy=policy)
        if found["signals"]:
            _merge(tickets, session, run, found)
        if policy is not None:
            _merge(by_policy.setdefault(policy, {}), session, run, {
                "signals": [{"kind": "policy", "run_id": run.id, "detail": _said(asked[id_of(run)])}],
                "questions": [], "articles": []})
    return {"since": since.isoformat(), "until": until.isoformat(), "runs_considered": len(runs),
            "topics": topics(list(tickets.values())), "policy": _policy_groups(by_policy)}


def _said(reason: str | None) -> str:
    return (reason or "").removeprefix("the agent asked for a person: ")


def _policy_groups(by_policy: dict[str, dict[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The policy hand-offs by reason, most tickets first; each ticket with what the agent said."""
    groups = [{"reason": key, "label": handoffs.LABELS[key],
               "tickets": [{**{k: t[k] for k in ("ticket_id", "title", "customer", "runs")},
                            "detail": t["signals"][-1]["detail"]} for t in sorted(found.values(),
                                                                                  key=lambda t: t["ticket_id"])]}
              for key, found in by_policy.items()]
    return sorted(groups, key=lambda g: (-len(g["tickets"]), g["reason"]))


def _by_run(rows: Any) -> dict[int, list[Approval]]:
    grouped: dict[int, list[Approval]] = {}
    for row in rows:
        grouped.setdefault(row.run_id, []).append(row)
    return grouped


def run_signals(run: Run, drafts: list[Approval], asked_for_person: bool, existing: set[str],
                policy: str | None = None) -> dict[str, Any]:
    """The gap signals of one run, the questions behind them and the help sections involved. A run handed over
    by `policy` (handoffs.py) has no "found nothing" signals: the help center was not what it lacked."""
    signals: list[dict[str, Any]] = []
    questions: list[str] = []
    retrieved: list[str] = []
    for use, text in citations.calls_before(run.messages or [], None):
        if use.get("name") != "search_help":
            continue
        query = str((use.get("input") or {}).get("query", ""))
        if text.startswith(NO_HITS) and policy is None:
            signals.append({"kind": "no_help_found", "run_id": run.id, "detail": f"nothing for “{query}”"})
            questions.append(query)
        retrieved += [a for a, _ in citations.HIT_HEAD.findall(text) if a not in retrieved]
    involved: list[str] = []
    for draft in drafts:
        cited = [a for a in citations.cited(str((draft.tool_input or {}).get("message", ""))) if a in existing]
        if draft.status == ApprovalStatus.REJECTED:
            involved += cited
        if not cited:
            signals.append({"kind": "no_citation", "run_id": run.id, "detail": "the draft cites nothing"})
            involved += retrieved
        if draft.status == ApprovalStatus.EDITED:
            share = changed_share(str((draft.tool_input or {}).get("message", "")),
                                  str((draft.edited_input or {}).get("message", "")))
            if share >= REWRITE_SHARE:
                signals.append({"kind": "rewritten", "run_id": run.id,
                                "detail": f"{share:.0%} of the draft rewritten"})
                involved += cited
    if asked_for_person and policy is None and not any(d.status in SENT for d in drafts):
        signals.append({"kind": "escalated_no_answer", "run_id": run.id, "detail": run.reason or ""})
        involved += retrieved
    return {"signals": signals, "questions": questions, "articles": list(dict.fromkeys(involved))}


def _merge(tickets: dict[str, dict[str, Any]], session: Session, run: Run, found: dict[str, Any]) -> None:
    ticket_id = run.ticket_id
    if ticket_id is None:  # knowledge_gaps passes only runs started for a ticket
        return
    entry = tickets.get(ticket_id)
    if entry is None:
        ticket = session.get(Ticket, ticket_id)
        customer = session.get(Customer, ticket.customer_id) if ticket else None
        entry = tickets[ticket_id] = {
            "ticket_id": ticket_id, "title": ticket.title if ticket else "", "tags": (ticket.tags or []) if ticket
            else [], "customer": customer.name if customer else None, "runs": [], "signals": [],
            "questions": [ticket.title] if ticket else [], "articles": []}
    entry["runs"].append(run.id)
    entry["signals"] += found["signals"]
    entry["questions"] += [q for q in found["questions"] if q not in entry["questions"]]
    entry["articles"] += [a for a in found["articles"] if a not in entry["articles"]]


def topics(tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tickets sharing two or more tags (transitively) form one topic, named by the tags they all share."""
    parent = list(range(len(tickets)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(tickets):
        for j in range(i + 1, len(tickets)):
            if len(set(a["tags"]) & set(tickets[j]["tags"])) >= 2:
                parent[root(j)] = root(i)
    groups: dict[int, list[dict[str, Any]]] = {}
    for i, ticket in enumerate(tickets):
        groups.setdefault(root(i), []).append(ticket)
    found = [_topic(members) for members in groups.values()]
    return sorted(found, key=lambda t: (-len(t["tickets"]), -sum(t["signals"].values()), t["topic"]))


def _topic(members: list[dict[str, Any]]) -> dict[str, Any]:
    shared = [t for t in members[0]["tags"] if all(t in m["tags"] for m in members)]
    name = " · ".join(shared[:3] if len(members) > 1 else members[0]["tags"][:2]) or members[0]["title"]
    signals = Counter(s["kind"] for m in members for s in m["signals"])
    articles = list(dict.fromkeys(a for m in members for a in m["articles"]))
    return {"topic": name, "tags": shared, "signals": dict(signals.most_common()), "articles": articles,
            "tickets": sorted(members, key=lambda m: m["ticket_id"])}
