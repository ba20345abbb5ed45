"""The product domains, one module each, and which half of the evaluation each belongs to.

"tune" desks may be looked at, searched and tuned on; "held-out" desks are for the final figure only: whoever
tunes the search must not read them (nor their tickets, groups or queries). `desk` is the desk's fixed number:
its ticket ids are KITE-{desk*1000+1} on, and its random stream is seeded from it.

Each module is plain data, the phrases of its domain (bench/gen_desks/__init__.py composes them):

    PRODUCT             the product's name
    STYLE               overrides of DEFAULT_STYLE (lengths, greetings, typos, lowercase, non-native writers...)
    STAFF               [(handle, full name)]
    CUSTOMERS           [{name, plan, seats, region, contact, sso, notes, writers?, voice?, id?, email?}]
    SLOTS               {placeholder: [values]}: the {placeholders} of the phrases below, drawn once per ticket
                        ({first} {name} {company} {staff} {product} {weekday} {date} {n} {nn} {num} {ref}
                        {time} {amount} are filled by the generator)
    GREETINGS SIGNOFFS CONTEXT TRIED ASKS ERROR_INTROS ({error}) FOLLOWUP_WAIT FOLLOWUP_THANKS REPLY_INFO
                        customers' phrases; RAMBLES (optional): paragraphs of life story for long tickets;
                        VOICE_GREETINGS / VOICE_SIGNOFFS (optional): {voice: [phrases]}
    STAFF_OPENERS STAFF_SIGNOFFS STAFF_ASKS STAFF_HOLDING INTERNAL_GENERIC
                        staff phrases that name no cause
    TAG_EXTRAS VAGUE_TITLES
    CLUSTERS            [{key, cause, tags, titles, symptoms (4-8), details, errors?, staff_cause (2-4),
                          internal, fixes, asks?, priority?, near (NEAR_MISSES keys), near_clusters?}]
    NEAR_MISSES         [{key, cause, tags, titles, symptoms, details?, staff_cause, fixes?}]: one ticket
                        each, same symptoms or words as a cluster, another cause
    SINGLETONS          [{title, tags, body, reply?, details?, priority?}]
    ARTICLES            {slug: {title, intro?, sections: [(heading, body)]}}
    QUERIES             [{q, answers (section ids, best first), kind}]
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

HALVES = ("tune", "held-out")

# Each domain's module is imported only when its desk is built (`data(name)`), so a tuner who builds the tune
# half never loads the held-out phrases.
DOMAINS: dict[str, dict[str, Any]] = {
    "payroll": {"half": "tune", "desk": 1},
    "school_lms": {"half": "tune", "desk": 2},
    "hospital_rota": {"half": "held-out", "desk": 4},
    "isp": {"half": "held-out", "desk": 5},
    # written on 2026-12-06 by helpers who read only the generator and payroll.py, after the search's parameters
    # were fixed; measured once, as they stood (issue 35's closing figures)
    "vet_clinic": {"half": "held-out", "desk": 6},
    "fleet": {"half": "held-out", "desk": 7},
}


def data(name: str) -> ModuleType:
    """The phrase module of domain `name`."""
    if name not in DOMAINS:
        raise KeyError(f"no generated desk named {name!r}; the domains are {', '.join(DOMAINS)}")
    return importlib.import_module(f"bench.gen_desks.domains.{name}")
