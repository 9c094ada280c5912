"""What a significance table's tests could show: the ``min_p`` the tables record, the resampling in words, and — when
the design cannot reach α, as the exact test over 4 systems — the statement with the units it would need, in the
table's notes, the run's notes and the LaTeX caption (the bundled sample cut to 4 systems, and the held-out WMT24 chat
en→ko set)."""

from __future__ import annotations

import pandas as pd
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.small_samples import annotate_small_samples
from korean_eval.exports.latex import latex_tables
from korean_eval.exports.tables import find_top_clusters
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables import significance as sig
from korean_eval.metaeval.tables.accuracy_significance import accuracy_significance_table
from korean_eval.metaeval.tables.resolution import (
    resolution_notes,
    swapped_unit,
    table_resolution,
    with_resolution_notes,
)
from korean_eval.model.config import EvalConfig
from tests.support.few_systems import FOUR_SYSTEMS, four_system_sample
from tests.support.helpers import SHARED, require

CONFIG = EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"), jobs=1, spa_permutations=0)


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield evaluate(four_system_sample(), CONFIG)


@pytest.fixture(scope="module")
def five(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield evaluate(load_sample(), CONFIG)


def test_the_tables_record_the_smallest_p_of_each_test(four, five):
    for results, n in ((four, 4), (five, 5)):
        table = sig.significance_table(results, "pearson", "system", tests=("perm-inputs", "williams"))
        perm = table[table["test"] == "perm-inputs"]
        assert set(perm["method"]) == {f"exact, {2**n} patterns"} and set(perm["min_p"]) == {1 / 2**n}
        assert (perm["p_value"] >= perm["min_p"]).all()
        assert table.loc[table["test"] == "williams", "min_p"].isna().all()
    segment = sig.significance_table(five, "pearson", "segment", tests=("perm-inputs",))
    assert set(segment["min_p"]) == {1 / 1001}  # 120 segments: Monte-Carlo, (0 + 1) / (1000 + 1)
    acc = accuracy_significance_table(five, "acc_eq", n_permutations=200)
    assert list(acc.columns) == sig.SIGNIFICANCE_COLUMNS
    assert ((acc["p_value"] >= acc["min_p"]) | acc["p_value"].isna()).all()


def test_four_systems_cannot_reach_alpha(four, five):
    table = sig.significance_table(four, "pearson", "system", tests=("perm-inputs",))
    found = table_resolution(table, "pearson", "system", "perm-inputs")
    assert found.cannot_separate and found.limit == FOUR_SYSTEMS and found.resampling == "exact, 16 sign patterns"
    clusters = sig.rank_clusters_table(four, "pearson", "system", table=table)
    assert set(clusters["cluster"]) == {1}  # what the design forces, not a finding
    noted = with_resolution_notes(table)
    assert set(noted["note"]) == {FOUR_SYSTEMS}
    assert resolution_notes(table) == [f"significance by pearson at the system level (perm-inputs): {FOUR_SYSTEMS}"]
    segment = sig.significance_table(four, "pearson", "segment", tests=("perm-inputs",))
    assert not table_resolution(segment, "pearson", "segment", "perm-inputs").limit
    assert table_resolution(segment, "pearson", "segment", "perm-inputs").resampling == (
        "Monte-Carlo, 1,000 permutations, seed 12345")
    assert set(with_resolution_notes(segment)["note"]) == {""}
    five_table = sig.significance_table(five, "pearson", "system", tests=("perm-inputs",))
    assert not table_resolution(five_table, "pearson", "system", "perm-inputs").limit


def test_units_are_named_by_what_each_test_swaps():
    assert swapped_unit("pearson", "system", "perm-inputs") == "systems"
    assert swapped_unit("pearson", "segment", "perm-inputs") == "segments"
    assert swapped_unit("pearson", "segment", "perm-wmt") == "(system, segment) scores"
    assert swapped_unit("spa", "system", "perm-wmt") == "(system, segment) scores"
    assert swapped_unit("acc_eq", "segment", "perm-pairs") == (
        "system pairs (of a segment) that the two configurations judge differently")


def test_a_partly_unreachable_table_says_how_many_comparisons():
    table = pd.DataFrame({"method": ["exact, 8 patterns", "Monte-Carlo, 1000 permutations"], "p_value": [0.5, 0.01],
                          "statistic": "acc_eq", "granularity": "segment", "test": "perm-pairs", "grouping": "item"})
    found = table_resolution(table, "acc_eq", "segment", "perm-pairs")
    assert not found.cannot_separate and found.n_unreachable == 1
    assert found.limit == ("1 of 2 tested pairs of configurations cannot reach α = 0.05; the largest of them: with 3 "
                           "system pairs (of a segment) that the two configurations judge differently the exact test "
                           "has 8 sign patterns: its smallest p-value is 0.125 > α = 0.05, so no difference can be "
                           "significant; ≥ 5 system pairs (of a segment) that the two configurations judge "
                           "differently needed")
    assert found.resampling == ("Monte-Carlo, 1,000 permutations, seed 12345; exact for 1 of 2 tested pairs "
                                "(8 sign patterns)")


def test_the_run_notes_and_the_csv_note_say_it(four):
    table = sig.significance_table(four, "pearson", "system", tests=("perm-inputs",))
    extra = {"significance.csv": table}
    before = list(four.notes)
    try:
        annotate_small_samples(four, extra)
        assert f"significance by pearson at the system level (perm-inputs): {FOUR_SYSTEMS}" in four.notes
        assert set(extra["significance.csv"]["note"]) == {FOUR_SYSTEMS}
    finally:
        four.notes = before


def test_the_latex_caption_says_the_test_cannot_separate_them(four, five):
    top = find_top_clusters(four, "pearson")
    assert top.of("system") == frozenset() and top.limit_of("system") == FOUR_SYSTEMS
    assert "exact, 16 sign patterns" in top.method_of("system") and "1,000" not in top.method_of("system")
    assert "Monte-Carlo, 1,000 permutations, seed 12345" in top.method_of("segment")
    tex = latex_tables(four, top)
    system = tex["correlations_system.tex"]
    assert "\\textbf{" not in system.split("\\midrule", 1)[1].split("\\bottomrule")[0]
    assert ("No cell is bold: With 4 systems the exact test has 16 sign patterns: its smallest p-value is 0.0625 "
            "\\textgreater{} $\\alpha$ = 0.05, so no difference can be significant; $\\geq$ 5 systems needed "
            "(paired permutation test perm-inputs (Deutsch et al. 2021), exact, 16 sign patterns, alpha = 0.05).") in system
    assert "grouping none" in tex["correlations_segment.tex"] and "Bold: the top significance cluster" in tex[
        "correlations_segment.tex"]
    five_top = find_top_clusters(five, "pearson")
    assert five_top.of("system") and "exact, 32 sign patterns" in five_top.method_of("system")


def test_heldout_wmt24_chat_notes(tmp_path, monkeypatch):
    """The held-out WMT24 chat en→ko set (4 systems × 550 segments): the system-level test says it cannot reach α."""
    monkeypatch.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    root = require(SHARED / "heldout" / "wmt24_chat_enko")
    results = evaluate(load_sample(root), EvalConfig(levels=("word",), metrics=("bleu", "chrf"), jobs=1,
                                                     spa_permutations=0))
    table = sig.significance_table(results, "pearson", "system", tests=("perm-inputs",))
    assert set(table["method"]) == {"exact, 16 patterns"} and set(table["min_p"]) == {0.0625}
    assert table_resolution(table, "pearson", "system", "perm-inputs").limit == FOUR_SYSTEMS
