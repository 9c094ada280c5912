"""The token level's interface: :class:`TokenLevel` and its results (docs/design.md §3).

A level returns, for each text, a list of non-empty tokens without whitespace (a token an analyzer returns with
inner whitespace is split on it, :func:`_clean_tokens`), so that joining with single spaces and splitting again is
lossless. A sentence an analyzer raises on falls back to whitespace tokens and is counted
(:attr:`TokenizeResult.fallbacks`). The levels themselves and their registry are in :mod:`korean_eval.levels.registry`.
"""

from __future__ import annotations

import functools
import importlib.metadata
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@functools.cache
def package_version(dist: str) -> str:
    """The installed version of distribution ``dist`` (``"missing"`` when it is not installed), read once per process:
    the code a process runs is the version it imported, and every level's and run's signature asks again (hundreds
    of reads of the package metadata per evaluation otherwise)."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def _clean_tokens(tokens: Iterable[str]) -> list[str]:
    out: list[str] = []
    for tok in tokens:
        out.extend(tok.split())
    return out


@dataclass
class TokenizeResult:
    """Tokens of a batch, the seconds the tokenizer itself took, and how many sentences fell back to whitespace."""

    tokens: list[list[str]]
    seconds: float
    fallbacks: int = 0
    fallback_examples: list[str] = field(default_factory=list)


@dataclass
class JoinedTokens:
    """Each text's tokens joined by single spaces, the tokenizer's seconds, and how many texts fell back to
    whitespace tokens."""

    joined: list[str]
    seconds: float
    fallbacks: int = 0


class TokenLevel:
    """One token level. Subclasses set the class attributes and implement :meth:`_tokenize_batch`."""

    name: str = ""
    family: str = ""
    label: str = ""
    library: str = ""
    description: str = ""
    #: Tokenised by the worker processes in a large run (False: in the calling process, e.g. a model trained on
    #: the evaluation's references).
    in_workers: bool = True
    #: Tokenised and scored before the other levels: its token sequences are the longest (characters, jamo), so
    #: its statistics take longest and the workers should start on them first. Lower goes first; 0 = in order.
    work_priority: int = 0
    #: Its tokens depend on the evaluation's references (a model trained on them, SentencePiece): built per evaluation
    #: by :meth:`for_evaluation`, its tokens never looked up in the token cache before it is built.
    trained_on_references: bool = False
    #: The pool role of a process of its own that tokenises it in the workers (Kiwi's ``"kiwi"``: its model loaded
    #: once, analysing on its native threads); empty: the main pool.
    pool_role: str = ""
    #: It loads a model of hundreds of MB into the process that runs it (Kiwi, KoNLPy's JVM): the server may keep it
    #: in the worker processes, and with a bound on analyzer processes it gets a process of its own.
    large_model: bool = False
    #: Part of the study's grid (``--levels all``); False for a level that can never run (listed, unavailable).
    in_study: bool = True
    #: The measured cost of tokenising: (start seconds, microseconds per character of distinct text); None: unknown
    #: (estimated as the slowest known level).
    tokenize_cost: tuple[float, float] | None = None
    #: Microseconds per reference character of the work done before tokenising (training on the references).
    train_cost_per_ref_char: float = 0.0
    #: A runtime the level's analyzer starts once per process before its first use, shared with other levels
    #: (KoNLPy's ``"jvm"``); empty: none.
    shared_runtime: str = ""

    @classmethod
    def for_evaluation(cls, references: Sequence[str], config: Any, store: Any = None) -> TokenLevel:
        """The level as an evaluation with ``config`` (an ``EvalConfig``) uses it, with the evaluation's
        ``references``; ``store``: the token cache, where a level may keep what it built (None: nothing kept)."""
        return cls()

    @classmethod
    def evaluation_key(cls, config: Any) -> str:
        """What decides this level's tokens in an evaluation with ``config``: part of a stored result's key."""
        return cls().options_key()

    def availability(self) -> tuple[bool, str]:
        """(available?, human-readable reason when not). Cheap enough to list every level: a level whose analyzer
        takes seconds to load checks that it is installed, and :meth:`start` loads it."""
        return True, ""

    def start(self) -> tuple[bool, str]:
        """(ready to tokenise?, reason when not): :meth:`availability`, and a level's analyzer loaded (once per
        process) where that check does not load it, so that an analyzer that fails to load is reported as the level
        being unavailable, never as every sentence falling back to whitespace tokens."""
        return self.availability()

    @property
    def available(self) -> bool:
        return self.availability()[0]

    def version(self) -> str:
        """``<level>-<library version>``; part of every signature (e.g. ``kiwi-0.24.1``)."""
        return f"{self.name}-{package_version(self.library)}" if self.library else self.name

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        raise NotImplementedError

    def _tokenize_one(self, text: str) -> list[str]:
        return self._tokenize_batch([text])[0]

    def _joined_batch(self, texts: Sequence[str]) -> list[str]:
        """The tokens of each text joined by single spaces, whitespace inside a token splitting it (as
        :func:`_clean_tokens`): ``" ".join(" ".join(tokens).split())``. Levels override it with a faster path that
        gives the same strings."""
        return [" ".join(" ".join(toks).split()) for toks in self._tokenize_batch(texts)]

    def _joined_one(self, text: str) -> str:
        return self._joined_batch([text])[0]

    def _analyse(self, unique: list[str], batch: Callable, one: Callable, fallback: Callable) -> tuple[list, list[str]]:
        """``batch(unique)``; when it raises, ``one(text)`` per text, and ``fallback(text)`` (whitespace tokens) for
        a text that raises alone. Returns (outputs, texts that fell back)."""
        ok, reason = self.start()
        if not ok:
            raise RuntimeError(f"token level {self.name!r} is unavailable: {reason}")
        fallbacks: list[str] = []
        try:
            return batch(unique), fallbacks
        except Exception:  # noqa: BLE001 - analyzers raise arbitrary errors; retry one by one
            raw = []
            for text in unique:
                try:
                    raw.append(one(text))
                except Exception:  # noqa: BLE001
                    fallbacks.append(text)
                    raw.append(fallback(text))
            return raw, fallbacks

    def tokenize(self, texts: Sequence[str]) -> TokenizeResult:
        """Tokenise ``texts`` (each distinct text once); never raises for a single bad sentence."""
        unique = list(dict.fromkeys(texts))
        start = time.perf_counter()
        raw, fallbacks = self._analyse(unique, self._tokenize_batch, self._tokenize_one, str.split)
        seconds = time.perf_counter() - start
        table = {text: _clean_tokens(toks) for text, toks in zip(unique, raw, strict=True)}
        return TokenizeResult([table[t] for t in texts], seconds, len(fallbacks), fallbacks[:5])

    def tokenize_joined(self, texts: Sequence[str]) -> JoinedTokens:
        """The tokens of each of ``texts`` joined by single spaces: ``" ".join(tokens)`` of :meth:`tokenize`'s
        tokens, computed without building token lists (the pipeline's form; each distinct text analysed once)."""
        unique = list(dict.fromkeys(texts))
        start = time.perf_counter()
        raw, fallbacks = self._analyse(unique, self._joined_batch, self._joined_one, lambda t: " ".join(t.split()))
        seconds = time.perf_counter() - start
        if len(unique) == len(texts):
            return JoinedTokens(raw, seconds, len(fallbacks))
        table = dict(zip(unique, raw, strict=True))
        return JoinedTokens([table[t] for t in texts], seconds, len(fallbacks))

    def tokenize_one(self, text: str) -> list[str]:
        return self.tokenize([text]).tokens[0]

    def options_key(self) -> str:
        """Identifies everything that changes this level's tokens (cache keys, signatures)."""
        return self.version()

