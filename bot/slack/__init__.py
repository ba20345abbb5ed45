"""Slack I/O: the client, the thread reporter, the human queue and App Home. Builders live in slack_ui."""
