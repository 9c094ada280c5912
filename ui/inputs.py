"""Uploaded bytes → a validated :class:`~korean_eval.model.evalset.EvalSet` (no Streamlit here, so tests call it directly).

The Data page wraps each uploaded file as an :class:`Upload` (name + bytes) and calls one of the builders; every
builder raises :class:`~korean_eval.model.evalset.InputError` (a ``ValueError``) with a message a person can act on. Files
are read exactly as the command line reads them: text files by :func:`korean_eval.inputs.text_files.read_text_lines`, every
table by :func:`korean_eval.inputs.table_reader.read_table` (docs/design.md §4).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from korean_eval.inputs.columns import ColumnMap, detect_table_columns
from korean_eval.inputs.mtme.files import ZipTree
from korean_eval.inputs.mtme.layout import MtmeContents, scan
from korean_eval.inputs.mtme.load import MtmeLoaded, MtmeOptions, load_mtme
from korean_eval.inputs.spans.attach import attach_ratings
from korean_eval.inputs.spans.reading import read_ratings
from korean_eval.inputs.spans.weights import parse_weights
from korean_eval.inputs.table_reader import read_table
from korean_eval.inputs.tables import (
    attach_given_scores,
    attach_human,
    attach_human_frame,
    evalset_from_table,
    given_metric_columns,
    given_only_evalset,
)
from korean_eval.model import evalset as kdata
from korean_eval.model.evalset import EvalSet, evalset_from_texts

#: Roles of a long table's columns, in the order the Data page asks for them.
TABLE_ROLES: tuple[str, ...] = ("system", "seg_id", "hyp", "ref", "src", "score")


@dataclass(frozen=True)
class Upload:
    """One uploaded file: its name (for messages and system names) and its bytes."""

    name: str
    data: bytes

    @classmethod
    def of(cls, uploaded) -> Upload:
        """From a Streamlit ``UploadedFile`` (anything with ``.name`` and ``.getvalue()``)."""
        return cls(str(uploaded.name), bytes(uploaded.getvalue()))


def check_sizes(uploads: Iterable[Upload | None], max_bytes: int | None) -> None:
    """Refuse (InputError naming the file) any upload bigger than ``max_bytes`` (None: no dashboard limit; the
    backend still refuses files over :data:`korean_eval.inputs.text_files.MAX_FILE_BYTES`). Encodings are the backend's
    business (:func:`korean_eval.inputs.text_files.decode_bytes`)."""
    for up in uploads:
        if up is None:
            continue
        if max_bytes is not None and len(up.data) > max_bytes:
            raise kdata.InputError(
                up.name,
                f"file is {len(up.data) / 2**20:.1f} MB; the dashboard accepts files of at most "
                f"{max_bytes / 2**20:g} MB (server.maxUploadSize). Evaluate bigger data with the command line "
                "(python -m korean_eval) or split the file",
            )


def default_system_name(file_name: str) -> str:
    """The name the backend gives a system file (its stem, e.g. ``sys_a.txt`` → ``sys_a``)."""
    return kdata.system_name(file_name)


def build_from_texts(
    refs: Sequence[Upload],
    systems: Sequence[Upload],
    names: Sequence[str] | None = None,
    human: Upload | None = None,
    given: Upload | None = None,
    src: Upload | None = None,
    max_bytes: int | None = None,
    ratings: Sequence[Upload] = (),
    mqm_weights: str | None = None,
    ratings_seg_offset: int = 0,
) -> EvalSet:
    """Reference file(s) + one file per system (+ human scores, own metric scores, sources, error-span ratings)
    → EvalSet.

    ``ratings``: one rater group per file, instead of ``human`` (:func:`with_ratings`).
    ``max_bytes``: refuse any file bigger than this first (:func:`check_sizes`)."""
    check_sizes([*refs, *systems, human, given, src, *ratings], max_bytes)
    _check_one_human(ratings, human)
    evalset = evalset_from_texts(
        [(u.name, u.data) for u in refs],
        [(u.name, u.data) for u in systems],
        system_names=list(names) if names is not None else None,
        src=(src.name, src.data) if src is not None else None,
    )
    with_ratings(evalset, ratings, mqm_weights, ratings_seg_offset)
    return _attach(evalset, human, given)


def _check_one_human(ratings: Sequence[Upload], human: Upload | None) -> None:
    if ratings and human is not None:
        raise kdata.InputError(human.name, "give human scores or error-span ratings, not both (one would be ignored)")


def with_ratings(evalset: EvalSet, ratings: Sequence[Upload], mqm_weights: str | None, seg_offset: int = 0) -> EvalSet:
    """``evalset`` with the error-span ``ratings`` (one rater group per file,
    :func:`korean_eval.inputs.spans.reading.read_ratings`; their integer seg_ids + ``seg_offset``) as its human scores (MQM
    penalties with ``mqm_weights``, :func:`korean_eval.inputs.spans.weights.parse_weights`); unchanged without ratings."""
    if ratings:
        reads = [read_ratings(u.data, u.name, evalset.n_segments, seg_offset) for u in ratings]
        attach_ratings(evalset, reads, parse_weights(mqm_weights))
    return evalset


def build_from_scores(given: Upload, human: Upload, max_bytes: int | None = None) -> EvalSet:
    """Metric scores computed elsewhere (``system, seg_id``, one column per metric) + human scores → EvalSet.

    No texts: the systems and segments are those of the metric-score table; only the given metrics are evaluated
    (level ``given``). Human rows for other systems or segments are excluded and reported as usual."""
    check_sizes([given, human], max_bytes)
    return given_only_evalset((human.name, human.data), (given.name, given.data))


def given_metric_names(upload: Upload, max_bytes: int | None = None) -> list[str]:
    """The metric columns of an uploaded own-score table, as the builders will read them (InputError if none)."""
    check_sizes([upload], max_bytes)
    return given_metric_columns(read_table(upload.data, upload.name).columns, upload.name)


def table_head(upload: Upload, rows: int = 20, max_bytes: int | None = None) -> pd.DataFrame:
    """The first rows of an uploaded CSV/TSV/JSONL table (all columns as text), for the column pickers."""
    check_sizes([upload], max_bytes)
    table = read_table(upload.data, upload.name)
    return pd.DataFrame(table.rows[:rows], columns=table.columns)


def guess_table_roles(columns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Prefill for the column pickers: role → columns the backend would pick by itself (possibly empty)."""
    detected = detect_table_columns(columns)
    out: dict[str, tuple[str, ...]] = {role: detected.get(role, ()) for role in TABLE_ROLES}
    # A column picked for one role is not offered as the default of a later one (e.g. "id" as seg_id and score).
    used: set[str] = set()
    for role in TABLE_ROLES:
        out[role] = tuple(c for c in out[role] if c not in used)
        used.update(out[role])
    return out


@dataclass(frozen=True)
class TableRoles:
    """The columns a person picked for a long table; ``score`` (optional) is a human-score column in it."""

    system: str
    seg_id: tuple[str, ...]
    hyp: str
    ref: tuple[str, ...]
    src: str | None = None
    score: str | None = None

    def column_map(self) -> ColumnMap:
        return ColumnMap(system=self.system, seg_id=tuple(self.seg_id), hyp=self.hyp, ref=tuple(self.ref), src=self.src)


def build_from_table(
    upload: Upload,
    roles: TableRoles,
    human: Upload | None = None,
    given: Upload | None = None,
    max_bytes: int | None = None,
    ratings: Sequence[Upload] = (),
    mqm_weights: str | None = None,
    ratings_seg_offset: int = 0,
) -> EvalSet:
    """One long table (system, seg_id, hyp, ref [, src, human score]) → EvalSet; a separate human file wins.
    ``ratings``: error-span ratings instead of a human-score file or column (:func:`with_ratings`)."""
    check_sizes([upload, human, given, *ratings], max_bytes)
    _check_one_human(ratings, human)
    if ratings and roles.score:
        raise kdata.InputError(upload.name, f"give the human score column {roles.score!r} or error-span ratings, not "
                               "both (one would be ignored)")
    if not roles.seg_id:
        raise kdata.InputError(upload.name, "pick at least one seg_id column")
    if not roles.ref:
        raise kdata.InputError(upload.name, "pick at least one reference column")
    picked = [roles.system, *roles.seg_id, roles.hyp, *roles.ref, *([roles.src] if roles.src else [])]
    twice = sorted({c for c in picked if picked.count(c) > 1})
    if twice:
        raise kdata.InputError(upload.name, f"column(s) {', '.join(twice)} picked for two roles; each column has one role")
    evalset = evalset_from_table(upload.data, upload.name, roles.column_map(), human_col=roles.score)
    with_ratings(evalset, ratings, mqm_weights, ratings_seg_offset)
    return _attach(evalset, human, given)


def _attach(evalset: EvalSet, human: Upload | None, given: Upload | None) -> EvalSet:
    if human is not None:
        attach_human(evalset, human.data, human.name)
    if given is not None:
        attach_given_scores(evalset, given.data, given.name)
    return evalset


def mtme_contents(upload: Upload, max_bytes: int | None = None) -> MtmeContents:
    """What an uploaded ``.zip`` of a folder in mt-metrics-eval's layout holds (names only; the archive's safety
    checks: :mod:`korean_eval.inputs.mtme.files`)."""
    check_sizes([upload], max_bytes)
    return scan(ZipTree(upload.data, upload.name))


def build_from_mtme(upload: Upload, options: MtmeOptions, max_bytes: int | None = None) -> MtmeLoaded:
    """One language pair of an uploaded mt-metrics-eval ``.zip`` (:func:`korean_eval.inputs.mtme.load.load_mtme`)."""
    check_sizes([upload], max_bytes)
    return load_mtme(ZipTree(upload.data, upload.name), options)


def with_human_scores(evalset: EvalSet, item_scores: pd.DataFrame, source: str) -> EvalSet:
    """A copy of ``evalset`` whose human scores are ``item_scores`` (``system, seg_id, score``, e.g. QC output).

    Rows for systems or segments the evaluation set does not have are excluded and reported as usual. The copy's
    ``human_note`` is cleared: these are the user's own judgments, not the sample's simulated ones.
    """
    out = copy.deepcopy(evalset)
    attach_human_frame(out, item_scores, source)
    out.human_note = ""
    return out
