"""Human scores of an mt-metrics-eval folder from rating files or several rater groups (docs/design.md §4).

A human score name NAME (``mqm.merged``, ``esa-human1``) is one rater group. Its judgments come from
``SRC-TGT.NAME.seg.rating`` when there is one (:mod:`korean_eval.inputs.spans.rating_file`: spans and rater ids), else
from ``SRC-TGT.NAME.seg.score`` (one judgment per scored segment, rater = NAME). When both files exist the score
file gives every judgment's score (ESA: the rater's 0–100 score; the spans stay for the analyses); with a rating
file alone, MQM penalties come from the spans (:mod:`korean_eval.inputs.spans.weights`). Several names are merged (mean
over every judgment per item) and their agreement is the human ceiling (:mod:`korean_eval.metaeval.tables.human_ceiling`).
(:func:`korean_eval.inputs.mtme.load.load_mtme` attaches them, with the direction rule of its given scores.) Every file is checked like a score file: unknown systems and a wrong number of lines per system are refused
with file and line. Judgments of a system output the evaluation leaves out are excluded with their own reason, not
as an unknown system: :data:`SCORED_AGAINST` (a reference scored against) or :data:`REFERENCE_COPY` (another
reference's copy, unless references are evaluated as systems).
"""

from __future__ import annotations

from collections.abc import Sequence

from korean_eval.inputs.mtme.files import FileTree
from korean_eval.inputs.mtme.layout import LanguagePair
from korean_eval.inputs.mtme.scores import read_score_file
from korean_eval.inputs.spans.rating_file import read_rating_file
from korean_eval.inputs.spans.reading import check_rating_counts
from korean_eval.inputs.spans.records import Judgment, RatingsRead
from korean_eval.inputs.text_files import InputError
from korean_eval.model.evalset import EvalSet

__all__ = ["REFERENCE_COPY", "SCORED_AGAINST", "rating_groups"]

REFERENCE_COPY = "a reference copy, not evaluated as a system"
SCORED_AGAINST = "the reference scored against, not evaluated as a system"


def _from_rating_file(tree: FileTree, pair: LanguagePair, name: str, n_segments: int) -> RatingsRead:
    f = pair.rating_file(name)
    file_name = pair.relative(f.path)
    read, counts = read_rating_file(tree.read(f.path), file_name, name)
    unknown = sorted(set(counts) - set(pair.systems))
    if unknown:
        raise InputError(file_name, f"unknown system {unknown[0]!r}: no system-outputs file of that name",
                         line=counts[unknown[0]][0])
    check_rating_counts(counts, n_segments, file_name)
    return read


def _with_scores(tree: FileTree, pair: LanguagePair, name: str, read: RatingsRead | None, evalset: EvalSet):
    """The group's judgments with the scores of ``NAME.seg.score`` (judgments of the rating file when given), and
    the score values (for the direction rule)."""
    f = pair.human_file(name, "seg")
    data = read_score_file(tree.read(f.path), pair.relative(f.path), "seg", set(pair.systems), evalset.n_segments)
    scores = {(s, str(i)): e for s, es in data.entries.items() for i, e in enumerate(es)}
    out = RatingsRead(data.name, name, "esa", notes=list(data.notes))
    if read is None:
        judgments = [Judgment(s, g, name, name, file=data.name, line=e.line) for (s, g), e in scores.items()]
    else:
        out.excluded, out.notes = list(read.excluded), out.notes + read.notes
        judgments = read.judgments
    for j in judgments:
        entry = scores.get((j.system, j.seg_id))
        if entry is None or entry.value is None:
            out.excluded.append((j.line, entry.problem if entry else f"no score in {data.name}"))
            continue
        j.score = entry.value
        out.judgments.append(j)
    return out, data.values()


def _set_aside_references(read: RatingsRead, evalset: EvalSet, scored_against: Sequence[str]) -> RatingsRead:
    """``read`` without the judgments of system outputs that are not evaluated (the files are checked: any such
    output is a reference), each excluded with its line and reason (module docstring)."""
    kept = []
    for j in read.judgments:
        if j.system in evalset.systems:
            kept.append(j)
        else:
            read.excluded.append((j.line, SCORED_AGAINST if j.system in scored_against else REFERENCE_COPY))
    read.judgments = kept
    return read


def rating_groups(
    tree: FileTree, pair: LanguagePair, evalset: EvalSet, names: Sequence[str], scored_against: Sequence[str] = ()
) -> tuple[list[RatingsRead], list[float]]:
    """The rater groups ``names`` read (module docstring), and the values of their score files (for the direction
    rule; empty when every group is a rating file alone). ``scored_against``: the references scored against."""
    reads, values = [], []
    for name in names:
        read = _from_rating_file(tree, pair, name, evalset.n_segments) if pair.rating_file(name) else None
        if pair.human_file(name, "seg") is not None:
            read, found = _with_scores(tree, pair, name, read, evalset)
            values += found
        reads.append(_set_aside_references(read, evalset, scored_against))
    return reads, values
