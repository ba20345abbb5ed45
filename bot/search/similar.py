"""Which tickets like a given one are the same problem: a cut-off drawn from this desk's own similarities.

A fixed bar ("a blended similarity of at least 0.35") holds only on the desk it was tuned on: a desk whose
tickets are written longer, in other words or about another product has its own scale, and there the same
bar drops most of the true matches (issue 35: on generated desks of other products, recall@5 0.56 where the
uncut ranking held 0.97). So the bar is read off the checked candidates themselves. Past the first few
(`like_background_from`), the candidates of a search are, on any desk, tickets that merely share words with
the one asked about: their similarities are this desk's background for this ticket. A hit is the same problem
when it stands `like_z` standard deviations above that background, and reaches `like_relative` of the best
hit's similarity (a second cause usually sits well below the first).

When a desk is so small that there is little background, the mean and deviation lean on a prior
(`like_prior`: a mean, a deviation and how many candidates' worth of weight it carries), so that a handful of
tickets neither passes everything nor nothing.
"""

from __future__ import annotations

import math

from bot.search.params import SearchParams


def bar(similarities: list[float], params: SearchParams) -> float:
    """The similarity a hit needs, given every checked candidate's similarity."""
    ordered = sorted(similarities, reverse=True)
    if not ordered:
        return math.inf
    background = ordered[params.like_background_from:]
    prior_mean, prior_sd, weight = params.like_prior
    count = len(background) + weight
    mean = (sum(background) + weight * prior_mean) / count
    variance = (sum((s - mean) ** 2 for s in background) + weight * prior_sd ** 2) / count
    return max(mean + params.like_z * math.sqrt(variance), params.like_relative * ordered[0])


def same_problem(similarities: dict[str, float], params: SearchParams) -> dict[str, float]:
    """The hits that stand out from this ticket's background on this desk (see the module's docstring)."""
    needed = bar(list(similarities.values()), params)
    return {key: sim for key, sim in similarities.items() if sim >= needed}
