"""Who may do what to a run: one rule, asked by every Slack surface (buttons, modals, commands, events) through
the run layer, and by the terminal (as `--as` or KITEBASE_CLI_USER): always for `kitebase queue take|resume|close`,
and, while KITEBASE_APPROVERS is set, for deciding a draft and resuming a stopped or escalated run. Unset, the
terminal is the operator's (it holds the database); `kitebase stop` always is.

- Decide on a draft: KITEBASE_APPROVERS (user ids U… and user-group ids S…), else whoever started the run;
  once the reminder went out, also KITEBASE_BACKUP_APPROVERS.
- Stop a run: whoever started it, and the approvers.
- Act on the human queue and steer the intake: the approvers (anyone, while none are set, for the queue).

Group members are database rows (bot/runs/lifecycle/members.py) that the Slack side's timer keeps fresh
(bot/slack/groups.py): a click is judged without calling Slack, and every process (serve replicas, workers, the
CLI) judges by the same rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.config import Settings

GROUPS_UNKNOWN = "I couldn't check the approver groups with Slack yet, so nothing was done; try again in a minute. "


class Groups(Protocol):
    """Who belongs to a user group: its members as last read, or None when it was never read
    (bot/runs/lifecycle/members.py keeps them in the database)."""

    def members(self, group: str) -> frozenset[str] | None: ...


@dataclass
class People:
    settings: Settings
    groups: Groups

    def may_decide(self, user: str, started_by: str | None, reminded: bool = False) -> bool:
        return may_decide(self.settings, self.groups, user, started_by, reminded)

    def why_not_decide(self, user: str, started_by: str | None, reminded: bool = False) -> str | None:
        """None if `user` may decide on a draft of a run `started_by` started; else the sentence to tell them."""
        if may_decide(self.settings, self.groups, user, started_by, reminded):
            return None
        hint = approvers_hint(self.settings, started_by, reminded)
        if unknown_groups(self.settings, self.groups, reminded):
            return GROUPS_UNKNOWN + hint
        return "You're not allowed to decide on drafts here; nothing was done. " + hint

    def why_not_stop(self, user: str, run_id: int, started_by: str | None) -> str | None:
        """None if `user` may stop the run: whoever started it, and the approvers."""
        if user and (user == started_by or (self.settings.approvers and
                                            _member(self.groups, user, self.settings.approvers))):
            return None
        if self.settings.approvers and unknown_groups(self.settings, self.groups):
            return GROUPS_UNKNOWN + f"Run #{run_id} goes on."
        who = [f"<@{started_by}>"] if started_by else []
        who += [m for m in mentions(self.settings.approvers) if m not in who]
        return (f"Only the person who asked for run #{run_id} and the approvers can stop it "
                f"({', '.join(who) or 'no one is set: use `kitebase stop` at the terminal'}); it goes on.")

    def why_not_steer(self, user: str, what: str) -> str | None:
        """None if `user` may act on the human queue or the intake (`what` says which, for the sentence)."""
        if not self.settings.approvers or may_decide(self.settings, self.groups, user, None):
            return None
        return f"Only the approvers can {what}. " + approvers_hint(self.settings, None)


def _member(groups: Groups, user_id: str, ids: frozenset[str]) -> bool:
    return user_id in ids or any(user_id in (groups.members(g) or ()) for g in ids if g.startswith("S"))


def may_decide(settings: Settings, groups: Groups, user_id: str, started_by: str | None,
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
    """The user groups whose members are kept (approvers and backup approvers)."""
    return frozenset(g for g in settings.approvers | settings.backup_approvers if g.startswith("S"))


def unknown_groups(settings: Settings, groups: Groups, reminded: bool = False) -> list[str]:
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
