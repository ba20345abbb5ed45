"""Model clients: what the loop calls. The real Anthropic client, or anything with the same shape."""

from __future__ import annotations

import logging
import random
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from bot.agent.errors import DeadlineReached, ModelCallFailed
from bot.redact import redact
from bot.vocabulary import Usage

if TYPE_CHECKING:
    import anthropic

    from bot.agent.budget import SharedModelBudget

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


class Overloaded(ModelCallFailed):
    """The API stayed overloaded (529) through every retry: a fallback model may take the turn."""


class AnthropicModel:
    """The real Messages API through the official SDK (honours ANTHROPIC_BASE_URL / base_url).

    Retries are ours, not the SDK's, so that a call never outlives the run's deadline: every attempt's
    timeout is the smaller of the model timeout and the time left, and a wait before a retry (Retry-After,
    backoff) that would pass the deadline is not taken. A response that is not a well-formed message (cut-off
    JSON, an HTML page, a body the SDK cannot read) is a `model_error` with the raw body kept.

    `options(model)` gives a request's thinking and effort parameters (bot/agent/capabilities.py); if the API
    answers 400 about them, they are dropped for that model for the rest of the process. `budgets(model)` is
    the organization's shared budget (bot/agent/budget.py): every answer's rate-limit headers go there, and a
    429's retry-after pauses every process. When 529s outlast the retries, the turn is tried once on
    `fallback`."""

    RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

    def __init__(self, *, api_key: str, model: str, base_url: str | None = None, max_retries: int = 3,
                 timeout: float = 120.0, options: Callable[[str], dict[str, Any]] | None = None,
                 budgets: Callable[[str], SharedModelBudget] | None = None, fallback: str | None = None):
        import anthropic  # here, not at the top: the SDK takes most of a second to import

        self.name, self.max_retries, self.timeout = model, max_retries, timeout
        self.fallback = fallback if fallback and fallback != model else None
        self._options, self._budgets = options, budgets
        self._plain: set[str] = set()  # models that answered 400 to the thinking/effort parameters
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)

    @property
    def budget(self) -> SharedModelBudget | None:
        """The shared budget the loop waits on before a call (of the primary model)."""
        return self._budgets(self.name) if self._budgets else None

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        system_blocks, tools, messages = with_cache_breakpoints(system, tools, messages)
        deadline = None if timeout is None else time.monotonic() + timeout
        request = {"system": system_blocks, "tools": tools, "messages": messages, "max_tokens": max_tokens}
        try:
            return self._call(self.name, request, deadline, self.max_retries)
        except Overloaded as overloaded:
            if self.fallback is None:
                raise
            logger.warning("%s; trying the turn once on the fallback model %s", overloaded, self.fallback)
            try:
                return self._call(self.fallback, request, deadline, 0)
            except ModelCallFailed as failed:
                raise ModelCallFailed(f"{overloaded}; the fallback model {self.fallback} failed too: {failed}",
                                      raw=failed.raw) from None

    def _call(self, model: str, request: dict[str, Any], deadline: float | None, retries: int) -> ModelResponse:
        import anthropic

        budget = self._budgets(model) if self._budgets else None
        for attempt in range(retries + 1):
            left = self.timeout if deadline is None else min(self.timeout, deadline - time.monotonic())
            if left <= 0:
                raise DeadlineReached("the run's deadline came during a model call")
            options = {} if model in self._plain or self._options is None else self._options(model)
            started, sent = time.monotonic(), time.time()  # `sent`: for reading the API's clock (api_clock.py)
            try:
                # The history is JSON kept verbatim (checked by history.check before every call); the SDK types
                # its parameters as TypedDict unions that plain dicts cannot be shown to match.
                raw = self._client.messages.with_raw_response.create(model=model, **request, **options,
                                                                     timeout=left)
            except anthropic.APIStatusError as exc:
                _share(_observer(budget, sent), exc.response.headers)
                if exc.status_code == 401:
                    raise ModelCallFailed("The Anthropic API rejected the API key (401). Check ANTHROPIC_API_KEY.") from None
                if exc.status_code == 400 and options and _about_options(exc):
                    logger.warning("%s rejected the thinking/effort parameters (%s); sending none for the rest of "
                                   "this process", model, _describe_status_error(exc))
                    self._plain.add(model)
                    return self._call(model, request, deadline, retries - attempt)
                wait = self._retry_wait(exc.response, attempt)
                if exc.status_code == 429 and wait is not None:
                    _share(budget.pause if budget else None, wait)  # every process waits, not only this run
                failure = _describe_status_error(exc)
                overloaded = exc.status_code == 529
            except anthropic.APITimeoutError:
                if deadline is not None and time.monotonic() >= deadline - 0.05:
                    raise DeadlineReached("the run's deadline came during a model call") from None
                wait, failure, overloaded = _backoff(attempt), "The Anthropic API timed out", False
            except anthropic.APIConnectionError:
                wait, failure, overloaded = _backoff(attempt), "The Anthropic API could not be reached", False
            else:
                _share(_observer(budget, sent), raw.http_response.headers)
                return _parsed(raw, model, started)
            if wait is None or attempt == retries:
                error = Overloaded if overloaded else ModelCallFailed
                raise error(failure + (f" (after {attempt + 1} attempts)." if attempt else "."))
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


def _observer(budget: SharedModelBudget | None, sent: float) -> Callable[[Any], None] | None:
    """What tells the budget an answer's headers, with when the request went and its answer came back."""
    if budget is None:
        return None
    return partial(budget.observe, sent_at=sent, received_at=time.time())


def _share(tell: Callable[[Any], None] | None, what: Any) -> None:
    """Tell the shared budget what an answer said (its headers, a 429's pause); a failure there never fails the
    call (the budget is an aid: the retries still stand)."""
    if tell is None:
        return
    try:
        tell(what)
    except Exception:
        logger.exception("could not record the model budget")


def _about_options(exc: anthropic.APIStatusError) -> bool:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = found if isinstance(found := body.get("error"), dict) else {}
    message = str(error.get("message", "")).lower()
    # about the parameters, not about a block of the history (a thinking block's signature is the history's)
    return not message.startswith("messages") and "signature" not in message \
        and any(word in message for word in ("thinking", "effort", "output_config"))


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

