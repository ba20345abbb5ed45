"""Traces and logs of the runs: OpenTelemetry spans after the GenAI semantic conventions, exported over OTLP
when OTEL_EXPORTER_OTLP_ENDPOINT is set (nothing is set up otherwise), and log lines that name the run they
were written for. Importing this package loads no OpenTelemetry code: the SDK is imported by `setup` only."""
