"""Runs: starting, continuing, deciding approvals, escalating. The only layer that writes runs."""
