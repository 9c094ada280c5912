"""Registry entries of the extended metrics (group "extended"): the study's §5 metrics at every token level.

``nltk-bleu``, ``gleu``, ``nist``, ``ribes`` (nltk.translate, :mod:`korean_eval.metrics.extended`), ``character``
(CharacTER, :mod:`korean_eval.metrics.character`) and ``eed`` (:mod:`korean_eval.metrics.eed`). Their integer
options are declared in :data:`EXTENDED_OPTION_SPECS`; other parameters keep the papers' defaults, which every
signature states.
"""

from __future__ import annotations

from collections.abc import Callable

from korean_eval.metrics.base import Metric
from korean_eval.metrics.character import CharacTER
from korean_eval.metrics.eed import EED
from korean_eval.metrics.extended import Gleu, Nist, NltkBleu, Ribes

EXTENDED_FACTORIES: dict[str, Callable[..., Metric]] = {
    "nltk-bleu": lambda max_ngram_order=4, **_: NltkBleu(max_ngram_order=max_ngram_order),
    "gleu": lambda max_len=4, **_: Gleu(max_len=max_len),
    "nist": lambda max_ngram_order=5, **_: Nist(max_ngram_order=max_ngram_order),
    "ribes": lambda **_: Ribes(),
    "character": lambda n_jobs=None, **_: CharacTER(n_jobs=n_jobs),
    "eed": lambda **_: EED(),
}

# (metric, option, default, low, high, help) — turned into OptionSpec rows by korean_eval.metrics
EXTENDED_OPTION_SPECS: list[tuple[str, str, int, int, int, str]] = [
    ("nltk-bleu", "max_ngram_order", 4, 1, 9, "maximum n-gram order"),
    ("gleu", "max_len", 4, 1, 9, "maximum n-gram order"),
    ("nist", "max_ngram_order", 5, 1, 9, "maximum n-gram order"),
]
