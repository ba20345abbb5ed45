"""Pure Block Kit builders: data in, blocks out, Slack's limits enforced here. No I/O."""
