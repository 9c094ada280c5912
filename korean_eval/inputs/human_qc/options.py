"""Column roles and parameters of human-judgment quality control: :func:`detect_columns` and :class:`QCOptions`.

The steps the parameters control are defined in :mod:`korean_eval.inputs.human_qc` (docs/design.md §6).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Candidate names (lower-case, matched case-insensitively against stripped column names), in priority order.
RATER_NAMES: tuple[str, ...] = (
    "worker", "worker_id", "workerid", "annotator", "annotator_id", "rater", "rater_id", "judge", "user", "user_id",
)
SYSTEM_NAMES: tuple[str, ...] = ("sys", "system", "model", "system_name", "sys_id", "system_id")
#: Item-key candidates: document-level names first, so that the joined key reads "doc-segment".
ITEM_NAMES: tuple[str, ...] = (
    "docid", "doc_id", "document", "document_id", "sentid", "sent_id", "seg_id", "segid", "segment_id", "segment",
    "item", "item_id",
)
SCORE_NAMES: tuple[str, ...] = ("adequacy", "fluency", "score", "da", "da_score", "raw_score")

# --------------------------------------------------------------------------------------------------- detection


def detect_columns(df: pd.DataFrame) -> dict[str, Any]:
    """Suggest the column roles of a judgments table from obvious names (case-insensitive, whitespace-stripped).

    Returns a dict with the keys of ``QCOptions``' column fields, so ``QCOptions(**detect_columns(df))`` works:

    * ``rater_col``: the first column named (in this priority) worker, worker_id, annotator, rater, judge, user, …
      (see ``RATER_NAMES``), or ``None``;
    * ``system_col``: Sys / system / model / … (``SYSTEM_NAMES``), or ``None``;
    * ``item_cols``: a tuple of *all* columns named DocID / doc_id / document / SentID / seg_id / segment / item / …
      (``ITEM_NAMES``), in that priority order (document before segment), possibly empty;
    * ``score_cols``: a tuple of all columns named Adequacy / Fluency / score / DA / … (``SCORE_NAMES``), in that
      priority order (so Adequacy, when present, is the first score column), possibly empty.

    A column is given at most one role. The returned names are the frame's own spelling.
    """
    by_lower: dict[str, str] = {}
    for col in df.columns:
        key = str(col).strip().lower()
        by_lower.setdefault(key, str(col))
    used: set[str] = set()

    def first(names: tuple[str, ...]) -> str | None:
        for n in names:
            if n in by_lower and by_lower[n] not in used:
                used.add(by_lower[n])
                return by_lower[n]
        return None

    def every(names: tuple[str, ...]) -> tuple[str, ...]:
        out: list[str] = []
        for n in names:
            if n in by_lower and by_lower[n] not in used:
                used.add(by_lower[n])
                out.append(by_lower[n])
        return tuple(out)

    rater = first(RATER_NAMES)
    system = first(SYSTEM_NAMES)
    items = every(ITEM_NAMES)
    scores = every(SCORE_NAMES)
    return {"rater_col": rater, "system_col": system, "item_cols": items, "score_cols": scores}


# ----------------------------------------------------------------------------------------------------- options


def _check_name(value: Any, what: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty column name, got {value!r}")


def _as_name_tuple(value: Any, what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise ValueError(f"{what} must be a list/tuple of column names, got the string {value!r}")
    try:
        names = tuple(value)
    except TypeError:
        raise ValueError(f"{what} must be a list/tuple of column names, got {value!r}") from None
    if not names:
        raise ValueError(f"{what} must name at least one column")
    for n in names:
        _check_name(n, f"each of {what}")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"{what} names a column more than once: {', '.join(dup)}")
    return names


@dataclass(frozen=True)
class QCOptions:
    """Column roles and QC parameters; validated on construction (``ValueError`` with a clear message).

    Attributes:
        rater_col: rater column; ``None`` = auto-detect in ``run_qc`` (``detect_columns``).
        system_col: system column; ``None`` = auto-detect.
        item_cols: item-key columns (joined by "-" into ``seg_id``); ``None`` = auto-detect.
        score_cols: score columns; the first is the one ``score`` / ``score_raw`` are built from; ``None`` =
            auto-detect.
        drop_first: warm-up: drop each rater's first ``drop_first`` judgments in file order (int ≥ 0; 0 = off).
        zscore: per-rater z-scores (population SD) and exclusion of zero-variance raters. When off, the
            ``<col>_z`` columns are NaN, ``score`` is the raw mean and the fences apply to raw scores.
        iqr_k: Tukey fence multiplier ``k`` (finite, ≥ 0), or ``None`` to skip the fences.
        average_repeats: average repeated judgments of one (system, item) into one item score.
        flag_outlier_systems: flag systems with ``|robust z| > outlier_threshold`` and exclude them from
            ``QCResult.item_scores_without_outliers``.
        outlier_threshold: the robust-z threshold (finite, > 0), 2.5 after Mathur et al. (2020).
    """

    rater_col: str | None = None
    system_col: str | None = None
    item_cols: tuple[str, ...] | None = None
    score_cols: tuple[str, ...] | None = None
    drop_first: int = 10
    zscore: bool = True
    iqr_k: float | None = 1.5
    average_repeats: bool = True
    flag_outlier_systems: bool = False
    outlier_threshold: float = 2.5

    def __post_init__(self) -> None:
        for name in ("rater_col", "system_col"):
            value = getattr(self, name)
            if value is not None:
                _check_name(value, name)
        object.__setattr__(self, "item_cols", _as_name_tuple(self.item_cols, "item_cols"))
        object.__setattr__(self, "score_cols", _as_name_tuple(self.score_cols, "score_cols"))
        if isinstance(self.drop_first, bool) or not isinstance(self.drop_first, (int, np.integer)):
            raise ValueError(f"drop_first must be a whole number ≥ 0, got {self.drop_first!r}")
        if self.drop_first < 0:
            raise ValueError(f"drop_first must be ≥ 0 (0 keeps every judgment), got {self.drop_first}")
        object.__setattr__(self, "drop_first", int(self.drop_first))
        for name in ("zscore", "average_repeats", "flag_outlier_systems"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
            object.__setattr__(self, name, bool(getattr(self, name)))
        if self.iqr_k is not None:
            k = _as_float(self.iqr_k, "iqr_k")
            if not math.isfinite(k) or k < 0:
                raise ValueError(f"iqr_k (the Tukey fence multiplier) must be a finite number ≥ 0, got {self.iqr_k!r}")
            object.__setattr__(self, "iqr_k", k)
        t = _as_float(self.outlier_threshold, "outlier_threshold")
        if not math.isfinite(t) or t <= 0:
            raise ValueError(f"outlier_threshold must be a finite number > 0, got {self.outlier_threshold!r}")
        object.__setattr__(self, "outlier_threshold", t)
        self._check_roles()

    def _check_roles(self) -> None:
        roles: list[tuple[str, str]] = []
        if self.rater_col is not None:
            roles.append((self.rater_col, "rater"))
        if self.system_col is not None:
            roles.append((self.system_col, "system"))
        roles += [(c, "item") for c in self.item_cols or ()]
        roles += [(c, "score") for c in self.score_cols or ()]
        seen: dict[str, str] = {}
        for col, role in roles:
            if col in seen:
                raise ValueError(f"column {col!r} is given two roles ({seen[col]} and {role}); each column can have one")
            seen[col] = role

    @property
    def is_resolved(self) -> bool:
        """True when every column role is set (nothing left to auto-detect)."""
        return None not in (self.rater_col, self.system_col, self.item_cols, self.score_cols)

    def resolve(self, df: pd.DataFrame) -> QCOptions:
        """A copy with unset column roles filled by ``detect_columns(df)``; ``ValueError`` if a role stays unknown
        or a named column is not in ``df``."""
        columns = [str(c) for c in df.columns]
        guess = detect_columns(df)
        explicit = {c for c in (self.rater_col, self.system_col, *(self.item_cols or ()), *(self.score_cols or ()))
                    if c is not None}
        values: dict[str, Any] = {}
        labels = {"rater_col": "rater column", "system_col": "system column", "item_cols": "item column(s)",
                  "score_cols": "score column(s)"}
        flags = {"rater_col": "--rater-col", "system_col": "--system-col", "item_cols": "--item-cols",
                 "score_cols": "--score-cols"}
        for key in ("rater_col", "system_col", "item_cols", "score_cols"):
            value = getattr(self, key)
            if value is None:
                g = guess[key]
                if isinstance(g, tuple):
                    g = tuple(c for c in g if c not in explicit) or None
                elif g in explicit:
                    g = None
                if g is None:
                    raise ValueError(
                        f"could not detect the {labels[key]} from the column names; name it with {flags[key]} "
                        f"({key}); columns are: {', '.join(columns)}"
                    )
                value = g
            values[key] = value
        resolved = QCOptions(**{**asdict(self), **values})
        assert resolved.item_cols is not None and resolved.score_cols is not None
        for col in (resolved.rater_col, resolved.system_col, *resolved.item_cols, *resolved.score_cols):
            if col not in columns:
                raise ValueError(f"column {col!r} is not in the judgments; columns are: {', '.join(columns)}")
        return resolved

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (tuples as lists)."""
        out = asdict(self)
        for key in ("item_cols", "score_cols"):
            if out[key] is not None:
                out[key] = list(out[key])
        return out


def _as_float(value: Any, what: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
