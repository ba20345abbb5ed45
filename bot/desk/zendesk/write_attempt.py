"""One attempt at a desk write, against Zendesk: read the ticket's stamp, look for an earlier attempt's comment
when there may have been one, then PUT with `safe_update`.

Why in that order. Every PUT carries the `updated_stamp` read just before it, and any applied write changes the
ticket's stamp, so of two PUTs made with one stamp only one applies (the other gets 409 and nothing). The
look-up comes after the stamp is read: a comment applied before the read is found by the look-up, and one
applied after it makes our PUT a 409. So however senders, pauses and Zendesk's own delays interleave, a comment
is never posted twice; claims only keep senders from doing the same work at once.

What the look-up accepts: a comment by our user, with the write's visibility and text, created at or after the
write's first attempt by Zendesk's own clock (the ticket's `updated_at` read before the first PUT: a comment
our PUT adds cannot be older), and not recorded by any other write. Writes to one ticket go one at a time
(bot/desk/zendesk/writes.py), so an identical note another run wrote is either recorded or older. A found
comment's field changes (status, assignee) are confirmed on the ticket or in the comment's audit; a change
that is in neither is written on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.db.models import DeskWrite
from bot.desk.base import DeskError, DeskRefused
from bot.desk.zendesk.client import Conflict, ZendeskClient
from bot.desk.zendesk.mirror import zendesk_time
from bot.desk.zendesk.write_claim import Claim

CONFLICT_TRIES = 3
ZENDESK_STATUS = {"open": "open", "pending": "pending", "closed": "solved"}  # solved: Zendesk closes it later


class KeptChanging(DeskError):
    """Every try met a ticket changed since it was read (409): nothing was applied; try again shortly."""


def attempt(client: ZendeskClient, claim: Claim, row: DeskWrite, me: Callable[[], int]) -> int | None:
    """Deliver `row` under `claim`; the id of its comment (None for a write without one). Raises the client's
    errors, DeskRefused for a closed ticket, KeptChanging, or LostClaim."""
    path = f"/api/v2/tickets/{int(row.ticket_id)}.json"
    may_be_applied = row.status in ("sending", "unknown")
    since = row.zendesk_since
    posted: int | None = row.comment_id  # an earlier attempt's comment, found and recorded
    for _ in range(CONFLICT_TRIES):
        claim.renew()
        ticket = client.get(path)["ticket"]
        if ticket.get("status") == "closed":
            raise DeskRefused(f"Ticket {row.ticket_id} is closed in Zendesk, and a closed ticket cannot be "
                              "updated. Create a follow-up ticket in Zendesk for the customer.")
        if since is None:
            since = zendesk_time(ticket.get("updated_at"))
        if may_be_applied:
            if row.body and posted is None:
                found = find_comment(client, row, since, me(), claim.recorded_elsewhere(row.ticket_id), claim)
                if found is not None:
                    posted, audit_id = found
                    claim.found(posted)
                    if confirmed(client, row, ticket, audit_id):
                        return posted
            elif applied(row, ticket):  # nothing to post (or posted already), and the fields are as asked
                return posted
        if row.kind == "link" and applied(row, ticket):  # linked already (by a person, or linked twice)
            return posted
        check_problem(client, claim, row)
        claim.renew()
        claim.sending(since)
        asked = body(row, ticket, comment=posted is None)
        try:
            answer = client.put(path, {"ticket": asked})
        except Conflict:
            may_be_applied = True  # changed meanwhile, nothing applied: read again, look again
            continue
        check_tags(row, asked, answer)
        return posted if posted is not None else comment_id(answer)
    raise KeptChanging("the ticket kept changing while we wrote (409)")


def check_problem(client: ZendeskClient, claim: Claim, row: DeskWrite) -> None:
    """An incident's problem must be a ticket of type problem (its own write went first: `waits_for`); else
    Zendesk would refuse the PUT, and nothing is changed on the incident."""
    problem = (row.fields or {}).get("problem_id")
    if problem is None:
        return
    claim.renew()
    found = client.get(f"/api/v2/tickets/{int(problem)}.json")["ticket"]
    if found.get("type") != "problem":
        raise DeskRefused(f"Ticket {problem} is not a problem ticket in Zendesk (its type is "
                          f"{found.get('type') or 'not set'}), so ticket {row.ticket_id} was not linked to it as "
                          "an incident. Make it a problem in Zendesk, then `kitebase desk retry`.")


def body(row: DeskWrite, ticket: dict[str, Any], *, comment: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"safe_update": True, "updated_stamp": ticket.get("updated_at")}
    if row.body and comment:
        out["comment"] = {"body": row.body, "public": row.public}
    out.update(wanted(row, ticket))
    return out


def wanted(row: DeskWrite, ticket: dict[str, Any]) -> dict[str, Any]:
    """The field changes the write carries, as Zendesk names them, against the ticket as just read (the tags it
    removes are the ticket's own)."""
    fields = row.fields or {}
    out: dict[str, Any] = {}
    if fields.get("status"):
        out["status"] = ZENDESK_STATUS.get(fields["status"], fields["status"])
    if "assignee_id" in fields:
        out["assignee_id"] = fields["assignee_id"]
    if fields.get("type"):  # a link: the problem's type, or an incident's type with its problem_id
        out["type"] = fields["type"]
    if "problem_id" in fields:
        out["problem_id"] = fields["problem_id"]
    if fields.get("additional_tags"):  # added to the ticket's tags; the others stay
        out["additional_tags"] = list(fields["additional_tags"])
    stale = stale_tags(row, ticket)
    if stale:  # the other tags of the prefixes it replaces (a triage's intent_*, ...): removed in the same PUT
        out["remove_tags"] = stale
    return out


def stale_tags(row: DeskWrite, ticket: dict[str, Any]) -> list[str]:
    """The ticket's tags that start with one of the write's `replacing` prefixes and that it does not add. Read
    from the ticket just before the PUT (whose `safe_update` refuses it if the tags changed since): a tag of
    another prefix, or on another ticket, is never named."""
    fields = row.fields or {}
    prefixes = tuple(str(p).lower() for p in fields.get("replacing") or ())
    if not prefixes:
        return []
    keep = {str(t).lower() for t in fields.get("additional_tags") or []}
    return [str(t) for t in ticket.get("tags") or []
            if str(t).lower().startswith(prefixes) and str(t).lower() not in keep]


def check_tags(row: DeskWrite, asked: dict[str, Any], answer: dict[str, Any]) -> None:
    """The ticket Zendesk answers with has the tags added and none of those removed; else the write stops with a
    sentence (DeskRefused): sending it again would not change what Zendesk did with it."""
    shown = answer.get("ticket")
    changes = {name: asked[name] for name in ("additional_tags", "remove_tags") if asked.get(name)}
    if not changes or not isinstance(shown, dict) or "tags" not in shown:
        return
    if all(_on_ticket(shown, name, value) for name, value in changes.items()):
        return
    raise DeskRefused(f"Zendesk accepted the update of ticket {row.ticket_id}, but its tags are not as asked (to add: "
                      f"{', '.join(changes.get('additional_tags') or []) or 'none'}; to remove: "
                      f"{', '.join(changes.get('remove_tags') or []) or 'none'}; the ticket has: "
                      f"{', '.join(map(str, shown.get('tags') or [])) or 'none'}). A trigger may set them. Check the "
                      "ticket's tags and the account's triggers in Zendesk, then `kitebase desk retry`.")


def applied(row: DeskWrite, ticket: dict[str, Any]) -> bool:
    """The ticket already shows every field change the write carries (and it has nothing left to post)."""
    return all(_on_ticket(ticket, name, value) for name, value in wanted(row, ticket).items())


def _on_ticket(ticket: dict[str, Any], name: str, value: Any) -> bool:
    """Whether the ticket shows one change: tags added are among its tags (Zendesk lower-cases them), tags removed
    are not."""
    if name == "additional_tags":
        return {str(t).lower() for t in value} <= {str(t).lower() for t in ticket.get("tags") or []}
    if name == "remove_tags":
        return not {str(t).lower() for t in value} & {str(t).lower() for t in ticket.get("tags") or []}
    return _text(ticket.get(name)) == _text(value)


def confirmed(client: ZendeskClient, row: DeskWrite, ticket: dict[str, Any], audit_id: int | None) -> bool:
    """Each field change is on the ticket now, or in the found comment's audit (made, then changed by someone)."""
    missing = {name: value for name, value in wanted(row, ticket).items() if not _on_ticket(ticket, name, value)}
    if not missing:
        return True
    if audit_id is None:
        return False
    try:
        audit = client.get(f"/api/v2/tickets/{int(row.ticket_id)}/audits/{int(audit_id)}.json")["audit"]
    except DeskError:
        return False
    made = {(str(e.get("field_name")), _text(e.get("value"))) for e in audit.get("events") or []
            if e.get("type") == "Change"}
    return all((name, _text(value)) in made for name, value in missing.items())


def find_comment(client: ZendeskClient, row: DeskWrite, since: datetime, me: int, taken: set[int],
                 claim: Claim) -> tuple[int, int | None] | None:
    """(comment id, audit id) of this write's comment if an earlier attempt posted it (see the module's rules)."""
    path = f"/api/v2/tickets/{int(row.ticket_id)}/comments.json"
    for page in client.pages(path, {"sort": "-created_at"}, "comments"):
        for comment in page:
            if zendesk_time(str(comment.get("created_at") or "")) < since:
                return None  # newest first: everything after this is older still
            if (comment.get("author_id") == me and bool(comment.get("public", True)) == row.public
                    and int(comment["id"]) not in taken
                    and _same(str(comment.get("body") or comment.get("plain_body") or ""), row.body or "")):
                audit = comment.get("audit_id")
                return int(comment["id"]), int(audit) if audit is not None else None
        claim.renew()  # a long conversation: each page's request under a claim that outlasts it
    return None


def comment_id(answer: dict[str, Any]) -> int | None:
    for event in (answer.get("audit") or {}).get("events") or []:
        if event.get("type") == "Comment" and event.get("id"):
            return int(event["id"])
    return None


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _text(value: Any) -> str:
    """Audit events render ids as text ("12345"); a ticket has them as numbers. Compare both as text."""
    return "" if value is None else str(value)
