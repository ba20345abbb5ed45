"""One analyser for documents and queries, so both backends and both sides see the same terms.

Text becomes lower-case words (British spellings folded to American, contractions joined), then
Snowball (Porter 2) stems. Phrases from the synonym table add a concept term (`~sso`) wherever they
occur. Stop words take part in phrases ("log in") and are dropped afterwards. Nothing a person or a
model types is ever interpreted as an operator: every character outside a word is a separator.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping

import snowballstemmer

from bot.search import synonyms, typos
from bot.search.words import STOPWORDS as _QUERY_STOPWORDS

_WORD = re.compile(r"\w+(?:['’]\w+)*")
_BRITISH = re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations|er|ers)$")
SPELLING = {"licence": "license", "licences": "licenses", "catalogue": "catalog", "behaviour": "behavior",
            "colour": "color", "centre": "center", "cheque": "check"}
STOPWORDS = _QUERY_STOPWORDS | frozenset(
    ["cant", "cannot", "couldnt", "dont", "doesnt", "didnt", "isnt", "wont", "arent", "wasnt", "werent", "im", "ive", "were", "weve", "theyre", "youre", "its", "thats", "theres", "hey", "hiya", "team", "folks", "anyone", "something", "anything", "still", "since", "get", "got", "getting", "us", "one", "would", "like", "know", "need", "want", "now", "yet", "way", "any", "every", "also", "just", "really"])
CONCEPT = "~"
MAX_CACHED_STEMS = 200_000
MAX_CACHED_SENTENCES = 20_000


class Analyzer:
    def __init__(self, table: str = synonyms.TABLE):
        self._stemmer = snowballstemmer.stemmer("english")
        self._lock = threading.Lock()
        self._stems: dict[str, str] = {}
        self._words: dict[str, tuple[str, ...]] = {}  # a token as found -> its normalised words
        self._sentences: dict[str, frozenset[str]] = {}
        self.phrases: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
        self.phrase_words: set[str] = set()
        self._load(synonyms.parse(table))

    def _load(self, pairs: list[tuple[str, str]]) -> None:
        found: dict[tuple[str, ...], list[str]] = {}
        for concept, phrase in pairs:
            words = self.words(phrase)
            self.phrase_words.update(words)
            key = tuple(self.stem(w) for w in words)
            if key and concept not in found.setdefault(key, []):
                found[key].append(concept)
        for key, concepts in sorted(found.items(), key=lambda item: -len(item[0])):
            self.phrases.setdefault(key[0], []).append((key, tuple(CONCEPT + c for c in concepts)))

    # --- words and stems -------------------------------------------------------------------------

    def words(self, text: str) -> list[str]:
        """Normalised surface words in order, stop words included; `a_b` identifiers also give a, b."""
        out: list[str] = []
        cache = self._words
        for token in _WORD.findall(unicodedata.normalize("NFKC", text).lower()):
            normal = cache.get(token)
            if normal is None:
                normal = self._normal(token)
                if len(cache) >= MAX_CACHED_STEMS:
                    cache.clear()
                cache[token] = normal
            out += normal
        return out

    @staticmethod
    def _normal(token: str) -> tuple[str, ...]:
        word = token.replace("'", "").replace("’", "")
        word = SPELLING.get(word) or (_BRITISH.sub(r"iz\1", word) if "is" in word else word)
        return (word, *(part for part in word.split("_") if part)) if "_" in word else (word,)

    def stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            if "_" in word or any(ch.isdigit() for ch in word):
                stem = word
            else:
                with self._lock:
                    stem = self._stemmer.stemWord(word)
            if len(self._stems) >= MAX_CACHED_STEMS:  # typos in queries would grow it forever
                self._stems.clear()
            self._stems[word] = stem
        return stem

    def is_stop(self, word: str) -> bool:
        return word in STOPWORDS or len(word) < 2

    # --- documents and queries -------------------------------------------------------------------

    def terms(self, text: str) -> list[str]:
        """The terms of a document field, repeats kept (term frequency): stems and concepts."""
        return self.terms_and_words(text)[0]

    def term_set(self, sentence: str) -> frozenset[str]:
        """The distinct terms of a sentence whose match may be shown, remembered: the hits of one search are
        often the hits of the next, and their sentences are analysed again only after a while."""
        found = self._sentences.get(sentence)
        if found is None:
            found = frozenset(self.terms(sentence))
            if len(self._sentences) >= MAX_CACHED_SENTENCES:
                self._sentences.clear()
            self._sentences[sentence] = found
        return found

    def terms_and_words(self, text: str) -> tuple[list[str], list[str]]:
        """The terms of a field (as `terms`) and its surface words that are not stop words, in one pass."""
        words = self.words(text)
        stems = [self.stem(w) for w in words]
        kept = [w not in STOPWORDS and len(w) >= 2 for w in words]
        out = [s for s, keep in zip(stems, kept, strict=True) if keep]
        for concepts, _start, _end in self._concepts(stems):
            out += concepts
        return out, [w for w, keep in zip(words, kept, strict=True) if keep]

    def query(self, text: str, vocabulary: Mapping[str, int] | None = None,
              phrase_weight: float = 1.0) -> dict[str, float]:
        """Query terms with weights: typos corrected against `vocabulary`, synonym phrases add concepts,
        the words inside a phrase count `phrase_weight`."""
        words = self.words(text)
        if vocabulary is not None:
            words = [w if w in self.phrase_words else typos.correct(w, vocabulary) for w in words]
        stems = [self.stem(w) for w in words]
        weights: dict[str, float] = {}
        in_phrase: set[int] = set()
        for concepts, start, end in self._concepts(stems):
            in_phrase.update(range(start, end))
            for concept in concepts:
                weights[concept] = 1.0
        for i, (word, stem) in enumerate(zip(words, stems, strict=True)):
            if not self.is_stop(word):
                weight = phrase_weight if i in in_phrase else 1.0
                weights[stem] = max(weights.get(stem, 0.0), weight)
        return weights

    def _concepts(self, stems: list[str]) -> Iterable[tuple[tuple[str, ...], int, int]]:
        """Concepts of the longest phrase starting at each position, without overlaps."""
        i = 0
        while i < len(stems):
            for key, concepts in self.phrases.get(stems[i], ()):
                if tuple(stems[i:i + len(key)]) == key:
                    yield concepts, i, i + len(key)
                    i += len(key)
                    break
            else:
                i += 1
