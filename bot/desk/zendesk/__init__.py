"""The Zendesk desk: client, mirror sync, live reads, exactly-once writes, webhooks."""
