"""Who belongs to a Slack user group, as rows every process reads (the rule in bot/runs/lifecycle/people.py);
the Slack side's timer keeps them fresh (bot/slack/groups.py)."""

from __future__ import annotations

from bot.db.engine import Database
from bot.runs.lifecycle.members import GroupMembers
from bot.runs.lifecycle.people import GROUPS_UNKNOWN, People
from bot.slack.groups import GroupSync


class Slack:
    def __init__(self, groups: dict[str, list[str]], broken: frozenset[str] = frozenset()):
        self.groups, self.broken, self.asked = groups, broken, []

    def usergroups_users_list(self, usergroup: str) -> dict:
        self.asked.append(usergroup)
        if usergroup in self.broken:
            raise OSError("Slack is unreachable")
        return {"users": self.groups[usergroup]}


def test_never_read_empty_and_replaced(db):
    members = GroupMembers(db)
    assert members.members("SLEADS") is None, "never read"
    members.store({"SLEADS": frozenset({"UA", "UB"}), "SEMPTY": frozenset()})
    assert members.members("SLEADS") == {"UA", "UB"} and members.members("SEMPTY") == frozenset()
    members.store({"SLEADS": frozenset({"UC"})})
    assert members.members("SLEADS") == {"UC"}, "all of a group's members replaced at once"
    assert members.members("SEMPTY") == frozenset(), "a group not read this time keeps what was known"


def test_the_sync_writes_rows_that_another_process_reads(db, settings):
    slack = Slack({"SLEADS": ["UGROUPIE"], "SNIGHT": ["UOWL"]}, broken=frozenset({"SNIGHT"}))
    GroupSync(GroupMembers(db).store).refresh(slack, frozenset({"SLEADS", "SNIGHT", "UBOSS"}))
    assert slack.asked == ["SLEADS", "SNIGHT"], "only user groups are asked about"
    other = Database.from_url(settings.database_url)  # another process: nothing shared but the rows
    try:
        people = People(settings.model_copy(update={"approvers": frozenset({"SLEADS", "SNIGHT"})}),
                        GroupMembers(other))
        assert people.why_not_steer("UGROUPIE", "act on the human queue") is None
        assert people.why_not_decide("UOWL", None, False) == GROUPS_UNKNOWN + "Approvers: <!subteam^SLEADS>, " \
                                                                               "<!subteam^SNIGHT>."
    finally:
        other.engine.dispose()
