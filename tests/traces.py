"""Spans to look at: the real OpenTelemetry SDK with its in-memory exporter, installed for one test."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bot.telemetry import tracing


class _Forward(SpanExporter):
    """The process's global provider exports here; a test that asks for it reads what was forwarded."""

    def __init__(self) -> None:
        self.target: InMemorySpanExporter | None = None

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self.target.export(spans) if self.target is not None else SpanExportResult.SUCCESS


_FORWARD = _Forward()


@functools.cache
def _global_provider() -> TracerProvider:
    """The OpenTelemetry API takes one global provider per process: set once, forwarding to the current test."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_FORWARD))
    trace.set_tracer_provider(provider)
    assert trace.get_tracer_provider() is provider
    return provider


@contextmanager
def in_memory_spans(*, content: bool = False, make_global: bool = False) -> Iterator[InMemorySpanExporter]:
    """Our spans (and with `make_global` also other instrumentation's, e.g. the anthropic SDK's) in memory."""
    exporter = InMemorySpanExporter()
    if make_global:
        provider, _FORWARD.target = _global_provider(), exporter
    else:
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.install(provider, content=content)
    try:
        yield exporter
    finally:
        tracing.uninstall()
        _FORWARD.target = None
        if not make_global:
            provider.shutdown()


def named(spans: tuple[ReadableSpan, ...] | list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return sorted((s for s in spans if s.name == name), key=lambda s: s.start_time or 0)


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def events(span: ReadableSpan, name: str) -> list[dict[str, Any]]:
    return [dict(e.attributes or {}) for e in span.events if e.name == name]


def every_text(spans: tuple[ReadableSpan, ...] | list[ReadableSpan]) -> str:
    """Everything a tracing backend would store about these spans, as one string to search."""
    parts: list[str] = []
    for span in spans:
        parts += [span.name, span.status.description or ""]
        parts += [str(v) for v in (span.attributes or {}).values()]
        for event in span.events:
            parts += [event.name, *(str(v) for v in (event.attributes or {}).values())]
    return "\n".join(parts)
