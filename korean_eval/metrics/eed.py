"""EED (Stanchev, Wang & Ney, 2019, "EED: Extended Edit Distance Measure for Machine Translation") on token strings
(group "extended", ``docs/design.md §3``).

The sentence is the token string itself (tokens joined by single spaces), so the "blanks" at which EED may jump
are the token boundaries of the level (at character and jamo level: after every token). As in the reference
implementation (``rwth-i6/ExtendedEditDistance``, ``EED.py`` → ``EED.cpp``) both strings are padded with one
leading and one trailing space; its English pre-processing (``util.preprocess``: spaces before ``. ! ? ,`` …) is
*not* applied — tokenisation is the job of the token level.

Definition (defaults from the reference: ``alpha = 2.0``, ``rho = 0.3``, ``deletion = 0.2``,
``insertion = 1.0``, substitution 1.0). With ``h = " " + hyp + " "`` (length ``I``) and ``r = " " + ref + " "``
(length ``L``), the CDER-style grid is filled reference character by reference character ``w = 1..L``:

* initial row ``row[0] = 0``, ``row[i] = 1`` for ``i ≥ 1``;
* ``next[0] = row[0] + 1`` and ``next[i] = min(next[i-1] + deletion, row[i-1] + [r[w-1] != h[i-1]],
  row[i] + insertion)``;
* the column of the row minimum, ``argmin(next)`` (first minimum), gets one more visit;
* if ``r[w-1]`` is a blank, every cell is capped at ``alpha + min(next)`` (the long jump).

``errors = row[I]`` after the last row; the coverage penalty is ``v = Σ_{i=1..I} |visits_i - 1|`` (hypothesis
characters visited never or more than once; column 0, before the first character, is not counted — as in the
current ``EED.cpp``); the score is ``min(1, (errors + rho·v) / (L + rho·v))``, × 100 here (lower is better).

Deviations from the reference code, all deliberate: float64 instead of the C++ ``float``; the true first minimum
(the C++ loop keeps its running minimum in an ``int``, truncating it, which can select a later column — the
reference's pure-Python ``eed_python`` and the torchmetrics port take the true minimum); torchmetrics also counts
column 0 in the coverage, the reference's ``eed_python`` sums only visit counts > 1 (both variants are checked in
the tests through :func:`eed_components`). Multiple references: the minimum (best) score over the references (as
torchmetrics). Empty strings need no special case (a padded empty string is two blanks, so the formula is always
defined): two empty strings score 0; an empty hypothesis scores below 100 against a short reference (e.g. 81.98
against ``"abc def"``: 7 insertions and a coverage penalty of 2 over ``L = 9``) and approaches 100 for long ones.

Corpus score: the mean of the sentence scores (the reference's "System Score" is the average of the segment
scores), statistics ``[100 · score, 1]``. The dynamic programme is compiled with numba (``cache=True``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from korean_eval.metrics.base import MetricInfo, SentenceMeanMetric, segment_references
from korean_eval.metrics.declaration import MetricDeclaration, Parameter

EED_DECLARATION = MetricDeclaration(
    "eed",
    "EED",
    "extended",
    False,
    corpus_definition="mean of the sentence EED scores × 100 (as the reference implementation); statistics (score, 1)",
    arguments=(
        Parameter("alpha", 2.0, "long-jump cost"),
        Parameter("rho", 0.3, "coverage-penalty weight"),
        Parameter("deletion", 0.2, "cost of skipping a hypothesis character"),
        Parameter("insertion", 1.0, "cost of a reference character without hypothesis character"),
    ),
    kernels=("korean_eval.metrics.eed",),
)

_SPACE = 32


def _codes(text: str) -> np.ndarray:
    """Code points of ``" " + text + " "`` as an int32 array."""
    return np.frombuffer((" " + text + " ").encode("utf-32-le"), dtype=np.uint32).astype(np.int32)


@njit(cache=True, nogil=True)
def _eed_kernel(h: np.ndarray, r: np.ndarray, alpha: float, deletion: float, insertion: float,
                substitution: float) -> tuple[float, int, int]:
    """EED grid over padded code-point arrays ``h`` (hypothesis) and ``r`` (reference).

    Returns ``(errors, v, v0)``: the edit cost ``row[I]``, the coverage count ``Σ_{i=1..I} |visits_i - 1|`` and
    the column-0 term ``|visits_0 - 1|``.
    """
    nh = h.shape[0]
    visits = np.zeros(nh + 1, np.int64)
    row = np.ones(nh + 1, np.float64)
    row[0] = 0.0
    nxt = np.empty(nh + 1, np.float64)
    for w in range(1, r.shape[0] + 1):
        c = r[w - 1]
        nxt[0] = row[0] + 1.0
        for i in range(1, nh + 1):
            v = nxt[i - 1] + deletion
            s = row[i - 1] + (0.0 if c == h[i - 1] else substitution)
            if s < v:
                v = s
            s = row[i] + insertion
            if s < v:
                v = s
            nxt[i] = v
        min_ind = 0
        min_val = nxt[0]
        for i in range(1, nh + 1):
            if nxt[i] < min_val:
                min_val = nxt[i]
                min_ind = i
        visits[min_ind] += 1
        if c == _SPACE:
            jump = alpha + min_val
            for i in range(nh + 1):
                if nxt[i] > jump:
                    nxt[i] = jump
        row, nxt = nxt, row
    coverage = 0
    for i in range(1, nh + 1):
        coverage += abs(visits[i] - 1)
    return row[nh], coverage, abs(visits[0] - 1)


def eed_components(
    hyp: str,
    ref: str,
    alpha: float = EED_DECLARATION.default("alpha"),
    deletion: float = EED_DECLARATION.default("deletion"),
    insertion: float = EED_DECLARATION.default("insertion"),
    substitution: float = 1.0,
) -> tuple[float, int, int, int]:
    """``(errors, v, v0, L)`` of one pair: edit cost, coverage count (columns ≥ 1), column-0 term, padded
    reference length. The score is ``min(1, (errors + rho·v) / (L + rho·v))``."""
    r = _codes(ref)
    errors, cov, cov0 = _eed_kernel(_codes(hyp), r, alpha, deletion, insertion, substitution)
    return float(errors), int(cov), int(cov0), int(r.shape[0])


def eed_sentence(
    hyp: str,
    refs: Sequence[str],
    alpha: float = EED_DECLARATION.default("alpha"),
    rho: float = EED_DECLARATION.default("rho"),
    deletion: float = EED_DECLARATION.default("deletion"),
    insertion: float = EED_DECLARATION.default("insertion"),
) -> float:
    """EED (0..1) of a token string against its references (minimum over the references)."""
    h = _codes(hyp)
    best = np.inf
    for ref in refs:
        r = _codes(ref)
        errors, cov, _ = _eed_kernel(h, r, alpha, deletion, insertion, 1.0)
        score = min(1.0, (errors + rho * cov) / (r.shape[0] + rho * cov))
        best = min(best, score)
    return float(best)


class EED(SentenceMeanMetric):
    """Extended Edit Distance × 100 (lower is better); corpus = mean sentence score, statistics ``[100·s, 1]``.

    Args:
        alpha: long-jump cost (2.0). rho: coverage-penalty weight (0.3). deletion: cost of skipping a hypothesis
        character (0.2). insertion: cost of a reference character without hypothesis character (1.0).
        Substitution costs 1.
    """

    declarations = (EED_DECLARATION,)

    def __init__(
        self,
        alpha: float = EED_DECLARATION.default("alpha"),
        rho: float = EED_DECLARATION.default("rho"),
        deletion: float = EED_DECLARATION.default("deletion"),
        insertion: float = EED_DECLARATION.default("insertion"),
    ):
        self.alpha, self.rho = float(alpha), float(rho)
        self.deletion, self.insertion = float(deletion), float(insertion)
        for name, value in (("alpha", self.alpha), ("rho", self.rho), ("deletion", self.deletion),
                            ("insertion", self.insertion)):
            if value < 0:
                raise ValueError(f"EED {name} must be non-negative, got {value}")
        values = {"alpha": self.alpha, "rho": self.rho, "deletion": self.deletion, "insertion": self.insertion}
        self.info = MetricInfo.declared(EED_DECLARATION, values)

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2)`` rows ``[100 · EED, 1]``."""
        seg_refs = segment_references(hyps, refs)
        out = np.ones((len(hyps), 2), dtype=np.float64)
        for i, hyp in enumerate(hyps):
            out[i, 0] = 100.0 * eed_sentence(hyp, seg_refs[i], self.alpha, self.rho, self.deletion, self.insertion)
        return out

    def signature(self, nrefs: int) -> str:
        """E.g. ``eed|nrefs:1|alpha:2|rho:0.3|del:0.2|ins:1|sub:1|pad:space|version:1``."""
        return (f"eed|nrefs:{nrefs}|alpha:{self.alpha:g}|rho:{self.rho:g}|del:{self.deletion:g}"
                f"|ins:{self.insertion:g}|sub:1|pad:space|version:1")
