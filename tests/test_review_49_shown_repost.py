"""Review of issue 49 (reviewer 2, "shown"): a refresh re-posts a pick-up message a person deleted, and moves
the run's thread.

An intake run's pick-up message ("Rule urgent-sso picked up ticket …", with its due line) is kept fresh by the
due-refresh job while the run is live. If someone deletes it (tidying the intake channel), the next pass bumps it,
chat.update answers message_not_found, the sender forgets its ts and posts it again: a new top-level message,
with no thread under it. claims.sent then links the run's thread to the new message (claims._link_thread, meant
for a slash command's first post), so what the run says next goes under the new message, away from its timeline
and its card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.runs.intake.rules import load
from standins.slack_harness import start_harness
from tests.helpers import intake_through, run_row
from tests.test_due_shown import RULES, _pass_minutes, _refresh


def test_a_deleted_pick_up_message_is_not_posted_again_by_a_refresh(settings: Any, db: Any, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(RULES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(rules_file))
    settings = settings.model_copy(update={"intake_rules": rules_file, "approvers": frozenset({"ULEAD"})})
    harness, stop = start_harness(settings, db)
    try:
        path = tmp_path / "add.jsonl"
        path.write_text(json.dumps({"customer": "harbor-pine", "title": "Okta sign-in loops", "priority": "urgent",
                                    "body": "Everyone is sent back to the login page.", "tags": ["sso"]}) + "\n")
        assert main(["desk", "add", str(path)]) == 0
        capsys.readouterr()
        [run_id] = intake_through(db, settings, load(rules_file), harness)
        run = run_row(db, run_id)
        thread = (run.origin or {}).get("thread_ts")
        top = [c for c in harness.slack.calls_to("chat.postMessage") if c["channel"] == "C0INTAKE"
               and not c.get("thread_ts")]
        assert len(top) == 1 and thread, "one pick-up message, the run's thread under it (the premise)"
        with harness.slack._lock:  # a person deletes the pick-up message
            harness.slack.messages.pop(("C0INTAKE", thread))

        _pass_minutes(db, str(run.ticket_id), 1)
        _refresh(harness)
        top = [c for c in harness.slack.calls_to("chat.postMessage") if c["channel"] == "C0INTAKE"
               and not c.get("thread_ts")]
        moved = (run_row(db, run_id).origin or {}).get("thread_ts")
        assert len(top) == 1 and moved == thread, (
            f"a minute after the pick-up message was deleted, the refresh posted it again ({len(top)} top-level "
            f"posts) and the run's thread moved from {thread} to {moved}")
    finally:
        stop()
