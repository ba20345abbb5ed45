"""The users and organizations tickets name that Zendesk's side-loads left out: requesters, assignees, comment
authors and organizations, looked up with show_many, a hundred ids a request.

Zendesk's side-loads do not always carry everyone a ticket names (bodies recorded from live accounts show comment
authors and requesters missing), and a permanently deleted user or a deleted organization is still named by the
tickets that had them, while show_many leaves it out. What is still missing after the lookup is not in Zendesk:
the mirror and get_ticket say so (an unknown author, a customer notice) instead of guessing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.desk.base import NoSuchTicket
from bot.desk.zendesk.client import ZendeskClient

SHOW_MANY = 100  # ids per request: Zendesk's limit for users and organizations
Records = dict[int, dict[str, Any]]


def complete(client: ZendeskClient, tickets: Iterable[dict[str, Any]], comments: Iterable[list[dict[str, Any]]],
             users: Records, orgs: Records) -> None:
    """Add to `users` and `orgs` whoever `tickets` and their `comments` name that they lack. Raises the client's
    errors (DeskUnavailable, RateLimited...) when Zendesk does not answer."""
    tickets = list(tickets)
    user_ids = [t.get(key) for t in tickets for key in ("requester_id", "assignee_id")]
    user_ids += [c.get("author_id") for thread in comments for c in thread]
    look_up(client, "/api/v2/users/show_many.json", "users", user_ids, users)
    look_up(client, "/api/v2/organizations/show_many.json", "organizations",
            [t.get("organization_id") for t in tickets], orgs)


def look_up(client: ZendeskClient, path: str, key: str, ids: Iterable[Any], known: Records) -> set[int]:
    """Fetch the records `known` lacks (ids of real records are positive; Zendesk's own system user is -1) into
    it; answer the ids Zendesk did not return (deleted)."""
    wanted = sorted({int(i) for i in ids if isinstance(i, int) and i > 0 and i not in known})
    for start in range(0, len(wanted), SHOW_MANY):
        chunk = wanted[start:start + SHOW_MANY]
        try:
            body = client.get(path, {"ids": ",".join(str(i) for i in chunk)})
        except NoSuchTicket:  # show_many leaves unknown ids out; a 404 for the lot means none of them exists
            continue
        known.update({int(r["id"]): r for r in body.get(key) or [] if isinstance(r, dict) and "id" in r})
    return {i for i in wanted if i not in known}
