"""What every tool is made of, and the one function that runs a tool call safely."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from sqlalchemy.exc import SQLAlchemyError

from bot.config import Settings
from bot.db.engine import Database
from bot.desk import Desk, DeskError, open_desk

logger = logging.getLogger(__name__)


class ToolError(Exception):
    """A failure the model should read and act on; its message is shown to the model as is."""


@dataclass(frozen=True)
class ToolContext:
    db: Database
    settings: Settings
    run_id: int | None = None
    tool_use_id: str | None = None
    actor: str | None = None  # the person who approved a gated call, if any
    desk: Desk = field(default=None)  # type: ignore[assignment]  # the configured desk when not given

    def __post_init__(self) -> None:
        if self.desk is None:
            object.__setattr__(self, "desk", open_desk(self.settings, self.db))


@dataclass(frozen=True)
class ToolResult:
    text: str
    data: Any = None
    is_error: bool = False


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[..., ToolResult]
    read_only: bool = True
    ends_run: bool = False
    # Checks run before a gated call is shown to a person (raise ToolError); never has side effects.
    preflight: Callable[..., None] | None = None
    _validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        Draft202012Validator.check_schema(self.input_schema)
        object.__setattr__(self, "_validator", Draft202012Validator(self.input_schema))

    def definition(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}

    def argument_problems(self, args: Any) -> list[str]:
        if not isinstance(args, dict):
            return [f"arguments must be a JSON object, got {type(args).__name__}"]
        problems = []
        for error in sorted(self._validator.iter_errors(args), key=lambda e: list(e.path)):
            where = ".".join(str(p) for p in error.path)
            message = _describe(error)
            problems.append(f"{where}: {message}" if where else message)
        return problems


def _describe(error: Any) -> str:
    """A short sentence for a schema violation (jsonschema's own repeats the whole value, e.g. a 7,000-char
    message, which helps nobody)."""
    value, kind, limit = error.instance, error.validator, error.validator_value
    if kind == "maxLength" and isinstance(value, str):
        return f"{len(value):,} characters; the limit is {limit:,}"
    if kind == "minLength" and isinstance(value, str):
        return "must not be empty" if limit == 1 else f"{len(value):,} characters; at least {limit:,} needed"
    if kind == "type":
        return f"must be {'an' if str(limit)[0] in 'aeiou' else 'a'} {limit}, got {type(value).__name__}"
    if kind == "enum":
        return f"{_short(value)} is not one of {', '.join(map(str, limit))}"
    if kind in ("maximum", "minimum"):
        return f"{_short(value)} is {'above' if kind == 'maximum' else 'below'} the {kind} {limit}"
    message = str(error.message)
    return message if len(message) <= 300 else message[:300] + "…"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


# A function with `execute`'s shape: the run layer hands the loop `execute` wrapped by bot/telemetry (the call's
# log lines name its run, also on tool threads; an execute_tool span when tracing is on).
Execute = Callable[[dict[str, Tool], ToolContext, str, Any], ToolResult]


def truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    marker = f"\n[truncated: {limit:,} of {len(text):,} chars]"
    return text[:limit] + marker


def execute(registry: dict[str, Tool], ctx: ToolContext, name: str, args: Any) -> ToolResult:
    """Run one tool call. Never raises: every failure becomes an is_error result the model can act on."""
    tool = registry.get(name)
    if tool is None:
        known = ", ".join(sorted(registry))
        return ToolResult(f"There is no tool called {name!r}. Use one of: {known}.", is_error=True)
    problems = tool.argument_problems(args)
    if problems:
        required = ", ".join(tool.input_schema.get("required", [])) or "none"
        return ToolResult(
            f"Invalid arguments for {name}: {'; '.join(problems)}. Required arguments: {required}. "
            "Fix the arguments and call the tool again.", is_error=True)
    try:
        result = tool.fn(ctx, **args)
    except (ToolError, DeskError) as exc:
        result = ToolResult(str(exc), is_error=True)
    except SQLAlchemyError:
        logger.exception("database error in tool %s", name)
        result = ToolResult(
            f"{name} could not reach the support desk database. Try once more; if it fails again, "
            "call escalate_to_human with what you have.", is_error=True)
    except Exception:
        logger.exception("tool %s raised", name)
        result = ToolResult(
            f"{name} failed with an internal error (logged for the Kitebase team). Try another approach, "
            "or call escalate_to_human if you cannot finish without it.", is_error=True)
    return ToolResult(truncate(result.text, ctx.settings.tool_result_max_chars), result.data, result.is_error)
