"""Slack user groups' members, read from Slack in the background (a timer calls `GroupSync.refresh`) and handed
to the run layer's writer, which keeps them as database rows (bot/runs/lifecycle/members.py). Deciding whether a
click counts never calls Slack, and every process judges by the same rows. The rule that uses them (who may
decide, stop, act on the queue) is the run layer's: bot/runs/lifecycle/people.py."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)
REFRESH_SECONDS = 60.0


def read_members(client: Any, groups: frozenset[str]) -> dict[str, frozenset[str]]:
    """What Slack says each user group (S…) holds; a group Slack could not list is left out (its rows keep what
    was known)."""
    found: dict[str, frozenset[str]] = {}
    for group in sorted(g for g in groups if g.startswith("S")):
        try:
            found[group] = frozenset(client.usergroups_users_list(usergroup=group).get("users", []))
        except Exception:
            logger.exception("could not list members of user group %s (keeping what we knew)", group)
    return found


class GroupSync:
    """Reads the groups' members from Slack and stores them with `store` (the run layer's GroupMembers.store)."""

    def __init__(self, store: Callable[[dict[str, frozenset[str]]], object]):
        self.store = store

    def refresh(self, client: Any, groups: frozenset[str]) -> None:
        found = read_members(client, groups)
        if found:
            self.store(found)
