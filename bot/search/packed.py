"""BM25F (bm25f.py) over packed arrays: scoring a query is a few array operations per query term, however
many documents match, so a desk of a hundred thousand tickets answers in milliseconds.

Documents live in slots. What was loaded together is one block: its postings sorted by term (for each term,
the slots that hold it, the position of each posting in the per-document arrays, and each posting's field
frequencies turned into BM25F's normalised frequency tf' for the parameters in use). A document added or
changed later gets a new slot in a small overlay scored in plain Python; the slot it replaces is marked dead.
When the overlay grows past a share of the block, everything is packed into one block again.

Scores are the same floating-point numbers bm25f.Bm25fIndex computes (same operations in the same order),
so the ranking does not depend on which structure holds a document.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from bot.search import vectors
from bot.search.bm25f import FieldParams, Shape
from bot.search.persist import Stored, Vocabulary

REBUILD_SHARE = 0.05  # the overlay is packed into the block when it holds more than this share of the slots
REBUILD_MIN = 256
# Up to this many postings, tf' follows every change of the average field lengths exactly; a bigger block keeps
# the averages it was computed with until they drift by DRIFT (recomputing costs ~40 ms per million postings).
EXACT_UP_TO = 1_000_000
FEW_KEYS = 8
DRIFT = 0.01


@dataclass
class _Block:
    """Postings of the documents loaded together, by term."""

    starts: np.ndarray  # int64 (max term + 2,): postings of term t are [starts[t], starts[t + 1])
    slots: np.ndarray  # int32 (postings,)
    tfs: np.ndarray  # uint8 (postings, fields)
    tf_cache: dict[FieldParams, tuple[tuple[tuple[float, float, float], ...], np.ndarray]] = field(default_factory=dict)

    def range(self, term: int) -> tuple[int, int]:
        if term + 1 >= len(self.starts):
            return 0, 0
        return int(self.starts[term]), int(self.starts[term + 1])


class _Column:
    """One array per document: those loaded together packed into one array (views by slot), those added
    later kept apart."""

    def __init__(self, arrays: list[np.ndarray], dtype: type, width: int = 0):
        shape = (0, width) if width else (0,)
        self.packed = np.concatenate(arrays) if arrays else np.zeros(shape, dtype)
        self.starts = np.concatenate([[0], np.cumsum([len(a) for a in arrays], dtype=np.int64)]).astype(np.int64)
        self.added: list[np.ndarray] = []

    def __getitem__(self, slot: int) -> np.ndarray:
        if slot < len(self.starts) - 1:
            return self.packed[self.starts[slot]:self.starts[slot + 1]]
        return self.added[slot - len(self.starts) + 1]

    def append(self, array: np.ndarray) -> None:
        self.added.append(array)

    def gather(self, slots: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The arrays of `slots` end to end, the length of each, and where each element sits in `packed` (None
        when some slot was added later). A few array operations when they were all loaded together, however
        many slots; one by one otherwise."""
        if not slots or max(slots) >= len(self.starts) - 1:
            arrays = [self[slot] for slot in slots]
            joined = np.concatenate(arrays) if arrays else self.packed[:0]
            return joined, np.array([len(a) for a in arrays], dtype=np.int64), None
        at = np.array(slots, dtype=np.int64)
        begins, sizes = self.starts[at], self.starts[at + 1] - self.starts[at]
        # element j of slot i's array sits at begins[i] + (j - where slot i starts in the result)
        where = np.repeat(begins - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()), dtype=np.int64)
        return self.packed[where], sizes, where


class WordCounts(Mapping[str, int]):
    """Surface word -> number of live documents holding it (the vocabulary typo correction chooses from)."""

    def __init__(self, index: PackedIndex):
        self.index = index

    def count(self, word: object) -> int:
        number = self.index.vocabulary.ids.get(word) if isinstance(word, str) else None
        counts = self.index.word_counts
        return int(counts[number]) if number is not None and number < len(counts) else 0

    def __getitem__(self, word: str) -> int:
        found = self.count(word)
        if found <= 0:
            raise KeyError(word)
        return found

    def __contains__(self, word: object) -> bool:
        return self.count(word) > 0

    def __iter__(self) -> Iterator[str]:
        counts = self.index.word_counts
        return (self.index.vocabulary.names[int(n)] for n in np.flatnonzero(counts > 0))

    def __len__(self) -> int:
        return int(np.count_nonzero(self.index.word_counts > 0))


class PackedIndex:
    def __init__(self, fields: tuple[str, ...], vocabulary: Vocabulary):
        self.fields, self.vocabulary = fields, vocabulary
        self.words = WordCounts(self)
        self._idf_cache: dict[int, float] = {}  # document frequency -> idf, for `_idf_documents` documents
        self._idf_documents = -1
        self._load([])

    # --- documents -----------------------------------------------------------------------------------

    def _load(self, docs: list[Stored]) -> None:
        """Everything in one block."""
        width = len(self.fields)
        self.keys = [d.key for d in docs]
        self.slot_of = {key: i for i, key in enumerate(self.keys)}
        self.alive = np.ones(len(docs), dtype=bool)
        self.lengths = np.array([d.lengths for d in docs], dtype=np.int64).reshape(len(docs), width)
        self.updated = np.array([d.updated for d in docs], dtype=np.float64)
        self.doc_terms = _Column([d.terms for d in docs], np.int32)
        self.doc_tfs = _Column([d.tfs for d in docs], np.uint8, width)
        self.doc_words = _Column([d.words for d in docs], np.int32)
        self.block_vectors = np.zeros((len(docs), vectors.DIM), dtype=np.float16)  # a row per block slot
        self.block_has_vector = np.array([d.vector is not None for d in docs], dtype=bool)
        for slot in np.flatnonzero(self.block_has_vector).tolist():
            self.block_vectors[slot] = docs[slot].vector
        self.added_vectors: dict[int, np.ndarray] = {}  # overlay slot -> vector
        counts = np.diff(self.doc_terms.starts)
        terms, tfs = self.doc_terms.packed, self.doc_tfs.packed
        slots = np.repeat(np.arange(len(docs), dtype=np.int32), counts)
        order = np.argsort(terms, kind="stable")  # by term, then slot (documents were in slot order)
        top = int(terms.max()) + 1 if len(terms) else 0
        self.block = _Block(np.concatenate([[0], np.cumsum(np.bincount(terms, minlength=top))]).astype(np.int64),
                            slots[order], tfs[order])
        self.block_slots = len(docs)
        self.overlay: dict[int, list[int]] = {}  # term -> overlay slots holding it
        self.df = np.bincount(terms, minlength=top).astype(np.int64)
        words = self.doc_words.packed
        self.word_counts = np.bincount(words, minlength=int(words.max()) + 1 if len(words) else 0).astype(np.int64)
        self.totals = self.lengths.sum(axis=0).astype(np.int64) if docs else np.zeros(width, np.int64)

    def load(self, docs: Iterable[Stored]) -> None:
        self._load(list(docs))

    def put(self, doc: Stored) -> None:
        """Add or replace one document (in the overlay)."""
        self.remove(doc.key)
        slot = len(self.keys)
        self.keys.append(doc.key)
        self.slot_of[doc.key] = slot
        self.alive = np.append(self.alive, True)
        self.lengths = np.vstack([self.lengths, np.asarray(doc.lengths, dtype=np.int64)[None, :]])
        self.updated = np.append(self.updated, doc.updated)
        self.doc_terms.append(doc.terms)
        self.doc_tfs.append(doc.tfs)
        self.doc_words.append(doc.words)
        if doc.vector is not None:
            self.added_vectors[slot] = np.asarray(doc.vector, dtype=np.float16)
        for term in doc.terms.tolist():
            self.overlay.setdefault(term, []).append(slot)
        self.df = _grown(self.df, doc.terms)
        self.df[doc.terms] += 1
        self.word_counts = _grown(self.word_counts, doc.words)
        self.word_counts[doc.words] += 1
        self.totals += np.asarray(doc.lengths, dtype=np.int64)
        if len(self.keys) - self.block_slots > max(REBUILD_MIN, REBUILD_SHARE * self.block_slots):
            self.repack()

    def remove(self, key: str) -> None:
        slot = self.slot_of.pop(key, None)
        if slot is None:
            return
        self.alive[slot] = False
        self.df[self.doc_terms[slot]] -= 1
        self.word_counts[self.doc_words[slot]] -= 1
        self.totals -= self.lengths[slot]

    def repack(self) -> None:
        """The live documents, overlay included, into one block again."""
        live = [Stored(self.keys[s], 0, float(self.updated[s]), self.lengths[s], self.doc_terms[s], self.doc_tfs[s],
                       self.doc_words[s], self.vector_of(s)) for s in sorted(self.slot_of.values())]
        self._load(live)

    def __len__(self) -> int:
        return len(self.slot_of)

    def __contains__(self, key: object) -> bool:
        return key in self.slot_of

    def updated_of(self, key: str) -> float:
        return float(self.updated[self.slot_of[key]])

    def vector_of(self, slot: int) -> np.ndarray | None:
        if slot < self.block_slots:
            return self.block_vectors[slot] if self.block_has_vector[slot] else None
        return self.added_vectors.get(slot)

    def cosines(self, key: str, others: Iterable[str]) -> dict[str, float]:
        """The similarity of `key`'s vector with each of `others` (vectors.py; unit vectors, so a dot product);
        a document without a vector is left out."""
        mine = self.vector_of(self.slot_of[key]) if key in self.slot_of else None
        slots = np.array([self.slot_of[other] for other in others if other in self.slot_of], dtype=np.int64)
        if mine is None or not len(slots):
            return {}
        in_block = slots[slots < self.block_slots]
        in_block = in_block[self.block_has_vector[in_block]]
        added = [slot for slot in slots[slots >= self.block_slots].tolist() if slot in self.added_vectors]
        rows = self.block_vectors[in_block]
        if added:
            rows = np.vstack([rows, *(self.added_vectors[slot][None, :] for slot in added)])
        values = rows.astype(np.float32) @ mine.astype(np.float32)
        keys = self.keys
        return {keys[slot]: value for slot, value in zip([*in_block.tolist(), *added], values.tolist(), strict=True)}

    # --- statistics ----------------------------------------------------------------------------------

    def df_of(self, term: str) -> int:
        number = self.vocabulary.ids.get(term)
        return int(self.df[number]) if number is not None and number < len(self.df) else 0

    def idf(self, term: str) -> float:
        return self.idf_of_df(self.df_of(term))

    def idf_of_df(self, df: int) -> float:
        n = len(self.slot_of)
        cache = self._idf_cache
        if self._idf_documents != n:  # a document came or went: the idf of every df changed
            cache.clear()
            self._idf_documents = n
        value = cache.get(df)
        if value is None:
            value = cache[df] = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return value

    def terms_of(self, key: str) -> dict[str, tuple[Shape, int]]:
        """Term -> (shape: fields and frequencies, document frequency) in one document, in the order of the
        terms' text."""
        slot = self.slot_of[key]
        numbers = self.doc_terms[slot]
        names = self.vocabulary.names
        found = {names[t]: (tuple((f, c) for f, c in enumerate(row) if c), df) for t, row, df in
                 zip(numbers.tolist(), self.doc_tfs[slot].tolist(), self.df[numbers].tolist(), strict=True)}
        return {name: found[name] for name in sorted(found)}

    def like_terms(self, key: str, field_weights: tuple[float, ...], keep: int,
                   min_df: int = 2) -> list[tuple[int, float, int]]:
        """A document's own terms as a query ("like this one"), in query order: (term number, weight, df) for
        its terms held by at least `min_df` documents, each weighted by the sum of `field_weights` over the
        fields it occurs in. More than `keep` of them: the `keep` rarest by weight × idf (ties by the term's
        text), else all in the order of their text."""
        slot = self.slot_of[key]
        numbers = self.doc_terms[slot]
        df = self.df[numbers]
        wanted = df >= min_df
        present = self.doc_tfs[slot][wanted] > 0
        weights = np.zeros(int(wanted.sum()), dtype=np.float64)
        for f, weight in enumerate(field_weights):  # field by field, as sum() over a shape's fields
            weights = weights + np.where(present[:, f], weight, 0.0)
        names = self.vocabulary.names
        found = list(zip(numbers[wanted].tolist(), weights.tolist(), df[wanted].tolist(), strict=True))
        if len(found) <= keep:
            return sorted(found, key=lambda term: names[term[0]])
        idf = {df: self.idf_of_df(df) for df in {term[2] for term in found}}  # a few distinct dfs, each once
        keys = [(-weight * idf[df], names[number]) for number, weight, df in found]
        order = sorted(range(len(found)), key=keys.__getitem__)
        return [found[i] for i in order[:keep]]

    def like_checks(self, other: str, queries: Mapping[str, list[tuple[int, float, int]]],
                    params: FieldParams) -> dict[str, tuple[float, float]]:
        """For each document `key` with its like-query (from `like_terms`): (the score of `other`, the score of
        `key` itself) under that query. The same floats as score_keys over those two documents, for a dozen
        documents at once (a like-ticket search checks its best candidates both ways)."""
        norm, k1 = self._norm_for(params)[0], params.k1
        width = len(self.fields)
        other_slot = self.slot_of.get(other, -1)
        other_terms = self.doc_terms[other_slot] if other_slot >= 0 else np.zeros(0, np.int32)
        rows: list[np.ndarray] = []
        lengths: list[np.ndarray] = []
        plan: list[tuple[str, list[float], list[bool]]] = []
        for key, query in queries.items():
            slot = self.slot_of[key]
            numbers = np.array([number for number, _, _ in query], dtype=np.int32)
            rows.append(self.doc_tfs[slot][np.searchsorted(self.doc_terms[slot], numbers)])  # its own terms
            lengths.append(np.broadcast_to(self.lengths[slot], (len(numbers), width)))
            hit = np.zeros(len(numbers), dtype=bool)
            if len(other_terms) and len(numbers):
                at = np.minimum(np.searchsorted(other_terms, numbers), len(other_terms) - 1)
                hit = other_terms[at] == numbers
                rows.append(self.doc_tfs[other_slot][at[hit]])
                lengths.append(np.broadcast_to(self.lengths[other_slot], (int(hit.sum()), width)))
            plan.append((key, [weight * self.idf_of_df(df) * (k1 + 1) for _, weight, df in query], hit.tolist()))
        if not plan:
            return {}
        tf = iter(_tf_rows(np.concatenate(rows), np.concatenate(lengths), norm).tolist())
        found = {}
        for key, boosts, hits in plan:
            itself = reached = 0.0
            own = [next(tf) for _ in boosts]
            for boost, t in zip(boosts, own, strict=True):
                itself += boost * t / (k1 + t)
            for boost, is_hit in zip(boosts, hits, strict=True):
                if is_hit:
                    t = next(tf)
                    reached += boost * t / (k1 + t)
            found[key] = (reached, itself)
        return found

    def _norm(self, params: FieldParams) -> tuple[tuple[float, float, float], ...]:
        n = len(self)
        return tuple((w, 1 - b, b * n / total if total else 0.0)
                     for w, b, total in zip(params.weights, params.b, self.totals.tolist(), strict=True))

    def _norm_for(self, params: FieldParams) -> tuple[tuple[tuple[float, float, float], ...], np.ndarray]:
        """The length normalisation a query uses, and the block's tf' under it (computed once, remembered)."""
        norm = self._norm(params)
        cached = self.block.tf_cache.get(params)
        if cached is not None and (cached[0] == norm or (len(self.block.slots) > EXACT_UP_TO
                                                         and _close(cached[0], norm))):
            return cached
        return norm, self._block_tf(params, norm)

    def _block_tf(self, params: FieldParams, norm: tuple[tuple[float, float, float], ...]) -> np.ndarray:
        """tf' of every posting in the block, for these parameters and statistics."""
        block = self.block
        lengths = self.lengths[block.slots] if len(block.slots) else np.zeros((0, len(self.fields)), np.int64)
        tf = _tf_rows(block.tfs, lengths, norm)
        block.tf_cache[params] = (norm, tf)
        return tf

    # --- scoring -------------------------------------------------------------------------------------

    def scores(self, query: Mapping[str, float], params: FieldParams) -> tuple[np.ndarray, np.ndarray]:
        """The BM25F score of every slot, and which slots matched a query term."""
        scores = np.zeros(len(self.keys), dtype=np.float64)
        matched = np.zeros(len(self.keys), dtype=bool)
        if not len(self):
            return scores, matched
        norm, block_tf = self._norm_for(params)
        k1, ids = params.k1, self.vocabulary.ids
        for term, q_weight in query.items():
            number = ids.get(term)
            if number is None or q_weight <= 0 or number >= len(self.df) or not self.df[number]:
                continue
            boost = q_weight * self.idf(term) * (k1 + 1)
            start, end = self.block.range(number)
            if end > start:
                slots, tf = self.block.slots[start:end], block_tf[start:end]
                scores[slots] += boost * tf / (k1 + tf)
                matched[slots] = True
            for slot in self.overlay.get(number, ()):
                tf_one = self._slot_tf(slot, number, norm)
                scores[slot] += boost * tf_one / (k1 + tf_one)
                matched[slot] = True
        dead = ~self.alive
        scores[dead], matched[dead] = 0.0, False
        return scores, matched

    def score_keys(self, query: Mapping[str, float], params: FieldParams, keys: Iterable[str]) -> dict[str, float]:
        """Scores of the given documents only (those that match), as bm25f.Bm25fIndex.score(only=...): each
        document's contributions added one query term at a time, in the query's order."""
        norm, k1 = self._norm_for(params)[0], params.k1
        ids, df_all, boosts = self.vocabulary.ids, self.df, []
        for term, q_weight in query.items():
            number = ids.get(term)
            df = int(df_all[number]) if number is not None and number < len(df_all) else 0
            if df and q_weight > 0:
                boosts.append((number, q_weight * self.idf_of_df(df) * (k1 + 1)))
        slots = [self.slot_of[key] for key in dict.fromkeys(keys) if key in self.slot_of]
        if not boosts or not slots:
            return {}
        numbers = np.array([n for n, _ in boosts], dtype=np.int64)
        joined, sizes, where = self.doc_terms.gather(slots)
        rows = np.repeat(np.arange(len(slots)), sizes)
        terms = joined.astype(np.int64)
        if not len(terms):
            return {}
        span = max(int(terms.max()), int(numbers.max())) + 1
        keyed = rows * span + terms  # ascending: documents in row order, each one's terms ascending
        probe = (np.arange(len(slots))[:, None] * span + numbers[None, :]).ravel()
        at = np.minimum(np.searchsorted(keyed, probe), len(keyed) - 1)
        found = keyed[at] == probe
        hit = found.reshape(len(slots), len(numbers))
        tf: np.ndarray = np.zeros(len(probe), dtype=np.float64)
        lengths = self.lengths[np.array(slots)][rows[at[found]]]
        rows_found = at[found]  # the found terms' rows of field frequencies (a document's tfs go with its terms)
        tfs = self.doc_tfs.packed[where[rows_found]] if where is not None else self.doc_tfs.gather(slots)[0][rows_found]
        tf[found] = _tf_rows(tfs, lengths, norm)
        tf = tf.reshape(len(slots), len(numbers))
        if len(slots) <= FEW_KEYS:  # a like-ticket query's check both ways: plain floats beat numpy's per-call cost
            return self._few_totals(slots, [boost for _, boost in boosts], tf.tolist(), hit.tolist(), k1)
        weights = np.array([boost for _, boost in boosts], dtype=np.float64)
        # each document's contributions added term by term in the query's order (a running sum, not pairwise)
        totals = np.add.accumulate(np.where(hit, weights[None, :] * tf / (k1 + tf), 0.0), axis=1)[:, -1]
        keys, any_hit = self.keys, hit.any(axis=1).tolist()
        return {keys[slot]: total for slot, total, matched in zip(slots, totals.tolist(), any_hit, strict=True)
                if matched}

    def _few_totals(self, slots: list[int], boosts: list[float], tf: list[list[float]],
                    hit: list[list[bool]], k1: float) -> dict[str, float]:
        """The same sums as the numpy path, term by term in the query's order (so the same floats)."""
        found = {}
        for row, slot in enumerate(slots):
            if not any(hit[row]):
                continue
            total = 0.0
            for column, boost in enumerate(boosts):
                if hit[row][column]:
                    t = tf[row][column]
                    total += boost * t / (k1 + t)
            found[self.keys[slot]] = total
        return found

    def _slot_tf(self, slot: int, number: int, norm: tuple[tuple[float, float, float], ...]) -> float:
        terms = self.doc_terms[slot]
        at = int(np.searchsorted(terms, number))
        return float(_tf_rows(self.doc_tfs[slot][at:at + 1], self.lengths[slot][None, :], norm)[0])

    # --- the best hits -------------------------------------------------------------------------------

    def ranked(self, scores: np.ndarray, matched: np.ndarray, limit: int | None,
               exclude: str | None = None) -> list[tuple[str, float]]:
        """The first `limit` matches (all when None), best first; ties (to 9 digits) by the newer document,
        then key, exactly as bm25f-based ranking orders them."""
        if exclude in self.slot_of:
            matched = matched.copy()
            matched[self.slot_of[exclude]] = False
        slots = np.flatnonzero(matched)
        if limit is not None and len(slots) > limit:
            values = scores[slots]
            kth = np.partition(values, len(values) - limit)[len(values) - limit]
            slots = slots[values >= kth - 1e-8 * max(1.0, abs(kth))]  # ties after rounding stay in
        items = [(self.keys[s], float(scores[s]), float(self.updated[s])) for s in slots.tolist()]
        items.sort(key=lambda item: (-round(item[1], 9), -item[2], item[0]))
        return [(key, score) for key, score, _ in (items if limit is None else items[:limit])]

    def best(self, scores: np.ndarray, matched: np.ndarray, count: int) -> list[tuple[str, float]]:
        """The `count` highest (score, key) pairs, highest first (heapq.nlargest on (score, key))."""
        slots = np.flatnonzero(matched)
        if len(slots) > count:
            values = scores[slots]
            kth = np.partition(values, len(values) - count)[len(values) - count]
            slots = slots[values >= kth]
        items = sorted(((float(scores[s]), self.keys[s]) for s in slots.tolist()), reverse=True)
        return [(key, score) for score, key in items[:count]]


def _tf_rows(tfs: np.ndarray, lengths: np.ndarray, norm: tuple[tuple[float, float, float], ...]) -> np.ndarray:
    """tf' = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avg_f), field by field in order (as bm25f does), for
    rows of field frequencies; `lengths` are the rows' documents' field lengths (or one row for all)."""
    tf = np.zeros(len(tfs), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for f, (w, one_minus_b, b_avg) in enumerate(norm):
            counts = tfs[:, f].astype(np.float64)
            tf = tf + np.where(counts > 0, w * counts / (one_minus_b + b_avg * lengths[:, f]), 0.0)
    return tf


def _close(old: tuple[tuple[float, float, float], ...], new: tuple[tuple[float, float, float], ...]) -> bool:
    return all(a[:2] == b[:2] and abs(a[2] - b[2]) <= DRIFT * abs(b[2]) for a, b in zip(old, new, strict=True))


def _grown(array: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    top = int(numbers.max()) + 1 if len(numbers) else 0
    if top <= len(array):
        return array
    return np.concatenate([array, np.zeros(max(top - len(array), len(array) // 2), dtype=array.dtype)])
