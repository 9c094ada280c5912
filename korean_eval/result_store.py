"""Stored whole results: the key of an evaluation, and the compressed pickle written to and read from the cache.

A stored result is reused only when everything that can change a number or a table is unchanged: the data's content
hash, the order of the systems, the settings, every token level's version (library, dictionary and model versions;
for SentencePiece the vocabulary and the user's model hash), the scoring libraries' versions and a SHA-256 of this
package's Python source. Entries are ``MAGIC + zlib(pickle)``; :class:`korean_eval.cache.DiskCache` never returns pickled blobs
from a directory other users can write, and an unreadable entry is treated as absent (recomputed).
"""

from __future__ import annotations

import functools
import hashlib
import json
import pickle
import time
import zlib
from pathlib import Path

import pandas as pd

from korean_eval import __version__
from korean_eval.cache import NullCache
from korean_eval.config import EvalConfig
from korean_eval.data import EvalSet
from korean_eval.results import Results
from korean_eval.tokenizers import get_level, package_version

RESULT_CACHE_VERSION = 1
MAGIC = b"korean-eval-result/zlib/1\n"
LIBRARIES: tuple[str, ...] = ("sacrebleu", "numpy", "scipy", "pandas", "numba")


def digest(payload: object) -> str:
    """SHA-256 (hex) of ``payload`` as canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


@functools.cache
def source_digest() -> str:
    """SHA-256 over this package's Python source: any code change makes earlier stored results unusable (read
    once per process)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def result_key(evalset: EvalSet, config: EvalConfig) -> str:
    """Key of a stored result: data content hash, the systems in their order (every table lists them in that order,
    and :meth:`~korean_eval.data.EvalSet.content_hash` does not see it), settings, level and library versions,
    package source digest."""
    levels = {}
    for name in config.levels:
        if name == "spm":
            model = config.spm_model_id or "trained-on-references"
            levels[name] = f"spm-{package_version('sentencepiece')}-v{config.spm_vocab}-{model}"
        else:
            levels[name] = get_level(name).options_key()
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


def load_result(cache: NullCache, key: str, kind: str = "result") -> object | None:
    """The stored object of ``kind`` under ``key``, or None when absent or unreadable (the caller checks its
    type)."""
    blob = cache.get_blob(f"{kind}:{key}")
    if blob is None or not blob.startswith(MAGIC):
        return None
    try:
        return pickle.loads(zlib.decompress(blob[len(MAGIC) :]))
    except Exception:  # noqa: BLE001 - an unreadable entry is recomputed
        return None


def store_result(cache: NullCache, key: str, results: object, kind: str = "result") -> None:
    """Store ``results`` of ``kind`` under ``key`` (zlib level 1: ~5× smaller, 52 → 11 MB at 8,192 pairs × 25
    cells, ~0.1 s to unpack); an object that cannot be pickled is simply not stored."""
    try:
        blob = MAGIC + zlib.compress(pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL), 1)
    except Exception:  # noqa: BLE001
        return
    cache.put_blob(f"{kind}:{key}", blob, kind)


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
