"""Checks the local Slack Web API stand-in against the real slack_sdk WebClient (no network)."""

import json
import threading
import time
import urllib.request

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

try:
    from standins.slack_server import SlackAPIServer, message_block_errors, view_errors
except ImportError:  # tests/ is not a package: pytest puts tests/ itself on sys.path
    from fakes.slack_server import SlackAPIServer, message_block_errors, view_errors


@pytest.fixture
def slack():
    with SlackAPIServer() as server:
        yield server


def make_client(slack, token="xoxb-test", **kw):
    return WebClient(token=token, base_url=slack.url + "/api/", **kw)


def section(text):
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def modal(title="Edit reply", blocks=None, **extra):
    return {"type": "modal", "title": {"type": "plain_text", "text": title},
            "submit": {"type": "plain_text", "text": "Save"}, "callback_id": "edit_reply_modal",
            "blocks": blocks if blocks is not None else [section("hello")], **extra}


def api_error(excinfo):
    return excinfo.value.response


# --- messages ----------------------------------------------------------------------------------

def test_post_in_thread_then_update(slack):
    client = make_client(slack)
    parent = client.chat_postMessage(channel="C1", text="ticket KB-1", blocks=[section("*KB-1*")])
    reply = client.chat_postMessage(channel="C1", text="working", thread_ts=parent["ts"])
    assert parent["ok"] and reply["channel"] == "C1"
    assert float(reply["ts"]) > float(parent["ts"])
    assert reply["message"]["thread_ts"] == parent["ts"] and reply["message"]["user"] == "U0BOT"

    updated = client.chat_update(channel="C1", ts=reply["ts"], text="done", blocks=[section("done :white_check_mark:")])
    assert updated["ts"] == reply["ts"] and updated["message"]["text"] == "done"

    msg = slack.messages[("C1", reply["ts"])]
    assert msg["text"] == "done" and msg["blocks"] == [section("done :white_check_mark:")]
    assert msg["thread_ts"] == parent["ts"] and "edited" in msg
    assert [m["ts"] for m in slack.thread("C1", parent["ts"])] == [parent["ts"], reply["ts"]]

    posts = slack.calls_to("chat.postMessage")
    assert posts[1] == {"channel": "C1", "text": "working", "thread_ts": parent["ts"]}
    call = slack.calls[0]
    assert call["headers"]["authorization"] == "Bearer xoxb-test"
    assert call["headers"]["content-type"].startswith("application/json")  # slack_sdk posts JSON here
    assert isinstance(call["time"], float) and call["status"] == 200
    assert slack.warnings == []

    with pytest.raises(SlackApiError) as excinfo:
        client.chat_update(channel="C1", ts="1.000001", text="nope")
    assert api_error(excinfo)["error"] == "message_not_found"


def test_other_chat_methods(slack):
    client = make_client(slack)
    posted = client.chat_postMessage(channel="C1", text="hi")
    eph = client.chat_postEphemeral(channel="C1", user="U1", text="only you")
    assert eph["message_ts"] and slack.ephemerals[0]["user"] == "U1"

    link = client.chat_getPermalink(channel="C1", message_ts=posted["ts"])
    assert link["permalink"] == f"https://example.slack.com/archives/C1/p{posted['ts'].replace('.', '')}"

    client.reactions_add(channel="C1", timestamp=posted["ts"], name="eyes")
    with pytest.raises(SlackApiError) as excinfo:
        client.reactions_add(channel="C1", timestamp=posted["ts"], name="eyes")
    assert api_error(excinfo)["error"] == "already_reacted"
    assert slack.reactions[("C1", posted["ts"])] == ["eyes"]

    client.chat_delete(channel="C1", ts=posted["ts"])
    assert ("C1", posted["ts"]) not in slack.messages

    with pytest.raises(SlackApiError) as excinfo, pytest.warns(UserWarning):  # the SDK warns first
        client.chat_postMessage(channel="C1", text="")
    assert api_error(excinfo)["error"] == "no_text"


def test_blocks_without_text_answer_a_warning(slack):
    client = make_client(slack)
    # slack_sdk itself warns (UserWarning) before sending; pyproject turns warnings into errors.
    with pytest.warns(UserWarning, match="top-level `text` argument is missing"):
        resp = client.chat_postMessage(channel="C1", blocks=[section("no fallback text")])
    assert resp["ok"] and resp["warning"] == "missing_text_in_blocks"
    assert slack.warnings == [("chat.postMessage", "missing_text_in_blocks")]


def test_form_encoded_blocks_are_parsed_and_checked(slack):
    client = make_client(slack)
    blocks = [section("x" * 3001)]
    with pytest.raises(SlackApiError) as excinfo:
        client.api_call("chat.postMessage", params={"channel": "C1", "text": "t", "blocks": json.dumps(blocks)})
    assert api_error(excinfo)["error"] == "invalid_blocks"
    assert slack.calls[-1]["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert slack.calls_to("chat.postMessage")[0]["blocks"] == blocks  # decoded in the record

    with pytest.raises(SlackApiError) as excinfo:
        client.api_call("chat.postMessage", params={"channel": "C1", "text": "t", "blocks": "[not json"})
    assert api_error(excinfo)["error"] == "invalid_blocks_format"


# --- Block Kit limits --------------------------------------------------------------------------

def _button(value="v", text="Approve", **extra):
    return {"type": "button", "text": {"type": "plain_text", "text": text}, "action_id": "approve_reply",
            "value": value, **extra}


@pytest.mark.parametrize(
    "blocks, pointer",
    [
        ([section("x" * 3001)], "/blocks/0/text/text"),
        ([section("ok")] * 51, "/blocks"),
        ([{"type": "actions", "elements": [_button(value="v" * 2001)]}], "/blocks/0/elements/0/value"),
        ([{"type": "actions", "elements": [_button(text="t" * 76)]}], "/blocks/0/elements/0/text/text"),
        ([{"type": "actions", "elements": [_button(style="secondary")]}], "/blocks/0/elements/0/style"),
        ([{"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}], "/blocks/0/text/text"),
        ([{"type": "header", "text": {"type": "mrkdwn", "text": "h"}}], "/blocks/0/text/type"),
        ([{"type": "section", "fields": [{"type": "mrkdwn", "text": "f"}] * 11}], "/blocks/0/fields"),
        ([{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 11}], "/blocks/0/elements"),
        ([{"type": "context", "elements": []}], "/blocks/0/elements"),
        ([section("")], "/blocks/0/text/text"),
        ([{"type": "sectoin", "text": {"type": "mrkdwn", "text": "typo"}}], "/blocks/0/type"),
        ([dict(section("a"), block_id="b" * 256)], "/blocks/0/block_id"),
        ([dict(section("a"), block_id="same"), dict(section("b"), block_id="same")], "/blocks/1/block_id"),
        ([{"type": "markdown", "text": "m" * 12001}], "/blocks/0/text"),
    ],
    ids=["section-3001", "51-blocks", "button-value", "button-text", "button-style", "header-151",
         "header-mrkdwn", "11-fields", "11-context-elements", "empty-context", "empty-section-text",
         "unknown-type", "long-block-id", "duplicate-block-id", "markdown-12001"],
)
def test_message_block_violations_are_rejected(slack, blocks, pointer):
    client = make_client(slack)
    with pytest.raises(SlackApiError) as excinfo:
        client.chat_postMessage(channel="C1", text="fallback", blocks=blocks)
    resp = api_error(excinfo)
    assert resp.status_code == 200 and resp["error"] == "invalid_blocks"
    messages = resp["response_metadata"]["messages"]
    assert any(m.startswith("[ERROR]") and m.endswith(f"[json-pointer:{pointer}]") for m in messages), messages
    assert slack.messages == {}


def test_limits_are_inclusive(slack):
    client = make_client(slack)
    blocks = [section("x" * 3000)] * 49 + [{"type": "actions", "elements": [_button(value="v" * 2000,
                                                                                       text="t" * 75)]}]
    assert client.chat_postMessage(channel="C1", text="t" * 40000, blocks=blocks)["ok"]
    assert message_block_errors(blocks) == []
    with pytest.raises(SlackApiError) as excinfo:
        client.chat_postMessage(channel="C1", text="t" * 40001)
    assert api_error(excinfo)["error"] == "msg_too_long"


def test_blocks_are_checked_on_update_and_ephemeral(slack):
    client = make_client(slack)
    ts = client.chat_postMessage(channel="C1", text="hi")["ts"]
    for call in (lambda: client.chat_update(channel="C1", ts=ts, text="t", blocks=[section("x" * 3001)]),
                 lambda: client.chat_postEphemeral(channel="C1", user="U1", text="t", blocks=[section("x" * 3001)])):
        with pytest.raises(SlackApiError) as excinfo:
            call()
        assert api_error(excinfo)["error"] == "invalid_blocks"
    assert slack.messages[("C1", ts)]["text"] == "hi"


# --- views -------------------------------------------------------------------------------------

def test_views_publish_and_open(slack):
    client = make_client(slack)
    home = {"type": "home", "blocks": [{"type": "header", "text": {"type": "plain_text", "text": "Kitebase"}},
                                       section("3 runs waiting")]}
    published = client.views_publish(user_id="U1", view=home)
    assert published["view"]["id"].startswith("V") and published["view"]["type"] == "home"
    assert slack.home_views["U1"]["blocks"] == home["blocks"]
    again = client.views_publish(user_id="U1", view=dict(home, blocks=[section("0 runs waiting")]))
    assert again["view"]["id"] == published["view"]["id"]
    assert slack.home_views["U1"]["blocks"] == [section("0 runs waiting")]

    opened = client.views_open(trigger_id="123.456.abc", view=modal(private_metadata='{"run": 7}'))
    view = opened["view"]
    assert view["id"].startswith("V") and view["private_metadata"] == '{"run": 7}'
    assert view["callback_id"] == "edit_reply_modal" and view["state"] == {"values": {}}

    updated = client.views_update(view_id=view["id"], view=modal(title="Saved"), hash=view["hash"])
    assert updated["view"]["id"] == view["id"] and slack.views[view["id"]]["title"]["text"] == "Saved"
    with pytest.raises(SlackApiError) as excinfo:
        client.views_update(view_id=view["id"], view=modal(), hash=view["hash"])  # stale hash
    assert api_error(excinfo)["error"] == "hash_conflict"

    pushed = client.views_push(trigger_id="123.456.abc", view=modal(title="Step 2"))
    assert pushed["view"]["id"] != view["id"]

    with pytest.raises(SlackApiError) as excinfo:
        client.views_publish(user_id="U1", view=modal())  # a modal is not a Home tab
    assert api_error(excinfo)["error"] == "invalid_arguments"


@pytest.mark.parametrize(
    "method, view, pointer",
    [
        ("open", modal(title="t" * 25), "/view/title/text"),
        ("open", modal(submit={"type": "plain_text", "text": "s" * 25}), "/view/submit/text"),
        ("open", modal(private_metadata="m" * 3001), "/view/private_metadata"),
        ("open", modal(callback_id="c" * 256), "/view/callback_id"),
        ("open", modal(blocks=[section("b")] * 101), "/view/blocks"),
        ("open", {"type": "modal", "title": {"type": "plain_text", "text": "No submit"},
                  "blocks": [{"type": "input", "label": {"type": "plain_text", "text": "Reply"},
                              "element": {"type": "plain_text_input", "action_id": "reply"}}]}, "/view"),
        ("open", modal(blocks=[{"type": "input", "label": {"type": "plain_text", "text": "Reply"},
                                "element": {"type": "plain_text_input", "action_id": "reply",
                                            "initial_value": "v" * 3001}}]), "/view/blocks/0/element/initial_value"),
        ("publish", {"type": "home", "blocks": [section("x" * 3001)]}, "/view/blocks/0/text/text"),
    ],
    ids=["title-25", "submit-25", "metadata-3001", "callback-256", "101-blocks", "input-needs-submit",
         "initial-value-3001", "home-section-3001"],
)
def test_view_violations_are_rejected(slack, method, view, pointer):
    client = make_client(slack)
    with pytest.raises(SlackApiError) as excinfo:
        if method == "open":
            client.views_open(trigger_id="1.2.3", view=view)
        else:
            client.views_publish(user_id="U1", view=view)
    resp = api_error(excinfo)
    assert resp["error"] == "invalid_arguments"
    assert any(m.endswith(f"[json-pointer:{pointer}]") for m in resp["response_metadata"]["messages"]), resp.data
    assert slack.views == {} and slack.home_views == {}


def test_view_checks_are_usable_without_http():
    assert view_errors(modal()) == []
    assert view_errors(modal(title="t" * 24)) == []
    assert view_errors(modal(title="t" * 25)) == [
        "[ERROR] must be less than 25 characters [json-pointer:/view/title/text]"
    ]


# --- files -------------------------------------------------------------------------------------

def test_files_upload_v2_end_to_end(slack):
    client = make_client(slack)
    parent = client.chat_postMessage(channel="C1", text="run #7")["ts"]
    transcript = "step 1: search\nstep 2: reply — “done” ✓\n"
    resp = client.files_upload_v2(channel="C1", thread_ts=parent, content=transcript, filename="run-7.txt",
                                  title="Run 7 transcript", initial_comment="Full transcript attached.")
    assert resp["ok"] and resp["file"]["id"].startswith("F") and resp["file"]["title"] == "Run 7 transcript"

    assert slack.uploads == [{
        "file_id": resp["file"]["id"], "filename": "run-7.txt", "title": "Run 7 transcript",
        "content": transcript, "channel_id": "C1", "channels": ["C1"], "thread_ts": parent,
        "initial_comment": "Full transcript attached.", "length": len(transcript.encode()),
        "size": len(transcript.encode()),
    }]
    assert [c["method"] for c in slack.calls[1:]] == ["files.getUploadURLExternal", "files.completeUploadExternal"]
    get_url = slack.calls_to("files.getUploadURLExternal")[0]
    assert get_url == {"filename": "run-7.txt", "length": str(len(transcript.encode()))}  # form-encoded: strings
    # the share shows up in the thread
    shared = slack.thread("C1", parent)[-1]
    assert shared["files"][0]["id"] == resp["file"]["id"] and shared["text"] == "Full transcript attached."

    with pytest.raises(SlackApiError) as excinfo:
        client.files_completeUploadExternal(files=[{"id": "F404", "title": "x"}], channel_id="C1")
    assert api_error(excinfo)["error"] == "file_not_found"


# --- rate limits and injected failures ---------------------------------------------------------

def test_ratelimit_without_retry_handler_raises_429(slack):
    client = make_client(slack)
    slack.ratelimit("chat.postMessage", times=1, retry_after=1)
    with pytest.raises(SlackApiError) as excinfo:
        client.chat_postMessage(channel="C1", text="hi")
    resp = api_error(excinfo)
    assert resp.status_code == 429 and resp["error"] == "ratelimited"
    assert resp.headers["Retry-After"] == "1"
    assert client.chat_postMessage(channel="C1", text="hi")["ok"]  # only the next call was limited


def test_ratelimit_with_retry_handler_succeeds(slack):
    client = make_client(slack)
    client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=1))
    slack.ratelimit("chat.postMessage", times=1, retry_after=1)
    resp = client.chat_postMessage(channel="C1", text="hi")
    assert resp["ok"]
    attempts = [c for c in slack.calls if c["method"] == "chat.postMessage"]
    assert [c["status"] for c in attempts] == [429, 200]
    assert attempts[1]["time"] - attempts[0]["time"] >= 1.0  # the client honoured Retry-After
    assert len(slack.messages) == 1


def test_fail_injects_errors(slack):
    client = make_client(slack)
    slack.fail("views.publish", "not_enabled", times=2)
    for _ in range(2):
        with pytest.raises(SlackApiError) as excinfo:
            client.views_publish(user_id="U1", view={"type": "home", "blocks": []})
        assert api_error(excinfo).status_code == 200 and api_error(excinfo)["error"] == "not_enabled"
    assert client.views_publish(user_id="U1", view={"type": "home", "blocks": []})["ok"]


# --- streaming ---------------------------------------------------------------------------------

def test_streaming_methods(slack):
    client = make_client(slack)
    parent = client.chat_postMessage(channel="C1", text="question")["ts"]
    started = client.chat_startStream(channel="C1", thread_ts=parent, markdown_text="Looking ")
    ts = started["ts"]
    client.chat_appendStream(channel="C1", ts=ts, markdown_text="into it")
    client.chat_appendStream(channel="C1", ts=ts, chunks=[{"type": "markdown_text", "text": "…"}])
    stopped = client.chat_stopStream(channel="C1", ts=ts, markdown_text=" done.", blocks=[section("feedback?")])
    assert stopped["ok"]
    msg = slack.messages[("C1", ts)]
    assert msg["markdown_text"] == msg["text"] == "Looking into it… done."
    assert msg["thread_ts"] == parent and msg["blocks"] == [section("feedback?")]
    assert msg["stream_state"] == "completed" and msg["chunks"] == [{"type": "markdown_text", "text": "…"}]
    with pytest.raises(SlackApiError) as excinfo:
        client.chat_appendStream(channel="C1", ts=ts, markdown_text="late")
    assert api_error(excinfo)["error"] == "message_not_in_streaming_state"

    # the SDK's buffered helper: start / append / stop with markdown_text chunks
    streamer = client.chat_stream(channel="C1", thread_ts=parent, buffer_size=4)
    streamer.append(markdown_text="Hello ")
    streamer.append(markdown_text="world")
    streamer.stop()
    assert slack.messages[("C1", streamer.ts)]["text"] == "Hello world"
    assert [m["ts"] for m in slack.thread("C1", parent)] == [parent, ts, streamer.ts]


def test_streaming_unsupported(slack):
    client = make_client(slack)
    slack.streaming_supported = False
    with pytest.raises(SlackApiError) as excinfo:
        client.chat_startStream(channel="C1", thread_ts="1700000000.000001", markdown_text="hi")
    assert api_error(excinfo)["error"] == "feature_not_enabled"
    assert slack.messages == {}


def test_stream_stop_checks_blocks(slack):
    client = make_client(slack)
    ts = client.chat_startStream(channel="C1", thread_ts="1700000000.000001")["ts"]
    with pytest.raises(SlackApiError) as excinfo:
        client.chat_stopStream(channel="C1", ts=ts, blocks=[section("x" * 3001)])
    assert api_error(excinfo)["error"] == "invalid_blocks"


# --- waiting, auth, reads, unknown methods -----------------------------------------------------

def test_wait_for_with_background_poster(slack):
    client = make_client(slack)

    def post_later():
        time.sleep(0.2)
        client.chat_postMessage(channel="C1", text="first")
        client.chat_postMessage(channel="C1", text="approval needed", thread_ts="1700000000.000001")

    worker = threading.Thread(target=post_later)
    worker.start()
    try:
        found = slack.wait_for("chat.postMessage", predicate=lambda a: "approval" in a["text"], timeout=5)
        assert found[0]["thread_ts"] == "1700000000.000001"
        assert len(slack.wait_for("chat.postMessage", count=2, timeout=5)) == 2
    finally:
        worker.join()

    with pytest.raises(AssertionError, match=r"(?s)chat\.update.*Calls so far:.*chat\.postMessage"):
        slack.wait_for("chat.update", timeout=0.2)


def test_auth_is_required(slack):
    with pytest.raises(SlackApiError) as excinfo:
        make_client(slack, token=None).chat_postMessage(channel="C1", text="hi")
    assert api_error(excinfo)["error"] == "not_authed"
    with pytest.raises(SlackApiError) as excinfo:
        make_client(slack, token="not-a-slack-token").auth_test()
    assert api_error(excinfo)["error"] == "invalid_auth"
    assert slack.messages == {}


def test_auth_test_also_over_get(slack):
    assert make_client(slack).auth_test()["user_id"] == "U0BOT"
    with urllib.request.urlopen(f"{slack.url}/api/auth.test?token=xoxb-test") as resp:
        body = json.loads(resp.read())
    assert body["ok"] and body["user_id"] == "U0BOT" and body["team_id"] == "T0TEAM" and body["bot_id"] == "B0BOT"
    assert slack.calls[-1]["http_method"] == "GET"


def test_reads(slack):
    client = make_client(slack)
    slack.usergroups["S0LEADS"] = ["U1", "U2"]
    assert client.users_info(user="U1")["user"]["tz"] == "UTC"
    assert client.conversations_info(channel="C1")["channel"]["id"] == "C1"
    assert client.usergroups_users_list(usergroup="S0LEADS")["users"] == ["U1", "U2"]
    with pytest.raises(SlackApiError) as excinfo:
        client.usergroups_users_list(usergroup="S0NOPE")
    assert api_error(excinfo)["error"] == "no_such_subteam"


def test_unknown_method_is_recorded(slack):
    with pytest.raises(SlackApiError) as excinfo:
        make_client(slack).api_call("chat.scheduleMessage", json={"channel": "C1", "text": "later", "post_at": 1})
    assert api_error(excinfo)["error"] == "unknown_method"
    assert slack.calls_to("chat.scheduleMessage") == [{"channel": "C1", "text": "later", "post_at": 1}]


# --- agents.sessions.* (docs.slack.dev/reference/methods/agents.sessions.setStatus, .rename) ------------------

def test_agent_session_status_sequence_title_at_creation_and_rename(slack):
    client = make_client(slack)
    first = client.agents_sessions_setStatus(channel_id="C1", thread_ts="1.1", status="processing",
                                             title="KITE-142 · CSV export", initiator_user_id="ULEAD")
    assert first["status"] == "processing" and first["title"] == "KITE-142 · CSV export"
    later = client.agents_sessions_setStatus(channel_id="C1", thread_ts="1.1", status="suspended", title="ignored",
                                             initiator_user_id="UOTHER")
    assert later["title"] == "KITE-142 · CSV export", "title and initiator count only when the session is created"
    client.agents_sessions_rename(channel_id="C1", thread_ts="1.1", title="KITE-142 · renamed")
    session = slack.agent_sessions[("C1", "1.1")]
    assert session["initiator_user_id"] == "ULEAD" and session["title"] == "KITE-142 · renamed"
    assert slack.session_statuses("C1", "1.1") == ["processing", "suspended"]
    assert slack.session_statuses("C1", "9.9") == [] and not slack.warnings


@pytest.mark.parametrize("args, error", [
    ({"channel_id": "C1", "thread_ts": "1.1", "status": "working"}, "invalid_arguments"),
    ({"channel_id": "C1", "thread_ts": "1.1", "status": "processing", "title": "x" * 201}, "invalid_arguments"),
    ({"channel_id": "C1", "status": "processing"}, "invalid_arguments"),
    ({"thread_ts": "1.1", "status": "processing"}, "channel_not_found"),
])
def test_agent_session_bad_arguments_are_refused(slack, args, error):
    with pytest.raises(SlackApiError) as excinfo:
        make_client(slack).api_call("agents.sessions.setStatus", json=args)
    assert api_error(excinfo)["error"] == error and slack.agent_sessions == {}


def test_agent_session_rename_needs_a_session_and_a_title(slack):
    client = make_client(slack)
    with pytest.raises(SlackApiError) as excinfo:
        client.agents_sessions_rename(channel_id="C1", thread_ts="1.1", title="t")
    assert api_error(excinfo)["error"] == "session_not_found"
    client.agents_sessions_setStatus(channel_id="C1", thread_ts="1.1", status="active")
    with pytest.raises(SlackApiError) as excinfo:
        client.agents_sessions_rename(channel_id="C1", thread_ts="1.1", title="")
    assert api_error(excinfo)["error"] == "invalid_arguments"


def test_agent_sessions_unavailable_and_the_stop_event_warning(slack):
    client = make_client(slack)
    slack.agent_session_stopped_subscribed = False
    answer = client.agents_sessions_setStatus(channel_id="C1", thread_ts="1.1", status="processing")
    assert answer["warning"] == "missing_agent_session_stopped_event_subscription"
    slack.sessions_error = "not_allowed"
    for call in (lambda: client.agents_sessions_setStatus(channel_id="C1", thread_ts="1.1", status="closed"),
                 lambda: client.agents_sessions_rename(channel_id="C1", thread_ts="1.1", title="t")):
        with pytest.raises(SlackApiError) as excinfo:
            call()
        assert api_error(excinfo)["error"] == "not_allowed"
    assert slack.session_statuses("C1", "1.1") == ["processing"]


# --- agent apps: suggested prompts -------------------------------------------------------------------

PROMPTS = [{"title": "Show the human queue", "message": "Show the human queue"}]


def test_suggested_prompts_are_set_for_the_dm(slack):
    client = make_client(slack)
    client.assistant_threads_setSuggestedPrompts(channel_id="D1", prompts=PROMPTS, title="Try one")
    assert slack.suggested_prompts["D1"] == {"title": "Try one", "prompts": PROMPTS}


def test_an_agent_apps_call_with_thread_ts_fails_silently(slack):
    """The method's page: thread_ts is for the legacy assistant experience; an agent app's call with it is ok
    and sets nothing."""
    client = make_client(slack)
    assert client.assistant_threads_setSuggestedPrompts(channel_id="D1", thread_ts="1.000001", prompts=PROMPTS)["ok"]
    assert slack.suggested_prompts == {}
    slack.agent_view = False
    client.assistant_threads_setSuggestedPrompts(channel_id="D1", thread_ts="1.000001", prompts=PROMPTS)
    assert slack.suggested_prompts == {"D1:1.000001": {"title": None, "prompts": PROMPTS}}


@pytest.mark.parametrize("args, error", [
    ({"prompts": PROMPTS}, "invalid_arguments"),
    ({"channel_id": "X1", "prompts": PROMPTS}, "channel_not_found"),
    ({"channel_id": "D1"}, "invalid_arguments"),
    ({"channel_id": "D1", "prompts": PROMPTS * 5}, "invalid_arguments"),
    ({"channel_id": "D1", "prompts": [{"title": "no message"}]}, "invalid_arguments"),
])
def test_suggested_prompts_are_checked(slack, args, error):
    with pytest.raises(SlackApiError) as excinfo:
        make_client(slack).api_call("assistant.threads.setSuggestedPrompts", json=args)
    assert api_error(excinfo)["error"] == error
    assert slack.suggested_prompts == {}


def test_suggested_prompts_form_encoded(slack):
    make_client(slack).api_call("assistant.threads.setSuggestedPrompts",
                                data={"channel_id": "D1", "prompts": json.dumps(PROMPTS)})
    assert slack.suggested_prompts["D1"]["prompts"] == PROMPTS
