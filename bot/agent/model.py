"""Model clients: what the loop calls. The real Anthropic client, or anything with the same shape."""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import anthropic

from bot.agent.errors import ModelCallFailed

logger = logging.getLogger(__name__)

CACHEABLE = {"text", "tool_result", "tool_use", "image", "document"}


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    @classmethod
    def from_api(cls, usage: Any) -> Usage:
        get = usage.get if isinstance(usage, dict) else lambda k, d=None: getattr(usage, k, d)
        return cls(int(get("input_tokens", 0) or 0), int(get("output_tokens", 0) or 0),
                   int(get("cache_read_input_tokens", 0) or 0), int(get("cache_creation_input_tokens", 0) or 0))


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
                 max_tokens: int) -> ModelResponse: ...


def with_cache_breakpoints(system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
                           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Copies of system, tools and messages marked for prompt caching (3 of the 4 allowed breakpoints):
    the system prompt, the tool definitions, and the last block of the growing history."""
    system_blocks = [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]
    tools = [dict(t) for t in tools]
    if tools:
        tools[-1]["cache_control"] = {"type": "ephemeral"}
    messages = copy.deepcopy(messages)
    last = messages[-1]
    if isinstance(last.get("content"), str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    for block in reversed(last["content"]):
        if block.get("type") in CACHEABLE:
            block["cache_control"] = {"type": "ephemeral"}
            break
    return system_blocks, tools, messages


class AnthropicModel:
    """The real Messages API through the official SDK (honours ANTHROPIC_BASE_URL / base_url)."""

    def __init__(self, *, api_key: str, model: str, base_url: str | None = None, max_retries: int = 3,
                 timeout: float = 120.0):
        self.name = model
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=max_retries,
                                           timeout=timeout)

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int) -> ModelResponse:
        system_blocks, tools, messages = with_cache_breakpoints(system, tools, messages)
        started = time.monotonic()
        try:
            message = self._client.messages.create(model=self.name, max_tokens=max_tokens, system=system_blocks,
                                                   tools=tools, messages=messages)
        except anthropic.AuthenticationError:
            raise ModelCallFailed("The Anthropic API rejected the API key (401). Check ANTHROPIC_API_KEY.") from None
        except anthropic.APIStatusError as exc:
            raise ModelCallFailed(_describe_status_error(exc)) from None
        except anthropic.APIConnectionError as exc:
            kind = "timed out" if isinstance(exc, anthropic.APITimeoutError) else "could not be reached"
            raise ModelCallFailed(f"The Anthropic API {kind} (after retries).") from None
        latency = int((time.monotonic() - started) * 1000)
        content = [block.model_dump(mode="json", exclude_none=True) for block in message.content]
        return ModelResponse(content=content, stop_reason=message.stop_reason, usage=Usage.from_api(message.usage),
                             model=message.model, latency_ms=latency, request_id=getattr(message, "_request_id", None))


def _describe_status_error(exc: anthropic.APIStatusError) -> str:
    detail = ""
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else {}
    if error.get("message"):
        detail = f": {str(error['message'])[:300]}"
    names = {400: "rejected the request", 404: "does not know the model or endpoint", 413: "found the request too large",
             429: "is rate limiting us", 529: "is overloaded"}
    what = names.get(exc.status_code, "failed")
    return f"The Anthropic API {what} ({exc.status_code}){detail}"


def build_model(settings: Any) -> ModelClient:
    """The real client when ANTHROPIC_API_KEY is set (and KITEBASE_OFFLINE is not), else the offline model."""
    if settings.use_offline_model:
        from bot.agent.offline import OfflineModel

        return OfflineModel()
    return AnthropicModel(api_key=settings.anthropic_api_key.get_secret_value(), model=settings.model,
                          base_url=settings.anthropic_base_url, max_retries=settings.model_max_retries,
                          timeout=settings.model_timeout_seconds)
