"""ESA judgments' checks (korean_eval.annotation.judgments): scores, spans, omissions, seconds."""

from __future__ import annotations

import math

import pytest

from korean_eval.annotation.judgments import (
    ErrorSpan,
    Judgment,
    JudgmentError,
    check_judgment,
    spans_from_json,
    spans_to_json,
)

TEXT = "가나다 라마바"  # 7 characters


def test_a_judgment_that_fits_is_returned():
    spans = (ErrorSpan(0, 3, "minor"), ErrorSpan(4, 7, "major"), ErrorSpan(7, 7, "major", missing=True))
    judgment = Judgment("u", 62.5, spans, 12.0)
    assert check_judgment(judgment, TEXT) is judgment
    assert spans_from_json(spans_to_json(spans)) == spans


@pytest.mark.parametrize("score", [-1, 100.5, math.nan, math.inf, "80", True, None])
def test_scores_outside_0_to_100_are_refused(score):
    with pytest.raises(JudgmentError, match="score"):
        check_judgment(Judgment("u", score), TEXT)


@pytest.mark.parametrize("span", [ErrorSpan(0, 8, "minor"), ErrorSpan(3, 3, "minor"), ErrorSpan(-1, 2, "minor"),
                                  ErrorSpan(5, 2, "major"), ErrorSpan(0, 2, "critical"),
                                  ErrorSpan(8, 8, "major", missing=True), ErrorSpan(1, 2, "major", missing=True)])
def test_spans_outside_the_translation_or_of_unknown_severity_are_refused(span):
    with pytest.raises(JudgmentError):
        check_judgment(Judgment("u", 50, (span,)), TEXT)


@pytest.mark.parametrize("seconds", [-0.1, math.nan, math.inf])
def test_seconds_must_be_a_number_at_least_0(seconds):
    with pytest.raises(JudgmentError, match="seconds"):
        check_judgment(Judgment("u", 50, (), seconds), TEXT)
