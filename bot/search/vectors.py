"""Ticket vectors: what a ticket is about, in numbers, for "tickets like this one".

Words alone miss two tickets that tell one cause in different words ("Audience mismatch" from Entra and a
Google SAML redirect loop, both a missing workspace ID). A static word embedding closes much of that gap at
almost no cost: a ticket's vector is the mean of its tokens' vectors (WordLlama's `l2_supercat` model, 256
dimensions, distilled from a large language model's token embeddings), normalised, so two tickets' similarity
is one dot product. The weights (16 MB, float16, mapped from the file, not read into memory) and the tokenizer
ship inside the `wordllama` wheel; nothing is downloaded, and the package's own loader (which reaches for the
network: it looks for its tokenizer in a folder the wheel does not have) and its heavy imports are not used,
only its two files.

A vector is computed when a ticket's analysis is stored (persist.py), so a search only reads vectors and
multiplies a few hundred of them; the model is loaded, once per process, by the first process that stores.
Measured on the evaluation set (`python -m bench.search_eval`): see docs/search.md.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

DIM = 256
MAX_TOKENS = 8192  # a ticket with a pasted log is read up to here (its start says what it is about)
REMEMBERED = 4096
BATCH = 64  # texts tokenized at once (their encodings are big; the tokenizer uses every core on a batch)
_WEIGHTS = ("weights", "l2_supercat_256.safetensors")
TOKENIZER_FILE = ("tokenizers", "l2_supercat_tokenizer_config.json")


class ModelMissing(RuntimeError):
    """The `wordllama` package (the model's files) is not installed."""


class Embedder:
    """Token vectors and the tokenizer, loaded on first use; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._weights: np.ndarray | None = None
        self._tokenizer: Any = None
        self._remembered: dict[str, np.ndarray] = {}  # text -> vector, oldest first

    def _load(self) -> tuple[np.ndarray, Any]:
        with self._lock:
            if self._weights is None:
                from tokenizers import Tokenizer

                root = model_files()
                table = _mapped_tensor(root.joinpath(*_WEIGHTS), "embedding.weight")
                tokenizer = Tokenizer.from_file(str(root.joinpath(*TOKENIZER_FILE)))
                tokenizer.no_padding()
                tokenizer.enable_truncation(MAX_TOKENS)
                self._weights, self._tokenizer = table, tokenizer
            assert self._weights is not None
            return self._weights, self._tokenizer

    def embed(self, texts: list[str]) -> np.ndarray:
        """One unit vector (float16, `DIM`) per text; an empty text gets the zero vector. The vectors of the
        last few thousand texts are remembered (every test database, and a process storing a ticket it has
        just read, embeds the same texts again)."""
        out = np.zeros((len(texts), DIM), dtype=np.float16)
        with self._lock:
            missing = [i for i, text in enumerate(texts) if text not in self._remembered]
            for i in set(range(len(texts))) - set(missing):
                out[i] = self._remembered[texts[i]]
        if missing:
            fresh = self._embed([texts[i] for i in missing])
            out[missing] = fresh
            with self._lock:
                for i, vector in zip(missing[-REMEMBERED:], fresh[-REMEMBERED:], strict=True):
                    self._remembered[texts[i]] = vector.copy()  # (a view would keep the whole batch)
                while len(self._remembered) > REMEMBERED:
                    del self._remembered[next(iter(self._remembered))]
        return out

    def _embed(self, texts: list[str]) -> np.ndarray:
        table, tokenizer = self._load()
        out = np.zeros((len(texts), DIM), dtype=np.float16)
        for start in range(0, len(texts), BATCH):  # a tokenizer's encodings are big: a batch at a time
            encodings = tokenizer.encode_batch(texts[start:start + BATCH], add_special_tokens=False)
            ids = [np.asarray(encoding.ids, dtype=np.int64) for encoding in encodings]
            ids = [row[(row >= 0) & (row < len(table))] for row in ids]
            # the batch's own tokens in float32 once (converting float16 rows per text was 6x slower)
            tokens, inverse = np.unique(np.concatenate(ids), return_inverse=True)
            rows = table[tokens].astype(np.float32)
            chunk = np.zeros((len(ids), DIM), dtype=np.float32)
            at = 0
            for row, found in enumerate(ids):
                if len(found):
                    chunk[row] = rows[inverse[at:at + len(found)]].mean(axis=0)
                at += len(found)
            norms = np.linalg.norm(chunk, axis=1, keepdims=True)
            np.divide(chunk, norms, out=chunk, where=norms > 0)
            out[start:start + len(chunk)] = chunk
        return out


def model_files() -> Path:
    """Where the installed `wordllama` package keeps its files (found without importing it: its import
    pulls in a training stack the search never uses)."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing("the search's ticket vectors need the wordllama package: pip install wordllama")
    root = Path(next(iter(spec.submodule_search_locations)))
    for parts in (_WEIGHTS, TOKENIZER_FILE):
        if not root.joinpath(*parts).is_file():
            raise ModelMissing(f"wordllama is installed without {'/'.join(parts)}: reinstall it")
    return root


def _mapped_tensor(path: Path, name: str) -> np.ndarray:
    """One tensor of a .safetensors file, mapped read-only rather than read: only the rows of the tokens a
    process meets become resident (the format: an 8-byte little-endian header length, a JSON header giving
    each tensor's dtype, shape and byte range, then the data)."""
    with path.open("rb") as file:
        size = int.from_bytes(file.read(8), "little")
        header = json.loads(file.read(size))
    entry = header[name]
    if entry["dtype"] != "F16":
        raise ModelMissing(f"{path.name}: {name} is {entry['dtype']}, not F16: another wordllama release?")
    begin, _end = entry["data_offsets"]
    return np.memmap(path, dtype="<f2", mode="r", offset=8 + size + begin, shape=tuple(entry["shape"]))


EMBEDDER = Embedder()


def ticket_text(fields: tuple[str, ...]) -> str:
    """The text a ticket's vector is made from: title, tags, first message and the rest of the conversation
    (the quoted error text is left out: it repeats words of the messages)."""
    title, tags, first, _errors, rest = fields
    return "\n".join(part for part in (title, tags, first, rest) if part)


def document_text(fields: tuple[str, ...]) -> str:
    """The text a document's vector is made from: a ticket's as `ticket_text`; a help section's heading,
    article title and body."""
    if len(fields) == 5:
        return ticket_text(fields)
    return "\n".join(part for part in fields if part)


def encode(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, dtype=np.float16).tobytes()


def decode(data: bytes | None) -> np.ndarray | None:
    if not data:
        return None
    vector = np.frombuffer(data, dtype=np.float16)
    return vector if len(vector) == DIM else None  # another model's vector: analysed again
