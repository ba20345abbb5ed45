"""Tracing is set up only when asked: without OTEL_EXPORTER_OTLP_ENDPOINT a `kitebase run` loads no SDK and
registers no tracer provider; with it, the spans reach an OTLP/HTTP collector (a local stand-in here) as the
standard OTEL_* variables configure the exporter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from bot.config import Settings
from bot.telemetry import tracing

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
CHECK = """
import json, os, sys
from bot.cli import main
code = main(["run", sys.argv[1], "--approve", "auto", "--json"])
from opentelemetry import trace
from bot.telemetry import tracing
print(json.dumps({"code": code, "tracer": tracing.tracer() is not None,
                  "sdk": sorted(m for m in sys.modules if m.startswith("opentelemetry.sdk")),
                  "provider": type(trace.get_tracer_provider()).__name__,
                  "sdk_spans": os.environ.get("ANTHROPIC_OPEN_TELEMETRY")}))
"""


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "OTEL_", "ANTHROPIC_"))}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'k.db'}", **extra)
    return env


def test_without_an_endpoint_nothing_is_set_up(tmp_path):
    done = subprocess.run([sys.executable, "-c", CHECK, GOAL], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"code": 0, "tracer": False, "sdk": [], "provider": "ProxyTracerProvider",
                      "sdk_spans": None}, done.stderr[-2000:]


class _Collector(BaseHTTPRequestHandler):
    received: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.received.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                              "body": body})
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def collector():
    _Collector.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Collector.received
    server.shutdown()
    server.server_close()


def test_with_an_endpoint_kitebase_run_exports_its_spans_over_otlp_http(tmp_path, collector):
    url, received = collector
    env = _env(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=url, OTEL_EXPORTER_OTLP_HEADERS="x-team=support")
    done = subprocess.run([sys.executable, "-c", CHECK, GOAL], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0 and report["tracer"] and report["provider"] == "TracerProvider", done.stderr[-2000:]
    assert report["sdk_spans"] == "false", "the anthropic SDK's duplicate chat spans are off by default"
    assert received and {r["path"] for r in received} == {"/v1/traces"}
    assert all(r["headers"].get("x-team") == "support" for r in received)
    assert all(r["headers"].get("content-type") == "application/x-protobuf" for r in received)
    spans, services = [], set()
    for request in received:
        export = ExportTraceServiceRequest.FromString(request["body"])
        for resource_spans in export.resource_spans:
            services |= {a.value.string_value for a in resource_spans.resource.attributes if a.key == "service.name"}
            spans += [s for scope in resource_spans.scope_spans for s in scope.spans]
    names = [s.name for s in spans]
    assert services == {"kitebase"}
    assert names.count("invoke_agent kitebase") == 2 and names.count("chat kitebase-offline") == 5
    assert {"execute_tool get_ticket", "execute_tool reply_to_customer", "kitebase.approval.decide"} <= set(names)
    conversation = {a.value.string_value for s in spans for a in s.attributes if a.key == "gen_ai.conversation.id"}
    assert conversation == {"1"}


@pytest.mark.parametrize(("variables", "wanted"), [
    ({}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
])
def test_the_standard_variables_decide(monkeypatch, variables, wanted):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert tracing.wanted(Settings()) is wanted
    assert tracing.tracer() is None, "deciding sets nothing up"
