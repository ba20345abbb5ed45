"""Errors the run layer shows to people."""


class BadInput(ValueError):
    """The request cannot be acted on; the message tells the person what to do instead."""
