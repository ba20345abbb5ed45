"""Review of issue 49 (reviewer 2, "shown"): App Homes past a pass's allowance are never drawn again.

Every App Home shows the same lists, so due_refresh._homes gives every home row the same `due_at`; the pass
sorts by it (a tie for all) and keeps the first MOST_HOMES (50) in the order the database happened to return
them. While any draft waits with a running target its line changes every minute, so every pass the same first
50 homes are bumped and the 51st person's App Home keeps the line it showed when it was opened. Here the
allowance is 1 and two people have opened App Home."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.runs.execution import due_refresh
from standins.slack_harness import start_harness
from tests.test_due_shown import ENTERPRISE, _due_in, _pass_minutes, _refresh


def _home(harness: Any, user: str) -> str:
    return json.dumps(harness.slack.home_views[user]["blocks"], ensure_ascii=False)


def test_every_app_home_follows_the_clock_when_there_are_more_than_a_pass_allows(
        settings: Any, db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _due_in(db, settings, "KITE-144", 40 * 60 + 10)
    harness, stop = start_harness(settings, db)
    try:
        harness.send.mention("handle KITE-144")
        harness.drain()
        for user in ("ULEAD", "UOTHER"):
            harness.send.event({"type": "app_home_opened", "user": user, "channel": "D1", "tab": "home"})
            harness.drain()
        assert ENTERPRISE.format("41 min") in _home(harness, "UOTHER")
        monkeypatch.setattr(due_refresh, "MOST_HOMES", 1)
        for _ in range(4):  # four minutes pass, a pass each minute
            _pass_minutes(db, "KITE-144", 1)
            _refresh(harness)
        stale = [u for u in ("ULEAD", "UOTHER") if ENTERPRISE.format("41 min") in _home(harness, u)]
        assert not stale, f"after four passes, {stale}'s App Home still says 'due in 41 min' (it is due in 37)"
    finally:
        stop()
