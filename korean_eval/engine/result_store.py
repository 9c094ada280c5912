"""Stored whole results: the key of an evaluation, and the compressed pickle written to and read from the cache.

A stored result is reused only when everything that can change a number or a table is unchanged: the data's content
hash, the order of the systems, the settings, every token level's version (library, dictionary and model versions;
for SentencePiece the vocabulary and the user's model hash), the scoring libraries' versions and a SHA-256 of this
package's Python source. Entries are ``MAGIC + zlib(pickles)``; :class:`korean_eval.engine.cache.DiskCache` never returns pickled
blobs from a directory other users can write, and an unreadable entry is treated as absent (recomputed).

The pickles of an entry: the object, then, for a :class:`~korean_eval.model.results.Results`, its token tables (which
the object carries as per-level text counts): every distinct text once, then per level the positions of its texts
and its token strings, the texts as :class:`~korean_eval.engine.packed_texts.PackedTexts` chunks of :data:`TOKEN_CHUNK`,
the pickler's memo cleared before each. Pickling the strings themselves would leave a UTF-8 copy inside each of
them for the rest of the process (docs/design.md §7, "Korean strings and pickling"), and one memo over all chunks
would hold all of them until the end.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import io
import json
import pickle
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from korean_eval import __version__
from korean_eval.engine.cache import NullCache
from korean_eval.engine.packed_texts import PackedTexts
from korean_eval.levels.registry import level_class, package_version
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import Results

RESULT_CACHE_VERSION = 2
MAGIC = b"korean-eval-result/zlib/2\n"
TOKEN_CHUNK = 8192  # texts per pickle of a stored result's token tables
LIBRARIES: tuple[str, ...] = ("sacrebleu", "numpy", "scipy", "pandas", "numba")


def digest(payload: object) -> str:
    """SHA-256 (hex) of ``payload`` as canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


@functools.cache
def source_digest() -> str:
    """SHA-256 over this package's Python source: any code change makes earlier stored results unusable (read
    once per process)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def result_key(evalset: EvalSet, config: EvalConfig) -> str:
    """Key of a stored result: data content hash, the systems in their order (every table lists them in that order,
    and :meth:`~korean_eval.model.evalset.EvalSet.content_hash` does not see it), settings, level and library versions,
    package source digest."""
    levels = {name: level_class(name).evaluation_key(config) for name in config.levels}
    return digest(
        {
            "version": [RESULT_CACHE_VERSION, __version__],
            "source": source_digest(),
            "data": evalset.content_hash(),
            "system_order": list(evalset.systems),
            "settings": config.as_dict(),
            "levels": levels,
            "libraries": {d: package_version(d) for d in LIBRARIES},
        }
    )


class _Inflating(io.RawIOBase):
    """A readable stream of the zlib data in ``data`` (decompressed piece by piece, never whole)."""

    PIECE = 1 << 20

    def __init__(self, data: memoryview):
        self._data, self._pos, self._z, self._pending = data, 0, zlib.decompressobj(), b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        size = len(buffer)
        while not self._pending:
            if self._z.unconsumed_tail:
                self._pending = self._z.decompress(self._z.unconsumed_tail, size)
            elif self._pos < len(self._data):
                piece = self._data[self._pos : self._pos + self.PIECE]
                self._pos += len(piece)
                self._pending = self._z.decompress(piece, size)
            else:
                self._pending = self._z.flush()
                if not self._pending:
                    return 0
        n = min(size, len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


class _Deflating(io.RawIOBase):
    """A writable stream that zlib-compresses (level 1) what is written into the parts :attr:`out`, after
    ``head`` (parts, not one growing buffer: growing a buffer of hundreds of MB copies it as it grows)."""

    def __init__(self, head: bytes):
        self.out, self._z = [head], zlib.compressobj(1)

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        view = memoryview(data)  # pickle also writes PickleBuffer objects (numpy arrays, protocol 5)
        part = self._z.compress(view)
        if part:
            self.out.append(part)
        return view.nbytes

    def finish(self) -> list[bytes]:
        self.out.append(self._z.flush())
        return self.out


def load_result(cache: NullCache, key: str, kind: str = "result") -> object | None:
    """The stored object of ``kind`` under ``key``, or None when absent or unreadable (the caller checks its
    type). The pickles are unpacked as they are decompressed (a large result never exists uncompressed as bytes)."""
    blob = cache.get_blob(f"{kind}:{key}")
    if blob is None or not blob.startswith(MAGIC):
        return None
    try:
        unpickler = pickle.Unpickler(io.BufferedReader(_Inflating(memoryview(blob)[len(MAGIC) :])))
        stored = unpickler.load()
        if isinstance(stored, Results):
            stored.tokens = _load_tables(unpickler, stored.tokens)
        return stored
    except Exception:  # noqa: BLE001 - an unreadable entry is recomputed
        return None


def _load_tables(unpickler: pickle.Unpickler, sizes: dict[str, int]) -> dict[str, dict[str, str]]:
    """The token tables :func:`_dump_tables` wrote: each text one ``str`` object shared by every level's table."""
    texts = _load_texts(unpickler, unpickler.load())
    tables = {}
    for level, size in sizes.items():
        order = unpickler.load()
        tables[level] = dict(zip([texts[k] for k in order.tolist()], _load_texts(unpickler, size), strict=True))
    return tables


def _load_texts(unpickler: pickle.Unpickler, n_texts: int) -> list[str]:
    texts: list[str] = []
    while len(texts) < n_texts:
        texts += unpickler.load()
    return texts


def _dump_tables(pickler: pickle.Pickler, tables: dict[str, dict[str, str]]) -> None:
    """Every distinct text of the tables once, then per level the positions of its texts among them and its token
    strings, all as :class:`PackedTexts` chunks (module docstring)."""
    position: dict[str, int] = {}
    for table in tables.values():
        for text in table:
            position.setdefault(text, len(position))
    pickler.dump(len(position))
    _dump_texts(pickler, list(position))
    for table in tables.values():
        pickler.clear_memo()
        pickler.dump(np.fromiter((position[text] for text in table), dtype=np.int64, count=len(table)))
        _dump_texts(pickler, list(table.values()))


def _dump_texts(pickler: pickle.Pickler, texts: list[str]) -> None:
    for lo in range(0, len(texts), TOKEN_CHUNK):
        pickler.clear_memo()
        pickler.dump(PackedTexts(texts[lo : lo + TOKEN_CHUNK]))


def store_result(cache: NullCache, key: str, results: object, kind: str = "result") -> None:
    """Store ``results`` of ``kind`` under ``key`` as ``MAGIC + zlib(pickles)`` (module docstring; zlib level 1),
    compressed as it is pickled, so that only the compressed bytes are ever held; an object that cannot be pickled
    is simply not stored."""
    stream = _Deflating(MAGIC)
    pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    tables: dict[str, dict[str, str]] | None = None
    if isinstance(results, Results):
        tables, results = results.tokens, copy.copy(results)
        results.tokens = {level: len(table) for level, table in tables.items()}
    try:
        pickler.dump(results)
        if tables is not None:
            _dump_tables(pickler, tables)
    except Exception:  # noqa: BLE001
        return
    cache.put_blob(f"{kind}:{key}", stream.finish(), kind)


def stored_evaluation(evalset: EvalSet, config: EvalConfig, cache: NullCache) -> tuple[Results | None, str | None]:
    """(the stored result of this evaluation or None, its key; None when the cache does not store results).

    A loaded result gets a ``cached result`` row in its timings and the cache's problem, if any, in its notes.
    Nothing of the pipeline is imported here, so a warm run loads neither scipy nor numba.
    """
    if not (cache.enabled and getattr(cache, "store_results", False)):
        return None, None
    start = time.perf_counter()
    key = result_key(evalset, config)
    results = load_result(cache, key)
    if not isinstance(results, Results):
        return None, key
    loaded = {"stage": "cached result", "level": "", "metric": "", "seconds": time.perf_counter() - start}
    results.timings = pd.concat([results.timings, pd.DataFrame([loaded])], ignore_index=True)
    results.notes = results.notes + ([cache.problem] if cache.problem else [])
    return results, key
