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


def _member(groups: GroupCache, user_id: str, ids: frozenset[str]) -> bool:
    return user_id in ids or any(user_id in (groups.members(g) or ()) for g in ids if g.startswith("S"))


def may_decide(settings: Settings, groups: GroupCache, user_id: str, started_by: str | None,
               reminded: bool = False) -> bool:
    """KITEBASE_APPROVERS (else whoever started the run); once the reminder went out, also
    KITEBASE_BACKUP_APPROVERS."""
    approvers = settings.approvers
    if not approvers:
        allowed = bool(started_by) and user_id == started_by
    else:
        allowed = _member(groups, user_id, approvers)
    return allowed or (reminded and _member(groups, user_id, settings.backup_approvers))


def watched_groups(settings: Settings) -> frozenset[str]:
    """The user groups whose members the cache keeps (approvers and backup approvers)."""
    return frozenset(g for g in settings.approvers | settings.backup_approvers if g.startswith("S"))


def unknown_groups(settings: Settings, groups: GroupCache, reminded: bool = False) -> list[str]:
    ids = settings.approvers | (settings.backup_approvers if reminded else frozenset())
    return [g for g in sorted(ids) if g.startswith("S") and groups.members(g) is None]


def mentions(ids: frozenset[str]) -> list[str]:
    return [f"<!subteam^{a}>" if a.startswith("S") else f"<@{a}>" for a in sorted(ids)]


def approvers_hint(settings: Settings, started_by: str | None, reminded: bool = False) -> str:
    approvers = settings.approvers
    if not approvers:
        hint = (f"Only <@{started_by}>, who started the run, can decide." if started_by else
                "No one can decide yet: an intake rule started this run, not a person, so only KITEBASE_APPROVERS "
                "may decide, and it is unset.")
    else:
        hint = "Approvers: " + ", ".join(mentions(approvers)) + "."
    backups = settings.backup_approvers
    if backups:
        who = ", ".join(mentions(backups))
        hint += (f" Backup approvers ({who}) may decide too, since the reminder." if reminded else
                 f" Backup approvers ({who}) may decide once a reminder has gone out.")
    return hint.strip()
