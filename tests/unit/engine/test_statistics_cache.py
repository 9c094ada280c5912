"""The statistics are cached like the scores, and a warm rerun imports no heavy module.

* :func:`korean_eval.engine.statistics.statistics_tables` stores the CIs, significance, clusters and system pairs under
  the evaluation's key + the statistics settings, loads them on an identical rerun (equal to the computed ones),
  and recomputes when a setting, the data or the evaluation changes;
* ``python -m korean_eval run`` rerun on an unchanged input writes the same files and imports neither nltk, scipy's
  statistics nor numba; no metric module is imported before a metric is used.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from korean_eval.engine.cache import DiskCache, NullCache
from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.statistics import (
    StatisticsSettings,
    compute_statistics,
    statistics_key,
    statistics_tables,
)
from korean_eval.inputs.sample import load_sample
from korean_eval.model.config import EvalConfig
from tests.support.helpers import ROOT, write_head_of_sample

CLI_SEGMENTS = 20  # segments of the sample the CLI runs read

CONFIG = EvalConfig(levels=("char",), metrics=("bleu", "ter"), jobs=1, spa_permutations=50)
SETTINGS = StatisticsSettings(resamples=60, seed=7)


def assert_same(a, b) -> None:
    pd.testing.assert_frame_equal(a.correlations, b.correlations, check_exact=True)
    assert a.tables.keys() == b.tables.keys()
    for name in a.tables:
        pd.testing.assert_frame_equal(a.tables[name], b.tables[name], check_exact=True)


@pytest.fixture(scope="module")
def sample():
    return load_sample()


def test_stored_statistics_are_loaded_and_equal_the_computed_ones(sample, tmp_path):
    cache = DiskCache(tmp_path)
    results = evaluate(sample, CONFIG, cache=cache)
    assert results.result_key
    first = statistics_tables(results, SETTINGS, cache)
    assert first is not None and not first.loaded
    assert set(first.tables) == {"significance.csv", "clusters.csv", "system_pairs.csv"}
    assert first.correlations["ci_low"].notna().any()
    again = statistics_tables(evaluate(sample, CONFIG, cache=cache), SETTINGS, cache)
    assert again is not None and again.loaded
    assert_same(again, first)
    assert_same(again, compute_statistics(evaluate(sample, CONFIG, cache=NullCache()), SETTINGS))


@pytest.mark.parametrize("changed", [StatisticsSettings(resamples=61, seed=7), StatisticsSettings(resamples=60, seed=8),
                                     StatisticsSettings(resamples=60, seed=7, statistic="kendall")])
def test_other_settings_are_computed_again(sample, tmp_path, changed):
    cache = DiskCache(tmp_path)
    results = evaluate(sample, CONFIG, cache=cache)
    base = statistics_tables(results, SETTINGS, cache)
    other = statistics_tables(results, changed, cache)
    assert base is not None and other is not None and not other.loaded
    assert statistics_key(results, changed) != statistics_key(results, SETTINGS)
    assert_same(other, compute_statistics(results, changed))


def test_other_data_or_evaluation_is_computed_again(sample, tmp_path):
    cache = DiskCache(tmp_path)
    results = evaluate(sample, CONFIG, cache=cache)
    statistics_tables(results, SETTINGS, cache)
    other_config = EvalConfig(levels=("char",), metrics=("bleu", "ter"), jobs=1, spa_permutations=50, ter_cap=True)
    capped = evaluate(sample, other_config, cache=cache)
    assert capped.result_key != results.result_key
    found = statistics_tables(capped, SETTINGS, cache)
    assert found is not None and not found.loaded
    fewer = load_sample()
    fewer.human = fewer.human.iloc[: len(fewer.human) // 2]
    found = statistics_tables(evaluate(fewer, CONFIG, cache=cache), SETTINGS, cache)
    assert found is not None and not found.loaded


def test_without_a_stored_result_nothing_is_stored(sample):
    results = evaluate(sample, CONFIG, cache=NullCache())
    assert results.result_key == "" and statistics_key(results, SETTINGS) is None
    found = statistics_tables(results, SETTINGS, NullCache())
    assert found is not None and not found.loaded
    assert statistics_tables(results, StatisticsSettings(resamples=0)) is None


def _cli(tmp_path, out: str, inputs: list[str]) -> dict:
    """Run the CLI on ``inputs`` (its input arguments) in a fresh interpreter; return the heavy modules it
    imported."""
    script = (
        "import json, sys\n"
        "from korean_eval.cli.main import main\n"
        f"code = main(['run', *{inputs!r}, '--levels', 'char,jamo', '--metrics', 'bleu,chrf,ter', '--bootstrap', '40',"
        f" '--spa-permutations', '40', '--cache-dir', {str(tmp_path / 'cache')!r}, '--out', {str(tmp_path / out)!r},"
        " '--quiet'])\n"
        "heavy = sorted({m.split('.')[0] + ('.stats' if m.startswith('scipy.stats') else '') for m in sys.modules"
        " if m.split('.')[0] in ('nltk', 'numba') or m.startswith('scipy.stats')})\n"
        "print(json.dumps({'code': code, 'heavy': heavy}))\n"
    )
    return json.loads(_python(script).strip().splitlines()[-1])


def _python(script: str) -> str:
    """Run ``script`` in a fresh interpreter from the repository root; its standard output (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_warm_cli_rerun_imports_no_heavy_module_and_writes_the_same_files(tmp_path):
    """On the sample's first :data:`CLI_SEGMENTS` segments: what a warm run imports and writes does not depend on
    their number."""
    inputs = write_head_of_sample(tmp_path / "input", CLI_SEGMENTS)
    cold = _cli(tmp_path, "cold", inputs)
    assert cold["code"] == 0 and "numba" in cold["heavy"] and "scipy.stats" in cold["heavy"]
    warm = _cli(tmp_path, "warm", inputs)
    assert warm == {"code": 0, "heavy": []}
    names = sorted(p.name for p in (tmp_path / "cold").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "warm").iterdir())
    assert {"significance.csv", "clusters.csv", "system_pairs.csv", "correlations.csv"} <= set(names)
    for name in names:
        if name not in ("timings.csv", "run.json"):
            assert (tmp_path / "cold" / name).read_bytes() == (tmp_path / "warm" / name).read_bytes(), name


def test_the_metric_registry_imports_no_metric_module():
    script = (
        "import sys\n"
        "import korean_eval.cli.main, korean_eval.model.config, korean_eval.model.results\n"
        "from korean_eval.metrics import METRIC_NAMES, metric_class\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('nltk', 'numba')]\n"
        "assert not loaded, loaded\n"
        "metric_class('gleu')\n"
        "assert 'numba' not in sys.modules  # nltk itself is imported when a metric computes\n"
    )
    _python(script)


def test_the_default_metrics_are_the_sacrebleu_group():
    from korean_eval.metrics import METRIC_NAMES, metric_group
    from korean_eval.metrics.sacre import SACREBLEU_METRIC_NAMES

    assert SACREBLEU_METRIC_NAMES == tuple(m for m in METRIC_NAMES if metric_group(m) == "sacrebleu")


def test_stored_objects_round_trip_in_pieces(tmp_path):
    import numpy as np

    from korean_eval.engine.result_store import MAGIC, load_result, store_result

    cache = DiskCache(tmp_path)
    rng = np.random.default_rng(3)
    big = {"text": "한국어 문장 " * 400_000, "array": rng.normal(size=700_000), "nested": [list(range(1000))] * 50}
    store_result(cache, "k", big, kind="statistics")
    back = load_result(cache, "k", kind="statistics")
    assert back["text"] == big["text"] and np.array_equal(back["array"], big["array"]) and back["nested"] == big["nested"]
    blob = cache.get_blob("statistics:k")
    assert blob.startswith(MAGIC) and len(blob) < 0.5 * (len(big["text"].encode()) + big["array"].nbytes)
    cache.put_blob("statistics:cut", blob[: len(blob) // 2], "statistics")
    assert load_result(cache, "cut", kind="statistics") is None
    assert load_result(cache, "absent") is None


def test_a_blob_given_in_parts_is_stored_as_their_concatenation(tmp_path):
    cache = DiskCache(tmp_path)
    parts = [b"head\n", b"", bytes(range(256)) * 300, b"tail"]
    cache.put_blob("result:parts", parts, "result")
    assert cache.get_blob("result:parts") == b"".join(parts)
    cache.put_blob("result:parts", b"replaced", "result")
    assert cache.get_blob("result:parts") == b"replaced"


def test_a_stored_result_keeps_its_token_tables_and_leaves_the_strings_as_they_were(tmp_path):
    """Token tables are stored outside the result's pickle (korean_eval.engine.result_store): they come back equal, each
    text one object shared by the levels, and storing did not make CPython attach UTF-8 copies to the strings."""
    from korean_eval.engine.result_store import load_result, result_key, store_result

    sample = load_sample()
    config = EvalConfig(levels=("word", "char", "jamo"), metrics=("bleu",), jobs=1)
    results = evaluate(sample, config, cache=NullCache())
    sizes = {level: [sys.getsizeof(t) for t in table.values()] for level, table in results.tokens.items()}
    cache, key = DiskCache(tmp_path), result_key(sample, config)
    store_result(cache, key, results)
    assert {level: [sys.getsizeof(t) for t in table.values()] for level, table in results.tokens.items()} == sizes
    back = load_result(cache, key)
    assert back.tokens == results.tokens and list(back.tokens) == ["word", "char", "jamo"]
    word, jamo = (list(back.tokens[level]) for level in ("word", "jamo"))
    assert word == jamo and all(a is b for a, b in zip(word, jamo, strict=True))
    assert back.segment_scores.equals(results.segment_scores)
