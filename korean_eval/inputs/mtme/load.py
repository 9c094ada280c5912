"""One language pair of an mt-metrics-eval test set → an :class:`~korean_eval.model.evalset.EvalSet` (docs/design.md §4).

What is loaded (:class:`MtmeOptions`; the files: :mod:`korean_eval.inputs.mtme.layout`):

* texts: the source; the chosen reference(s) (default: the first reference name in sorted order —
  mt-metrics-eval's "standard reference" is set in its ``meta_info.py``, not in the folder; several = a
  multi-reference evaluation, ``nrefs:N`` in every signature); every system output except the references scored
  against (a reference scored against itself is perfect) and, unless ``refs_as_systems``, the other reference
  copies (mt-metrics-eval's "human" systems, left out unless asked: ``GetCorrelations(include_human=False)``). A
  line ``[No translation supplied]`` (mt-metrics-eval's ``NO_TRANSLATION``) is a missing hypothesis. Texts are read
  as every text file (:func:`korean_eval.model.evalset.evalset_from_texts`) and must have the source's line count;
* documents and domains (``documents/SRC-TGT.docs``) as segment attributes (``EvalSet.segment_info``); documents
  are contiguous blocks, domains are listed in sorted order (mt-metrics-eval's canonical order);
* human scores: the ``seg`` file of the chosen name (default: the only one, or the first in sorted order);
  ``None`` entries and scores of systems not evaluated are excluded and counted. The ``sys`` and ``domain``
  files of the same name, when present, become ``EvalSet.human_system`` / ``human_domain`` (used at the system
  level instead of the mean of segment scores, as mt-metrics-eval does). A name with a ``.seg.rating`` file, or
  several names (rater groups), are read by :mod:`korean_eval.inputs.mtme.ratings` (judgments with raters and spans,
  merged per item; no sys/domain files). Direction (:func:`human_lower_is_better`):
  declared, or by default higher is better except an MQM-named file whose scores are all ≥ 0 (error penalties as
  counted; mt-metrics-eval's own MQM files hold them negated, ≤ 0, ``converters/score_mqm.py``);
* metric scores (on request): ``seg``-level files become your own metrics (level ``given``, named ``NAME-REF``,
  system score = mean of segment scores), only those computed with the references scored against or none (the
  rule of mt-metrics-eval's ``GetCorrelations``); error-rate names (MetricX, TER, …) whose scores are all ≥ 0 are
  lower-is-better (:func:`metric_lower_is_better`). Every file is checked as in :mod:`korean_eval.inputs.mtme.scores`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

import pandas as pd

from korean_eval.inputs.mtme.files import FileTree
from korean_eval.inputs.mtme.layout import LanguagePair, ScoreFile, metric_references, scan
from korean_eval.inputs.mtme.ratings import rating_groups
from korean_eval.inputs.mtme.scores import ScoreFileData, read_score_file
from korean_eval.inputs.spans.attach import attach_ratings
from korean_eval.inputs.spans.weights import parse_weights
from korean_eval.inputs.tables import attach_human_frame, declare_human_lower_is_better
from korean_eval.inputs.text_files import InputError, read_text_lines
from korean_eval.model.evalset import EvalSet, evalset_from_texts

__all__ = ["ALL_METRICS", "HUMAN_DIRECTIONS", "MtmeLoaded", "MtmeOptions", "load_mtme"]

#: mt-metrics-eval's line for a missing translation (``data.NO_TRANSLATION``).
NO_TRANSLATION = "[No translation supplied]"
#: ``MtmeOptions.metrics`` value for every usable seg-level metric file.
ALL_METRICS: tuple[str, ...] = ("*",)
HUMAN_DIRECTIONS: tuple[str, ...] = ("auto", "higher", "lower")
#: Name parts of scores counted as errors (lower is better when not negated): MetricX, TER, WER, EED, CharacTER, MQM.
ERROR_NAME_PARTS = ("ter", "wer", "eed", "character", "mqm")


@dataclass(frozen=True)
class MtmeOptions:
    """What to load: language pair (and test set when several hold it), reference name(s) (empty: the default),
    the human score name or file (None: the default), its direction (``auto``, ``higher``, ``lower``), whether
    reference copies are systems, the seg-level metric files to load as your own metrics (names ``NAME-REF``,
    or :data:`ALL_METRICS`), several human score names read as rater groups (merged; their agreement is the human
    ceiling; instead of ``human``), and the MQM weights of rating files (:func:`korean_eval.inputs.spans.weights.
    parse_weights`; None = the published ones)."""

    lp: str | None = None
    test_set: str | None = None
    references: tuple[str, ...] = ()
    human: str | None = None
    human_direction: str = "auto"
    refs_as_systems: bool = False
    metrics: tuple[str, ...] = ()
    human_groups: tuple[str, ...] = ()
    mqm_weights: str | None = None


@dataclass
class MtmeLoaded:
    """The evaluation set and what was chosen: references, human score name, metric files loaded, and the ones
    among them read as lower-is-better (for :attr:`korean_eval.model.config.EvalConfig.given_lower_is_better`)."""

    evalset: EvalSet
    pair: LanguagePair
    references: tuple[str, ...]
    human: str | None
    metrics: tuple[str, ...]
    lower_is_better: tuple[str, ...]


def load_mtme(tree: FileTree, options: MtmeOptions) -> MtmeLoaded:
    """Load one language pair (see the module docstring); InputError naming file and line for bad input."""
    if options.human_direction not in HUMAN_DIRECTIONS:
        raise ValueError(f"human_direction must be one of {', '.join(HUMAN_DIRECTIONS)}, got {options.human_direction!r}")
    pair = scan(tree).find(options.lp, options.test_set)
    refs = choose_references(pair, options.references)
    groups = chosen_rater_groups(pair, options)
    human = ",".join(groups) if groups else choose_human(pair, options.human)
    evalset = _texts(tree, pair, refs, options.refs_as_systems)
    _documents(tree, pair, evalset)
    note = human_choice_note(pair, groups or ((human,) if human else ()), options)
    if note:
        evalset.report.note(f"human-scores/{pair.lp}", note)
    if groups or (human is not None and pair.rating_file(human) is not None):
        _attach_groups(tree, pair, evalset, groups or (human,), options, refs)
    elif human is None:
        evalset.report.note(f"human-scores/{pair.lp}", "no segment-level human scores: nothing to correlate with")
    else:
        _attach_human(tree, pair, evalset, human, options.human_direction)
    metrics, lower = _attach_metrics(tree, pair, evalset, refs, options.metrics)
    return MtmeLoaded(evalset, pair, refs, human, metrics, lower)


def choose_references(pair: LanguagePair, wanted: Sequence[str]) -> tuple[str, ...]:
    """The reference names to score against: ``wanted`` (checked), or the first name in sorted order."""
    known = sorted(pair.references)
    if not known:
        raise InputError(f"references/{pair.lp}.*.txt", f"no reference for {pair.lp} in {pair.test_set}")
    for name in wanted:
        if name not in known:
            raise InputError(f"references/{pair.lp}", f"unknown reference {name!r}; references: {', '.join(known)}")
    if len(set(wanted)) != len(wanted):
        raise InputError(f"references/{pair.lp}", "a reference is named twice")
    return tuple(wanted) or (known[0],)


#: A human score name that is one rater group of a method: ``METHOD.GROUP`` or ``METHOD-GROUP`` with GROUP ending in
#: a digit (``mqm.rater1``, ``esa-human2``); ``mqm.merged`` or ``wmt-z`` are scores of their own.
RATER_GROUP_NAME = re.compile(r"^(?P<method>[^.-]+)[.-](?P<group>[^.]*[0-9])$")
#: How a person chooses other human scores, ending every note on the choice.
CHOOSE_HUMAN = ("choose with --mtme-human NAME (one score or rater group), --mtme-human A,B (these rater groups) or "
                "--mtme-human METHOD (e.g. mqm: all its rater groups); in the dashboard, 'Human scores'")


def rater_groups(pair: LanguagePair, method: str) -> tuple[str, ...]:
    """The segment-level human score names that are rater groups of ``method`` (:data:`RATER_GROUP_NAME`), sorted."""
    return tuple(n for n in pair.human_names("seg")
                 if (m := RATER_GROUP_NAME.match(n)) is not None and m["method"] == method)


def human_method(name: str) -> str:
    """The method a human score name belongs to: ``mqm.rater1`` → ``mqm``; a name of no rater group → itself."""
    match = RATER_GROUP_NAME.match(name)
    return match["method"] if match else name


def chosen_rater_groups(pair: LanguagePair, options: MtmeOptions) -> tuple[str, ...]:
    """The rater groups to merge: those named (``human_groups``, each checked); else every rater group of the
    method named as ``human`` when no score of that very name exists (``mqm`` → ``mqm.rater1``, ``mqm.rater2``);
    else, with no human score named, every rater group of the first method in sorted order. Fewer than two: none
    (a single score is used, :func:`choose_human`)."""
    if options.human_groups:
        return tuple(choose_human(pair, g) for g in options.human_groups)
    names = pair.human_names("seg")
    if options.human is not None:
        named = options.human
        found = () if named in names or "/" in named or named.endswith((".score", ".rating")) else rater_groups(pair, named)
    else:
        found = rater_groups(pair, min(human_method(n) for n in names)) if names else ()
    return found if len(found) >= 2 else ()


def default_human_names(pair: LanguagePair) -> tuple[str, ...]:
    """The human scores used when none is named: every rater group of the first method in sorted order, or the first
    name in sorted order (:func:`chosen_rater_groups`, :func:`choose_human`); none when the folder has none."""
    groups = chosen_rater_groups(pair, MtmeOptions())
    first = choose_human(pair, None)
    return groups or ((first,) if first else ())


def human_choice_note(pair: LanguagePair, used: tuple[str, ...], options: MtmeOptions) -> str:
    """Which human scores are used, why, which others the folder holds and how to choose them ("" when the folder
    has only the one used)."""
    names = pair.human_names("seg")
    others = [n for n in names if n not in used]
    if not used or (not others and len(used) == 1):
        return ""
    if len(used) >= 2:
        how = "as named" if options.human_groups else (
            f"every rater group of {options.human!r}" if options.human else
            f"every rater group of {human_method(used[0])!r}, the first method in sorted order")
        text = (f"human scores: the {len(used)} rater groups {', '.join(used)} ({how}), merged per item; their "
                "agreement is the human ceiling")
    else:
        how = "as named" if options.human else "the first in sorted order"
        text = f"human scores: {used[0]} ({how})"
    if others:
        text += f"; not used: {', '.join(others)}"
    return f"{text}; {CHOOSE_HUMAN}"


def choose_human(pair: LanguagePair, wanted: str | None) -> str | None:
    """The human score name: ``wanted`` (a name such as ``mqm``, or its seg-level score or rating file name or
    path), or the only seg-level name, or the first in sorted order; None when there is none."""
    names = pair.human_names("seg")
    if wanted is None:
        return names[0] if names else None
    file_name = PurePosixPath(wanted).name
    name = wanted
    if file_name.endswith(".rating"):
        parts = file_name.split(".")
        if len(parts) < 4 or parts[0] != pair.lp or parts[-2] != "seg":
            raise InputError(wanted, f"not a rating file of {pair.lp} ({pair.lp}.NAME.seg.rating)")
        name = ".".join(parts[1:-2])
    elif file_name.endswith(".score"):
        parts = file_name.split(".")
        if len(parts) < 4 or parts[0] != pair.lp:
            raise InputError(wanted, f"not a human score file of {pair.lp} ({pair.lp}.NAME.LEVEL.score)")
        if parts[-2] != "seg":
            raise InputError(wanted, "name the segment-level (.seg.score) file: the sys and domain files of the same "
                             "name are used at those levels by themselves")
        name = ".".join(parts[1:-2])
    if name not in names:
        raise InputError(f"human-scores/{pair.lp}", f"no segment-level human scores named {name!r}; available: "
                         f"{', '.join(names) or 'none'}")
    return name


def _penalties(values: Sequence[float]) -> bool:
    """All ≥ 0 and some > 0: error counts or rates as measured (not negated)."""
    return bool(values) and min(values) >= 0 and max(values) > 0


def _name_parts(name: str) -> list[str]:
    return re.split(r"[^a-z0-9]+", name.lower())


def human_lower_is_better(name: str, values: Sequence[float], direction: str = "auto") -> bool:
    """Whether human scores named ``name`` are lower-is-better: as declared (``higher``/``lower``), else (``auto``)
    exactly when the name has an ``mqm`` part and the scores are error penalties (all ≥ 0, some > 0)."""
    if direction != "auto":
        return direction == "lower"
    return "mqm" in _name_parts(name) and _penalties(values)


def metric_lower_is_better(name: str, values: Sequence[float]) -> bool:
    """Whether a metric ``NAME-REF`` is lower-is-better: its base name has a part starting with ``metricx`` or one
    of :data:`ERROR_NAME_PARTS`, and its scores are all ≥ 0 with some > 0 (not negated, as mt-metrics-eval stores
    error metrics so that higher is better)."""
    parts = _name_parts(name.rsplit("-", 1)[0])
    named = any(p.startswith("metricx") or p in ERROR_NAME_PARTS for p in parts)
    return named and _penalties(values)


# ---------------------------------------------------------------------------------------------------- texts


def _texts(tree: FileTree, pair: LanguagePair, refs: tuple[str, ...], refs_as_systems: bool) -> EvalSet:
    """Source, references and system outputs as an EvalSet (see the module docstring)."""
    copies = [s for s in pair.reference_systems() if s not in refs]
    systems = [s for s in sorted(pair.systems) if s not in refs and (refs_as_systems or s not in copies)]
    if not systems:
        raise InputError(f"system-outputs/{pair.lp}/", "no system output to evaluate")
    evalset = evalset_from_texts(
        [(pair.relative(pair.references[r]), tree.read(pair.references[r])) for r in refs],
        [(pair.relative(pair.systems[s]), tree.read(pair.systems[s])) for s in systems],
        system_names=systems,
        src=(pair.relative(pair.source), tree.read(pair.source)),
    )
    folder = f"system-outputs/{pair.lp}"
    scored_against = [s for s in refs if s in pair.systems]
    if scored_against:
        evalset.report.note(folder, f"not evaluated as systems: {', '.join(scored_against)} (the reference(s) scored against)")
    if copies:
        verb = "evaluated as systems" if refs_as_systems else "not evaluated (reference copies; ask for references as systems)"
        evalset.report.note(folder, f"{', '.join(copies)}: {verb}")
    for name, hyps in evalset.systems.items():
        missing = [i for i, h in enumerate(hyps) if h == NO_TRANSLATION]
        for i in missing:
            hyps[i] = None
        if missing:
            evalset.report.note(pair.relative(pair.systems[name]), f"{len(missing)} line(s) {NO_TRANSLATION!r}: no "
                                f"hypothesis for those segments")
    return evalset


def _documents(tree: FileTree, pair: LanguagePair, evalset: EvalSet) -> None:
    """``segment_info`` (seg_id, document, domain) from the documents file, checked line by line."""
    if pair.documents is None:
        evalset.report.note(f"documents/{pair.lp}.docs", "absent: no documents or domains")
        return
    name = pair.relative(pair.documents)
    doc = read_text_lines(tree.read(pair.documents), name)
    n = evalset.n_segments
    if len(doc.lines) != n:
        raise InputError(name, f"has {len(doc.lines)} lines but the source has {n}; one line per segment",
                         line=min(len(doc.lines), n) + 1)
    documents, domains, ended = [], [], {}
    for number, text in enumerate(doc.lines, start=1):
        parts = text.split()
        if len(parts) != 2:
            raise InputError(name, f"{len(parts)} field(s); every line is DOMAIN DOCNAME", line=number)
        domain, document = parts
        if documents and document != documents[-1]:
            ended[documents[-1]] = number - 1
        if document in ended:
            raise InputError(name, f"document {document!r} again after its block ended on line {ended[document]}; "
                             "a document is one contiguous block of segments", line=number)
        documents.append(document)
        domains.append(domain)
    evalset.segment_info = pd.DataFrame({"seg_id": evalset.seg_ids, "document": documents, "domain": domains})
    evalset.report.note(name, f"{len(dict.fromkeys(documents))} document(s) in {len(set(domains))} domain(s): "
                        f"{', '.join(sorted(set(domains)))}")


def domain_names(evalset: EvalSet) -> list[str]:
    """The domains of ``evalset.segment_info`` in sorted order (mt-metrics-eval's canonical order); [] without."""
    info = evalset.segment_info
    return sorted(set(info["domain"])) if info is not None and "domain" in info else []


# ---------------------------------------------------------------------------------------------- scores


def _read(tree: FileTree, pair: LanguagePair, f: ScoreFile, evalset: EvalSet, expected: int) -> ScoreFileData:
    data = read_score_file(tree.read(f.path), pair.relative(f.path), f.level, set(pair.systems), expected,
                           domain_names(evalset))
    for note in data.notes:
        evalset.report.note(data.name, note)
    return data


NOT_EVALUATED = "system not evaluated (a reference; ask for references as systems)"


def _segment_rows(data: ScoreFileData, evalset: EvalSet) -> list[tuple[str, str, float]]:
    """(system, seg_id, score) of a seg-level file; None/bad entries, systems not evaluated and segments without a
    hypothesis are excluded with their line and reason."""
    rows = []
    report = evalset.report
    for system, entries in data.entries.items():
        for seg_id, entry in zip(evalset.seg_ids, entries, strict=True):
            problem = entry.problem if system in evalset.systems else NOT_EVALUATED
            problem = problem or evalset.pair_problem(system, seg_id)
            if problem:
                report.exclude(data.name, entry.line, problem)
            else:
                rows.append((system, seg_id, entry.value))
    return rows


def _level_rows(data: ScoreFileData, evalset: EvalSet) -> list[tuple[str, str, float]]:
    """(domain, system, score) of a sys-level (domain "") or domain-level file, with the same exclusions."""
    entries = [("", s, e) for s, es in data.entries.items() for e in es]
    entries += [(d, s, e) for s, per in data.by_domain.items() for d, e in per.items()]
    rows = []
    for domain, system, entry in entries:
        problem = entry.problem if system in evalset.systems else NOT_EVALUATED
        if problem:
            evalset.report.exclude(data.name, entry.line, problem)
        else:
            rows.append((domain, system, entry.value))
    return rows


def _attach_human(tree: FileTree, pair: LanguagePair, evalset: EvalSet, name: str, direction: str) -> None:
    """Human scores of ``name`` at segment, system and domain level (see the module docstring)."""
    seg = _read(tree, pair, pair.human_file(name, "seg"), evalset, evalset.n_segments)
    rows = _segment_rows(seg, evalset)
    if not rows:
        raise InputError(seg.name, f"no usable human score: {evalset.report.excluded_brief(seg.name)}")
    attach_human_frame(evalset, pd.DataFrame(rows, columns=["system", "seg_id", "score"]), seg.name)
    missing = [s for s in evalset.systems if s not in seg.entries]
    if missing:
        evalset.report.note(seg.name, f"no human scores for {', '.join(missing)}")
    sys_file = pair.human_file(name, "sys")
    if sys_file is not None:
        found = _level_rows(_read(tree, pair, sys_file, evalset, 1), evalset)
        evalset.human_system = pd.DataFrame([r[1:] for r in found], columns=["system", "score"])
        without = [s for s in evalset.systems if s not in set(evalset.human_system["system"])]
        evalset.report.note(pair.relative(sys_file.path), "system-level human scores: used at the system level "
                            "instead of the mean of segment scores" + (f"; none for {', '.join(without)}" if without else ""))
    domain_file = pair.human_file(name, "domain")
    if domain_file is not None and evalset.segment_info is not None:
        found = _level_rows(_read(tree, pair, domain_file, evalset, 0), evalset)
        evalset.human_domain = pd.DataFrame(found, columns=["domain", "system", "score"])
    lower = human_lower_is_better(name, seg.values(), direction)
    how = "declared" if direction != "auto" else "read from the name and the scores' signs"
    evalset.report.note(seg.name, f"human scores {name!r}: {'lower' if lower else 'higher'} is better ({how})")
    if lower:
        declare_human_lower_is_better(evalset, seg.name)


def _attach_groups(
    tree: FileTree, pair: LanguagePair, evalset: EvalSet, names: Sequence[str], options: MtmeOptions,
    refs: tuple[str, ...],
) -> None:
    """Human scores from rating files or several rater groups (:mod:`korean_eval.inputs.mtme.ratings`; ``refs``: the
    references scored against)."""
    reads, values = rating_groups(tree, pair, evalset, names, refs)
    lower = bool(values) and human_lower_is_better(names[0], values, options.human_direction)
    attach_ratings(evalset, reads, parse_weights(options.mqm_weights), scores_lower_is_better=lower)


def _chosen_metric_files(pair: LanguagePair, refs: tuple[str, ...], wanted: tuple[str, ...], evalset: EvalSet):
    """The seg-level metric files to load: ``wanted`` by name (each usable), or every usable one."""
    files = [f for f in pair.metrics if f.level == "seg"]
    usable = [f for f in files if metric_references(f.name, list(pair.references)) <= set(refs)]
    if wanted == ALL_METRICS:
        left = [f.name for f in files if f not in usable]
        if left:
            evalset.report.note(f"metric-scores/{pair.lp}", f"not loaded (computed with other references than "
                                f"{'.'.join(refs)}): {', '.join(left)}")
        return usable
    by_name = {f.name: f for f in files}
    for name in wanted:
        if name not in by_name:
            raise InputError(f"metric-scores/{pair.lp}", f"no segment-level scores of metric {name!r}; available: "
                             f"{', '.join(sorted(by_name)) or 'none'}")
        if by_name[name] not in usable:
            raise InputError(by_name[name].file_name, f"computed with reference(s) other than the ones scored "
                             f"against ({', '.join(refs)}); choose those references or another metric")
    return [by_name[n] for n in wanted]


def _attach_metrics(
    tree: FileTree, pair: LanguagePair, evalset: EvalSet, refs: tuple[str, ...], wanted: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Seg-level metric files as ``evalset.given``; (metric names loaded, those lower-is-better)."""
    if not wanted:
        return (), ()
    frames, lower = [], []
    for f in _chosen_metric_files(pair, refs, wanted, evalset):
        data = _read(tree, pair, f, evalset, evalset.n_segments)
        rows = _segment_rows(data, evalset)
        missing = [s for s in evalset.systems if s not in data.entries]
        if missing:
            evalset.report.note(data.name, f"no scores for {', '.join(missing)}")
        frames.append(pd.DataFrame(rows, columns=["system", "seg_id", "score"]).assign(metric=f.name))
        if metric_lower_is_better(f.name, data.values()):
            lower.append(f.name)
    if not frames:
        return (), ()
    evalset.given = pd.concat(frames, ignore_index=True)[["system", "seg_id", "metric", "score"]]
    names = tuple(dict.fromkeys(evalset.given["metric"]))
    evalset.report.note(f"metric-scores/{pair.lp}", f"your own metrics (level given; system score = mean of segment "
                        f"scores): {', '.join(names)}; lower is better: {', '.join(lower) or 'none'}")
    return names, tuple(lower)
