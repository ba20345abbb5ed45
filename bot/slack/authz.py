"""Who may decide: KITEBASE_APPROVERS (user ids U… and user-group ids S…), else whoever started the run."""

from __future__ import annotations

import logging
import time

from bot.slack.context import SlackContext

logger = logging.getLogger(__name__)
_GROUP_CACHE: dict[str, tuple[float, frozenset[str]]] = {}
GROUP_TTL = 60.0


def may_decide(ctx: SlackContext, user_id: str, started_by: str | None) -> bool:
    approvers = ctx.settings.approvers
    if not approvers:
        return bool(started_by) and user_id == started_by
    if user_id in approvers:
        return True
    return any(user_id in _group_members(ctx, group) for group in approvers if group.startswith("S"))


def approvers_hint(ctx: SlackContext, started_by: str | None) -> str:
    approvers = ctx.settings.approvers
    if not approvers:
        return f"Only <@{started_by}>, who started the run, can decide." if started_by else ""
    names = [f"<!subteam^{a}>" if a.startswith("S") else f"<@{a}>" for a in sorted(approvers)]
    return "Approvers: " + ", ".join(names) + "."


def _group_members(ctx: SlackContext, group: str) -> frozenset[str]:
    cached = _GROUP_CACHE.get(group)
    if cached and time.monotonic() - cached[0] < GROUP_TTL:
        return cached[1]
    try:
        members = frozenset(ctx.client.usergroups_users_list(usergroup=group).get("users", []))
    except Exception:
        logger.exception("could not list members of user group %s", group)
        members = frozenset()
    _GROUP_CACHE[group] = (time.monotonic(), members)
    return members
