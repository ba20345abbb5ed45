"""What a sent reply was, read back from a run's history: the text the customer got (a person's edit wins over
the model's draft) and who let it out. The run layer writes the result of a decided draft (bot/runs/lifecycle/
approvals.py) with these phrases; summaries, reports and the offline model read it back here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.desk.links import ANY_ANCHOR

EDITED = "edited your draft before it was sent"
RECEIVED = "The customer received this text instead"  # then ":\n\n" and the text that was sent
APPROVED = re.compile(r"Approved by (.+?)\.$")
EDITOR = re.compile(r"([^\s.]+) " + re.escape(EDITED))


@dataclass(frozen=True)
class SentReply:
    text: str  # as the run sent it to the desk (citations as codes; the desk shows the customer links or titles)
    edited_by: str | None = None
    approved_by: str | None = None

    @property
    def cited(self) -> list[str]:
        """The help sections the sent text cites, in order, without repeats."""
        return list(dict.fromkeys(ANY_ANCHOR.findall(self.text)))

    @property
    def how(self) -> str:
        """'edited by X before sending', 'approved by X', or '' (sent without a person's click)."""
        if self.edited_by:
            return f"edited by {self.edited_by} before sending"
        return f"approved by {self.approved_by}" if self.approved_by else ""


def edited_result(sent: str, who: str, draft: str, text: str) -> str:
    """The result the model reads after a person edited its draft: what went out, what it cites and what of the
    draft did not go out, so a note or report written next describes the sent text."""
    cited = list(dict.fromkeys(ANY_ANCHOR.findall(text)))
    dropped = [a for a in dict.fromkeys(ANY_ANCHOR.findall(draft)) if a not in cited]
    cites = f"It cites {', '.join(f'[{a}]' for a in cited)}" if cited else "It cites no help-center section"
    lost = f"; your draft's {', '.join(f'[{a}]' for a in dropped)} {'was' if len(dropped) == 1 else 'were'} not sent" \
        if dropped else ""
    return (f"{sent} {who} {EDITED}. {cites}{lost}. Describe this text, not your draft, in any note or report. "
            f"{RECEIVED}:\n\n{text}")


def sent_reply(arguments: dict[str, Any] | None, result_text: str) -> SentReply:
    """The reply a successful reply_to_customer call sent: its arguments, unless the result says a person
    edited the draft (then the text after RECEIVED)."""
    editor = EDITOR.search(result_text)
    if editor and f"{RECEIVED}:\n\n" in result_text:
        return SentReply(result_text.split(f"{RECEIVED}:\n\n", 1)[1], edited_by=editor.group(1))
    first = result_text.splitlines()[0] if result_text else ""
    approved = APPROVED.search(first)
    return SentReply(str((arguments or {}).get("message") or ""), approved_by=approved.group(1) if approved else None)
