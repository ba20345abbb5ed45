"""A `chat {model}` span per model call: the run layer hands the loop this wrapper around its model client
when tracing is on (bot/telemetry/instrument.py), so the loop itself is not touched. The span is current
while the client works, so the anthropic SDK's own span per HTTP call nests under it when it is turned on
(ANTHROPIC_OPEN_TELEMETRY=true; bot/telemetry/tracing.py turns it off by default)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.telemetry import content as msg
from bot.telemetry import conventions as c
from bot.telemetry import tracing
from bot.telemetry.spans import content_json, error_type, fail, guarded

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from bot.agent.model import ModelClient, ModelResponse
    from bot.telemetry.segment import Segment

OFFLINE = "kitebase-offline"  # bot/agent/offline.py: a model in this process (span kind INTERNAL, not CLIENT)


class TracedModel:
    def __init__(self, inner: ModelClient, segment: Segment):
        self.inner, self.segment = inner, segment
        self.name = inner.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def complete(self, *, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]],
                 max_tokens: int, timeout: float | None = None) -> ModelResponse:
        from opentelemetry.trace import use_span

        span: Span | None = None
        with guarded("starting a chat span"):
            span = self._start(system, messages, max_tokens)
        if span is None:
            return self.inner.complete(system=system, tools=tools, messages=messages, max_tokens=max_tokens,
                                       timeout=timeout)
        with use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            try:
                response = self.inner.complete(system=system, tools=tools, messages=messages,
                                               max_tokens=max_tokens, timeout=timeout)
            except BaseException as exc:
                with guarded("a chat span"):
                    fail(span, error_type(exc), str(exc) if tracing.content() else None)  # an upstream error may quote
                    span.end()
                raise
        with guarded("a chat span"):
            try:
                self.segment.add_usage(_answered(span, response))
            finally:
                span.end()
        return response

    def _start(self, system: str, messages: list[dict[str, Any]], max_tokens: int) -> Span:
        from opentelemetry.trace import SpanKind

        attributes: dict[str, Any] = {c.OPERATION: c.CHAT, c.PROVIDER_NAME: c.PROVIDER, c.REQUEST_MODEL: self.name,
                                      c.REQUEST_MAX_TOKENS: max_tokens, c.CONVERSATION_ID: str(self.segment.run_id)}
        if tracing.content():
            attributes[c.SYSTEM_INSTRUCTIONS] = content_json(msg.system_instructions(system))
            attributes[c.INPUT_MESSAGES] = content_json(msg.input_messages(messages))
        kind = SpanKind.INTERNAL if self.name == OFFLINE else SpanKind.CLIENT
        return self.segment.tracer.start_span(f"{c.CHAT} {self.name}", context=self.segment.context(), kind=kind,
                                              attributes=attributes)


def _answered(span: Span, response: ModelResponse) -> dict[str, int]:
    """Put the response on the span; returns the usage attributes (the segment sums them)."""
    usage = response.usage
    tokens = {c.INPUT_TOKENS: usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
              c.OUTPUT_TOKENS: usage.output_tokens, c.CACHE_READ_TOKENS: usage.cache_read_tokens,
              c.CACHE_CREATION_TOKENS: usage.cache_write_tokens}
    span.set_attributes(tokens)
    span.set_attribute(c.RESPONSE_MODEL, response.model or "")
    if response.stop_reason:
        span.set_attribute(c.FINISH_REASONS, [response.stop_reason])
    if response.request_id:
        span.set_attribute(c.ANTHROPIC_REQUEST_ID, response.request_id)
    if tracing.content():
        span.set_attribute(c.OUTPUT_MESSAGES, content_json(msg.output_messages(response.content, response.stop_reason)))
    return tokens
