"""The history rules, checked and repaired without any model."""

import pytest

from bot.agent import history
from bot.agent.errors import MalformedHistory

USER = {"role": "user", "content": "handle KITE-142"}
ASK = {"role": "assistant", "content": [{"type": "text", "text": "two lookups"},
                                        {"type": "tool_use", "id": "a", "name": "x", "input": {}},
                                        {"type": "tool_use", "id": "b", "name": "y", "input": {}}]}


def results(*ids, extra=None):
    content = [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids]
    return {"role": "user", "content": content + (extra or [])}


def test_well_formed_history_passes():
    history.check([USER, ASK, results("a", "b")])


@pytest.mark.parametrize("messages, problem", [
    ([ASK], "first message"),
    ([USER, USER], "both user"),
    ([USER, ASK], "not answered"),
    ([USER, ASK, results("a")], "answered 0 times"),
    ([USER, ASK, results("a", "b", "b")], "answered 2 times"),
    ([USER, ASK, {"role": "user", "content": [{"type": "text", "text": "hi"}, *results("a", "b")["content"]]}],
     "must come before"),
    ([USER, ASK, results("a", "b", "c")], "unknown tool_use c"),
    ([results("z")], "answer no tool_use"),
])
def test_malformed_histories_are_refused(messages, problem):
    with pytest.raises(MalformedHistory) as caught:
        history.check(messages)
    assert problem in str(caught.value)


def test_repair_answers_orphans_without_running_anything():
    repaired, ids = history.repair([USER, ASK], "interrupted")
    assert ids == ["a", "b"] and repaired[-1]["content"][0]["is_error"] is True
    history.check(repaired)
    partial, ids = history.repair([USER, ASK, results("a", extra=[{"type": "text", "text": "note"}])], "interrupted")
    assert ids == ["b"] and [b.get("tool_use_id", b["type"]) for b in partial[2]["content"]] == ["a", "b", "text"]
    history.check(partial)


def test_follow_up_text_goes_after_tool_results():
    messages = history.append_user_text([USER, ASK, results("a", "b")], "also check Harbor Pine")
    assert [b["type"] for b in messages[-1]["content"]] == ["tool_result", "tool_result", "text"]
