"""Checks the local Messages API stand-in against the real anthropic SDK (no network)."""

import json
import time
import urllib.error
import urllib.request

import anthropic
import pytest

try:
    from standins.anthropic_server import MessagesAPIServer, error, reply, text, tool_use
except ImportError:  # tests/ is not a package: pytest puts tests/ itself on sys.path
    from fakes.anthropic_server import MessagesAPIServer, error, reply, text, tool_use

MODEL = "claude-test-model"
OVERLOADED = (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})


@pytest.fixture
def srv():
    with MessagesAPIServer() as server:
        yield server


def make_client(srv, **kw):
    kw.setdefault("max_retries", 0)
    return anthropic.Anthropic(api_key="test-key", base_url=srv.url, **kw)


def create(client, messages, **kw):
    return client.messages.create(model=MODEL, max_tokens=256, messages=messages, **kw)


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


def test_529_is_retried(srv):
    srv.queue(OVERLOADED, reply("recovered"))
    client = make_client(srv, max_retries=1)  # SDK backoff: 0.5s * (0.75..1) before the first retry
    t0 = time.monotonic()
    msg = create(client, [{"role": "user", "content": "hi"}])
    assert msg.content[0].text == "recovered"
    assert len(srv.requests) == 2
    assert time.monotonic() - t0 < 5


def test_529_retry_after_ms_header_makes_retry_fast(srv):
    srv.queue(error(529, "overloaded_error", "Overloaded", headers={"retry-after-ms": "10"}), OVERLOADED)
    client = make_client(srv, max_retries=1)
    t0 = time.monotonic()
    with pytest.raises(anthropic.APIStatusError) as excinfo:
        create(client, [{"role": "user", "content": "hi"}])
    assert time.monotonic() - t0 < 0.3
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
