"""Rating files in mt-metrics-eval's layout (korean_eval.inputs.mtme.layout / mtme_load / mtme_ratings): two raters'
.seg.rating files → human scores from the MQM weights, merged per item, and the human ceiling in Results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.mtme.files import DirTree
from korean_eval.inputs.mtme.layout import describe, scan
from korean_eval.inputs.mtme.load import MtmeOptions, load_mtme
from korean_eval.inputs.mtme.ratings import REFERENCE_COPY, SCORED_AGAINST
from korean_eval.inputs.text_files import InputError
from korean_eval.model.config import EvalConfig
from tests.support.make_mtme_fixture import LP, NO_TRANSLATION_AT, all_outputs, texts
from tests.support.make_spans_fixture import errors, hand_penalty, rated, write_rating_fixture


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_rating_fixture(tmp_path)


def test_rating_files_are_human_score_names(folder: Path):
    pair = scan(DirTree(folder)).find(LP)
    assert [f.name for f in pair.ratings] == ["mqm.rater1", "mqm.rater2"]
    assert pair.human_names("seg") == ["esa", "mqm", "mqm.rater1", "mqm.rater2"]
    assert "ratings (error spans): mqm.rater1, mqm.rater2" in describe(scan(DirTree(folder)))
    assert not any("rating" in s for s in pair.skipped)


def test_one_rating_file_scores_equal_the_hand_computation(folder: Path):
    loaded = load_mtme(DirTree(folder), MtmeOptions(lp=LP, human="mqm.rater1"))
    es = loaded.evalset
    refs = texts()[1]["refA"]
    expected = {
        (name, str(i)): hand_penalty(errors("rater1", hyp, refs[i]))
        for k, (name, hyps) in enumerate(all_outputs().items()) if name in es.systems
        for i, hyp in enumerate(hyps) if rated("rater1", k, i) and (name, i) != NO_TRANSLATION_AT
    }
    got = {(r.system, r.seg_id): r.score_raw for r in es.human.itertuples()}
    assert got == pytest.approx(expected) and es.human_lower_is_better
    assert (es.human["score"] == -es.human["score_raw"]).all()
    reasons = es.report.excluded_frame().groupby("reason").size().to_dict()  # the references' lines, counted
    assert reasons == {SCORED_AGAINST: rated_lines("rater1", "refA"), REFERENCE_COPY: rated_lines("rater1", "refB")}
    assert loaded.human == "mqm.rater1" and set(es.human_ratings["rater"]) == {"rater1"}


def rated_lines(rater: str, system: str) -> int:
    k = list(all_outputs()).index(system)
    return sum(rated(rater, k, i) for i in range(len(all_outputs()[system])))


def test_reference_copies_rated_become_systems_when_asked(folder: Path):
    es = load_mtme(DirTree(folder), MtmeOptions(lp=LP, human="mqm.rater1", refs_as_systems=True)).evalset
    assert set(es.report.excluded_frame()["reason"]) == {SCORED_AGAINST}
    assert "refB" in set(es.human_ratings["system"]) and "refA" not in set(es.human_ratings["system"])


def test_two_raters_merged_and_their_ceiling_in_results(folder: Path):
    loaded = load_mtme(DirTree(folder), MtmeOptions(lp=LP, human_groups=("mqm.rater1", "mqm.rater2")))
    es = loaded.evalset
    ratings = es.human_ratings
    item = ratings[(ratings.system == "sys_josa") & (ratings.seg_id == "1")]
    assert len(item) == 2  # both raters rated it: the merged score is their mean
    merged = es.human.set_index(["system", "seg_id"]).loc[("sys_josa", "1"), "score_raw"]
    assert merged == pytest.approx(item["score_raw"].mean())
    results = evaluate(es, EvalConfig(levels=("char",), metrics=("chrf",), jobs=1, spa_permutations=50))
    ceiling = results.human_ceiling
    assert set(ceiling["comparison"]) == {"group mqm.rater1 vs mqm.rater2"}
    row = ceiling[(ceiling.granularity == "segment") & (ceiling.grouping == "none") & (ceiling.statistic == "pearson")]
    assert 0.3 < float(row.value.iloc[0]) < 1.0 and results.human_ratings is not None
    assert np.isnan(row.ci_low.iloc[0])  # intervals come from the statistics stage


def test_rating_file_with_an_unknown_system_is_refused(folder: Path):
    path = folder / "human-scores" / f"{LP}.mqm.rater1.seg.rating"
    path.write_text(path.read_text(encoding="utf-8") + "sys_nobody\tNone\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown system 'sys_nobody'"):
        load_mtme(DirTree(folder), MtmeOptions(lp=LP, human="mqm.rater1"))


def test_statistics_stage_adds_the_ceiling_with_intervals(folder: Path):
    from korean_eval.engine.statistics import StatisticsSettings, compute_statistics

    es = load_mtme(DirTree(folder), MtmeOptions(lp=LP, human_groups=("mqm.rater1", "mqm.rater2"))).evalset
    results = evaluate(es, EvalConfig(levels=("char",), metrics=("chrf",), jobs=1, spa_permutations=20))
    table = compute_statistics(results, StatisticsSettings(resamples=40, seed=3)).tables["human_ceiling.csv"]
    values = table.drop(columns=["ci_low", "ci_high"]).reset_index(drop=True)
    assert values.equals(results.human_ceiling.drop(columns=["ci_low", "ci_high"]).reset_index(drop=True))
    pearson = table[(table.statistic == "pearson") & (table.granularity == "segment") & (table.grouping == "none")]
    assert float(pearson.ci_low.iloc[0]) <= float(pearson.value.iloc[0]) <= float(pearson.ci_high.iloc[0])


def test_one_rater_alone_has_no_ceiling_and_says_so(folder: Path):
    es = load_mtme(DirTree(folder), MtmeOptions(lp=LP, human="mqm.rater1")).evalset
    results = evaluate(es, EvalConfig(levels=("char",), metrics=("chrf",), jobs=1, spa_permutations=0))
    assert results.human_ceiling is not None and results.human_ceiling.empty
    assert any(n.startswith("no human ceiling") for n in results.notes)


def test_esa_score_file_with_its_rating_file(folder: Path):
    """ESA as mt-metrics-eval stores it: NAME.seg.score gives the scores, NAME.seg.rating the raters and spans."""
    from tests.support.make_mtme_fixture import esa_scores

    rating = json.dumps({"errors": [{"start": 0, "end": 1, "severity": "minor"}]})
    lines = []
    for k, (name, values) in enumerate(esa_scores().items()):
        for i, value in enumerate(values):
            rated = value is not None and i % 4 != 0
            lines.append(f"{name}\t{rating}\tesa-r{k % 2}" if rated else f"{name}\tNone")
    (folder / "human-scores" / f"{LP}.esa.seg.rating").write_text("\n".join(lines) + "\n", encoding="utf-8")
    es = load_mtme(DirTree(folder), MtmeOptions(lp=LP, human="esa")).evalset
    scores = esa_scores()
    got = {(r.system, r.seg_id): r.score for r in es.human.itertuples()}
    assert got and all(v == scores[s][int(g)] for (s, g), v in got.items())
    assert all(int(g) % 4 != 0 for _, g in got)  # items without a rating line are not judgments
    assert set(es.human_ratings["rater"]) == {"esa-r0", "esa-r1"} and not es.human_lower_is_better
    assert len(es.spans) == len(es.human_ratings)
