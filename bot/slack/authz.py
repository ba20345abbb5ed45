"""Who may decide: KITEBASE_APPROVERS (user ids U… and user-group ids S…), else whoever started the run.

Group members come from a cache refreshed in the background (`GroupCache.refresh`, a timer), so deciding
whether a click counts never calls Slack on the acknowledgement path."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from bot.config import Settings

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


def may_decide(settings: Settings, groups: GroupCache, user_id: str, started_by: str | None) -> bool:
    approvers = settings.approvers
    if not approvers:
        return bool(started_by) and user_id == started_by
    if user_id in approvers:
        return True
    return any(user_id in (groups.members(g) or ()) for g in approvers if g.startswith("S"))


def unknown_groups(settings: Settings, groups: GroupCache) -> list[str]:
    return [g for g in sorted(settings.approvers) if g.startswith("S") and groups.members(g) is None]


def approvers_hint(settings: Settings, started_by: str | None) -> str:
    approvers = settings.approvers
    if not approvers:
        return f"Only <@{started_by}>, who started the run, can decide." if started_by else ""
    names = [f"<!subteam^{a}>" if a.startswith("S") else f"<@{a}>" for a in sorted(approvers)]
    return "Approvers: " + ", ".join(names) + "."
