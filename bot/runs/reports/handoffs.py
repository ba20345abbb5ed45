"""Why a run was handed to a person, when the reason is one the help center cannot settle: a refund, a legal
matter, a security incident, an angry customer, another customer's data, another company's product. Such a run is
a policy hand-off (the agent did right), not a knowledge gap: `kitebase gaps` counts it under its reason.

Read from the reason the agent gave (escalate_to_human's `reason`, stored on the escalation of kind
`model_request`); quoted text in it (a ticket's title, the customer's words) is not the agent's reason and is
left out, and a reason that says the help had nothing or a draft was not sent stays a gap."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    key: str
    label: str
    pattern: re.Pattern[str]


POLICIES = (
    Policy("refund", "refunds and money back are a person's decision",
           re.compile(r"\b(refund\w*|money back|chargebacks?|reimburs\w+|credit note|dispute[sd]? (the|this|a) "
                      r"charge)", re.IGNORECASE)),
    Policy("legal", "legal matters go to a person",
           re.compile(r"\b(legal|lawyers?|attorneys?|solicitors?|lawsuits?|sue|suing|court|subpoena)\b",
                      re.IGNORECASE)),
    Policy("security", "possible security incidents go to a person",
           re.compile(r"\b(security|breach\w*|hacked|compromised|unauthori[sz]ed|phishing)\b", re.IGNORECASE)),
    Policy("angry", "an angry or upset customer needs a person",
           re.compile(r"\b(angry|furious|upset|abusive|hostile|threaten\w* to (cancel|leave|churn))\b", re.IGNORECASE)),
    Policy("other_data", "another customer's data is never shared",
           re.compile(r"\b(other|another) (customer|company|client)s?'?s? (data|details|emails?|list|contacts)",
                      re.IGNORECASE)),
    Policy("not_kitebase", "another company's product, not Kitebase",
           re.compile(r"another company's product|not (about )?kitebase", re.IGNORECASE)),
)
LABELS = {p.key: p.label for p in POLICIES}
# The agent found nothing to answer with, or its draft did not go out: a gap, whatever the ticket is about.
NO_ANSWER = re.compile(r"help cent(er|re) (has|had) nothing|nothing (in|on|from) the help|no help|not covered|"
                       r"no (help-center |help )?sections?|could not (find|read)|rejected|was not sent|not sent",
                       re.IGNORECASE)
QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")


def policy_of(reason: str | None) -> str | None:
    """The policy a hand-off's reason names (a POLICIES key), or None when it may be a gap in the help."""
    said = QUOTED.sub(" ", reason or "")
    if not said.strip() or NO_ANSWER.search(said):
        return None
    return next((p.key for p in POLICIES if p.pattern.search(said)), None)
