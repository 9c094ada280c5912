"""An mt-metrics-eval test set through the pipeline: system-level human scores from the sys file, directions of
MQM and MetricX, multi-reference signatures, and per-domain results equal to evaluating each domain's segments
directly (korean_eval.metaeval.tables.domains)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.mtme.files import DirTree
from korean_eval.inputs.mtme.load import ALL_METRICS, MtmeOptions, load_mtme
from korean_eval.metaeval.stats.pairwise import pairwise_accuracy
from korean_eval.metaeval.tables.domains import DOMAIN_SCORE_COLUMNS, domain_results
from korean_eval.metaeval.tables.intervals import add_confidence_intervals, bootstrap_correlations
from korean_eval.metaeval.tables.system_pairs import pairwise_accuracy_table, ranking_view
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from tests.support.make_mtme_fixture import LP, MT_SYSTEMS, mqm_system_scores, write_fixture

LEVELS = ("word", "char")
METRICS = ("bleu", "chrf", "ter")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    folder = write_fixture(tmp_path_factory.mktemp("mtme"))
    return load_mtme(DirTree(folder), MtmeOptions(lp=LP, human="mqm", metrics=ALL_METRICS))


def config_for(loaded, **extra) -> EvalConfig:
    return EvalConfig(levels=LEVELS, metrics=METRICS, jobs=1, spa_permutations=200,
                      given_lower_is_better=loaded.lower_is_better, **extra)


@pytest.fixture(scope="module")
def results(loaded):
    return evaluate(loaded.evalset, config_for(loaded))


def _system_scores(results, level: str, metric: str) -> np.ndarray:
    rows = results.system_scores[(results.system_scores["level"] == level) & (results.system_scores["metric"] == metric)]
    return rows.set_index("system").loc[results.systems, "score"].to_numpy(float)


def test_system_level_uses_the_sys_file_not_the_mean_of_segments(loaded, results):
    declared = np.array([-mqm_system_scores()[s] for s in MT_SYSTEMS])
    assert results.systems == list(MT_SYSTEMS)
    np.testing.assert_allclose(results.human_system, declared, rtol=0, atol=1e-12)
    np.testing.assert_allclose(results.human_systems["human_mean"], declared, rtol=0, atol=1e-12)
    corr = results.correlations
    for level, metric in [("word", "bleu"), ("char", "ter"), ("given", "COMET-22-refA")]:
        row = corr[(corr["granularity"] == "system") & (corr["statistic"] == "pearson") & (corr["level"] == level)
                   & (corr["metric"] == metric)].iloc[0]
        assert row["value"] == pytest.approx(sps.pearsonr(_system_scores(results, level, metric), declared)[0], abs=1e-12)
    # the means of the segment scores differ from the sys file (and rank the systems otherwise)
    means = np.nanmean(results.human_matrix, axis=1)
    assert not np.allclose(means, declared)
    ranking = results.rankings[(results.rankings["level"] == "word") & (results.rankings["metric"] == "bleu")]
    np.testing.assert_allclose(ranking["human_score"], declared, rtol=0, atol=1e-12)
    assert any("system-level human scores are the ones given" in n for n in results.notes)
    acc = pairwise_accuracy_table(results)
    row = acc[(acc["level"] == "word") & (acc["metric"] == "bleu")].iloc[0]
    assert row["pairwise_accuracy"] == pairwise_accuracy(_system_scores(results, "word", "bleu"), declared, True)
    human_rows = ranking_view(results, n_resamples=20)
    np.testing.assert_allclose(
        human_rows[human_rows["config"] == "human"].set_index("system").loc[list(MT_SYSTEMS), "score"], declared, atol=1e-12
    )


def test_intervals_keep_the_given_system_scores_fixed(results):
    ones = np.ones((1, len(results.seg_ids)))
    values = bootstrap_correlations(results, ones)[:, 0]
    corr = results.correlations
    correlation_rows = corr["statistic"].isin(["pearson", "spearman", "kendall"]).to_numpy()
    np.testing.assert_allclose(values[correlation_rows], corr["value"].to_numpy(float)[correlation_rows], atol=1e-12)
    with_ci = add_confidence_intervals(results, n_resamples=50, seed=3)
    system = with_ci[(with_ci["granularity"] == "system") & (with_ci["statistic"] == "pearson")]
    assert system["ci_low"].notna().all() and (system["ci_low"] <= system["ci_high"]).all()


def test_directions_of_mqm_and_metricx(loaded, results):
    corr = results.correlations
    seg = corr[(corr["granularity"] == "segment") & (corr["grouping"] == "none") & (corr["statistic"] == "pearson")]
    by = seg.set_index(["level", "metric"])
    assert not by.loc[("given", "MetricX-24-refA"), "higher_is_better"]
    assert by.loc[("given", "MetricX-24-refA"), "value"] < -0.5  # an error metric agreeing with negated penalties
    assert by.loc[("given", "COMET-22-refA"), "value"] > 0.5 and by.loc[("word", "bleu"), "value"] > 0
    assert by.loc[("word", "ter"), "value"] < 0
    assert results.settings["given_lower_is_better"] == ["MetricX-24-refA"]


def test_two_references_show_in_every_signature(tmp_path: Path):
    folder = write_fixture(tmp_path)
    loaded = load_mtme(DirTree(folder), MtmeOptions(lp=LP, references=("refA", "refB")))
    res = evaluate(loaded.evalset, EvalConfig(levels=("word",), metrics=("bleu", "chrf"), jobs=1, spa_permutations=0))
    sigs = res.system_scores["signature"]
    assert len(sigs) and sigs.str.contains("nrefs:2").all()


def _subset(ev: EvalSet, domain: str) -> EvalSet:
    """An evaluation set holding only the segments of ``domain`` (what the domain results must reproduce)."""
    idx = [i for i, d in enumerate(ev.segment_info["domain"]) if d == domain]
    seg_ids = [ev.seg_ids[i] for i in idx]
    keep = set(seg_ids)
    sub = EvalSet(
        seg_ids=seg_ids,
        refs=[[stream[i] for i in idx] for stream in ev.refs],
        systems={s: [h[i] for i in idx] for s, h in ev.systems.items()},
        human=ev.human[ev.human["seg_id"].isin(keep)].reset_index(drop=True),
        given=ev.given[ev.given["seg_id"].isin(keep)].reset_index(drop=True) if ev.given is not None else None,
        src=[ev.src[i] for i in idx] if ev.src else None,
    )
    if ev.human_domain is not None:
        rows = ev.human_domain[ev.human_domain["domain"] == domain]
        sub.human_system = rows[["system", "score"]].reset_index(drop=True)
    return sub


@pytest.mark.parametrize("with_domain_file", [True, False])
def test_domain_results_equal_evaluating_each_domain_directly(loaded, results, with_domain_file):
    ev = loaded.evalset
    human_domain = ev.human_domain if with_domain_file else None
    found = domain_results(results, list(ev.segment_info["domain"]), human_domain)
    assert list(found.system_scores.columns) == DOMAIN_SCORE_COLUMNS
    assert sorted(found.system_scores["domain"].unique()) == ["news", "speech"]
    for domain in ("news", "speech"):
        sub = _subset(ev, domain)
        if not with_domain_file:
            sub.human_system = None
        direct = evaluate(sub, config_for(loaded))
        mine = found.system_scores[found.system_scores["domain"] == domain].reset_index(drop=True)
        theirs = direct.system_scores
        assert mine[["system", "level", "metric"]].equals(theirs[["system", "level", "metric"]])
        np.testing.assert_array_equal(mine["score"].to_numpy(float), theirs["score"].to_numpy(float))
        assert (mine["n_segments"].to_numpy() == theirs["n_segments"].to_numpy()).all()
        np.testing.assert_array_equal(
            mine.drop_duplicates("system")["human_score"].to_numpy(float), direct.human_systems["human_mean"].to_numpy(float)
        )
        c_mine = found.correlations[found.correlations["domain"] == domain].drop(columns="domain").reset_index(drop=True)
        c_direct = direct.correlations
        assert c_mine.columns.tolist() == c_direct.columns.tolist()
        keys = ["granularity", "grouping", "level", "metric", "statistic", "higher_is_better"]
        assert c_mine[keys].equals(c_direct[keys])
        for col in ("value", "n", "n_groups", "n_undefined", "epsilon"):
            np.testing.assert_array_equal(c_mine[col].to_numpy(float), c_direct[col].to_numpy(float), err_msg=col)


def test_domain_file_changes_only_the_system_level(loaded, results):
    ev = loaded.evalset
    a = domain_results(results, list(ev.segment_info["domain"]), ev.human_domain).correlations
    b = domain_results(results, list(ev.segment_info["domain"])).correlations
    seg = a["granularity"] == "segment"
    pd.testing.assert_frame_equal(a[seg], b[seg])
    system = (a["granularity"] == "system") & (a["statistic"] == "pearson")
    assert not np.allclose(a.loc[system, "value"], b.loc[system, "value"])


def test_domains_must_align_with_the_segments(results):
    with pytest.raises(ValueError, match="domains given for"):
        domain_results(results, ["news"])
