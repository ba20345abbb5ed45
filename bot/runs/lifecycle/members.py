"""Who belongs to a Slack user group, as database rows: what the rule (bot/runs/lifecycle/people.py) reads in
every process (serve replicas, workers, the CLI) and the Slack side's timer keeps fresh (bot/slack/groups.py
reads Slack and hands what it read to `store`). A group never read has no `user_group` row, so "Slack not asked
yet" stays apart from an empty group."""

from __future__ import annotations

from sqlalchemy import delete, insert
from sqlmodel import col, select

from bot.db import clock
from bot.db.engine import Database
from bot.db.models import UserGroup, UserGroupMember, table_of
from bot.db.statements import insert_ignore


class GroupMembers:
    def __init__(self, db: Database):
        self.db = db

    def members(self, group: str) -> frozenset[str] | None:
        """The group's members as last read, or None when it was never read."""
        with self.db.session() as session:
            if session.get(UserGroup, group) is None:
                return None
            return frozenset(session.exec(select(UserGroupMember.user_id)
                                          .where(UserGroupMember.group_id == group)).all())

    def store(self, found: dict[str, frozenset[str]]) -> None:
        """What Slack said each group holds: each group's rows replaced in one transaction (a group Slack could
        not list is not in `found` and keeps what was known)."""
        for group, users in sorted(found.items()):
            with self.db.session() as session:
                # the group's row first, locked by its write: two processes refreshing at once take turns
                if not insert_ignore(session, table_of(UserGroup), {"id": group}, conflict=("id",), returning="id"):
                    session.execute(table_of(UserGroup).update().where(table_of(UserGroup).c.id == group)
                                    .values(refreshed_at=clock.now()))
                session.execute(delete(UserGroupMember).where(col(UserGroupMember.group_id) == group))
                if users:
                    session.execute(insert(UserGroupMember), [{"group_id": group, "user_id": u} for u in sorted(users)])
