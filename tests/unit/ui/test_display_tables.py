"""The dashboard's text tables: one number format everywhere (scores 2 decimals, correlations 3, ranks integers,
p "< 0.001" at the resampling floor, "—" for a missing value) and the table builders that use it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables.system_pairs import system_pairs_table
from korean_eval.model.config import EvalConfig
from ui import display_tables, formats, views
from ui import significance_views as sig_views


@pytest.fixture(scope="module")
def results():
    return evaluate(load_sample(), EvalConfig(levels=("word", "char"), metrics=("bleu", "ter")))


def test_numbers_have_one_format():
    assert formats.score(12.3456) == "12.35" and formats.score(-0.5, signed=True) == "-0.50"
    assert formats.score(0.25, signed=True) == "+0.25"
    assert formats.correlation(0.98765) == "0.988"
    assert formats.rank(3.0) == "3" and formats.rank(np.float64(1)) == "1"
    assert formats.count(2185.0) == "2,185"
    for missing in (None, float("nan"), np.nan, float("inf"), "x"):
        assert formats.score(missing) == formats.rank(missing) == formats.correlation(missing) == "—"
    assert formats.interval(0.1, 0.234) == "[0.10, 0.23]" and formats.interval(math.nan, 1) == "—"
    assert formats.interval(math.nan, 1, missing="n/a") == "n/a"


def test_p_values_say_less_than_at_the_floor():
    assert formats.p_value(1 / 1001, 1000) == "< 0.001"  # sacrebleu's floor with 1,000 resamples, not "0.0010"
    assert formats.p_value(2 / 1001, 1000) == "0.002"
    assert formats.p_value(1 / 501, 500) == "≤ 0.002"  # a floor above 0.001 is said as such
    assert formats.p_value(3e-9) == "< 0.001" and formats.p_value(0.0625) == "0.062"
    assert formats.p_value(0.5) == "0.500" and formats.p_value(float("nan")) == "—"


def test_score_table_text_marks_rank_disagreements(results):
    scores, ranks, differs = views.score_table(results, "bleu")
    text, css = display_tables.score_table_text(scores, ranks, differs)
    assert list(text.columns) == ["system", "Human", "word", "char"] and list(text["system"]) == list(scores.index)
    row = 0
    assert text.loc[row, "word"] == f"{scores['word'].iloc[row]:.2f} ({int(ranks['word'].iloc[row])})"
    assert text.loc[row, "Human"] == f"{scores['Human'].iloc[row]:.2f} ({int(ranks['Human'].iloc[row])})"
    assert ((css["word"] != "").to_numpy() == differs["word"].to_numpy()).all() and (css["system"] == "").all()


def test_disagreements_filter_short_references_and_systems(results):
    evalset = load_sample()
    table = views.disagreements(results, evalset, "char", "ter")
    length = table["ref"].str.replace(r"\s", "", regex=True).str.len()
    kept, short = display_tables.disagreement_filter(table, 30, None)
    assert short == int((length < 30).sum()) > 0 and len(kept) == len(table) - short
    assert (kept["ref"].str.replace(r"\s", "", regex=True).str.len() >= 30).all()
    one = table["system"].iloc[0]
    picked, _ = display_tables.disagreement_filter(table, 0, [one])
    assert set(picked["system"]) == {one} and len(picked) == (table["system"] == one).sum()
    text = display_tables.disagreement_text(kept.head(5), "ter")
    assert list(text.columns) == ["system", "segment", "human", "TER", "difference", "hypothesis", "reference", "source"]
    assert list(text["reference"]) == list(kept["ref"].head(5))  # texts in full
    assert text["difference"].str.match(r"^[+-]\d\.\d\d$").all()


def test_flips_text_names_the_humans_choice_first(results):
    flips = results.flips
    text = display_tables.flips_text(flips)
    assert len(text) == len(flips)
    for row, f in zip(text.itertuples(index=False), flips.itertuples(index=False), strict=True):
        humans_first = f.human_a > f.human_b
        assert row[2] == (f.system_a if humans_first else f.system_b)
        high, low = row[4].split(" vs ")
        assert float(high) >= float(low)  # the humans' preferred system first
    assert list(display_tables.flips_text(flips.iloc[0:0]).columns) == list(text.columns)


def test_pair_table_text(results):
    pairs = system_pairs_table(results, n_resamples=200, seed=1, configs=[("word", "bleu")])
    shown = sig_views.pair_table(pairs, 200, 200)
    assert len(shown) == len(pairs)
    assert shown["metric p"].str.match(r"^(≤ 0\.005|\d\.\d{3})$").all()  # 200 resamples: floor 1/201
    delta = shown["metric Δ (a − b) [95% CI]"].str.split(" ", n=1).str[0].astype(float)
    assert np.allclose(delta, pairs["metric_diff"].round(2))


def test_cluster_table_lists_each_cluster_once(results):
    clusters = pd.DataFrame(
        {"config": ["word/bleu", "char/ter", "char/bleu"], "cluster": [1, 1, 2], "sign": [1.0, -1.0, 1.0],
         "correlation": [0.9, 0.85, 0.5], "value": [0.9, -0.85, 0.5]}
    )
    table = sig_views.cluster_table(clusters)
    assert list(table["cluster"]) == ["1", "2"]
    assert table["configurations (agreement)"].iloc[0] == "BLEU@word (0.900), −TER@char (0.850)"


def test_token_stats_say_cached_instead_of_zero_seconds(results):
    stats = results.token_stats.assign(tokenizer_seconds=[0.0, 1.23456][: len(results.token_stats)])
    text = display_tables.token_stats_text(stats)
    assert list(text["tokenizer time"]) == ["cached", "1.23 s"][: len(text)]
    assert text["tokens per word"].str.match(r"^\d+\.\d\d$").all()


def test_readable_formats_any_result_table():
    frame = pd.DataFrame({
        "system": ["a", None], "hyp_spaces": [1200, 3], "f1": [0.98765, np.nan], "honorific_mismatch_rate": [0.5, 0.25],
        "value": [1.234, -0.5], "agree": [True, False],
    })
    text = display_tables.readable(frame)
    assert list(text.columns) == ["system", "hyp spaces", "f1", "honorific mismatch rate", "value", "agree"]
    assert list(text["hyp spaces"]) == ["1,200", "3"] and list(text["f1"]) == ["0.988", "—"]
    assert list(text["honorific mismatch rate"]) == ["0.500", "0.250"] and list(text["value"]) == ["1.23", "-0.50"]
    assert list(text["agree"]) == ["yes", "no"] and list(text["system"]) == ["a", "—"]
    assert len(display_tables.readable(frame, rows=1)) == 1


def test_numbers_table_has_a_ci_column_only_with_intervals(results):
    view = views.correlation_view(results, "pearson", "none", agreement=True)
    plain = views.numbers_table(view)
    assert "95% CI" not in plain.columns and plain["value"].str.match(r"^(-?\d\.\d{3}|—)$").all()
    with_ci = views.numbers_table(view.assign(ci_low=0.1, ci_high=0.2))
    assert set(with_ci["95% CI"]) == {"[0.100, 0.200]"}
    assert not any(str(v) in ("None", "nan", "") for v in with_ci.to_numpy().ravel())


def test_ceiling_rows_join_the_numbers_as_text(results):
    numbers = views.numbers_table(views.correlation_view(results, "pearson", "none", agreement=True))
    rows = pd.DataFrame([{
        "granularity": "segment", "grouping": "none", "level": "human ceiling", "family": "humans",
        "metric": "group a vs b", "statistic": "pearson", "value": 0.61234, "95% CI": "n/a (intervals off, or undefined)",
        "n": 1200, "signature": "",
    }])
    table = display_tables.with_ceiling(numbers, rows)
    assert list(table.columns) == list(numbers.columns) and len(table) == len(numbers) + 1  # no CI column without CIs
    last = table.iloc[-1]
    assert (last["level"], last["value"], last["n"], last["signature"]) == ("human ceiling", "0.612", "1,200", "—")
    assert display_tables.with_ceiling(numbers, None) is numbers
