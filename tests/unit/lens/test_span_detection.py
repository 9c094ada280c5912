"""Error spans × Korean categories (korean_eval.lens.span_detection): each span's Korean category, the MQM × Korean
table, per-category penalties by hand, and the correlation of a metric with a category's penalty against scipy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.mtme.files import DirTree
from korean_eval.inputs.mtme.load import MtmeOptions, load_mtme
from korean_eval.inputs.spans.attach import attach_ratings
from korean_eval.inputs.spans.reading import read_ratings
from korean_eval.lens.span_detection import (
    category_correlations,
    category_penalties,
    category_table,
    with_korean_categories,
)
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import evalset_from_texts
from tests.support.make_mtme_fixture import LP
from tests.support.make_spans_fixture import write_rating_fixture


def small_evalset():
    es = evalset_from_texts([("ref.txt", "나는 학교에 간다.\n오늘 날씨가 좋다.\n".encode())],
                            [("sysA.txt", "나는 학교 간다.\n오늘 날씨가 좋다\n".encode())])
    lines = [
        'sysA\t{"errors": [{"start": 3, "end": 5, "severity": "Minor", "category": "Fluency/Grammar"},'
        ' {"start": 0, "end": 2, "severity": "Major", "category": "Accuracy/Mistranslation"},'
        ' {"start": 0, "end": 99, "severity": "Minor", "category": "Fluency/Grammar"}]}\tr1',
        'sysA\t{"errors": [{"start": 9, "end": 9, "severity": "Minor", "category": "Fluency/Punctuation"},'
        ' {"start": 0, "end": 2, "severity": "Minor", "category": "Accuracy/Source", "is_source_error": true}]}\tr1',
    ]
    attach_ratings(es, [read_ratings(("\n".join(lines) + "\n").encode(), "r.rating", 2)])
    return es


def test_each_span_gets_its_korean_category_or_a_reason():
    es = small_evalset()
    spans = with_korean_categories(es.spans, es.systems, es.seg_ids)
    assert spans["korean_category"].fillna("-").tolist() == ["content", "content", "-", "omission", "-"]
    assert spans["korean_reason"].tolist() == ["", "", "offsets do not fit the text", "", "source error"]
    table = category_table(spans)
    assert table["spans"].sum() == len(spans)
    row = table[(table.mqm_category == "Fluency/Grammar") & (table.korean_category == "content")]
    assert row["examples"].iloc[0] == "학교"


def test_category_penalties_by_hand():
    es = small_evalset()
    pens = category_penalties(es.spans, es.human_ratings, es.system_names, es.seg_ids)
    assert set(pens) == {"Accuracy/Mistranslation", "Accuracy/Source", "Fluency/Grammar", "Fluency/Punctuation"}
    assert pens["Fluency/Grammar"].tolist() == [[2.0, 0.0]]  # two minor errors in segment 0, none in 1
    assert pens["Accuracy/Mistranslation"].tolist() == [[5.0, 0.0]]
    assert pens["Fluency/Punctuation"][0] == pytest.approx([0.0, 0.1])


def test_correlation_with_a_category_penalty_equals_scipy(tmp_path: Path):
    folder = write_rating_fixture(tmp_path)
    es = load_mtme(DirTree(folder), MtmeOptions(lp=LP, human_groups=("mqm.rater1", "mqm.rater2"))).evalset
    results = evaluate(es, EvalConfig(levels=("char", "word"), metrics=("chrf", "ter"), jobs=1, spa_permutations=0))
    table = category_correlations(results, es.spans, es.human_ratings, resamples=50, seed=1)
    assert set(table["mqm_category"]) == {"Accuracy/Mistranslation", "Fluency/Grammar", "Fluency/Punctuation"}
    penalty = category_penalties(es.spans, es.human_ratings, results.systems, results.seg_ids)["Fluency/Grammar"]
    for (level, metric), sign in ((("char", "chrf"), 1.0), (("word", "ter"), -1.0)):
        m = sign * results.segment_matrices[(level, metric)]
        ok = np.isfinite(m) & np.isfinite(penalty)
        row = table[(table.level == level) & (table.metric == metric) & (table.mqm_category == "Fluency/Grammar")].iloc[0]
        assert row.value == pytest.approx(stats.pearsonr(m[ok], -penalty[ok])[0], abs=1e-12)
        assert row.n == ok.sum() and row.ci_low <= row.value <= row.ci_high
    spans = with_korean_categories(es.spans, es.systems, es.seg_ids)
    assert spans["korean_category"].notna().sum() > 0.9 * len(spans)
    assert isinstance(category_table(spans), pd.DataFrame)


def test_tracking_sentences_say_alike_when_the_runner_up_is_inside_the_interval():
    import numpy as np
    import pandas as pd

    from korean_eval.lens.span_detection import tracking_sentences

    def rows(level, values):
        return [{"level": level, "metric": "chrf", "mqm_category": c, "statistic": "pearson", "value": v,
                 "ci_low": lo, "ci_high": hi} for c, v, lo, hi in values]

    table = pd.DataFrame(
        rows("jamo", [("Fluency/Grammar", 0.41, 0.30, 0.50), ("Accuracy/Omission", 0.25, 0.1, 0.4)])
        + rows("char", [("Fluency/Grammar", 0.41, 0.20, 0.50), ("Accuracy/Omission", 0.25, 0.1, 0.4)])
        + rows("word", [("Fluency/Grammar", 0.41, np.nan, np.nan), ("Accuracy/Omission", 0.25, np.nan, np.nan)])
    )
    jamo, char, word = tracking_sentences(table)
    assert "tracks Fluency/Grammar penalties most closely" in jamo and "outside that interval" in jamo
    assert "tracks Fluency/Grammar and Accuracy/Omission penalties alike" in char
    assert "most closely" not in word and "not separated" in word
