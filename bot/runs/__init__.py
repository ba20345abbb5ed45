"""Runs: the only layer that writes them. Split by its seams:

- lifecycle/  start, continue (resume), decide, follow up, escalate; the state machine and the checkpoint
- intake/     a person's request recorded in one transaction before Slack is acknowledged
- execution/  where and when runs continue: the embedded pool, the work queue, heartbeats, sweeps, timers
- reports/    read-only views for the CLI, Slack and App Home: queries, figures, knowledge gaps, feedback
"""

import os
import socket


class BadInput(ValueError):
    """The request cannot be acted on; the message tells the person what to do instead."""


def owner_name() -> str:
    """This process, as leases and heartbeats name it."""
    return f"{socket.gethostname()}:{os.getpid()}"
