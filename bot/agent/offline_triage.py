"""The offline model's triage of a ticket (record_triage, tools/triage.py), from what get_ticket returned and the
tool's own definition. Small and plain on purpose: the desk's tags give the intent (the intents and their tags are
read from the definition, as a model reads them), a count of common words the language, a short lexicon the
sentiment, and the ticket's priority raised by words such as "urgent", "locked out" or "production down".
"""

from __future__ import annotations

import re
from typing import Any

from tools.triage import FALLBACK_INTENT, INTENT_LINE, PRIORITIES

# Common words of each language (short, frequent, rarely English): the language with the most hits wins
STOPWORDS = {
    "en": "the and is are we our you your not with this that have has for can it to of",
    "de": "der die das und ist nicht wir ich sie mit ein eine bei auf für kann uns unser seit",
    "fr": "le la les et est nous je vous pas avec une des pour sur dans notre depuis",
    "es": "el la los las y es nosotros yo no con una por para desde nuestro pero",
    "it": "il la gli e è non con una per che abbiamo nostro sono dal",
    "pt": "o a os as e é não com uma para nosso desde mas está",
    "nl": "de het een en is niet wij ik met voor ons onze sinds",
}
ANGRY = re.compile(r"\b(unacceptable|ridiculous|outrageous|furious|disgrace(ful)?|worst|useless|pathetic|"
                   r"fed up|cancel (our|my) (subscription|account|contract)|lawyer|"
                   r"inakzeptabel|unverschämt|inadmissible|inaceptable|inaccettabile)\b", re.IGNORECASE)
FRUSTRATED = re.compile(r"\b(frustrat\w*|annoy\w*|disappoint\w*|(happen\w*|failing|broken) again|yet again|"
                        r"still (not|no|broken|failing|happening)|completely (blocked|stuck)|please just|"
                        r"(third|fourth|fifth) time|for days|nobody (has|is)|no one (has|is)|painful|"
                        r"disruptive|quite disr\w*|keeps? (happening|failing|coming back)|"
                        r"immer noch|schon wieder|ärgerlich|encore|toujours pas|todavía|ancora)\b|\?\?|!!",
                        re.IGNORECASE)
POSITIVE = re.compile(r"\b(love|great|awesome|fantastic|brilliant|really appreciate|works? (great|perfectly)|"
                      r"bliss|huge thanks|thank you so much)\b", re.IGNORECASE)
URGENT = re.compile(r"\b(urgent(ly)?|asap|emergency|locked out|production (is )?down|(full|total) outage|"
                    r"(nobody|no one) (here |at \w+ )?can (sign|log|get|work|access|use|open)|"
                    r"everyone (is locked|gets|can't|cannot)|"
                    r"can'?t (log|sign) ?in|cannot (log|sign) ?in|dringend|urgente)\b", re.IGNORECASE)
HIGH = re.compile(r"\b(blocked|blocking|deadline|outage|can'?t work|cannot work|missed|compliance|regulator)\b",
                  re.IGNORECASE)
LOW = re.compile(r"\b(how do i|how can i|is there a way|is it possible|could we get|wondering|feature request|"
                 r"quote|discount)\b", re.IGNORECASE)


def intents_in(definition: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The intents record_triage's definition lists, each with its tags, in its order."""
    found = {m.group("intent"): tuple(t.strip() for t in (m.group("tags") or "").split(",") if t.strip())
             for m in INTENT_LINE.finditer(str(definition.get("description", "")))}
    allowed = definition.get("input_schema", {}).get("properties", {}).get("intent", {}).get("enum")
    return {k: v for k, v in found.items() if not allowed or k in allowed}


def triage(ticket: dict[str, Any], definition: dict[str, Any]) -> dict[str, str]:
    words = customer_words(ticket)
    return {"intent": intent(ticket, intents_in(definition)), "language": language(words),
            "sentiment": sentiment(words), "priority": priority(ticket, f"{ticket.get('title', '')}\n{words}")}


def customer_words(ticket: dict[str, Any]) -> str:
    return "\n\n".join(m.get("body") or "" for m in ticket.get("conversation") or [] if m.get("role") == "customer")


def intent(ticket: dict[str, Any], intents: dict[str, tuple[str, ...]]) -> str:
    """The intent of the ticket's first tag that an intent claims (a desk lists its main topic first), else
    `other`."""
    for tag in ticket.get("tags") or []:
        claimed = next((name for name, tags in intents.items() if str(tag).lower() in tags), None)
        if claimed is not None:
            return claimed
    return FALLBACK_INTENT


def language(text: str) -> str:
    words = re.findall(r"[^\W\d_]+", text.lower())
    counts = {code: sum(1 for w in words if w in set(common.split())) for code, common in STOPWORDS.items()}
    best = max(counts, key=lambda code: counts[code])
    return best if counts[best] > counts["en"] else "en"


def sentiment(text: str) -> str:
    if ANGRY.search(text):
        return "angry"
    if FRUSTRATED.search(text):
        return "frustrated"
    return "positive" if POSITIVE.search(text) else "neutral"


def priority(ticket: dict[str, Any], text: str) -> str:
    """The ticket's own priority (normal when none), raised to urgent by words such as "locked out", or from normal
    to high by words such as "blocked"; a plain question on a ticket without a priority is low."""
    given = str(ticket.get("priority") or "normal").lower()
    given = given if given in PRIORITIES else "normal"
    if URGENT.search(text):
        return "urgent"
    if HIGH.search(text) and given == "normal":
        return "high"
    if LOW.search(text) and not ticket.get("priority"):
        return "low"
    return given
