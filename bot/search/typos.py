"""Typo tolerance: a word the index has never seen is replaced by the most frequent indexed word one
edit away (a letter missing, extra, wrong, or two letters swapped: Damerau-Levenshtein distance 1).

Edits are generated from the query word and looked up in the vocabulary, so nothing is precomputed and
the cost is a few hundred set lookups per unknown word.
"""

from __future__ import annotations

from collections.abc import Mapping

LETTERS = "abcdefghijklmnopqrstuvwxyz"
MIN_LENGTH = 4  # shorter words have too many neighbours to guess safely


def edits1(word: str) -> set[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = [a + b[1:] for a, b in splits if b]
    swaps = [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    replaces = [a + c + b[1:] for a, b in splits if b for c in LETTERS]
    inserts = [a + c + b for a, b in splits for c in LETTERS]
    return set(deletes + swaps + replaces + inserts)


def correct(word: str, vocabulary: Mapping[str, int]) -> str:
    """`word` itself when known, too short or not a plain word; else its most frequent neighbour, if any."""
    if word in vocabulary or len(word) < MIN_LENGTH or not word.isalpha() or not word.isascii():
        return word
    candidates = [(vocabulary[w], w) for w in edits1(word) if w in vocabulary]
    return max(candidates)[1] if candidates else word
