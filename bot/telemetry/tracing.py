"""Tracing on or off, decided once at start-up (bot/cli.py main, for every command).

On when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: the OpenTelemetry SDK is
imported then, spans go through a batch processor to the OTLP exporter, which reads the standard variables
itself (OTEL_EXPORTER_OTLP_HEADERS, _PROTOCOL, _TIMEOUT, ...), as do the sampler (OTEL_TRACES_SAMPLER) and the
resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES). Off otherwise: nothing is imported or set up, and every
hook returns at its first line (`tracer()` is None)."""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Tracer, TracerProvider

    from bot.config import Settings

logger = logging.getLogger(__name__)

SCOPE = "kitebase"
_tracer: Tracer | None = None
_content = False
_lock = threading.Lock()


def tracer() -> Tracer | None:
    """The tracer when tracing is on, else None (the hooks' whole cost when off)."""
    return _tracer


def content() -> bool:
    """KITEBASE_TRACE_CONTENT=1: prompts, replies and tool arguments go on the spans (through the secret filter)."""
    return _content


def wanted(settings: Settings) -> bool:
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() == "none":
        return False
    return bool(settings.otlp_endpoint)


def setup(settings: Settings) -> bool:
    """Export spans over OTLP if the environment asks for it. Idempotent; True when tracing is on."""
    if _tracer is not None or not wanted(settings):
        return _tracer is not None
    try:
        provider = _otlp_provider()
    except ImportError as exc:
        logger.warning("OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry SDK is not installed (%s); "
                       "no traces. Install it with: pip install 'kitebase-agent[otel]'", exc.name)
        return False
    # The anthropic SDK's own span per API call repeats our chat span's gen_ai.* attributes: a backend would count
    # every model call twice. Off unless the operator asks (ANTHROPIC_OPEN_TELEMETRY=true: it nests under `chat`).
    os.environ.setdefault("ANTHROPIC_OPEN_TELEMETRY", "false")
    install(provider, content=settings.trace_content, make_global=True)
    return True


def install(provider: TracerProvider, *, content: bool, make_global: bool = False) -> None:
    """Use `provider` for our spans (tests pass one with an in-memory exporter). `make_global` also gives it to
    other instrumentation, e.g. the anthropic SDK's own span per API call, which then nests under our `chat`."""
    global _tracer, _content
    from opentelemetry import trace

    with _lock:
        if make_global:
            trace.set_tracer_provider(provider)
        _tracer, _content = provider.get_tracer(SCOPE), content


def uninstall() -> None:
    """Tracing off again (tests)."""
    global _tracer, _content
    with _lock:
        _tracer, _content = None, False


def _otlp_provider() -> TracerProvider:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    named = "OTEL_SERVICE_NAME" in os.environ or "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    provider = SdkTracerProvider(resource=Resource.create({} if named else {"service.name": "kitebase"}))
    provider.add_span_processor(BatchSpanProcessor(_exporter()))
    return provider


def _exporter() -> SpanExporter:
    protocol = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
                or "http/protobuf").strip().lower()
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found,unused-ignore]
            OTLPSpanExporter as GrpcExporter,
        )

        return GrpcExporter()  # type: ignore[no-any-return,unused-ignore]
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()
