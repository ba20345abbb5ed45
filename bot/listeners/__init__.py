"""Bolt listeners by Slack surface; each module has register(app, ctx)."""

from slack_bolt import App

from bot.listeners import actions, batch_actions, commands, events, modals
from bot.listeners.context import SlackContext


def register_all(app: App, ctx: SlackContext) -> None:
    events.register(app, ctx)
    commands.register(app, ctx)
    batch_actions.register(app, ctx)
    actions.register(app, ctx)  # registers a catch-all for unknown action_ids last
    modals.register(app, ctx)
