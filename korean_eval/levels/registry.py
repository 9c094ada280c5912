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
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from korean_eval.daemon_threads import exit_safe
from korean_eval.levels.base import TokenLevel, package_version
from korean_eval.levels.konlpy import (
    HannanumLevel,
    KhaiiiLevel,
    KkmaLevel,
    KomoranLevel,
    OktLevel,
)
from korean_eval.levels.sentencepiece import SpmLevel
from korean_eval.model.defaults import LEVELS

FAMILIES: tuple[str, ...] = ("word", "morpheme", "subword", "character", "jamo")


class WordLevel(TokenLevel):
    name, family, label, library = "word", "word", "Word (13a)", "sacrebleu"
    tokenize_cost = (0.0, 0.82)
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
    work_priority = -1
    name, family, label = "char", "character", "Character"
    tokenize_cost = (0.0, 0.43)
    description = "every non-whitespace character (syllable blocks for Hangul)"

    def version(self) -> str:
        return "char-1"

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        return [list("".join(t.split())) for t in texts]

    def _joined_batch(self, texts: Sequence[str]) -> list[str]:
        return [" ".join("".join(t.split())) for t in texts]


class JamoLevel(TokenLevel):
    work_priority = -2
    tokenize_cost = (0.19, 1.26)
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
# Extended-A, Hangul syllables, Jamo Extended-B (tests/unit/levels/test_fast_tokenisation.py checks that no other code point
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
    tokenize_cost = (0.0, 4.16)
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
    tests/unit/levels/test_fast_tokenisation.py checks the equality with ``morphs``."""
    from mecab.mecab import MeCabError
    from mecab.utils import create_lattice

    tagger = _mecab()._tagger
    lattice = create_lattice(text)
    if not tagger.parse(lattice):
        raise MeCabError(tagger.what())
    return [node.surface for _span, node in lattice]


class KiwiLevel(TokenLevel):
    name, family, label, library = "kiwi", "morpheme", "Kiwi", "kiwipiepy"
    pool_role, large_model = "kiwi", True  # its ≈ 0.45 GB model loaded once, in a process of its own
    tokenize_cost = (5.81, 18.77)
    description = "kiwipiepy Kiwi().tokenize (batch mode) → token.form: morphemes, lemmatised (했 → 하 + 었)"

    def version(self) -> str:
        return f"kiwi-{package_version('kiwipiepy')}-model-{package_version('kiwipiepy_model')}"

    def availability(self) -> tuple[bool, str]:
        """Installed, without loading the model (:func:`kiwi_install_problem`; loading it takes seconds)."""
        problem = kiwi_install_problem()
        return (False, problem) if problem else (True, "")

    def start(self) -> tuple[bool, str]:
        ok, reason = self.availability()
        if not ok:
            return ok, reason
        try:
            kiwi_analyzer()
        except Exception as err:  # noqa: BLE001
            return False, f"kiwipiepy cannot start: {err}"
        return True, ""

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        """Batch mode, :data:`KIWI_CHUNK` texts per call, each call kept out of the interpreter's exit
        (:func:`korean_eval.daemon_threads.exit_safe`); the tokens do not depend on the chunking."""
        return self._batches(texts, lambda res: [t.form for t in res])

    def _joined_batch(self, texts: Sequence[str]) -> list[str]:
        """As the base class's, joined chunk by chunk: no token list of the whole batch is ever held (at 50,000
        paragraphs that would be millions of small strings, ≈ 0.6 GB)."""
        return self._batches(texts, lambda res: " ".join(" ".join(t.form for t in res).split()))

    @staticmethod
    def _batches(texts: Sequence[str], convert: Callable) -> list:
        kiwi, out = kiwi_analyzer(), []
        for lo in range(0, len(texts), KIWI_CHUNK):
            chunk = list(texts[lo : lo + KIWI_CHUNK])
            out += exit_safe(lambda chunk=chunk: [convert(res) for res in kiwi.tokenize(chunk)])
        return out


#: The files of kiwipiepy_model's folder without which ``Kiwi()`` refuses to start (kiwipiepy 0.24.1, model 0.24.0:
#: each removed in turn, ``Kiwi(model_path=…)`` raised; ``dialect.dict`` is optional).
KIWI_MODEL_FILES = ("combiningRule.txt", "cong.mdl", "default.dict", "extract.mdl", "multi.dict", "nounchr.mdl",
                    "sj.morph", "typo.dict")


def kiwi_install_problem() -> str:
    """Why ``Kiwi()`` cannot start here ("" when it can, as far as can be told without loading its model): kiwipiepy
    and its native extension import, and kiwipiepy_model's folder holds every file of :data:`KIWI_MODEL_FILES`,
    none empty. A model that is there but fails to load is reported by :meth:`KiwiLevel.start`."""
    try:
        import kiwipiepy  # noqa: F401 - loads the native extension
        import kiwipiepy_model
    except ImportError as err:
        return f"kiwipiepy cannot start: {err}"
    folder = Path(kiwipiepy_model.get_model_path())
    missing = [name for name in KIWI_MODEL_FILES if not (folder / name).is_file() or not (folder / name).stat().st_size]
    if missing:
        return f"kiwipiepy cannot start: its model files {', '.join(missing)} are missing or empty in {folder}"
    return ""


KIWI_CHUNK = 256  # texts per call into Kiwi: a fraction of a second, which is what an exit may wait for


@functools.cache
def kiwi_analyzer():
    """The process's one ``kiwipiepy.Kiwi()`` (default options; its model ships with the package): the ``kiwi``
    level's tokenizer and the Korean lens's analyzer (:mod:`korean_eval.lens.analysis`), loaded once."""
    from kiwipiepy import Kiwi

    return exit_safe(Kiwi)  # loading the model takes seconds in native code too


#: Registry name → level class, built from the classes' declared names (:func:`register_level` adds one); its order
#: is the order of the tables, the sidebar and ``korean-eval levels``.
LEVEL_CLASSES: dict[str, type[TokenLevel]] = {cls.name: cls for cls in (
    WordLevel, MecabLevel, KiwiLevel, OktLevel, KomoranLevel, KkmaLevel, HannanumLevel, KhaiiiLevel, SpmLevel,
    CharLevel, JamoLevel,
)}
_BUILT_IN: frozenset[str] = frozenset(LEVEL_CLASSES)




def level_names() -> tuple[str, ...]:
    """Every registered level's name, in registry order (the built-ins, then those registered at run time)."""
    return tuple(LEVEL_CLASSES)


def study_levels() -> tuple[str, ...]:
    """The study's full grid: every registered level declared :attr:`~TokenLevel.in_study` (not khaiii, listed but
    never installable from the package registries)."""
    return tuple(n for n, cls in LEVEL_CLASSES.items() if cls.in_study)


def register_level(cls: type[TokenLevel]) -> type[TokenLevel]:
    """Register the level ``cls`` under its declared :attr:`~TokenLevel.name`, after the others, so that the CLI,
    the API, the exports and the dashboard offer it; returns ``cls`` (usable as a class decorator). ``ValueError``
    for a name that is empty, not lower-case or registered already, or a family not in :data:`FAMILIES`."""
    if not cls.name or cls.name != cls.name.lower():
        raise ValueError(f"level name {cls.name!r} must be non-empty and lower-case")
    if cls.name in LEVEL_CLASSES or cls.name == ALL_LEVELS:
        raise ValueError(f"level {cls.name!r} is registered already")
    if cls.family not in FAMILIES:
        raise ValueError(f"level {cls.name}: family {cls.family!r} is not one of {', '.join(FAMILIES)}")
    LEVEL_CLASSES[cls.name] = cls
    level_availability.cache_clear()
    return cls


def unregister_level(name: str) -> None:
    """Remove the level ``name`` registered with :func:`register_level` (``ValueError`` for a built-in)."""
    if name in _BUILT_IN:
        raise ValueError(f"level {name!r} is built in")
    LEVEL_CLASSES.pop(name, None)
    level_availability.cache_clear()


def __getattr__(name: str) -> object:
    """``LEVEL_NAMES``: :func:`level_names` now; ``STUDY_LEVELS``: :func:`study_levels` now."""
    if name == "LEVEL_NAMES":
        return level_names()
    if name == "STUDY_LEVELS":
        return study_levels()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def level_class(name: str) -> type[TokenLevel]:
    """The class of the registered level ``name`` (its declarations; ValueError naming the valid levels)."""
    try:
        return LEVEL_CLASSES[name]
    except KeyError:
        raise ValueError(f"unknown token level {name!r}; levels are {', '.join(level_names())}") from None


def get_level(name: str) -> TokenLevel:
    """A fresh instance of the named level (raises ValueError naming the valid levels)."""
    return level_class(name)()


@functools.cache
def level_availability(name: str) -> tuple[bool, str]:
    """Cached availability of a level (a JVM check is not free)."""
    return get_level(name).availability()


def available_levels() -> list[str]:
    return [n for n in level_names() if level_availability(n)[0]]


#: The choice of every level of the study's grid (``--levels all``, the dashboard's "all" button).
ALL_LEVELS = "all"


@dataclass(frozen=True)
class LevelChoice:
    """The token levels a run evaluates for a user's choice, and a note for each level of it left out.

    Attributes:
        levels: the levels to evaluate, in registry order for a default or ``all``, else as named.
        notes: one sentence per level left out because it cannot run here, naming it, the reason and how to change
            the choice.
    """

    levels: tuple[str, ...]
    notes: tuple[str, ...] = ()


def check_all_alone(names: Sequence[str]) -> None:
    """Refuse ``all`` among other level names (``ValueError``): it stands for the whole grid."""
    if ALL_LEVELS in names and len(names) > 1:
        raise ValueError(f"{ALL_LEVELS!r} stands for every level of the study's grid; give it alone or name the "
                         "levels one by one")


def choose_levels(names: Sequence[str]) -> LevelChoice:
    """The levels of ``names``: none named → :data:`korean_eval.model.defaults.LEVELS`; ``["all"]`` →
    :func:`study_levels`; otherwise the names as given.

    A default or ``all`` leaves out each level unavailable here, with a note naming it and the reason (the run goes on
    with the others, as the dashboard's unticked unavailable levels do); a level named explicitly is kept, so that an
    unavailable one stops the run with its reason. ``all`` among other names raises ``ValueError``.
    """
    names = list(names)
    check_all_alone(names)
    if ALL_LEVELS in names:
        wanted, which = study_levels(), "--levels all"
    elif not names:
        wanted, which = LEVELS, "the default levels"
    else:
        return LevelChoice(tuple(names))
    chosen, notes = [], []
    for name in wanted:
        ok, reason = level_availability(name)
        if ok:
            chosen.append(name)
        else:
            notes.append(f"level {name} of {which} is unavailable here ({reason}); evaluated without it "
                         "(`korean-eval levels` lists every level and why one is unavailable)")
    return LevelChoice(tuple(chosen), tuple(notes))


def level_table() -> list[dict[str, str]]:
    """One row per level: name, family, label, version, available, reason, description."""
    rows = []
    for n in level_names():
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
