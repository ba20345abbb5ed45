"""BM25F over documents with named fields, in memory.

score(d, q) = Σ_t  q_t · idf(t) · tf'(t, d) · (k1 + 1) / (k1 + tf'(t, d))
tf'(t, d)   = Σ_f  w_f · tf(t, d, f) / (1 − b_f + b_f · len(d, f) / avglen(f))
idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

Field weights w_f and length normalisation b_f are per field (one saturation k1), so a word in a heading
counts more than in a body without one common word taking over (Robertson & Zaragoza, "The
Probabilistic Relevance Framework: BM25 and Beyond", 2009). idf makes rare words count: "okta" weighs
more than "settings".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FieldParams:
    weights: tuple[float, ...]
    b: tuple[float, ...]
    k1: float = 1.2


Shape = tuple[tuple[int, int], ...]  # (field number, term frequency) for each field the term occurs in


class Bm25fIndex:
    """Documents by key; each document is a list of fields, each field a list of terms.

    A posting is the term's shape in the document, e.g. ((0, 1), (2, 3)): once in the title, three times in
    the first message. Equal shapes are one shared tuple, so a posting costs one dictionary entry.
    """

    def __init__(self, fields: Sequence[str]):
        self.fields = tuple(fields)
        self.postings: dict[str, dict[str, Shape]] = {}
        self.lengths: dict[str, tuple[int, ...]] = {}
        self.words: Counter[str] = Counter()  # surface word → number of documents, for typo correction
        self._doc_words: dict[str, tuple[str, ...]] = {}
        self._doc_terms: dict[str, tuple[str, ...]] = {}
        self._shapes: dict[Shape, Shape] = {}
        self._total = [0] * len(self.fields)

    def __len__(self) -> int:
        return len(self.lengths)

    def __contains__(self, key: str) -> bool:
        return key in self.lengths

    def put(self, key: str, fields: Sequence[Sequence[str]], words: Sequence[str]) -> None:
        """Add or replace a document."""
        self.remove(key)
        counts = [Counter(terms) for terms in fields]
        self._doc_terms[key] = tuple(sorted(set().union(*counts)))
        for term in self._doc_terms[key]:
            shape = tuple((f, c[term]) for f, c in enumerate(counts) if term in c)
            self.postings.setdefault(term, {})[key] = self._shapes.setdefault(shape, shape)
        self.lengths[key] = tuple(len(terms) for terms in fields)
        self._total = [t + n for t, n in zip(self._total, self.lengths[key], strict=True)]
        self._doc_words[key] = tuple(sorted(set(words)))
        self.words.update(self._doc_words[key])

    def remove(self, key: str) -> None:
        lengths = self.lengths.pop(key, None)
        if lengths is None:
            return
        self._total = [t - n for t, n in zip(self._total, lengths, strict=True)]
        for word in self._doc_words.pop(key):
            self.words[word] -= 1
            if self.words[word] <= 0:
                del self.words[word]
        for term in self._doc_terms.pop(key):
            del self.postings[term][key]
            if not self.postings[term]:
                del self.postings[term]

    def df(self, term: str) -> int:
        return len(self.postings.get(term, ()))

    def idf(self, term: str) -> float:
        df = self.df(term)
        return math.log(1 + (len(self) - df + 0.5) / (df + 0.5))

    def terms_of(self, key: str) -> dict[str, Shape]:
        """Term → shape (fields and frequencies) in one document (for "more like this" queries)."""
        return {t: self.postings[t][key] for t in self._doc_terms.get(key, ())}

    def score(self, query: Mapping[str, float], params: FieldParams,
              only: Collection[str] | None = None) -> dict[str, float]:
        """Every document matching at least one query term (or only those in `only`), with its BM25F score."""
        n = len(self)
        if not n:
            return {}
        norm = [(w, 1 - b, b * n / total if total else 0.0)
                for w, b, total in zip(params.weights, params.b, self._total, strict=True)]
        k1 = params.k1
        scores: dict[str, float] = {}
        for term, q_weight in query.items():
            docs = self.postings.get(term)
            if not docs or q_weight <= 0:
                continue
            boost = q_weight * self.idf(term) * (k1 + 1)
            if only is None:
                matching: Iterable[tuple[str, Shape]] = docs.items()
            elif len(only) < len(docs):
                matching = [(k, docs[k]) for k in only if k in docs]
            else:
                matching = [(k, shape) for k, shape in docs.items() if k in only]
            for key, shape in matching:
                lengths = self.lengths[key]
                tf = 0.0
                for f, f_tf in shape:
                    w, one_minus_b, b_avg = norm[f]
                    tf += w * f_tf / (one_minus_b + b_avg * lengths[f])
                scores[key] = scores.get(key, 0.0) + boost * tf / (k1 + tf)
        return scores
