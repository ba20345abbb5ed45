"""The Slack stand-in checks the blocks this issue added as Slack documents them: feedback buttons (only inside
a context_actions block, at most 5 elements), and the table block (rows, cells, column settings)."""

from __future__ import annotations

import copy

from standins.slack_server import message_block_errors

# Slack's own example (docs.slack.dev, context actions block), with the optional accessibility labels.
DOCUMENTED = {"type": "context_actions", "elements": [{
    "type": "feedback_buttons", "action_id": "feedback_buttons_1",
    "positive_button": {"text": {"type": "plain_text", "text": "👍"}, "value": "positive_feedback",
                        "accessibility_label": "Mark this response as good"},
    "negative_button": {"text": {"type": "plain_text", "text": "👎"}, "value": "negative_feedback"}}]}


def build_feedback(_: int) -> dict:
    return copy.deepcopy(DOCUMENTED)


def feedback(**change) -> dict:
    block = build_feedback(7)
    block["elements"][0].update(change)
    return block


def test_slacks_documented_example_is_accepted():
    assert message_block_errors([DOCUMENTED]) == []
    without_action_id = feedback()
    del without_action_id["elements"][0]["action_id"]
    assert message_block_errors([without_action_id]) == [], "action_id is optional on feedback_buttons"


def test_feedback_buttons_rules():
    assert "only be used inside a context_actions block" in message_block_errors(
        [{"type": "actions", "elements": build_feedback(7)["elements"]}])[0]
    assert any("missing required field: negative_button" in e for e in message_block_errors([feedback(negative_button=None)]))
    long_label = {"text": {"type": "plain_text", "text": "x"}, "value": "v", "accessibility_label": "a" * 76}
    assert any("accessibility_label" in e for e in message_block_errors([feedback(positive_button=long_label)]))
    mrkdwn = {"text": {"type": "mrkdwn", "text": "x"}, "value": "v"}
    assert any("plain_text" in e for e in message_block_errors([feedback(positive_button=mrkdwn)]))
    six = {"type": "context_actions", "elements": build_feedback(7)["elements"] * 6}
    assert any("no more than 5 items" in e for e in message_block_errors([six]))
    button = {"type": "context_actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "x"},
                                                       "action_id": "a"}]}
    assert any("must be one of ['feedback_buttons', 'icon_button']" in e for e in message_block_errors([button]))


def cell(text: str) -> dict:
    return {"type": "raw_text", "text": text}


def test_table_rules():
    good = {"type": "table", "rows": [[cell("a"), cell("1")]], "column_settings": [None, {"align": "right"}]}
    assert message_block_errors([good]) == []
    assert any("at least 1 item" in e for e in message_block_errors([{"type": "table", "rows": []}]))
    assert any("no more than 100 items" in e
               for e in message_block_errors([{"type": "table", "rows": [[cell("a")]] * 101}]))
    assert any("no more than 20 items" in e
               for e in message_block_errors([{"type": "table", "rows": [[cell("a")] * 21]}]))
    assert any("raw_text or rich_text" in e
               for e in message_block_errors([{"type": "table", "rows": [[{"type": "mrkdwn", "text": "a"}]]}]))
    assert any("missing required field: text" in e
               for e in message_block_errors([{"type": "table", "rows": [[{"type": "raw_text"}]]}]))
    bad_settings = {"type": "table", "rows": [[cell("a")]], "column_settings": [{"align": "middle"},
                                                                              {"is_wrapped": "yes"}]}
    assert len(message_block_errors([bad_settings])) == 2


def test_a_closed_stretch_delivered_after_the_run_moved_on_still_has_a_status_line() -> None:
    """Found by the soak: a stretch closed by a draft, delivered after a Slack outage when the run was working
    again, had an empty context line, which Slack refuses (invalid_blocks), so the row failed for good."""
    from bot.slack_ui.blocks import build_timeline, timeline_status

    for status in ("queued", "running", "awaiting_approval", "completed", "escalated", "failed", "stopped"):
        line = timeline_status(status, closed=True)
        assert line.strip(), status
        _, blocks = build_timeline("On it", [], line)
        assert message_block_errors(blocks) == [], status
    assert timeline_status("running", closed=True) == ":arrow_down: continued further down this thread"
