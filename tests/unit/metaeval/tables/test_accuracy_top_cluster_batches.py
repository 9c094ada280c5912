"""The top-cluster walk by SPA tests its candidates in batches
(:func:`korean_eval.metaeval.tables.accuracy_significance.accuracy_top_cluster`) and gives, bit for bit, the tables of
the walk that tests one candidate per call of ``accuracy_significance_table`` (written out here, the definition):
on the held-out WMT24 chat en→ko set (4 systems: the walk passes every configuration), on the bundled sample (5
systems: it stops early), and where a configuration lacks a score (no batches then); by acc_eq (never batched)
likewise."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables import accuracy_significance as acc
from korean_eval.model.config import EvalConfig
from korean_eval.model.vocabulary import config_name
from tests.support.helpers import SHARED, require

HELDOUT = SHARED / "heldout" / "wmt24_chat_enko"
PERMUTATIONS, SEED, ALPHA = 100, 7, 0.05
CONFIG = {"levels": ("word", "char"), "metrics": ("bleu", "chrf", "ter"), "jobs": 1, "spa_permutations": 100}


def one_call_per_candidate(results, statistic: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The walk: configurations best first, each candidate tested against every one above it in a call of its own,
    until the first candidate outside cluster 1."""
    granularity, grouping, _ = acc.ACCURACY_TESTS[statistic]
    corr = results.correlations
    rows = corr[(corr["statistic"] == statistic) & (corr["granularity"] == granularity)
                & (corr["grouping"] == grouping)]
    value = {config_name(lv, m): float(v) for lv, m, v in zip(rows["level"], rows["metric"], rows["value"],
                                                                strict=True)}
    order = [n for n in sorted(value, key=lambda n: (-value[n], n)) if np.isfinite(value[n])]
    walked, tables = order[:1], []
    for candidate in order[1:]:
        tables.append(acc.accuracy_significance_table(results, statistic, PERMUTATIONS, SEED, [*walked, candidate],
                                                      [(member, candidate) for member in walked]))
        walked.append(candidate)
        table = pd.concat(tables, ignore_index=True)
        if acc.accuracy_clusters_table(results, statistic, table, ALPHA, walked)["cluster"].max() > 1:
            break
    table = pd.concat(tables, ignore_index=True)
    return table, acc.accuracy_clusters_table(results, statistic, table, ALPHA, walked)


@pytest.fixture(scope="module")
def heldout(tmp_path_factory):
    root = require(HELDOUT)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield evaluate(load_sample(root), EvalConfig(**CONFIG))


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield evaluate(load_sample(), EvalConfig(**CONFIG))


def _same(results, statistic: str, monkeypatch) -> int:
    """Assert the walk's tables equal the definition's; the number of table calls the walk made."""
    calls = []
    table_of = acc.accuracy_significance_table
    monkeypatch.setattr(acc, "accuracy_significance_table", lambda *a, **k: calls.append(1) or table_of(*a, **k))
    got = acc.accuracy_top_cluster(results, statistic, PERMUTATIONS, SEED, ALPHA)
    monkeypatch.setattr(acc, "accuracy_significance_table", table_of)
    expected = one_call_per_candidate(results, statistic)
    pd.testing.assert_frame_equal(got[0], expected[0], check_exact=True)
    pd.testing.assert_frame_equal(got[1], expected[1], check_exact=True)
    return len(calls)


def test_spa_walk_through_every_configuration_in_two_batches(heldout, monkeypatch):
    assert _same(heldout, "spa", monkeypatch) == 2  # candidates 1–3, then 4–5 (of 6 configurations)
    table, clusters = acc.accuracy_top_cluster(heldout, "spa", PERMUTATIONS, SEED, ALPHA)
    assert len(clusters) == 6 and len(table) == 2 * 15  # every pair, both orders: the walk passed them all


def test_spa_walk_that_stops_early_and_acc_eq(sample, heldout, monkeypatch):
    _same(sample, "spa", monkeypatch)
    _same(sample, "acc_eq", monkeypatch)
    calls = _same(heldout, "acc_eq", monkeypatch)
    assert calls == len(acc.accuracy_top_cluster(heldout, "acc_eq", PERMUTATIONS, SEED, ALPHA)[1]) - 1


def test_spa_walk_without_batches_where_a_configuration_lacks_a_score(heldout, monkeypatch):
    matrices = dict(heldout.segment_matrices)
    key = next(iter(matrices))
    holed = np.array(matrices[key], dtype=np.float64)
    holed[0, 0] = np.nan  # a human-scored item: SPA's items differ between sets of configurations
    matrices[key] = holed
    results = dataclasses.replace(heldout, segment_matrices=matrices)
    assert _same(results, "spa", monkeypatch) == len(acc.accuracy_top_cluster(results, "spa", PERMUTATIONS, SEED,
                                                                               ALPHA)[1]) - 1
