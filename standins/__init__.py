"""Local stand-ins of the services Kitebase talks to, written from their documentation: the Messages API
(anthropic_server, prompt_cache), the Slack Web API and Socket Mode (slack_server, socket_mode_server), signed
Slack requests as Slack sends them (slack_requests), and `kitebase serve` / `kitebase worker` as real processes
pointed at them (serve_process, worker_process). Tests, benchmarks and scripts use them; the product never
imports them. Nothing here reaches the network beyond 127.0.0.1."""
