"""A metric and a token level registered from outside the package reach the API, the CLI, the exports and the
dashboard's choices by their declarations alone (``docs/design.md §10``).

The toy metric ``toy-er`` is an error rate: per segment [errors, reference tokens] against the first reference
(errors = positions whose tokens differ + the length difference), corpus score 100 × summed errors / summed
reference tokens. The toy level ``toy-syl`` keeps every second non-whitespace character.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import korean_eval
from korean_eval.cli.main import main
from korean_eval.levels.base import TokenLevel
from korean_eval.levels.registry import level_names, register_level, unregister_level
from korean_eval.metrics import (
    Metric,
    MetricDeclaration,
    MetricInfo,
    metric_names,
    register_metric,
    unregister_metric,
)
from korean_eval.metrics.base import safe_divide, tokens_of

TOY_ER = MetricDeclaration("toy-er", "ToyER", "extended", False,
                           corpus_definition="100 × summed errors / summed reference tokens")


class ToyErrorRate(Metric):
    """Errors against the first reference per reference token, × 100."""

    declarations = (TOY_ER,)

    def __init__(self) -> None:
        self.info = MetricInfo.declared(TOY_ER, {})

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        return np.array([_errors_and_length(h, r) for h, r in zip(hyps, refs[0], strict=True)], dtype=np.float64)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return 100.0 * safe_divide(stats[:, 0], stats[:, 1])

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        return 100.0 * safe_divide(sums[..., 0], sums[..., 1])

    def signature(self, nrefs: int) -> str:
        return f"toy-er|nrefs:{nrefs}|version:1"


class ToySyllableLevel(TokenLevel):
    """Every second non-whitespace character."""

    name, family, label = "toy-syl", "character", "Toy syllables"
    description = "every second non-whitespace character"

    def version(self) -> str:
        return "toy-syl-1"

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        return [_toy_tokens(t) for t in texts]


def _toy_tokens(text: str) -> list[str]:
    return [c for c in text if not c.isspace()][::2]


def _errors_and_length(hyp: str, ref: str) -> tuple[int, int]:
    h, r = tokens_of(hyp), tokens_of(ref)
    return sum(a != b for a, b in zip(h, r, strict=False)) + abs(len(h) - len(r)), len(r)


REFS = ["오늘은 날씨가 정말 좋습니다", "저는 학교에 가는 길입니다", "한국어 문장을 평가합니다",
        "이 책은 아주 재미있어요", "내일 친구를 만날 거예요", "커피 한 잔 주세요"]
SYSTEMS = {
    "good": list(REFS),
    "mid": ["오늘 날씨가 정말 좋아요", "저는 학교로 가는 길이에요", "한국어 문장 평가합니다",
            "이 책은 아주 재미있다", "내일 친구 만날 거야", "커피 한잔 주세요"],
    "bad": ["날씨 좋다", "학교 간다", "문장", "책 재미", "친구", "커피"],
}
HUMAN = {"good": 90.0, "mid": 60.0, "bad": 20.0}


def _expected_system_score(hyps: Sequence[str]) -> float:
    """The toy error rate of one system at the toy level, computed here from the definitions."""
    stats = [_errors_and_length(" ".join(_toy_tokens(h)), " ".join(_toy_tokens(r))) for h, r in zip(hyps, REFS,
                                                                                                   strict=True)]
    return 100.0 * sum(e for e, _ in stats) / sum(n for _, n in stats)


def _human_frame() -> pd.DataFrame:
    return pd.DataFrame([{"system": s, "seg_id": i, "score": HUMAN[s] + (i % 3)} for s in SYSTEMS
                         for i in range(len(REFS))])


@pytest.fixture
def toys() -> Iterator[None]:
    """The toy metric and level registered for one test, and removed afterwards."""
    register_metric(ToyErrorRate)
    register_level(ToySyllableLevel)
    try:
        yield
    finally:
        unregister_metric("toy-er")
        unregister_level("toy-syl")


def test_registration_is_undone_by_the_fixture() -> None:
    assert "toy-er" not in metric_names()
    assert "toy-syl" not in level_names()


@pytest.mark.usefixtures("toys")
def test_the_api_scores_the_toy_metric_at_the_toy_level_as_an_error_rate() -> None:
    results = korean_eval.evaluate(REFS, SYSTEMS, _human_frame(), levels=["toy-syl"], metrics=["toy-er"],
                                   resamples=0, spa_permutations=0)
    scores = results.system_scores.set_index("system")
    assert set(scores["level"]) == {"toy-syl"} and set(scores["metric"]) == {"toy-er"}
    for system, hyps in SYSTEMS.items():
        assert scores.loc[system, "score"] == pytest.approx(_expected_system_score(hyps))
    assert scores.loc["good", "score"] == 0.0 < scores.loc["mid", "score"] < scores.loc["bad", "score"]
    assert "toy-er|nrefs:1|version:1" in scores.loc["good", "signature"]
    assert not results.higher_is_better("toy-er", "toy-syl")
    corr = results.correlations
    system_pearson = corr[(corr["granularity"] == "system") & (corr["statistic"] == "pearson")]["value"]
    assert float(system_pearson.iloc[0]) < -0.9  # an error rate agrees with humans by correlating negatively
    ranks = results.rankings.set_index("system")["metric_rank"]
    assert ranks["good"] == 1 and ranks["bad"] == 3  # lower is better: the fewest errors rank first


@pytest.mark.usefixtures("toys")
def test_the_cli_writes_the_toy_configuration_into_every_export(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "ref.txt").write_text("\n".join(REFS) + "\n", encoding="utf-8")
    args = ["--ref", str(data / "ref.txt")]
    for system, hyps in SYSTEMS.items():
        (data / f"{system}.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
        args += ["--sys", str(data / f"{system}.txt")]
    _human_frame().to_csv(data / "human.tsv", sep="\t", index=False)
    out, latex, report = tmp_path / "out", tmp_path / "latex", tmp_path / "report.html"
    code = main(["run", *args, "--human", str(data / "human.tsv"), "--levels", "toy-syl", "--metrics", "toy-er",
                 "--bootstrap", "0", "--spa-permutations", "0", "--no-cache", "--quiet", "--out", str(out),
                 "--latex", str(latex), "--report", str(report)])
    assert code == 0
    written = pd.read_csv(out / "system_scores.csv").set_index("system")
    assert set(written["level"]) == {"toy-syl"} and set(written["metric"]) == {"toy-er"}
    assert written.loc["mid", "score"] == pytest.approx(_expected_system_score(SYSTEMS["mid"]))
    tex = "\n".join(p.read_text(encoding="utf-8") for p in sorted(latex.glob("*.tex")))
    assert "ToyER" in tex and "toy-syl" in tex
    assert "Error rates (ToyER) agree with humans when they correlate negatively." in tex
    html = report.read_text(encoding="utf-8")
    assert "ToyER" in html and "toy-syl" in html
    assert "an error rate (ToyER: lower is better)" in html


@pytest.mark.usefixtures("toys")
def test_the_dashboard_offers_the_toy_level_and_metric() -> None:
    from ui import sidebar, views

    rows = {r["level"]: r for r in sidebar.levels_info()}
    assert rows["toy-syl"]["family"] == "character" and rows["toy-syl"]["available"] == "yes"
    assert "toy-er" in sidebar.metric_groups()["extended"]
    assert views.metric_label("toy-er") == "ToyER"
    assert views.error_rate("toy-er")
    assert views.level_family("toy-syl") == "character"
