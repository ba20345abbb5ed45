"""Model clients: what the loop calls. The real Anthropic client, or anything with the same shape."""

from __future__ import annotations

import logging
import random
import time
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from bot.agent.errors import DeadlineReached, ModelCallFailed
from bot.redact import redact
from bot.vocabulary import Usage

if TYPE_CHECKING:
    import anthropic

logger = logging.getLogger(__name__)

CACHEABLE = {"text", "tool_result", "tool_use", "image", "document"}


@dataclass
class ModelResponse:
    content: list[dict[str, Any]]  # the assistant content blocks exactly as they came back, as JSON
    stop_reason: str | None
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    latency_ms: int = 0
    request_id: str | None = None


class ModelClient(Protocol):
    name: str

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        """One response; `timeout` (seconds) bounds the whole call, retries included (the run's deadline)."""
        ...


def with_cache_breakpoints(system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
                           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Copies of system, tools and messages marked for prompt caching, all 4 breakpoints: the tool
    definitions, the system prompt (tools and system are the same for every run, so one run's entry serves
    the next), the end of the history the previous call sent (where that call wrote its entry: found even
    when a turn added more than the 20 blocks the cache looks back), and the last block (this call's entry).
    Only what gets a mark is copied; the history itself is never changed. See bench/tokens.py."""
    system_blocks = [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]
    tools = list(tools)
    if tools:
        tools[-1] = {**tools[-1], "cache_control": {"type": "ephemeral"}}
    messages = list(messages)
    for position in ({len(messages) - 3, len(messages) - 1} if len(messages) >= 3 else {len(messages) - 1}):
        messages[position] = _marked(messages[position])
    return system_blocks, tools, messages


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of `message` whose last cacheable block carries a breakpoint."""
    content = message["content"]
    content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    for index in range(len(content) - 1, -1, -1):
        if isinstance(content[index], dict) and content[index].get("type") in CACHEABLE:
            content[index] = {**content[index], "cache_control": {"type": "ephemeral"}}
            break
    return {**message, "content": content}


class AnthropicModel:
    """The real Messages API through the official SDK (honours ANTHROPIC_BASE_URL / base_url).

    Retries are ours, not the SDK's, so that a call never outlives the run's deadline: every attempt's
    timeout is the smaller of the model timeout and the time left, and a wait before a retry (Retry-After,
    backoff) that would pass the deadline is not taken. A response that is not a well-formed message (cut-off
    JSON, an HTML page, a body the SDK cannot read) is a `model_error` with the raw body kept."""

    RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

    def __init__(self, *, api_key: str, model: str, base_url: str | None = None, max_retries: int = 3,
                 timeout: float = 120.0):
        import anthropic  # here, not at the top: the SDK takes most of a second to import

        self.name, self.max_retries, self.timeout = model, max_retries, timeout
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        import anthropic

        system_blocks, tools, messages = with_cache_breakpoints(system, tools, messages)
        deadline = None if timeout is None else time.monotonic() + timeout
        for attempt in range(self.max_retries + 1):
            budget = self.timeout if deadline is None else min(self.timeout, deadline - time.monotonic())
            if budget <= 0:
                raise DeadlineReached("the run's deadline came during a model call")
            started = time.monotonic()
            try:
                # The history is JSON kept verbatim (checked by history.check before every call); the SDK types
                # its parameters as TypedDict unions that plain dicts cannot be shown to match.
                raw = self._client.messages.with_raw_response.create(
                    model=self.name, max_tokens=max_tokens, system=system_blocks, tools=tools,  # type: ignore[arg-type]
                    messages=messages, timeout=budget)  # type: ignore[arg-type]
            except anthropic.APIStatusError as exc:
                if exc.status_code == 401:
                    raise ModelCallFailed("The Anthropic API rejected the API key (401). Check ANTHROPIC_API_KEY.") from None
                wait = self._retry_wait(exc.response, attempt)
                failure = _describe_status_error(exc)
            except anthropic.APITimeoutError:
                if deadline is not None and time.monotonic() >= deadline - 0.05:
                    raise DeadlineReached("the run's deadline came during a model call") from None
                wait, failure = _backoff(attempt), "The Anthropic API timed out"
            except anthropic.APIConnectionError:
                wait, failure = _backoff(attempt), "The Anthropic API could not be reached"
            else:
                return _parsed(raw, self.name, started)
            if wait is None or attempt == self.max_retries:
                raise ModelCallFailed(failure + (f" (after {attempt + 1} attempts)." if attempt else "."))
            if deadline is not None and time.monotonic() + wait >= deadline:
                raise ModelCallFailed(f"{failure}; a retry would pass the run's deadline, so none was made.")
            logger.info("%s; retrying in %.1f s", failure, wait)
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _retry_wait(self, response: Any, attempt: int) -> float | None:
        """Seconds to wait before retrying this answer, or None when it must not be retried."""
        should = response.headers.get("x-should-retry")
        if should == "false" or (should != "true" and response.status_code not in self.RETRY_STATUS):
            return None
        for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                return max(0.0, float(response.headers.get(header)) * scale)
            except (TypeError, ValueError):
                continue
        return _backoff(attempt)


def _backoff(attempt: int) -> float:
    return min(8.0, 0.5 * 2.0 ** attempt) * random.uniform(0.75, 1.0)


def _parsed(raw: Any, model: str, started: float) -> ModelResponse:
    """The SDK's message from a raw response, or ModelCallFailed (model_error) with the body kept."""
    body = raw.http_response.text
    try:
        with warnings.catch_warnings():  # a block the SDK's types do not expect is dumped as it came; checks.py judges it
            warnings.simplefilter("ignore")
            message = raw.parse()
            content = [block.model_dump(mode="json", exclude_none=True) for block in message.content]
        usage = Usage.from_api(message.usage)
    except Exception as exc:  # cut-off JSON, an HTML page, a body that is not a message
        kind = raw.http_response.headers.get("content-type", "?")
        raise ModelCallFailed(f"The Anthropic API answered with a malformed response ({kind}, "
                              f"{len(body):,} bytes: {type(exc).__name__}); nothing in it was run.",
                              raw=body) from None
    if not isinstance(message.content, list) or not isinstance(getattr(message, "stop_reason", None), str | None):
        raise ModelCallFailed("The Anthropic API answered with a message without content; nothing was run.", raw=body)
    latency = int((time.monotonic() - started) * 1000)
    return ModelResponse(content=content, stop_reason=message.stop_reason, usage=usage, model=message.model,
                         latency_ms=latency, request_id=raw.http_response.headers.get("request-id"))


def _describe_status_error(exc: anthropic.APIStatusError) -> str:
    """What failed, in a sentence; the upstream's own message is cut of secrets (it may echo a header)."""
    detail = ""
    body = exc.body if isinstance(exc.body, dict) else {}
    error = found if isinstance(found := body.get("error"), dict) else {}
    if error.get("message"):
        detail = f": {redact(str(error['message']))[:300]}"
    names = {400: "rejected the request", 404: "does not know the model or endpoint", 413: "found the request too large",
             429: "is rate limiting us", 529: "is overloaded"}
    what = names.get(exc.status_code, "failed")
    return f"The Anthropic API {what} ({exc.status_code}){detail}"

