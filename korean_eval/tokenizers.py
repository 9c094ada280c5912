"""Token levels: the registry of ways to cut Korean text into tokens (docs/design.md §3).

| level | family | tokens |
| --- | --- | --- |
| ``word`` | word | sacrebleu's 13a tokenization of the raw text (eojeol with punctuation split off) |
| ``mecab`` | morpheme | python-mecab-ko ``MeCab().morphs(text)`` |
| ``kiwi`` | morpheme | kiwipiepy ``Kiwi().tokenize(texts)`` (batch mode) → ``token.form`` |
| ``okt``, ``komoran``, ``kkma``, ``hannanum`` | morpheme | KoNLPy ``.morphs(text)`` (needs a JVM) |
| ``khaiii`` | morpheme | listed, unavailable: not installable from the package registries |
| ``spm`` | subword | SentencePiece unigram model trained on the evaluation's references (or a user-supplied model); pieces with ``▁`` stripped, empty pieces dropped |
| ``char`` | character | every non-whitespace character |
| ``jamo`` | consonant/vowel | every non-whitespace character of ``jamo.j2hcj(jamo.h2j(text))`` |

Every level returns, for each text, a list of non-empty tokens without whitespace (a token an analyzer returns with
inner whitespace is split on it), so that joining with single spaces and splitting again is lossless. Input text
is expected NFC-normalised (the data loader does it).

Analyzers that raise on a sentence (some KoNLPy analyzers on rare symbols) never stop a run: that sentence falls
back to whitespace tokens and the fallback is counted in :attr:`TokenizeResult.fallbacks`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import io
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from korean_eval.daemon_threads import exit_safe

FAMILIES: tuple[str, ...] = ("word", "morpheme", "subword", "character", "jamo")


def package_version(dist: str) -> str:
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

    def availability(self) -> tuple[bool, str]:
        """(available?, human-readable reason when not)."""
        return True, ""

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
        ok, reason = self.availability()
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


class WordLevel(TokenLevel):
    name, family, label, library = "word", "word", "Word (13a)", "sacrebleu"
    description = "sacrebleu's 13a tokenization: eojeol (whitespace words) with punctuation split off"

    def version(self) -> str:
        return f"word-13a-{package_version('sacrebleu')}"

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        tok = _tokenizer_13a()
        return [tok(t).split() for t in texts]


@functools.cache
def _tokenizer_13a():
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


class CharLevel(TokenLevel):
    name, family, label = "char", "character", "Character"
    description = "every non-whitespace character (syllable blocks for Hangul)"

    def version(self) -> str:
        return "char-1"

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        return [list("".join(t.split())) for t in texts]

    def _joined_batch(self, texts: Sequence[str]) -> list[str]:
        return [" ".join("".join(t.split())) for t in texts]


class JamoLevel(TokenLevel):
    """``jamo.j2hcj(jamo.h2j(text))`` without whitespace, one token per character.

    Both functions of the ``jamo`` package map a string character by character, so their composition is a
    per-character table (:func:`jamo_letters`): ``str.translate`` with it gives the same string at C speed. A text
    with a character the package cannot convert (:func:`jamo_table`'s second part: jamo of the Extended-A/B blocks,
    on which ``j2hcj`` raises) goes through the package itself, so it raises there exactly as before.
    """

    name, family, label, library = "jamo", "jamo", "Jamo (consonant/vowel)", "jamo"
    description = "every non-whitespace character of jamo.j2hcj(jamo.h2j(text)): Hangul syllables split into letters"

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        return [list("".join(jamo_letters(t).split())) for t in texts]

    def _joined_batch(self, texts: Sequence[str]) -> list[str]:
        return [" ".join("".join(jamo_letters(t).split())) for t in texts]


# Code points where jamo.h2j or jamo.j2hcj may change a character: conjoining jamo, compatibility jamo, Jamo
# Extended-A, Hangul syllables, Jamo Extended-B (tests/test_tokenize_parallel.py checks that no other code point
# changes).
_JAMO_RANGES: tuple[tuple[int, int], ...] = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7FF))


@functools.cache
def jamo_table() -> tuple[dict[int, str], re.Pattern[str]]:
    """(``str.translate`` table of ``jamo.j2hcj(jamo.h2j(c))`` for every character it changes, a pattern matching
    the characters on which the package raises).

    jamo 0.4.1 raises (``InvalidJamoError``, which prints the character to stderr) on a character that ``is_jamo``
    accepts but that has no name in its tables; those are found from the tables, without calling it on them.
    """
    import jamo
    from jamo import jamo as jamo_impl

    named = jamo_impl._JAMO_TO_NAME.keys() | jamo_impl._HCJ_TO_NAME.keys()
    table: dict[int, str] = {}
    raising: list[str] = []
    for code in (c for low, high in _JAMO_RANGES for c in range(low, high + 1)):
        char = chr(code)
        if jamo.is_jamo(char) and char not in named:
            raising.append(char)
            continue
        try:
            out = jamo.j2hcj(jamo.h2j(char))
        except Exception:  # noqa: BLE001 - any other refusal of the package
            raising.append(char)
            continue
        if out != char:
            table[code] = out
    return table, re.compile("[" + "".join(re.escape(c) for c in raising) + "]" if raising else "(?!)")


def jamo_letters(text: str) -> str:
    """``jamo.j2hcj(jamo.h2j(text))`` (docs/design.md §3), by :func:`jamo_table`."""
    table, raising = jamo_table()
    if raising.search(text):
        import jamo

        return jamo.j2hcj(jamo.h2j(text))
    return text.translate(table)


class MecabLevel(TokenLevel):
    name, family, label, library = "mecab", "morpheme", "MeCab-ko", "python-mecab-ko"
    description = "python-mecab-ko MeCab().morphs (mecab-ko-dic)"

    def version(self) -> str:
        return f"mecab-{package_version('python-mecab-ko')}-dic-{package_version('python-mecab-ko-dic')}"

    def availability(self) -> tuple[bool, str]:
        try:
            _mecab()
        except Exception as err:  # noqa: BLE001
            return False, f"python-mecab-ko cannot start: {err}"
        return True, ""

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        return [mecab_morphs(t) if t.strip() else [] for t in texts]


@functools.cache
def _mecab():
    from mecab import MeCab

    return MeCab()


def mecab_morphs(text: str) -> list[str]:
    """``MeCab().morphs(text)`` (python-mecab-ko 1.3.7: ``[m.surface for m in self.parse(text)]``, where ``parse``
    runs the tagger on a lattice and builds a ``Morpheme(surface=node.surface, feature=…)`` per node) without
    parsing each node's feature string, which ``morphs`` does not use: the surfaces of the same lattice's nodes.
    tests/test_tokenize_parallel.py checks the equality with ``morphs``."""
    from mecab.mecab import MeCabError
    from mecab.utils import create_lattice

    tagger = _mecab()._tagger
    lattice = create_lattice(text)
    if not tagger.parse(lattice):
        raise MeCabError(tagger.what())
    return [node.surface for _span, node in lattice]


class KiwiLevel(TokenLevel):
    name, family, label, library = "kiwi", "morpheme", "Kiwi", "kiwipiepy"
    description = "kiwipiepy Kiwi().tokenize (batch mode) → token.form: morphemes, lemmatised (했 → 하 + 었)"

    def version(self) -> str:
        return f"kiwi-{package_version('kiwipiepy')}-model-{package_version('kiwipiepy_model')}"

    def availability(self) -> tuple[bool, str]:
        try:
            kiwi_analyzer()
        except Exception as err:  # noqa: BLE001
            return False, f"kiwipiepy cannot start: {err}"
        return True, ""

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        """Batch mode, :data:`KIWI_CHUNK` texts per call, each call kept out of the interpreter's exit
        (:func:`korean_eval.daemon_threads.exit_safe`); the tokens do not depend on the chunking."""
        kiwi, out = kiwi_analyzer(), []
        for lo in range(0, len(texts), KIWI_CHUNK):
            chunk = list(texts[lo : lo + KIWI_CHUNK])
            out += exit_safe(lambda chunk=chunk: [[t.form for t in res] for res in kiwi.tokenize(chunk)])
        return out


KIWI_CHUNK = 256  # texts per call into Kiwi: a fraction of a second, which is what an exit may wait for


@functools.cache
def kiwi_analyzer():
    """The process's one ``kiwipiepy.Kiwi()`` (default options; its model ships with the package): the ``kiwi``
    level's tokenizer and the Korean lens's analyzer (:mod:`korean_eval.lens.analysis`), loaded once."""
    from kiwipiepy import Kiwi

    return exit_safe(Kiwi)  # loading the model takes seconds in native code too


def jvm_status() -> tuple[bool, str]:
    """Whether KoNLPy can start its JVM here, with the reason when not."""
    try:
        import jpype  # noqa: F401
        import konlpy  # noqa: F401
    except ImportError as err:
        return False, f"KoNLPy or JPype is not installed ({err})"
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        return False, "no Java runtime found (install a JDK, e.g. `apt-get install default-jdk-headless`, or set JAVA_HOME)"
    try:
        import jpype

        if not jpype.isJVMStarted():
            jpype.getDefaultJVMPath()
    except Exception as err:  # noqa: BLE001
        return False, f"no usable JVM: {err}"
    return True, ""


class KonlpyLevel(TokenLevel):
    """A KoNLPy analyzer (``.morphs``); needs a JVM."""

    family, library = "morpheme", "konlpy"
    analyzer: str = ""

    def availability(self) -> tuple[bool, str]:
        return jvm_status()

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        tagger = _konlpy_tagger(self.analyzer)
        return [self._morphs(tagger, t) for t in texts]

    @staticmethod
    def _morphs(tagger, text: str) -> list[str]:
        return tagger.morphs(text) if text.strip() else []

    def _tokenize_one(self, text: str) -> list[str]:
        return self._morphs(_konlpy_tagger(self.analyzer), text)


@functools.cache
def _konlpy_tagger(analyzer: str):
    import konlpy.tag

    return getattr(konlpy.tag, analyzer)()


def _konlpy_level(level: str, analyzer: str, text: str) -> type[KonlpyLevel]:
    return type(
        f"{analyzer}Level",
        (KonlpyLevel,),
        {"name": level, "label": f"{analyzer} (KoNLPy)", "analyzer": analyzer, "description": text},
    )


OktLevel = _konlpy_level("okt", "Okt", "KoNLPy Okt (Open Korean Text) .morphs")
KomoranLevel = _konlpy_level("komoran", "Komoran", "KoNLPy Komoran .morphs")
KkmaLevel = _konlpy_level("kkma", "Kkma", "KoNLPy Kkma .morphs (slow analyzer)")
HannanumLevel = _konlpy_level("hannanum", "Hannanum", "KoNLPy Hannanum .morphs")


class KhaiiiLevel(TokenLevel):
    name, family, label = "khaiii", "morpheme", "Khaiii"
    description = "Kakao's Khaiii morphological analyzer"

    def availability(self) -> tuple[bool, str]:
        return False, "khaiii is not published on PyPI (it builds from source with CMake and downloads resources), so it cannot be installed from the package registries"


class SpmLevel(TokenLevel):
    """SentencePiece unigram pieces, ``▁`` stripped, empty pieces dropped.

    The model is trained on the evaluation's references (:meth:`fit`) with ``vocab_size`` as an upper bound
    (``hard_vocab_limit=False``, so small data gets a smaller vocabulary instead of an error) and one thread,
    so the same references always give the same model; or a user-supplied ``.model`` file is loaded.
    """

    name, family, label, library = "spm", "subword", "SentencePiece (unigram)", "sentencepiece"
    description = "SentencePiece unigram pieces (model trained on the references, or supplied), ▁ stripped"
    DEFAULT_VOCAB = 4000

    def __init__(self, vocab_size: int = DEFAULT_VOCAB, model: bytes | None = None, *, trained: bool = False):
        """``model``: a user-supplied ``.model`` (or, with ``trained=True``, one this level trained on the same
        references with ``vocab_size`` earlier, e.g. from the cache: it keeps the trained model's version)."""
        if vocab_size < 10:
            raise ValueError("SentencePiece vocabulary size must be at least 10")
        self.vocab_size = vocab_size
        self._model_bytes = model
        self._supplied = model is not None and not trained
        self._processor = None
        if model is not None:
            self._load(model)

    def _load(self, model: bytes) -> None:
        import sentencepiece as spm

        proc = spm.SentencePieceProcessor()
        try:
            proc.LoadFromSerializedProto(model)
        except Exception:  # noqa: BLE001 - sentencepiece raises RuntimeError("Internal: … ParseFromArray …")
            raise ValueError("not a SentencePiece model (the file does not parse as a .model protobuf)") from None
        self._model_bytes = model
        self._processor = proc

    def piece_count(self) -> int:
        """Pieces in the model's vocabulary (0 before :meth:`fit`)."""
        return int(self._processor.get_piece_size()) if self._processor is not None else 0

    @property
    def fitted(self) -> bool:
        return self._processor is not None

    def fit(self, references: Sequence[str]) -> SpmLevel:
        """Train the unigram model on the references (no-op when a model was supplied)."""
        if self._processor is not None:
            return self
        import sentencepiece as spm

        sentences = [r for r in dict.fromkeys(references) if r.strip()]
        if not sentences:
            raise ValueError("SentencePiece needs at least one non-empty reference to train on")
        buf = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences),
            model_writer=buf,
            model_type="unigram",
            vocab_size=self.vocab_size,
            hard_vocab_limit=False,
            character_coverage=1.0,
            num_threads=1,
            minloglevel=2,
        )
        self._load(buf.getvalue())
        return self

    def version(self) -> str:
        """``spm-<version>-unigram-v<vocab>-<model hash>`` for a model trained on the references;
        ``spm-<version>-model-<pieces>p-<model hash>`` for a supplied one (its own type and size, not ours)."""
        digest = hashlib.sha256(self._model_bytes).hexdigest()[:8] if self._model_bytes else "untrained"
        if self._supplied:
            return f"spm-{package_version('sentencepiece')}-model-{self.piece_count()}p-{digest}"
        return f"spm-{package_version('sentencepiece')}-unigram-v{self.vocab_size}-{digest}"

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        if self._processor is None:
            raise RuntimeError("the SentencePiece level has no model: call fit(references) or supply a model")
        pieces = self._processor.encode(list(texts), out_type=str)
        return [[p.replace("\u2581", "") for p in ps if p.replace("\u2581", "")] for ps in pieces]


LEVEL_CLASSES: dict[str, Callable[[], TokenLevel]] = {
    "word": WordLevel,
    "mecab": MecabLevel,
    "kiwi": KiwiLevel,
    "okt": OktLevel,
    "komoran": KomoranLevel,
    "kkma": KkmaLevel,
    "hannanum": HannanumLevel,
    "khaiii": KhaiiiLevel,
    "spm": SpmLevel,
    "char": CharLevel,
    "jamo": JamoLevel,
}
LEVEL_NAMES: tuple[str, ...] = tuple(LEVEL_CLASSES)


def get_level(name: str) -> TokenLevel:
    """A fresh instance of the named level (raises ValueError naming the valid levels)."""
    try:
        return LEVEL_CLASSES[name]()
    except KeyError:
        raise ValueError(f"unknown token level {name!r}; levels are {', '.join(LEVEL_NAMES)}") from None


@functools.cache
def level_availability(name: str) -> tuple[bool, str]:
    """Cached availability of a level (a JVM check is not free)."""
    return get_level(name).availability()


def available_levels() -> list[str]:
    return [n for n in LEVEL_NAMES if level_availability(n)[0]]


def level_table() -> list[dict[str, str]]:
    """One row per level: name, family, label, version, available, reason, description."""
    rows = []
    for n in LEVEL_NAMES:
        lvl = get_level(n)
        ok, reason = level_availability(n)
        rows.append(
            {
                "level": n,
                "family": lvl.family,
                "label": lvl.label,
                "version": lvl.version() if ok else "",
                "available": "yes" if ok else "no",
                "reason": reason,
                "description": lvl.description,
            }
        )
    return rows
