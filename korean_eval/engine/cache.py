"""Persistent cache of tokenisations and per-segment metric statistics (SQLite, one file).

Keys are content hashes, never user-controlled paths:

* tokens: (level key = level name + library version + parameters, SHA-1 of the text) → tokens joined by spaces;
* statistics: (metric key = level key + metric signature/options, SHA-1 of hypothesis tokens + reference tokens)
  → the statistics vector (float64) and the segment score;
* blobs: (a string key built by the caller from content hashes) → bytes; the pipeline keeps trained SentencePiece
  models (:func:`korean_eval.engine.tokenise_stage.prepare_level`), whole evaluation results (:mod:`korean_eval.engine.result_store`)
  and their statistics tables (:mod:`korean_eval.engine.statistics`) here, at most :data:`MAX_RESULTS` of each of
  the last two kinds, least recently used dropped first.

Location: ``$KOREAN_EVAL_CACHE_DIR`` if set, else the user's cache directory (platformdirs), unless the caller gives
a directory; numba's compiled kernels go to its ``numba`` subdirectory (:func:`configure_numba_cache`).
:class:`NullCache` bypasses caching (``--no-cache``). A corrupt or unwritable cache never stops a run: it is
reported once and the run continues without it. A malformed row (a statistics blob of the wrong length or
truncated, a non-numeric score, tokens that are not UTF-8 text) is treated as absent: that pair is recomputed and
stored again.
"""

from __future__ import annotations

import hashlib
import math
import os
import sqlite3
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

ENV_VAR = "KOREAN_EVAL_CACHE_DIR"
_CHUNK = 30_000  # keys per SELECT … IN (…) (SQLite allows 250,000 variables since 3.32)
MAX_RESULTS = 8
BOUNDED_KINDS = ("result", "statistics")  # blob kinds of which only the MAX_RESULTS most recently used are kept
# Cached values are selected so that a malformed row cannot make the whole query fail (text that is not UTF-8
# raises in sqlite3): token text as bytes (decoded per row), statistics only when stored as a blob and a number.
_TOKENS_AS_BYTES = "CASE WHEN typeof(v) = 'text' THEN CAST(v AS BLOB) END"
_STATS_AS_STORED = "CASE WHEN typeof(v) = 'blob' THEN v END, CASE WHEN typeof(s) IN ('real', 'integer') THEN s END"


def default_cache_dir() -> Path:
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("korean-eval"))


def configure_numba_cache() -> Path:
    """Where numba keeps the compiled kernels (``@njit(cache=True)``): never inside the installed package.

    ``$NUMBA_CACHE_DIR`` when the user set it, else ``<cache directory>/numba`` with the cache directory of
    :func:`default_cache_dir` (``$KOREAN_EVAL_CACHE_DIR`` or the user cache directory from platformdirs). numba
    reads ``NUMBA_CACHE_DIR`` when it is imported and fixes a kernel's cache location when the kernel is decorated
    (numba docs, "Environment variables: NUMBA_CACHE_DIR"), so :mod:`korean_eval` calls this on import, before any
    kernel module; the variable is set in the environment so that worker processes use the same place, and in
    ``numba.config`` when numba was imported already. ``run --cache-dir`` moves them later (:func:`use_cache_dir`).
    """
    global _USERS_NUMBA_CACHE_DIR
    if _USERS_NUMBA_CACHE_DIR is None:
        _USERS_NUMBA_CACHE_DIR = os.environ.get("NUMBA_CACHE_DIR", "")
    directory = _USERS_NUMBA_CACHE_DIR or str(default_cache_dir() / "numba")
    os.environ["NUMBA_CACHE_DIR"] = directory
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_DIR = directory
    return Path(directory)


_USERS_NUMBA_CACHE_DIR: str | None = None  # $NUMBA_CACHE_DIR as the user set it ("" = not set), read once


def use_cache_dir(directory: str | os.PathLike[str]) -> Path:
    """Make ``directory`` the cache directory of this process and its workers (``run --cache-dir``), incl. numba's
    kernels (``<directory>/numba`` unless the user set ``$NUMBA_CACHE_DIR``). Returns numba's directory.

    A kernel's cache location is fixed when it is decorated (numba's ``Dispatcher.enable_caching`` creates its
    ``FunctionCache``) and the kernel modules are imported with :mod:`korean_eval`, so every loaded kernel of the
    package with caching on gets a new ``FunctionCache`` here, before it runs. When numba is not imported yet,
    nothing is loaded (a warm run that only reads stored results never imports numba).
    """
    os.environ[ENV_VAR] = str(directory)
    numba_dir = configure_numba_cache()
    if "numba.core.dispatcher" not in sys.modules:
        return numba_dir  # no kernel is loaded yet: each will be decorated with the new directory
    from numba.core.caching import NullCache as NumbaNullCache
    from numba.core.dispatcher import Dispatcher

    modules = [m for name, m in list(sys.modules.items()) if name.startswith("korean_eval.") and m is not None]
    for kernel in (k for m in modules for k in vars(m).values() if isinstance(k, Dispatcher)):
        if not isinstance(kernel._cache, NumbaNullCache):
            kernel.enable_caching()
    return numba_dir


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
    store_results = False  # whether evaluate() may store and reuse whole results here

    def get_tokens(self, level_key: str, keys: Sequence[bytes]) -> dict[bytes, str]:
        return {}

    def put_tokens(self, level_key: str, items: Iterable[tuple[bytes, str]]) -> None:
        return None

    def get_stats(self, metric_key: str, keys: Sequence[bytes]) -> dict[bytes, tuple[np.ndarray, float]]:
        return {}

    def put_stats(self, metric_key: str, items: Iterable[tuple[bytes, np.ndarray, float]]) -> None:
        return None

    def get_stats_block(self, metric_key: str, keys: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cached statistics of ``keys`` as arrays: ``(found (n,) bool, stats (n, k), scores (n,))``.

        Rows that were not found are zero in ``stats`` and ``scores``; ``k`` is 0 when nothing was found.
        """
        return _block(keys, self.get_stats(metric_key, keys))

    def get_blob(self, key: str) -> bytes | None:
        return None

    def put_blob(self, key: str, value: bytes | Sequence[bytes], kind: str = "") -> None:
        return None


def _block(keys: Sequence[bytes], hit: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    found = np.fromiter((k in hit for k in keys), dtype=bool, count=len(keys))
    if not found.any():
        return found, np.zeros((len(keys), 0)), np.zeros(len(keys))
    width = len(next(iter(hit.values()))[0])
    stats = np.zeros((len(keys), width))
    scores = np.zeros(len(keys))
    for i in np.flatnonzero(found):
        stats[i], scores[i] = hit[keys[i]]
    return found, stats, scores


def _unscored(blob: bytes, score: object) -> bool:
    """A stored unscored row: NULL score (a NaN as SQLite stores it) and every statistic NaN."""
    return score is None and bool(np.isnan(np.frombuffer(blob, dtype=np.float64)).all())


def well_formed_stats(rows: Sequence[tuple]) -> list[tuple[bytes, bytes, float]]:
    """The cached statistics rows ``(key, blob, score)`` that can be read, all of one width.

    A row is malformed when its blob is not bytes or not a whole number of float64 values (truncated), its score
    is not a number, or its blob has another length than most rows of the same metric key (the width of the
    statistics vector is fixed per metric). One exception to "not a number": an *unscored* pair (a metric's NaN
    row, e.g. CharacTER's length guard) is stored with a NaN score, which SQLite keeps as NULL; a NULL score whose
    statistics are all NaN is that row and is read back with the score NaN. Malformed rows are left out, so their
    pairs are recomputed and stored again; they never stop a run.
    """
    readable = [
        (k, bytes(v), float(s) if s is not None else math.nan)
        for k, v, s in rows
        if isinstance(v, bytes) and v and len(v) % 8 == 0 and (isinstance(s, (int, float)) or _unscored(v, s))
    ]
    if not readable:
        return []
    lengths = Counter(len(v) for _k, v, _s in readable)
    width = max(lengths, key=lambda n: (lengths[n], n))
    return [row for row in readable if len(row[1]) == width]


def _private(directory: Path) -> bool:
    """True when ``directory`` is owned by this user and not writable by group or others (POSIX)."""
    if not hasattr(os, "getuid"):
        return True
    st = directory.stat()
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


class DiskCache(NullCache):
    """SQLite-backed cache; safe to share between threads and processes (WAL mode)."""

    enabled = True
    store_results = True

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory else default_cache_dir()
        self.path = self.directory / "cache-v1.sqlite"
        self._local = threading.local()
        self.problem = ""
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _private(self.directory):
                # stored results are pickled: never load them from a directory another user could write to
                self.store_results = False
                self.problem = f"whole-result store off: {self.directory} is writable by other users or not owned by you"
            con = self._con()
            con.execute("CREATE TABLE IF NOT EXISTS tokens (lk TEXT, k BLOB, v TEXT, PRIMARY KEY (lk, k)) WITHOUT ROWID")
            con.execute(
                "CREATE TABLE IF NOT EXISTS stats (mk TEXT, k BLOB, v BLOB, s REAL, PRIMARY KEY (mk, k)) WITHOUT ROWID"
            )
            con.execute("CREATE TABLE IF NOT EXISTS blobs (k TEXT PRIMARY KEY, kind TEXT, used REAL, v BLOB)")
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
        """Cached tokens of ``keys``; a row whose value is not UTF-8 text is malformed and left out (recomputed)."""
        rows = self._select("tokens", "lk", level_key, list(keys), _TOKENS_AS_BYTES)
        out: dict[bytes, str] = {}
        for k, v in rows:
            try:
                out[k] = v.decode("utf-8")
            except (AttributeError, UnicodeDecodeError):
                continue
        return out

    def put_tokens(self, level_key: str, items: Iterable[tuple[bytes, str]]) -> None:
        """Store token strings as text. Each is handed to SQLite as UTF-8 bytes cast to text: binding a ``str``
        directly would make CPython keep a UTF-8 copy inside every string for as long as it lives (≈ 3 bytes
        per Korean character, hundreds of MB for a WMT-sized set's levels)."""
        if not self.enabled:
            return
        try:
            con = self._con()
            con.executemany("INSERT OR REPLACE INTO tokens VALUES (?, ?, CAST(? AS TEXT))",
                            ((level_key, k, v.encode("utf-8")) for k, v in items))
            con.commit()
        except sqlite3.Error as err:
            self._fail(err)

    def get_stats(self, metric_key: str, keys: Sequence[bytes]) -> dict[bytes, tuple[np.ndarray, float]]:
        """Cached statistics of ``keys``; malformed rows are left out (recomputed), see :func:`well_formed_stats`."""
        rows = well_formed_stats(self._select("stats", "mk", metric_key, list(keys), _STATS_AS_STORED))
        return {k: (np.frombuffer(v, dtype=np.float64), float(s)) for k, v, s in rows}

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

    def get_stats_block(self, metric_key: str, keys: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        position: dict[bytes, int] = {}
        inverse = np.fromiter((position.setdefault(k, len(position)) for k in keys), dtype=np.int64, count=len(keys))
        rows = well_formed_stats(self._select("stats", "mk", metric_key, list(position), _STATS_AS_STORED))
        if not rows:
            return np.zeros(len(keys), dtype=bool), np.zeros((len(keys), 0)), np.zeros(len(keys))
        width = len(rows[0][1]) // 8
        idx = np.fromiter((position[r[0]] for r in rows), dtype=np.int64, count=len(rows))
        found = np.zeros(len(position), dtype=bool)
        stats = np.zeros((len(position), width))
        scores = np.zeros(len(position))
        stats[idx] = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float64).reshape(len(rows), width)
        scores[idx] = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
        found[idx] = True
        return found[inverse], stats[inverse], scores[inverse]

    def get_blob(self, key: str) -> bytes | None:
        if not self.enabled:
            return None
        try:
            con = self._con()
            row = con.execute("SELECT v FROM blobs WHERE k = ?", (key,)).fetchone()
            if row is not None:
                con.execute("UPDATE blobs SET used = ? WHERE k = ?", (time.time(), key))
                con.commit()
        except sqlite3.Error as err:
            self._fail(err)
            return None
        return None if row is None else bytes(row[0])

    def put_blob(self, key: str, value: bytes | Sequence[bytes], kind: str = "") -> None:
        """Store ``value`` (bytes, or parts of it in order: they are written one by one into the row, so a large
        blob is never joined in memory); of the blobs of a kind in :data:`BOUNDED_KINDS` only the
        :data:`MAX_RESULTS` most recently used stay."""
        if not self.enabled:
            return
        parts = [value] if isinstance(value, bytes | bytearray | memoryview) else value
        try:
            con = self._con()
            size = sum(len(part) for part in parts)
            row = con.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?, ?, zeroblob(?))",
                              (key, kind, time.time(), size)).lastrowid
            with con.blobopen("blobs", "v", row) as blob:
                for part in parts:
                    blob.write(part)
            if kind in BOUNDED_KINDS:
                con.execute(
                    "DELETE FROM blobs WHERE kind = ? AND k NOT IN "
                    "(SELECT k FROM blobs WHERE kind = ? ORDER BY used DESC LIMIT ?)",
                    (kind, kind, MAX_RESULTS),
                )
            con.commit()
        except sqlite3.Error as err:
            self._fail(err)


def open_cache(directory: str | os.PathLike | None = None, enabled: bool = True) -> NullCache:
    """The cache to use: a :class:`DiskCache` (at ``directory`` or the default place) or a :class:`NullCache`."""
    return DiskCache(directory) if enabled else NullCache()
