"""Persistent cache of tokenisations and per-segment metric statistics (SQLite, one file).

Keys are content hashes, never user-controlled paths:

* tokens: (level key = level name + library version + parameters, SHA-1 of the text) → tokens joined by spaces;
* statistics: (metric key = level key + metric signature/options, SHA-1 of hypothesis tokens + reference tokens)
  → the statistics vector (float64) and the segment score.

Location: ``$KOREAN_EVAL_CACHE_DIR`` if set, else the user's cache directory (platformdirs), unless the caller gives
a directory. :class:`NullCache` bypasses caching (``--no-cache``). A corrupt or unwritable cache never stops a run:
it is reported once and the run continues without it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

ENV_VAR = "KOREAN_EVAL_CACHE_DIR"
_CHUNK = 900


def default_cache_dir() -> Path:
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("korean-eval"))


def text_key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8")).digest()


def pair_key(hyp_tokens: str, ref_tokens: Sequence[str]) -> bytes:
    h = hashlib.sha1(hyp_tokens.encode("utf-8"))
    for ref in ref_tokens:
        h.update(b"\x00")
        h.update(ref.encode("utf-8"))
    return h.digest()


class NullCache:
    """A cache that stores nothing."""

    enabled = False
    problem = ""

    def get_tokens(self, level_key: str, keys: Sequence[bytes]) -> dict[bytes, str]:
        return {}

    def put_tokens(self, level_key: str, items: Iterable[tuple[bytes, str]]) -> None:
        return None

    def get_stats(self, metric_key: str, keys: Sequence[bytes]) -> dict[bytes, tuple[np.ndarray, float]]:
        return {}

    def put_stats(self, metric_key: str, items: Iterable[tuple[bytes, np.ndarray, float]]) -> None:
        return None


class DiskCache(NullCache):
    """SQLite-backed cache; safe to share between threads and processes (WAL mode)."""

    enabled = True

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory else default_cache_dir()
        self.path = self.directory / "cache-v1.sqlite"
        self._local = threading.local()
        self.problem = ""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            con = self._con()
            con.execute("CREATE TABLE IF NOT EXISTS tokens (lk TEXT, k BLOB, v TEXT, PRIMARY KEY (lk, k)) WITHOUT ROWID")
            con.execute(
                "CREATE TABLE IF NOT EXISTS stats (mk TEXT, k BLOB, v BLOB, s REAL, PRIMARY KEY (mk, k)) WITHOUT ROWID"
            )
            con.commit()
        except (OSError, sqlite3.Error) as err:
            self.problem = f"cache disabled ({self.path}: {err})"
            self.enabled = False

    def _con(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(self.path, timeout=30)
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            self._local.con = con
        return con

    def _select(self, table: str, key_col: str, ns: str, keys: Sequence[bytes], cols: str) -> list[tuple]:
        if not self.enabled or not keys:
            return []
        rows: list[tuple] = []
        try:
            con = self._con()
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows.extend(
                    con.execute(f"SELECT k, {cols} FROM {table} WHERE {key_col} = ? AND k IN ({marks})", (ns, *chunk))
                )
        except sqlite3.Error as err:
            self._fail(err)
        return rows

    def _fail(self, err: Exception) -> None:
        self.problem = f"cache disabled after an error ({self.path}: {err})"
        self.enabled = False

    def get_tokens(self, level_key: str, keys: Sequence[bytes]) -> dict[bytes, str]:
        return {k: v for k, v in self._select("tokens", "lk", level_key, list(keys), "v")}

    def put_tokens(self, level_key: str, items: Iterable[tuple[bytes, str]]) -> None:
        if not self.enabled:
            return
        try:
            con = self._con()
            con.executemany("INSERT OR REPLACE INTO tokens VALUES (?, ?, ?)", ((level_key, k, v) for k, v in items))
            con.commit()
        except sqlite3.Error as err:
            self._fail(err)

    def get_stats(self, metric_key: str, keys: Sequence[bytes]) -> dict[bytes, tuple[np.ndarray, float]]:
        return {
            k: (np.frombuffer(v, dtype=np.float64), s)
            for k, v, s in self._select("stats", "mk", metric_key, list(keys), "v, s")
        }

    def put_stats(self, metric_key: str, items: Iterable[tuple[bytes, np.ndarray, float]]) -> None:
        if not self.enabled:
            return
        try:
            con = self._con()
            con.executemany(
                "INSERT OR REPLACE INTO stats VALUES (?, ?, ?, ?)",
                ((metric_key, k, np.asarray(v, dtype=np.float64).tobytes(), float(s)) for k, v, s in items),
            )
            con.commit()
        except sqlite3.Error as err:
            self._fail(err)


def open_cache(directory: str | os.PathLike | None = None, enabled: bool = True) -> NullCache:
    """The cache to use: a :class:`DiskCache` (at ``directory`` or the default place) or a :class:`NullCache`."""
    return DiskCache(directory) if enabled else NullCache()
