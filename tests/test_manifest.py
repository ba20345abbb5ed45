"""manifest.json pastes into "Create an app → From a manifest" as it is: it validates against Slack's published
manifest schema (tests/data/slack_manifest.schema.json, slackapi/manifest-schema; slack_sdk ships none), and it
declares the app an agent with what the agent experience needs (docs.slack.dev: /reference/app-manifest,
/ai/agent-sessions, /ai/migrating-to-agent-messaging, /reference/events/agent_session_stopped)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bot.runs.intake import suggestions

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests" / "data" / "slack_manifest.schema.json").read_text())


def manifest() -> dict[str, Any]:
    return json.loads((ROOT / "manifest.json").read_text())


def errors(document: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(SCHEMA)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def test_the_schema_is_a_valid_draft_7_schema():
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_manifest_validates_against_slacks_schema():
    assert errors(manifest()) == []


@pytest.mark.parametrize("break_it, where", [
    (lambda m: m["features"]["agent_view"].update(agent_description="x" * 301), "features/agent_view/agent_description"),
    (lambda m: m["features"]["agent_view"]["suggested_prompts"].append({"title": "5th", "message": "one too many"}),
     "features/agent_view/suggested_prompts"),
    (lambda m: m["features"]["agent_view"]["suggested_prompts"][0].pop("message"),
     "features/agent_view/suggested_prompts/0"),
    (lambda m: m["features"]["agent_view"].update(assistant_description="the old name"), "features/agent_view"),
    (lambda m: m["settings"]["event_subscriptions"]["bot_events"].append("app_mention"),
     "settings/event_subscriptions/bot_events"),
])
def test_the_schema_check_catches_a_broken_manifest(break_it, where):
    broken = copy.deepcopy(manifest())
    break_it(broken)
    assert any(e.startswith(where) for e in errors(broken)), errors(broken)


def test_the_app_is_an_agent_with_the_prompts_the_app_answers():
    features = manifest()["features"]
    assert "assistant_view" not in features, "an agent app declares agent_view, not the legacy assistant_view"
    agent = features["agent_view"]
    assert 0 < len(agent["agent_description"]) <= 300
    assert agent["suggested_prompts"] == suggestions.as_slack(), "the manifest offers what the code answers"
    assert all(suggestions.match(p["message"]) is not None for p in agent["suggested_prompts"])
    assert features["app_home"]["messages_tab_enabled"] is True
    assert features["app_home"]["messages_tab_read_only_enabled"] is False, "people type to the agent there"


def test_the_scopes_and_events_the_agent_needs():
    m = manifest()
    scopes = set(m["oauth_config"]["scopes"]["bot"])
    assert {"assistant:write", "chat:write", "im:history", "app_mentions:read", "commands"} <= scopes
    events = set(m["settings"]["event_subscriptions"]["bot_events"])
    assert {"agent_session_stopped", "app_home_opened", "message.im", "app_mention"} <= events
    assert "assistant_thread_started" not in events, "the agent experience replaces it with app_home_opened"


def test_every_request_url_is_the_one_bolt_endpoint():
    m = manifest()
    urls = [m["settings"]["event_subscriptions"]["request_url"], m["settings"]["interactivity"]["request_url"],
            *[c["url"] for c in m["features"]["slash_commands"]]]
    assert {u.split("://", 1)[1].split("/", 1)[1] for u in urls} == {"slack/events"}
