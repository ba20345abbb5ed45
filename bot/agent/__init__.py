"""The agent: a bounded tool-use loop over the Messages API. It knows nothing of Slack."""
