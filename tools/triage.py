"""record_triage: the model's reading of a ticket (its intent, language, sentiment and a suggested priority).

The tool writes nothing: it checks what the model sends and answers with the triage as stored. The run layer
keeps the last one a run recorded on the run (bot/runs/lifecycle/triage.py) and, when the run's intake rule asks
for it (`triage_tags`), writes it to the run's own ticket as internal tags. The intents are configuration
(KITEBASE_TRIAGE_INTENTS: each intent with the desk tags that mean it); the tool's definition lists them, so
the model chooses among the desk's own categories.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from bot.config import DEFAULT_TRIAGE_INTENTS, Settings
from tools.base import Tool, ToolContext, ToolError, ToolResult

SENTIMENTS = ("positive", "neutral", "frustrated", "angry")
PRIORITIES = ("urgent", "high", "normal", "low")
FALLBACK_INTENT = "other"
# ISO 639-1 codes by English name (and a few names in the language itself): what a model is likely to send
LANGUAGES = {
    "english": "en", "german": "de", "deutsch": "de", "french": "fr", "français": "fr", "francais": "fr",
    "spanish": "es", "español": "es", "espanol": "es", "italian": "it", "italiano": "it", "portuguese": "pt",
    "português": "pt", "dutch": "nl", "nederlands": "nl", "swedish": "sv", "danish": "da", "norwegian": "no",
    "finnish": "fi", "polish": "pl", "czech": "cs", "turkish": "tr", "russian": "ru", "ukrainian": "uk",
    "greek": "el", "japanese": "ja", "chinese": "zh", "korean": "ko", "arabic": "ar", "hebrew": "he",
    "hindi": "hi", "indonesian": "id", "vietnamese": "vi", "thai": "th", "romanian": "ro", "hungarian": "hu",
    "catalan": "ca",
}
CODE = re.compile(r"^[a-z]{2}$")
# The lines of the description that list the intents: "- billing: tagged billing, invoices" (the offline model
# reads them as a model reads the description)
INTENT_LINE = re.compile(r"^- (?P<intent>[a-z][a-z0-9-]*): (?:tagged (?P<tags>.+)|anything else)$", re.MULTILINE)


def intents_of(settings: Settings) -> dict[str, tuple[str, ...]]:
    """The configured intents, each with the desk tags that mean it; `other` is always one of them (last)."""
    configured = dict(settings.triage_intents)
    configured.setdefault(FALLBACK_INTENT, ())
    return configured


def language_code(raw: str) -> str:
    """An ISO 639-1 code from a code or an English name ("German", "de", "pt-BR" → "de", "de", "pt")."""
    text = raw.strip().lower()
    head = re.split(r"[-_]", text, maxsplit=1)[0]
    if CODE.match(head):
        return head
    if text in LANGUAGES:
        return LANGUAGES[text]
    raise ToolError(f"language {raw.strip()[:40]!r} is not a language I know: send its ISO 639-1 code (en, de, fr, "
                    "es, …) or its English name.")


def normalise(intents: dict[str, tuple[str, ...]], args: dict[str, Any]) -> dict[str, str]:
    """The triage as stored ({intent, language, sentiment, priority}), or a ToolError saying what to send."""
    intent = str(args.get("intent", "")).strip().lower()
    if intent not in intents:
        raise ToolError(f"intent {intent[:40]!r} is not one of the desk's intents: send one of "
                        f"{', '.join(intents)} ({FALLBACK_INTENT} when none fits).")
    sentiment = str(args.get("sentiment", "")).strip().lower()
    if sentiment not in SENTIMENTS:
        raise ToolError(f"sentiment {sentiment[:40]!r} is not one of {', '.join(SENTIMENTS)}: send the one closest "
                        "to how the customer writes.")
    priority = str(args.get("priority", "")).strip().lower()
    if priority not in PRIORITIES:
        raise ToolError(f"priority {priority[:40]!r} is not one of {', '.join(PRIORITIES)}: send the priority you "
                        "suggest for the ticket.")
    return {"intent": intent, "language": language_code(str(args.get("language", ""))), "sentiment": sentiment,
            "priority": priority}


def record_triage(ctx: ToolContext, intent: str, language: str, sentiment: str, priority: str) -> ToolResult:
    triage = normalise(intents_of(ctx.settings), {"intent": intent, "language": language, "sentiment": sentiment,
                                                  "priority": priority})
    said = ", ".join(f"{k} {v}" for k, v in triage.items())
    return ToolResult(f"Triage recorded on this run: {said}. Nothing was sent to the customer; go on with the "
                      "ticket.", triage)


def describe(intents: dict[str, tuple[str, ...]]) -> str:
    lines = [f"- {name}: tagged {', '.join(tags)}" if tags else f"- {name}: anything else"
             for name, tags in intents.items()]
    return (
        "Record your triage of the ticket you are working: its intent, the language the customer writes in, "
        "their sentiment and the priority you suggest. Call it once, after get_ticket, when the request says a "
        "rule picked the ticket up. It sends nothing to the customer and changes nothing a customer sees. The "
        "intents, with the desk tags that usually mean them (judge by what the customer asks; the tags are a "
        "hint):\n" + "\n".join(lines))


def build(intents: dict[str, tuple[str, ...]]) -> Tool:
    return Tool(
        name="record_triage",
        description=describe(intents),
        input_schema={
            "type": "object", "additionalProperties": False,
            "required": ["intent", "language", "sentiment", "priority"],
            "properties": {
                "intent": {"type": "string", "enum": list(intents), "description": "What the customer needs"},
                "language": {"type": "string", "minLength": 2, "maxLength": 40,
                             "description": "The customer's language: an ISO 639-1 code such as en or de, or "
                                            "its English name"},
                "sentiment": {"type": "string", "enum": list(SENTIMENTS),
                              "description": "How the customer writes: angry only for hostile or threatening "
                                             "words, frustrated for annoyance or repeated trouble"},
                "priority": {"type": "string", "enum": list(PRIORITIES),
                             "description": "The priority you suggest: urgent when people cannot work at all "
                                            "(locked out, production down), high when much is blocked, low for "
                                            "questions and wishes"},
            },
        },
        fn=record_triage,
    )


@lru_cache(maxsize=8)
def _cached(intents: tuple[tuple[str, tuple[str, ...]], ...]) -> Tool:
    return build(dict(intents))


def for_settings(settings: Settings) -> Tool:
    """The tool as this deployment's intents make it (built once per configuration)."""
    return _cached(tuple(intents_of(settings).items()))


RECORD_TRIAGE = build({**dict(DEFAULT_TRIAGE_INTENTS), FALLBACK_INTENT: ()})
