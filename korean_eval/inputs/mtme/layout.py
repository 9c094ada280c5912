"""What a folder in mt-metrics-eval's layout holds: test sets, language pairs, references, systems, score files.

The layout (mt-metrics-eval 0.0.3, README "Specification" and ``data.py`` ``EvalSet._ReadDataset``); paths are
relative to a test-set folder such as ``wmt24/``, SRC-TGT is the language pair as the files name it (``en-ko``,
``ja-zh``, ``cs-uk``; WMT25 adds the target's locale: ``en-ko_KR``, ``en-ar_EG``; :meth:`MtmeContents.find`):

* ``sources/SRC-TGT.txt`` — one source segment per line; the file that makes a folder a test set;
* ``documents/SRC-TGT.docs`` — ``DOMAIN DOCNAME`` per line, aligned with the source;
* ``references/SRC-TGT.NAME.txt`` — a reference (NAME without ``.`` or ``-``, not ``all`` or ``src``);
* ``system-outputs/SRC-TGT/NAME.txt`` — a system's output (NAME = file name without its last extension; a file
  named like a reference is a copy of that reference, scored as a "human" system only on request);
* ``human-scores/SRC-TGT.NAME.LEVEL.score`` — human scores (NAME the method, e.g. ``mqm``, ``esa``, ``wmt-z``);
* ``human-scores/SRC-TGT.NAME.seg.rating`` — error-span ratings (MQM, ESA; :mod:`korean_eval.inputs.spans.rating_file`),
  human scores named NAME like the score files (e.g. ``mqm.merged``, ``mqm.rater1``, ``esa-human1``);
* ``metric-scores/SRC-TGT/NAME-REF.LEVEL.score`` — a metric's scores, REF = the reference(s) it used
  (``refA``, ``refA.refB``, ``src`` for none, ``all`` for every reference);

LEVEL is ``sys``, ``domain``, ``doc`` or ``seg``. The folder may be the test set itself or hold several test sets
at any depth (e.g. ``mt-metrics-eval-v2/wmt24/...``). Files that do not fit (``.jsonl`` variants, ``.rating``
files of another level than ``seg``, names breaking the rules above) are listed as skipped with the reason, never
read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from korean_eval.inputs.mtme.files import FileTree
from korean_eval.inputs.text_files import InputError, system_identifier

__all__ = [
    "LEVELS",
    "LanguagePair",
    "MtmeContents",
    "ScoreFile",
    "describe",
    "metric_references",
    "scan",
    "without_locales",
]

LEVELS: tuple[str, ...] = ("sys", "domain", "doc", "seg")
RESERVED_REFERENCE_NAMES = ("all", "src")


@dataclass(frozen=True)
class ScoreFile:
    """One score file: its path in the tree, its name (human: the method, e.g. ``mqm``; metric: ``NAME-REF``,
    e.g. ``COMET-22-refA``) and its level."""

    path: str
    name: str
    level: str

    @property
    def file_name(self) -> str:
        return PurePosixPath(self.path).name


@dataclass
class LanguagePair:
    """The files of one language pair of one test set (paths relative to the tree's root)."""

    test_set: str
    root: str
    lp: str
    source: str
    documents: str | None = None
    references: dict[str, str] = field(default_factory=dict)
    systems: dict[str, str] = field(default_factory=dict)
    human: list[ScoreFile] = field(default_factory=list)
    ratings: list[ScoreFile] = field(default_factory=list)
    metrics: list[ScoreFile] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def relative(self, path: str) -> str:
        """``path`` relative to the test-set folder (how messages name files)."""
        return path[len(self.root) :] if path.startswith(self.root) else path

    def human_names(self, level: str = "seg") -> list[str]:
        """The human score names available at ``level`` (score files; at ``seg`` also rating files), sorted."""
        names = {f.name for f in self.human if f.level == level}
        return sorted(names | ({f.name for f in self.ratings} if level == "seg" else set()))

    def human_file(self, name: str, level: str) -> ScoreFile | None:
        return next((f for f in self.human if f.name == name and f.level == level), None)

    def rating_file(self, name: str) -> ScoreFile | None:
        """The ``SRC-TGT.NAME.seg.rating`` file of ``name``, or None."""
        return next((f for f in self.ratings if f.name == name), None)

    def metric_names(self, level: str = "seg") -> list[str]:
        return sorted(f.name for f in self.metrics if f.level == level)

    def reference_systems(self) -> list[str]:
        """System outputs named like a reference (copies of it: mt-metrics-eval's "human" systems)."""
        return sorted(s for s in self.systems if s in self.references)


@dataclass
class MtmeContents:
    """Every language pair found in a tree."""

    label: str
    pairs: list[LanguagePair]

    def test_sets(self) -> list[str]:
        return sorted({p.test_set for p in self.pairs})

    def language_pairs(self, test_set: str | None = None) -> list[str]:
        return sorted({p.lp for p in self.pairs if test_set in (None, p.test_set)})

    def find(self, lp: str | None, test_set: str | None = None) -> LanguagePair:
        """The language pair ``lp`` of ``test_set`` (either may be omitted when only one fits; InputError).

        ``lp`` is the name as the layout writes it (``en-ko``, WMT25's ``en-ko_KR``, ``en-ar_EG``, ``ja-zh``); a
        name without locales (``en-ko``) also finds the one pair that has it with locales (``en-ko_KR``) when no pair
        is named exactly so (:func:`without_locales`)."""
        if not self.pairs:
            raise InputError(self.label, "no test set in mt-metrics-eval's layout here (no sources/SRC-TGT.txt file)")
        if test_set is not None and test_set not in self.test_sets():
            raise InputError(self.label, f"no test set {test_set!r}; test sets: {', '.join(self.test_sets())}")
        in_set = [p for p in self.pairs if test_set in (None, p.test_set)]
        fits = [p for p in in_set if lp in (None, p.lp)]
        if not fits and lp is not None and lp == without_locales(lp):
            fits = [p for p in in_set if without_locales(p.lp) == lp]
        if not fits:
            where = f" in {test_set}" if test_set else ""
            raise InputError(self.label, f"no language pair {lp!r}{where}; language pairs: {', '.join(self.language_pairs(test_set))}")
        names = sorted({p.lp for p in fits})
        if len(names) > 1:
            what = "several language pairs" if lp is None else f"{lp} matches several language pairs"
            raise InputError(self.label, f"{what} ({', '.join(names)}); name one")
        if len(fits) > 1:
            raise InputError(self.label, f"{names[0]} is in several test sets ({', '.join(p.test_set for p in fits)}); name one")
        return fits[0]


def without_locales(lp: str) -> str:
    """A language pair without the locale or script suffix of either side, as WMT25 writes them: ``en-ko_KR`` →
    ``en-ko``, ``en-ar_EG`` → ``en-ar``; ``ja-zh`` stays."""
    return "-".join(side.split("_", 1)[0] for side in lp.split("-", 1))


def metric_references(name: str, reference_names: Sequence[str]) -> frozenset[str]:
    """The references a metric named ``BASENAME-REF`` used (mt-metrics-eval ``ParseMetricName``): ``src`` → none,
    ``all`` → every reference, otherwise the ``.``-separated names."""
    refs = name.rsplit("-", 1)[1]
    if refs == "src":
        return frozenset()
    if refs == "all":
        return frozenset(reference_names)
    return frozenset(refs.split("."))


def _test_set_roots(files: Sequence[str]) -> list[tuple[str, str, str]]:
    """(root prefix, test-set name, language pair) for every ``sources/SRC-TGT.txt`` file."""
    out = []
    for path in files:
        p = PurePosixPath(path)
        if len(p.parts) >= 2 and p.parts[-2] == "sources" and p.suffix == ".txt":
            root = "/".join(p.parts[:-2])
            out.append((root + "/" if root else "", PurePosixPath(root).name if root else "", p.stem))
    return out


class _Skip(Exception):
    """A file under a layout folder that does not fit its naming rule (the message says why)."""


def _reference(rel: str, pair: LanguagePair, path: str) -> None:
    name, dot, ext = rel.rpartition(".")
    if ext != "txt" or not dot:
        raise _Skip("only .txt references are read")
    if not name or "." in name or "-" in name or name in RESERVED_REFERENCE_NAMES or "/" in name:
        raise _Skip("a reference name has no '.' or '-' and is not 'all' or 'src'")
    pair.references[name] = path


def _system(rel: str, pair: LanguagePair, path: str) -> None:
    name, dot, ext = rel.rpartition(".")
    if "/" in rel:
        raise _Skip(f"in a subfolder of system-outputs/{pair.lp}/")
    if ext != "txt" or not dot or not name:
        raise _Skip("only .txt system outputs are read")
    pair.systems[system_identifier(name, path)] = path  # a control character in the file name is refused


def _human_file(rel: str, pair: LanguagePair, path: str) -> None:
    parts = rel.split(".")
    if parts[-1] == "rating":
        if len(parts) < 3 or parts[-2] != "seg" or "/" in rel:
            raise _Skip("not SRC-TGT.NAME.seg.rating (ratings are segment-level)")
        pair.ratings.append(ScoreFile(path, ".".join(parts[:-2]), "seg"))
        return
    if parts[-1] != "score" or len(parts) < 3 or parts[-2] not in LEVELS or "/" in rel:
        raise _Skip(f"not SRC-TGT.NAME.LEVEL.score with LEVEL one of {', '.join(LEVELS)}")
    pair.human.append(ScoreFile(path, ".".join(parts[:-2]), parts[-2]))


def _metric_file(rel: str, pair: LanguagePair, path: str) -> None:
    parts = rel.rsplit(".", 2)
    if len(parts) != 3 or parts[2] != "score" or parts[1] not in LEVELS or "-" not in parts[0] or "/" in rel:
        raise _Skip(f"not NAME-REF.LEVEL.score with LEVEL one of {', '.join(LEVELS)}")
    unknown = sorted(metric_references(parts[0], list(pair.references)) - set(pair.references))
    if unknown:
        raise _Skip(f"uses reference(s) {', '.join(unknown)}, not in references/")
    pair.metrics.append(ScoreFile(path, parts[0], parts[1]))


#: (folder prefix of a kind of file, with ``{lp}``; the function that files one of them in a LanguagePair).
#: References come first: the metric files' REF parts are checked against them.
_KINDS = (
    ("references/{lp}.", _reference),
    ("system-outputs/{lp}/", _system),
    ("human-scores/{lp}.", _human_file),
    ("metric-scores/{lp}/", _metric_file),
)


def _collect(pair: LanguagePair, files: Sequence[str]) -> None:
    """File every file of ``pair``'s folders by its kind; the ones that do not fit go to ``pair.skipped``."""
    for template, add in _KINDS:
        prefix = pair.root + template.format(lp=pair.lp)
        for path in files:
            if path.startswith(prefix):
                try:
                    add(path[len(prefix) :], pair, path)
                except _Skip as why:
                    pair.skipped.append(f"{pair.relative(path)}: {why}")


def scan(tree: FileTree) -> MtmeContents:
    """Every test set × language pair of ``tree`` with its files (names only: nothing is read)."""
    files = tree.files()
    pairs = []
    for root, test_set, lp in _test_set_roots(files):
        name = test_set or PurePosixPath(tree.label).stem or "test set"
        pair = LanguagePair(name, root, lp, f"{root}sources/{lp}.txt")
        if f"{root}documents/{lp}.docs" in files:
            pair.documents = f"{root}documents/{lp}.docs"
        _collect(pair, files)
        pair.human.sort(key=lambda f: (f.name, LEVELS.index(f.level)))
        pair.ratings.sort(key=lambda f: f.name)
        pair.metrics.sort(key=lambda f: (f.name, LEVELS.index(f.level)))
        pairs.append(pair)
    return MtmeContents(tree.label, sorted(pairs, key=lambda p: (p.test_set, p.lp)))


def _by_name(files: Sequence[ScoreFile]) -> str:
    levels: dict[str, list[str]] = {}
    for f in files:
        levels.setdefault(f.name, []).append(f.level)
    return ", ".join(f"{name} ({'/'.join(lv)})" for name, lv in levels.items()) or "none"


def describe(contents: MtmeContents) -> str:
    """What the tree holds, as plain text (the command line's ``mtme-list``)."""
    if not contents.pairs:
        return f"{contents.label}: no test set in mt-metrics-eval's layout (no sources/SRC-TGT.txt file)"
    lines = [f"{contents.label}: {len(contents.test_sets())} test set(s), {len(contents.pairs)} language pair(s)"]
    for p in contents.pairs:
        refs_as_sys = p.reference_systems()
        lines += [
            f"{p.test_set} {p.lp}:",
            f"  documents: {p.relative(p.documents) if p.documents else 'none (no domains)'}",
            f"  references: {', '.join(sorted(p.references)) or 'none'}",
            f"  systems: {len(p.systems) - len(refs_as_sys)} ({', '.join(s for s in sorted(p.systems) if s not in refs_as_sys)})",
            f"  reference copies among the systems: {', '.join(refs_as_sys) or 'none'}",
            f"  human scores: {_by_name(p.human)}",
            f"  ratings (error spans): {', '.join(f.name for f in p.ratings) or 'none'}",
            f"  metric scores: {_by_name(p.metrics)}",
        ]
        lines += [f"  skipped: {s}" for s in p.skipped]
    return "\n".join(lines)
