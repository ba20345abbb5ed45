"""Slack user groups' members, kept in a cache refreshed in the background (`GroupCache.refresh`, a timer), so
deciding whether a click counts never calls Slack on the acknowledgement path. The rule that uses them (who
may decide, who may stop) is the run layer's: bot/runs/lifecycle/people.py."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

logger = logging.getLogger(__name__)
REFRESH_SECONDS = 60.0


class GroupCache:
    def __init__(self) -> None:
        self._members: dict[str, frozenset[str]] = {}
        self._at: dict[str, float] = {}
        self._lock = threading.Lock()

    def members(self, group: str) -> frozenset[str] | None:
        """Known members, or None when the group was never read (Slack unreachable so far)."""
        with self._lock:
            return self._members.get(group)

    def refresh(self, client: Any, groups: frozenset[str]) -> None:
        for group in sorted(g for g in groups if g.startswith("S")):
            try:
                users = frozenset(client.usergroups_users_list(usergroup=group).get("users", []))
            except Exception:
                logger.exception("could not list members of user group %s (keeping what we knew)", group)
                continue
            with self._lock:
                self._members[group], self._at[group] = users, time.monotonic()
