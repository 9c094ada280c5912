"""The engine writes the same bytes on any executor: one process, 2 or 5 local worker processes, a Dask cluster.

Chunk boundaries depend on the data only (:func:`korean_eval.engine.workers.text_chunks`,
:func:`korean_eval.engine.workers.chunks`), every reduction runs in a fixed order in the calling process, and BLAS
computes on one thread (:mod:`korean_eval.engine.blas_threads`), so the score, correlation and significance tables
are byte-identical whatever runs the tasks.
"""

from __future__ import annotations

import pandas as pd
import pytest

import korean_eval
import korean_eval.engine.dask_executor as db
import korean_eval.engine.workers as wk
from tests.support.helpers import head_of_sample

distributed = pytest.importorskip("distributed")

LEVELS = ["word", "kiwi", "char", "jamo"]
METRICS = ["bleu", "chrf", "chrf++", "ter"]
SEGMENTS = 40  # of the sample's 5 systems: 200 pairs, several tasks per level and metric with the chunk sizes below
COMPARED = ["segment_scores.csv", "system_scores.csv", "correlations.csv", "rankings.csv", "significance.csv",
            "clusters.csv", "system_pairs.csv", "system_ranking.csv", "metric_pairs.csv", "order_splits.csv"]


@pytest.fixture
def everything_to_the_pool(monkeypatch):
    monkeypatch.setattr(wk, "PARALLEL_MIN_PAIRS", 1)  # the sample is small: send its tasks anyway
    monkeypatch.setattr(wk, "TOKENISE_CHUNK_CHARS", 1500)
    monkeypatch.setattr(wk, "CHUNK_PAIRS", 37)


def _tables(tmp_path, name, **settings) -> dict[str, bytes]:
    results = korean_eval.evaluate(head_of_sample(SEGMENTS), levels=LEVELS, metrics=METRICS, resamples=100,
                                   seed=3, ar_trials=300, **settings)
    out = tmp_path / name
    results.to_csv(out)
    return {file: (out / file).read_bytes() for file in COMPARED}


@pytest.mark.slow
def test_one_process_local_pools_and_a_dask_cluster_write_the_same_bytes(tmp_path, everything_to_the_pool):
    serial = _tables(tmp_path, "jobs1", jobs=1)
    for jobs in (2, 5):
        assert _tables(tmp_path, f"jobs{jobs}", jobs=jobs) == serial, f"--jobs {jobs}"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        try:
            assert _tables(tmp_path, "dask", scheduler=cluster.scheduler_address) == serial, "Dask"
        finally:
            db.disconnect(cluster.scheduler_address)


def test_text_chunks_depend_on_the_texts_only():
    texts = [("가" * n) for n in (5, 40, 3, 3, 90, 1, 60, 2)]
    chunks = wk.text_chunks(texts, max_chars=50)
    assert [t for c in chunks for t in c] == texts
    assert [sum(map(len, c)) for c in chunks] == [48, 3, 90, 1, 60, 2]
    assert wk.text_chunks([], max_chars=50) == []


def test_statistics_in_chunks_equal_one_call_over_every_configuration(monkeypatch):
    """The statistics stage cut into tasks (:mod:`korean_eval.engine.statistics_tasks`, small chunks here) gives
    the tables of one call of each statistic over every configuration."""
    from korean_eval.engine import statistics_tasks as st
    from korean_eval.engine.statistics import StatisticsSettings, compute_statistics
    from korean_eval.exports.csv_zip import to_csv_bytes
    from korean_eval.metaeval.tables.accuracy_significance import accuracy_tables
    from korean_eval.metaeval.tables.intervals import add_confidence_intervals
    from korean_eval.metaeval.tables.significance import significance_table
    from korean_eval.metaeval.tables.system_pairs import system_pairs_table

    monkeypatch.setattr(st, "CONFIGS_PER_TASK", 3)
    monkeypatch.setattr(st, "PAIRS_PER_TASK", 5)
    results = korean_eval.evaluate(head_of_sample(SEGMENTS), levels=["word", "char"], metrics=METRICS, resamples=0)
    chunked = compute_statistics(results, StatisticsSettings(resamples=60, seed=9, statistic="pearson"))
    whole = add_confidence_intervals(results, n_resamples=60, seed=9)
    assert to_csv_bytes(chunked.correlations) == to_csv_bytes(whole)
    frames = [significance_table(results, granularity=g, n_permutations=60, seed=9) for g in ("segment", "system")]
    frames.append(accuracy_tables(results, n_permutations=60, seed=9)[0])  # acc_eq and SPA
    significance = pd.concat([f for f in frames if len(f)], ignore_index=True)
    assert to_csv_bytes(chunked.tables["significance.csv"]) == to_csv_bytes(significance)
    assert to_csv_bytes(chunked.tables["system_pairs.csv"]) == to_csv_bytes(
        system_pairs_table(results, n_resamples=60, seed=9))
