"""Checks the local Messages API stand-in against the real anthropic SDK (no network)."""

import json
import math
import re
import time
import typing
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import anthropic
import anthropic.types
import pydantic
import pytest

from standins.anthropic_server import (
    MessagesAPIServer,
    RateLimits,
    error,
    redacted_thinking,
    reply,
    text,
    thinking,
    tool_use,
)
from standins.clock import ManualClock
from standins.prompt_cache import PromptCache

MODEL = "claude-test-model"
OVERLOADED = (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})


@pytest.fixture
def srv():
    with MessagesAPIServer() as server:
        yield server


class _SDKTime:
    """`time` as the SDK's retry loop sees it, with its waits going to a manual clock (which records them)."""

    def __init__(self, clock: ManualClock):
        self.sleep = clock.sleep

    def __getattr__(self, name: str) -> typing.Any:
        return getattr(time, name)


@pytest.fixture
def clock(monkeypatch):
    """A manual clock for the stand-in, which the SDK's waits before a retry move: nothing refills or expires
    while the machine is slow, and a test checks the waits themselves rather than how long it took."""
    manual = ManualClock()
    monkeypatch.setattr(anthropic._base_client, "time", _SDKTime(manual))
    return manual


def make_client(srv, **kw):
    kw.setdefault("max_retries", 0)
    return anthropic.Anthropic(api_key="test-key", base_url=srv.url, **kw)


def create(client, messages, **kw):
    kw.setdefault("max_tokens", 256)
    return client.messages.create(model=MODEL, messages=messages, **kw)


TOOLS = [
    {
        "name": "lookup",
        "description": "Look something up",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    }
]


def test_simple_round_trip(srv):
    srv.queue(reply(text("Hello there"), usage={"input_tokens": 12, "output_tokens": 3}))
    msg = create(make_client(srv), [{"role": "user", "content": "Hi"}], system="Be brief.")

    assert msg.id == "msg_test_1"
    assert msg.type == "message" and msg.role == "assistant"
    assert msg.model == MODEL
    assert msg.stop_reason == "end_turn" and msg.stop_sequence is None
    assert [b.type for b in msg.content] == ["text"]
    assert msg.content[0].text == "Hello there"
    assert msg.usage.input_tokens == 12 and msg.usage.output_tokens == 3
    assert msg.usage.cache_creation_input_tokens == 0 and msg.usage.cache_read_input_tokens == 0

    (req,) = srv.requests
    assert req["path"] == "/v1/messages"
    assert req["body"]["model"] == MODEL and req["body"]["system"] == "Be brief."
    assert (
        req["headers"]["authorization"] == "Bearer test-key" or req["headers"].get("x-api-key") == "test-key"
    )
    assert "anthropic-version" in req["headers"]


def test_tool_loop_with_is_error_and_cache_control(srv):
    call = tool_use("lookup", {"q": "weather"})
    srv.queue(reply(text("Let me check."), call), reply(text("It is sunny.")))
    client = make_client(srv)
    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Weather?", "cache_control": {"type": "ephemeral"}}],
        }
    ]

    first = create(client, messages, tools=TOOLS)
    assert first.stop_reason == "tool_use"
    block = first.content[1]
    assert block.type == "tool_use" and block.name == "lookup" and block.input == {"q": "weather"}
    assert block.id == call["id"]

    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": block.id, "content": "service down", "is_error": True},
                {"type": "text", "text": "Try to answer anyway."},
            ],
        },
    ]
    second = create(client, messages, tools=TOOLS)
    assert second.content[0].text == "It is sunny."
    assert second.id == "msg_test_2"
    sent = srv.requests[1]["body"]["messages"][2]["content"][0]
    assert sent == {
        "type": "tool_result",
        "tool_use_id": block.id,
        "content": "service down",
        "is_error": True,
    }
    assert srv.requests[1]["body"]["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}


def test_beta_endpoint_query_string_is_routed(srv):
    srv.queue(reply("ok"))
    msg = make_client(srv).beta.messages.create(
        model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "x"}]
    )
    assert msg.content[0].text == "ok"
    assert srv.requests[0]["path"] == "/v1/messages"


def test_responder_callable_sees_request():
    seen = []

    def responder(body):
        seen.append(body)
        return reply(text(f"echo: {body['messages'][-1]['content']}"))

    with MessagesAPIServer(responder) as srv:
        msg = create(make_client(srv), [{"role": "user", "content": "ping"}])
    assert msg.content[0].text == "echo: ping"
    assert seen[0]["model"] == MODEL


ASSISTANT_TOOL_CALL = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "toolu_a", "name": "lookup", "input": {"q": "x"}}],
}


@pytest.mark.parametrize(
    "messages, expected",
    [
        pytest.param(
            [
                {"role": "user", "content": "go"},
                ASSISTANT_TOOL_CALL,
                {"role": "user", "content": "no result given"},
            ],
            "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_a",
            id="tool_use-unanswered",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                ASSISTANT_TOOL_CALL,
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "here you go"},
                        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "r"},
                    ],
                },
            ],
            "`tool_result` blocks must come before any other content",
            id="tool_result-after-text",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                ASSISTANT_TOOL_CALL,
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_zzz", "content": "r"}],
                },
            ],
            "unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz",
            id="tool_result-unknown-id",
        ),
        pytest.param(
            [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
            'roles must alternate between "user" and "assistant"',
            id="two-user-messages",
        ),
        pytest.param(
            [{"role": "assistant", "content": "hi"}],
            'first message must use the "user" role',
            id="assistant-first",
        ),
        pytest.param(
            [{"role": "user", "content": []}],
            "messages.0: all messages must have non-empty content",
            id="empty-content",
        ),
        pytest.param(
            [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]}],
            "Input tag 'tool_use' found using 'type'",
            id="tool_use-in-user-message",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                ASSISTANT_TOOL_CALL,
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "is_error": "yes"}],
                },
            ],
            "messages.2.content.0.is_error: Input should be a valid boolean",
            id="is_error-not-bool",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                ASSISTANT_TOOL_CALL,
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a"}]},
                ASSISTANT_TOOL_CALL,
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a"}]},
            ],
            "`tool_use` ids must be unique",
            id="duplicate-tool_use-id",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {**thinking("hmm"), "signature": "c2ln", "cache_control": {"type": "ephemeral"}},
                    {"type": "text", "text": "ok"},
                ]},
                {"role": "user", "content": "and?"},
            ],
            "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted",
            id="thinking-with-cache_control",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {"type": "redacted_thinking", "data": "ZGF0YQ==", "cache_control": {"type": "ephemeral"}},
                ]},
                {"role": "user", "content": "and?"},
            ],
            "messages.1.content.0.redacted_thinking.cache_control: Extra inputs are not permitted",
            id="redacted_thinking-with-cache_control",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}]},
            ],
            "messages.1.content.0.signature: Field required",
            id="thinking-without-signature",
        ),
        pytest.param(
            [{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "redacted_thinking"}]}],
            "messages.1.content.0.data: Field required",
            id="redacted_thinking-without-data",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": {"url": "u"}},
                    {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1"},
                ]},
            ],
            "messages.1.content.1.content: Field required",
            id="server-tool-result-without-content",
        ),
        pytest.param(
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {"type": "code_execution_tool_result", "tool_use_id": 7,
                     "content": {"type": "code_execution_result", "stdout": "", "stderr": "", "return_code": 0,
                                 "content": []}},
                ]},
            ],
            "messages.1.content.0.tool_use_id: Input should be a valid string",
            id="server-tool-result-id-not-a-string",
        ),
        pytest.param(
            [{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "container_upload"}]}],
            "messages.1.content.0.file_id: Field required",
            id="container_upload-without-file_id",
        ),
        pytest.param(
            [{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "made_up_result"}]}],
            "Input tag 'made_up_result' found using 'type' does not match any of the expected tags",
            id="unknown-assistant-block",
        ),
    ],
)
def test_invalid_history_is_rejected(srv, messages, expected):
    srv.queue(reply("never served"))
    with pytest.raises(anthropic.BadRequestError) as excinfo:
        create(make_client(srv), messages, tools=TOOLS)
    err = excinfo.value
    assert err.status_code == 400
    assert err.body["error"]["type"] == "invalid_request_error"
    assert expected in err.body["error"]["message"]
    assert expected in str(err)
    assert len(srv.requests) == 1  # recorded, not retried
    assert srv.pending == 1  # the responder / queue was not consulted


def test_trailing_assistant_tool_use_is_accepted(srv):
    srv.queue(reply("fine"))
    msg = create(make_client(srv), [{"role": "user", "content": "go"}, ASSISTANT_TOOL_CALL])
    assert msg.content[0].text == "fine"


def test_five_cache_control_markers_rejected(srv):
    cc = {"type": "ephemeral"}
    srv.queue(reply("never served"))
    with pytest.raises(anthropic.BadRequestError) as excinfo:
        create(
            make_client(srv),
            [
                {"role": "user", "content": [{"type": "text", "text": "a", "cache_control": cc}]},
                {"role": "assistant", "content": [{"type": "text", "text": "b", "cache_control": cc}]},
                {"role": "user", "content": [{"type": "text", "text": "c", "cache_control": cc}]},
            ],
            system=[{"type": "text", "text": "sys", "cache_control": cc}],
            tools=[{**TOOLS[0], "cache_control": cc}],
        )
    assert "A maximum of 4 blocks with cache_control may be provided. Found 5." in str(excinfo.value)


def test_four_cache_control_markers_accepted_and_ttl_checked(srv):
    cc = {"type": "ephemeral", "ttl": "1h"}
    srv.queue(reply("ok"))
    client = make_client(srv)
    create(
        client,
        [{"role": "user", "content": [{"type": "text", "text": "a", "cache_control": cc}]}],
        system=[{"type": "text", "text": "sys", "cache_control": cc}],
        tools=[{**TOOLS[0], "cache_control": {"type": "ephemeral"}}],
    )
    with pytest.raises(anthropic.BadRequestError, match="ttl"):
        create(
            client,
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral", "ttl": "2h"}}
                    ],
                }
            ],
        )


def test_bad_tool_definitions(srv):
    client = make_client(srv)
    with pytest.raises(anthropic.BadRequestError, match="String should match pattern"):
        create(client, [{"role": "user", "content": "x"}], tools=[{**TOOLS[0], "name": "bad name"}])
    with pytest.raises(anthropic.BadRequestError, match="Tool names must be unique"):
        create(client, [{"role": "user", "content": "x"}], tools=TOOLS + TOOLS)
    with pytest.raises(anthropic.BadRequestError, match="input_schema.type"):
        create(
            client,
            [{"role": "user", "content": "x"}],
            tools=[{"name": "t", "input_schema": {"type": "array"}}],
        )


def test_529_is_retried(srv, clock):
    srv.queue(OVERLOADED, reply("recovered"))
    client = make_client(srv, max_retries=1)
    msg = create(client, [{"role": "user", "content": "hi"}])
    assert msg.content[0].text == "recovered"
    assert len(srv.requests) == 2
    assert len(clock.slept) == 1 and 0.375 <= clock.slept[0] <= 0.5  # SDK backoff: 0.5 s * (0.75..1)


def test_529_retry_after_ms_header_makes_retry_fast(srv, clock):
    srv.queue(error(529, "overloaded_error", "Overloaded", headers={"retry-after-ms": "10"}), OVERLOADED)
    client = make_client(srv, max_retries=1)
    with pytest.raises(anthropic.APIStatusError) as excinfo:
        create(client, [{"role": "user", "content": "hi"}])
    assert clock.slept == [0.01]
    assert excinfo.value.status_code == 529
    assert len(srv.requests) == 2  # one try + one retry, then the second 529 is raised
    assert excinfo.value.body["error"]["type"] == "overloaded_error"


def test_missing_api_key_is_401(srv):
    client = make_client(srv)
    with pytest.raises(anthropic.AuthenticationError) as excinfo:
        create(client, [{"role": "user", "content": "hi"}], extra_headers={"Authorization": anthropic.omit})
    assert excinfo.value.status_code == 401
    assert excinfo.value.body["error"]["type"] == "authentication_error"
    assert "authorization" not in srv.requests[0]["headers"]


def test_raw_http_errors(srv):
    def post(path, body, headers=None):
        req = urllib.request.Request(
            srv.url + path,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json", **(headers or {})},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                return resp.status, json.loads(resp.read()), resp.headers
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read()), exc.headers

    ok_body = {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    status, body, _ = post("/v1/complete", ok_body, {"x-api-key": "k"})
    assert status == 404 and body["error"]["type"] == "not_found_error"
    status, body, _ = post("/v1/messages", ok_body)
    assert status == 401 and body["error"]["type"] == "authentication_error"
    status, body, _ = post("/v1/messages", {**ok_body, "stream": True}, {"x-api-key": "k"})
    assert status == 400 and "stream" in body["error"]["message"]
    status, body, _ = post("/v1/messages", {**ok_body, "max_tokens": 0}, {"x-api-key": "k"})
    assert status == 400 and body["error"]["message"].startswith("max_tokens")
    status, body, headers = post("/v1/messages", ok_body, {"x-api-key": "k"})
    assert status == 500 and "ran out" in body["error"]["message"]
    assert headers["x-should-retry"] == "false" and headers["request-id"].startswith("req_test_")
    assert [r["headers"].get("x-api-key") for r in srv.requests] == ["k", None, "k", "k", "k"]


def test_out_of_script_is_not_retried(srv):
    with pytest.raises(anthropic.InternalServerError, match="ran out"):
        create(make_client(srv, max_retries=2), [{"role": "user", "content": "hi"}])
    assert len(srv.requests) == 1


# --------------------------------------------------------------------------
# thinking and output_config parameters
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, expected",
    [
        pytest.param({"thinking": {"type": "sometimes"}},
                     "thinking.type: Input should be 'adaptive', 'enabled', 'disabled'", id="thinking-type"),
        pytest.param({"thinking": {"display": "omitted"}}, "thinking.type: Field required", id="thinking-no-type"),
        pytest.param({"thinking": "adaptive"}, "thinking: Input should be a valid dictionary", id="thinking-str"),
        pytest.param({"thinking": {"type": "adaptive", "display": "full"}},
                     "thinking.adaptive.display: Input should be 'summarized' or 'omitted'", id="display"),
        pytest.param({"thinking": {"type": "adaptive", "budget_tokens": 2048}},
                     "thinking.adaptive.budget_tokens: Extra inputs are not permitted", id="adaptive-budget"),
        pytest.param({"thinking": {"type": "enabled"}},
                     "thinking.enabled.budget_tokens: Field required", id="enabled-no-budget"),
        pytest.param({"thinking": {"type": "enabled", "budget_tokens": 1023}, "max_tokens": 4096},
                     "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
                     id="budget-too-small"),
        pytest.param({"thinking": {"type": "enabled", "budget_tokens": "2048"}, "max_tokens": 4096},
                     "thinking.enabled.budget_tokens: Input should be a valid integer", id="budget-str"),
        pytest.param({"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 2048},
                     "`max_tokens` must be greater than `thinking.budget_tokens`", id="budget-not-below-max"),
        pytest.param({"thinking": {"type": "disabled", "display": "omitted"}},
                     "thinking.disabled.display: Extra inputs are not permitted", id="disabled-extra"),
        pytest.param({"output_config": {"effort": "extreme"}},
                     "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'",
                     id="effort"),
        pytest.param({"output_config": {"verbosity": "low"}},
                     "output_config.verbosity: Extra inputs are not permitted", id="output_config-extra"),
        pytest.param({"output_config": "low"}, "output_config: Input should be a valid dictionary",
                     id="output_config-str"),
    ],
)
def test_invalid_thinking_and_output_config_are_rejected(srv, params, expected):
    srv.queue(reply("never served"))
    with pytest.raises(anthropic.BadRequestError) as excinfo:
        create(make_client(srv), [{"role": "user", "content": "hi"}], **params)
    assert excinfo.value.body["error"]["type"] == "invalid_request_error"
    assert expected in excinfo.value.body["error"]["message"]
    assert srv.pending == 1


@pytest.mark.parametrize(
    "params",
    [
        {"thinking": {"type": "adaptive"}, "output_config": {"effort": "max"}},
        {"thinking": {"type": "adaptive", "display": "omitted"}, "output_config": {"effort": None}},
        {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 1025},
        {"thinking": {"type": "disabled"}, "output_config": {"effort": "xhigh"}},
        {"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}},
    ],
)
def test_valid_thinking_and_output_config_are_accepted(srv, params):
    srv.queue(reply("ok"))
    assert create(make_client(srv), [{"role": "user", "content": "hi"}], **params).content[0].text == "ok"
    for key in ("thinking", "output_config"):
        assert srv.message_requests[0].get(key) == params.get(key)


# --------------------------------------------------------------------------
# thinking signatures
# --------------------------------------------------------------------------

THINK = {"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "low"}}


def _thinking_turn(srv, client):
    """One answered turn with thinking (a summary, an omitted one) and a redacted block, as history."""
    call = tool_use("lookup", {"q": "x"})
    srv.queue(reply(thinking("I should look it up."), redacted_thinking(), thinking(""), call))
    user = {"role": "user", "content": "go"}
    first = create(client, [user], tools=TOOLS, **THINK)
    assistant = {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "r"}]}
    return first, [user, assistant, result]


def test_thinking_blocks_are_signed_and_round_trip_unchanged(srv):
    client = make_client(srv)
    first, history = _thinking_turn(srv, client)
    assert [b.type for b in first.content] == ["thinking", "redacted_thinking", "thinking", "tool_use"]
    summary, redacted, omitted = first.content[:3]
    assert summary.thinking == "I should look it up." and summary.signature
    assert omitted.thinking == "" and omitted.signature and omitted.signature != summary.signature
    assert redacted.data
    assert srv.thinking_verified == 0

    srv.queue(reply("done"))
    assert create(client, history, tools=TOOLS, **THINK).content[0].text == "done"
    assert srv.thinking_verified == 3
    assert srv.message_requests[1]["messages"][1]["content"][:3] == srv.requests[0]["response"]["content"][:3]
    assert srv.message_requests[1]["thinking"] == THINK["thinking"]
    assert srv.message_requests[1]["output_config"] == THINK["output_config"]

    # the whole history again, one more turn on: every block is checked every time
    srv.queue(reply("again"))
    history += [{"role": "assistant", "content": "done"}, {"role": "user", "content": "and?"}]
    assert create(client, history, tools=TOOLS, **THINK).content[0].text == "again"
    assert srv.thinking_verified == 6


def _altered(history, index, **changes):
    assistant = dict(history[1], content=[dict(b) for b in history[1]["content"]])
    assistant["content"][index].update(changes)
    return [history[0], assistant, history[2]]


@pytest.mark.parametrize(
    "change, expected",
    [
        pytest.param(lambda h: _altered(h, 0, thinking="I should look it up!"),
                     "messages.1.content.0: Invalid `signature` in `thinking` block", id="text-changed"),
        pytest.param(lambda h: _altered(h, 2, thinking="something I never thought"),
                     "messages.1.content.2: Invalid `signature` in `thinking` block", id="omitted-text-filled-in"),
        pytest.param(lambda h: _altered(h, 0, signature=h[1]["content"][2]["signature"]),
                     "messages.1.content.0: Invalid `signature` in `thinking` block", id="signature-swapped"),
        pytest.param(lambda h: _altered(h, 0, signature="EqQBCkYIBxgCKkA="),
                     "messages.1.content.0: Invalid `signature` in `thinking` block", id="signature-made-up"),
        pytest.param(lambda h: _altered(h, 0, signature=""),
                     "messages.1.content.0: Invalid `signature` in `thinking` block", id="signature-empty"),
        pytest.param(lambda h: _altered(h, 1, data="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"),
                     "messages.1.content.1: Invalid `data` in `redacted_thinking` block", id="redacted-made-up"),
    ],
)
def test_altered_thinking_is_rejected(srv, change, expected):
    client = make_client(srv)
    _, history = _thinking_turn(srv, client)
    srv.queue(reply("never served"))
    with pytest.raises(anthropic.BadRequestError) as excinfo:
        create(client, change(history), tools=TOOLS, **THINK)
    assert excinfo.value.body["error"] == {"type": "invalid_request_error", "message": expected}
    assert srv.pending == 1 and srv.thinking_verified == 0


def test_signatures_belong_to_the_server_that_issued_them(srv):
    _, history = _thinking_turn(srv, make_client(srv))
    with MessagesAPIServer() as other:
        other.queue(reply("never served"))
        with pytest.raises(anthropic.BadRequestError, match="Invalid `signature` in `thinking` block"):
            create(make_client(other), history, tools=TOOLS, **THINK)


def test_a_scripted_signature_is_kept_and_accepted_back_for_its_text_only(srv):
    scripted = {"type": "thinking", "thinking": "Scripted thought.", "signature": "sig-abc=="}
    srv.queue(reply(scripted, "Hello."), reply("fine"))
    client = make_client(srv)
    user = {"role": "user", "content": "hi"}
    first = create(client, [user], **THINK)
    assert first.content[0].signature == "sig-abc=="
    assistant = {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    later = {"role": "user", "content": "more"}
    assert create(client, [user, assistant, later], **THINK).content[0].text == "fine"
    assert srv.thinking_verified == 1
    assistant["content"][0] = {**scripted, "thinking": "Another thought."}
    with pytest.raises(anthropic.BadRequestError, match="Invalid `signature`"):
        create(client, [user, assistant, later], **THINK)


SERVER_TOOL_BLOCKS = [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "okta"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
     "content": [{"type": "web_search_result", "url": "https://example.com/okta", "title": "Okta",
                  "encrypted_content": "EqgfCioIARgBIiQ3"}]},
    {"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_fetch", "input": {"url": "https://example.com/a"}},
    {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_02",
     "content": {"type": "web_fetch_result", "url": "https://example.com/a", "retrieved_at": "2026-01-01T00:00:00Z",
                 "content": {"type": "document", "title": "A",
                             "source": {"type": "text", "media_type": "text/plain", "data": "page text"}}}},
    {"type": "server_tool_use", "id": "srvtoolu_03", "name": "code_execution", "input": {"code": "print(1)"}},
    {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_03",
     "content": {"type": "code_execution_result", "stdout": "1\n", "stderr": "", "return_code": 0, "content": []}},
    {"type": "server_tool_use", "id": "srvtoolu_04", "name": "bash_code_execution", "input": {"command": "ls"}},
    {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_04",
     "content": {"type": "bash_code_execution_result", "stdout": "a.txt\n", "stderr": "", "return_code": 0,
                 "content": []}},
    {"type": "server_tool_use", "id": "srvtoolu_05", "name": "text_editor_code_execution",
     "input": {"command": "view", "path": "a.txt"}},
    {"type": "text_editor_code_execution_tool_result", "tool_use_id": "srvtoolu_05",
     "content": {"type": "text_editor_code_execution_view_result", "file_type": "text", "content": "hello",
                 "num_lines": 1, "start_line": 1, "total_lines": 1}},
    {"type": "server_tool_use", "id": "srvtoolu_06", "name": "tool_search_tool_regex", "input": {"query": "look"}},
    {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_06",
     "content": {"type": "tool_search_tool_search_result",
                 "tool_references": [{"type": "tool_reference", "tool_name": "lookup"}]}},
    {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
]


def test_every_response_block_type_goes_back_in_an_assistant_message(srv):
    documented = {cls.model_fields["type"].annotation.__args__[0]
                  for cls in typing.get_args(typing.get_args(anthropic.types.ContentBlock)[0])}
    adapter = pydantic.TypeAdapter(anthropic.types.ContentBlock)
    for block in SERVER_TOOL_BLOCKS:  # the examples are blocks the SDK reads as a response's
        adapter.validate_python(block)
    call = tool_use("lookup", {"q": "x"})
    srv.queue(reply(thinking("Search, fetch, run."), redacted_thinking(), text("Working."), *SERVER_TOOL_BLOCKS,
                    call), reply("all there"))
    client = make_client(srv)
    user = {"role": "user", "content": "go"}
    first = create(client, [user], tools=TOOLS, **THINK)
    sent_back = [b.model_dump(exclude_none=True) for b in first.content]
    assert {b["type"] for b in sent_back} == documented
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "r"}]}
    second = create(client, [user, {"role": "assistant", "content": sent_back}, result], tools=TOOLS, **THINK)
    assert second.content[0].text == "all there"
    assert srv.message_requests[1]["messages"][1]["content"] == sent_back
    assert srv.thinking_verified == 2


# --------------------------------------------------------------------------
# rate limits
# --------------------------------------------------------------------------

HI = [{"role": "user", "content": "hi"}]
RFC3339_WHOLE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _reset_in(value: str, clock: ManualClock) -> float:
    """Seconds from the clock's now to an RFC 3339 reset time."""
    return datetime.fromisoformat(value).timestamp() - clock.wall()


def _always(*_):
    return reply("ok")


def test_requests_per_minute_refuse_the_sixth_and_say_when_to_come_back(clock):
    with MessagesAPIServer(limits=RateLimits(requests_per_minute=5, minute_seconds=1.0), clock=clock) as srv:
        srv.queue(*[reply(f"answer {n}") for n in range(6)])
        client = make_client(srv)
        for _ in range(5):
            create(client, HI)
        with pytest.raises(anthropic.RateLimitError) as excinfo:
            create(client, HI)
        err = excinfo.value
        assert err.status_code == 429 and err.body["error"]["type"] == "rate_limit_error"
        assert "rate limit of 5 requests per minute" in err.body["error"]["message"]
        headers = err.response.headers
        retry = float(headers["retry-after"])
        assert re.fullmatch(r"\d+\.\d{3}", headers["retry-after"])
        assert retry == 0.2  # one request every 0.2 s, and none came back: the clock stood still
        assert headers["anthropic-ratelimit-requests-limit"] == "5"
        assert headers["anthropic-ratelimit-requests-remaining"] == "0"
        assert RFC3339_MS.match(headers["anthropic-ratelimit-requests-reset"])
        assert _reset_in(headers["anthropic-ratelimit-requests-reset"], clock) == pytest.approx(1.0, abs=0.001)
        assert "anthropic-ratelimit-tokens-limit" not in headers  # no token limit configured
        assert srv.pending == 1, "a refused request consumes no scripted reply"
        assert (srv.answered, srv.rate_limited) == (5, 1)

        clock.advance(retry - 0.001)
        with pytest.raises(anthropic.RateLimitError):  # not quite yet
            create(client, HI)
        clock.advance(0.001)
        assert create(client, HI).content[0].text == "answer 5"
        assert (srv.answered, srv.rate_limited) == (5 + 1, 2)


def test_the_sdk_waits_the_retry_after_and_then_succeeds(clock):
    limits = RateLimits(requests_per_minute=10, minute_seconds=1.0)
    with MessagesAPIServer(_always, limits=limits, clock=clock) as srv:
        client = make_client(srv, max_retries=1)
        for _ in range(11):
            create(client, HI)
        assert srv.rate_limited == 1 and srv.answered == 11
        assert clock.slept == [0.1]  # the retry-after (one request every 0.1 s), not the SDK's 0.5 s backoff


def test_remaining_and_reset_headers_on_a_200(clock):
    limits = RateLimits(requests_per_minute=50, input_tokens_per_minute=1000, output_tokens_per_minute=600)
    with MessagesAPIServer(limits=limits, clock=clock) as srv:
        srv.queue(reply("ok", usage={"output_tokens": 100}))
        raw = make_client(srv).messages.with_raw_response.create(model=MODEL, max_tokens=256, messages=HI)
        message = raw.parse()
        headers = raw.headers
    assert headers["anthropic-ratelimit-requests-limit"] == "50"
    assert headers["anthropic-ratelimit-requests-remaining"] == "49"
    assert headers["anthropic-ratelimit-input-tokens-limit"] == "1000"
    assert headers["anthropic-ratelimit-input-tokens-remaining"] == str(1000 - message.usage.input_tokens)
    assert headers["anthropic-ratelimit-output-tokens-limit"] == "600"
    assert headers["anthropic-ratelimit-output-tokens-remaining"] == "500"
    # the more restrictive token bucket: output (500 left) rather than input (about 990 left)
    assert headers["anthropic-ratelimit-tokens-limit"] == "600"
    assert headers["anthropic-ratelimit-tokens-remaining"] == "500"
    for name in ("requests", "input-tokens", "output-tokens", "tokens"):
        assert RFC3339_WHOLE.match(headers[f"anthropic-ratelimit-{name}-reset"]), name
    # full again: one request in 60/50 s, 100 output tokens at 10 a second
    assert _reset_in(headers["anthropic-ratelimit-requests-reset"], clock) == 2  # 1.2 s, up to a whole second
    assert _reset_in(headers["anthropic-ratelimit-output-tokens-reset"], clock) == 10
    assert headers["anthropic-ratelimit-tokens-reset"] == headers["anthropic-ratelimit-output-tokens-reset"]
    assert "retry-after" not in headers


def _prompt(tokens: int) -> list:
    """A user message of about ``tokens`` input tokens by the stand-in's estimate."""
    return [{"role": "user", "content": "x" * (4 * tokens)}]


def test_the_input_token_limit_refuses_a_large_request(clock):
    limits = RateLimits(input_tokens_per_minute=1000, minute_seconds=1.0)
    with MessagesAPIServer(_always, limits=limits, clock=clock) as srv:
        client = make_client(srv)
        with pytest.raises(anthropic.RateLimitError) as excinfo:  # more than a minute's worth: never fits
            create(client, _prompt(2000))
        assert "rate limit of 1,000 input tokens per minute" in str(excinfo.value)
        assert "This request alone needs" in str(excinfo.value)
        headers = excinfo.value.response.headers
        assert headers["anthropic-ratelimit-input-tokens-remaining"] == "1000", "nothing taken"
        assert headers["retry-after"] == "1.000"
        assert headers["anthropic-ratelimit-tokens-limit"] == "1000"

        create(client, _prompt(600))  # fits, and leaves about 400
        with pytest.raises(anthropic.RateLimitError) as excinfo:
            create(client, _prompt(600))
        retry = float(excinfo.value.response.headers["retry-after"])
        assert 0.15 < retry <= 0.25  # about 220 short (each prompt is ~610 tokens with its JSON), 1000 a second
        clock.advance(retry)
        create(client, _prompt(600))
        assert (srv.answered, srv.rate_limited) == (2, 2)


def test_cache_reads_do_not_count_against_the_input_token_limit():
    system = [{"type": "text", "text": "policy " * 2000, "cache_control": {"type": "ephemeral"}}]  # ~3500 tokens
    limits = RateLimits(input_tokens_per_minute=5000)
    with MessagesAPIServer(_always, billing=PromptCache(), limits=limits) as srv:
        client = make_client(srv)
        first = create(client, HI, system=system)
        assert first.usage.cache_creation_input_tokens > 3000
        second = create(client, [{"role": "user", "content": "hello"}], system=system)  # the prefix is read
        assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
        with pytest.raises(anthropic.RateLimitError):  # uncached, the same prompt would not fit
            create(client, HI, system=[{**system[0], "text": "other " * 2000}])
        assert len(srv.billing.bills) == 2, "the refused request was not billed (nor written to the cache)"
        assert (srv.answered, srv.rate_limited) == (2, 1)


def test_output_tokens_are_debited_after_the_reply(clock):
    limits = RateLimits(output_tokens_per_minute=1000, minute_seconds=1.0)
    with MessagesAPIServer(limits=limits, clock=clock) as srv:
        srv.queue(reply("long", usage={"output_tokens": 1100}), reply("short", usage={"output_tokens": 5}))
        client = make_client(srv)
        raw = client.messages.with_raw_response.create(model=MODEL, max_tokens=2000, messages=HI)
        assert raw.parse().content[0].text == "long", "a full bucket lets a reply go over it"
        assert raw.headers["anthropic-ratelimit-output-tokens-remaining"] == "0"
        with pytest.raises(anthropic.RateLimitError) as excinfo:  # the bucket is below zero: empty
            create(client, HI)
        assert "rate limit of 1,000 output tokens per minute" in str(excinfo.value)
        retry = float(excinfo.value.response.headers["retry-after"])
        assert retry == 0.101  # 100 below zero, and one more, at 1000 a second
        clock.advance(retry)
        assert create(client, HI).content[0].text == "short"


def test_limits_can_be_set_later_and_removed(clock):
    srv = MessagesAPIServer(clock=clock).start()
    srv.queue(*[reply("ok")] * 4)
    client = make_client(srv)
    create(client, HI)
    assert "anthropic-ratelimit-requests-limit" not in srv.requests[0]["headers"]
    srv.limits = RateLimits(requests_per_minute=1)
    create(client, HI)
    with pytest.raises(anthropic.RateLimitError) as excinfo:
        create(client, HI)
    assert excinfo.value.response.headers["retry-after"] == str(math.ceil(60.0))  # whole seconds, a real minute
    srv.limits = None
    create(client, HI)
    assert (srv.answered, srv.rate_limited, srv.pending) == (3, 1, 1)
    srv.stop()
    with pytest.raises(ValueError):
        RateLimits(requests_per_minute=0)


def test_a_429_is_answered_at_once_and_scripted_errors_carry_the_headers(clock):
    limits = RateLimits(requests_per_minute=2)
    with MessagesAPIServer(latency=0.2, limits=limits, clock=clock) as srv:
        srv.queue(reply("slow"), OVERLOADED)
        client = make_client(srv)
        create(client, HI)
        with pytest.raises(anthropic.APIStatusError) as excinfo:
            create(client, HI)
        assert excinfo.value.status_code == 529
        assert excinfo.value.response.headers["anthropic-ratelimit-requests-remaining"] == "0"
        assert clock.slept == [0.2], "the latency, before the 200"
        with pytest.raises(anthropic.RateLimitError):
            create(client, HI)
        assert clock.slept == [0.2], "the 429 was answered without waiting"


def test_concurrent_requests_are_limited_exactly(clock):
    with MessagesAPIServer(_always, limits=RateLimits(requests_per_minute=5), clock=clock) as srv:
        client = make_client(srv)

        def one(_):
            try:
                create(client, HI)
                return 200
            except anthropic.RateLimitError:
                return 429

        with ThreadPoolExecutor(max_workers=4) as pool:  # within the listen backlog (5): no SYN retransmits
            statuses = list(pool.map(one, range(20)))
    assert statuses.count(200) == 5 and statuses.count(429) == 15
    assert (srv.answered, srv.rate_limited) == (5, 15)
