"""Which tickets like a given one are the same problem: a cut-off drawn from this desk's own similarities.

A fixed bar ("a blended similarity of at least 0.35") holds only on the desk it was tuned on: a desk whose
tickets are written longer, in other words or about another product has its own scale, and there the same
bar drops most of the true matches (issue 35: on generated desks of other products, recall@5 0.56 where the
uncut ranking held 0.97). So the bar is read off the checked candidates themselves. Past the first few
(`like_background_from`), the candidates of a search are, on any desk, tickets that merely share words with
the one asked about: their similarities are this desk's background for this ticket. A hit is the same problem
when it stands `like_z` standard deviations above that background, and reaches `like_relative` of the best
hit's similarity (a second cause usually sits well below the first).

That bar keeps precision and loses recall: the same ranking holds nearly all true matches near its top, among
near misses told with the same symptoms. So a search for the agent also returns the rest of the ranking's head
that stands above the background at all (`worth_a_look`), for the model to read and judge (issue 50).

When a desk is so small that there is little background, the mean and deviation lean on a prior
(`like_prior`: a mean, a deviation and how many candidates' worth of weight it carries), so that a handful of
tickets neither passes everything nor nothing.
"""

from __future__ import annotations

import math

from bot.search.params import SearchParams


def bar(similarities: list[float], params: SearchParams, *, z: float | None = None,
        relative: float | None = None) -> float:
    """The similarity a hit needs, given every checked candidate's similarity (`z` and `relative` default to the
    "same problem" bar's)."""
    ordered = sorted(similarities, reverse=True)
    if not ordered:
        return math.inf
    background = ordered[params.like_background_from:]
    prior_mean, prior_sd, weight = params.like_prior
    count = len(background) + weight
    mean = (sum(background) + weight * prior_mean) / count
    variance = (sum((s - mean) ** 2 for s in background) + weight * prior_sd ** 2) / count
    z = params.like_z if z is None else z
    relative = params.like_relative if relative is None else relative
    return max(mean + z * math.sqrt(variance), relative * ordered[0])


def same_problem(similarities: dict[str, float], params: SearchParams) -> dict[str, float]:
    """The hits that stand out from this ticket's background on this desk (see the module's docstring)."""
    needed = bar(list(similarities.values()), params)
    return {key: sim for key, sim in similarities.items() if sim >= needed}


def worth_a_look(similarities: dict[str, float], params: SearchParams) -> dict[str, float]:
    """The hits that stand `like_look_z` deviations above the same background, however far below the best one:
    the same symptoms, perhaps another cause, for a reader to tell apart (the "same problem" ones among them)."""
    needed = bar(list(similarities.values()), params, z=params.like_look_z, relative=0.0)
    return {key: sim for key, sim in similarities.items() if sim >= needed}
