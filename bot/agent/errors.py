"""The typed ways a run can end other than with an answer."""

from __future__ import annotations

from bot.vocabulary import StopKind


class RunStopped(Exception):
    """Base: the run ends, escalated to a person, for the reason in `kind` and the message."""

    kind: StopKind = StopKind.FAILURE


class GuardTripped(RunStopped):
    """One of our own limits was reached before a model call."""

    kind = StopKind.GUARD

    def __init__(self, limit: str, value: float, maximum: float, message: str):
        super().__init__(message)
        self.limit, self.value, self.maximum = limit, value, maximum


class ModelCallFailed(RunStopped):
    """The model API could not be reached, refused the request, or answered with something that is not a
    message (after our retries). `raw` keeps a malformed body for the step log."""

    kind = StopKind.MODEL_ERROR

    def __init__(self, message: str, raw: str | None = None):
        super().__init__(message)
        self.raw = raw


class DeadlineReached(ModelCallFailed):
    """The run's time allowance ran out while a model call was under way (the call was cut short)."""

    kind = StopKind.GUARD


class MalformedHistory(Exception):
    """The history breaks the Messages API's rules; sending it would be a bug, so we never do."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


class StopRequested(Exception):
    """A person asked the run to stop (Stop in Slack, `kitebase stop`): it ends at once, resumable."""

    def __init__(self, who: str):
        super().__init__(f"stopped by {who}")
        self.who = who
