"""A small evaluation set with documents for the annotation tests (:mod:`korean_eval.annotation`)."""

from __future__ import annotations

import pandas as pd

from korean_eval.model.evalset import EvalSet

SYSTEMS = ("alpha", "beta", "gamma")


def small_evalset(documents: int = 4, per_document: int = 3) -> EvalSet:
    """``documents`` documents of ``per_document`` segments, three systems (:data:`SYSTEMS`), a source and a
    reference; every translation has five words, none names its system."""
    n = documents * per_document
    seg_ids = [str(i) for i in range(n)]
    systems: dict[str, list[str | None]] = {name: [f"번역 {k}호의 {i}번 문장은 여기 있다" for i in range(n)]
                                            for k, name in enumerate(SYSTEMS)}
    evalset = EvalSet(seg_ids=seg_ids, refs=[[f"참조 {i}번 문장" for i in range(n)]], systems=systems,
                      src=[f"source sentence {i}" for i in range(n)])
    evalset.segment_info = pd.DataFrame({"seg_id": seg_ids, "document": [f"doc{i // per_document}" for i in range(n)],
                                         "domain": ["news"] * n})
    return evalset
