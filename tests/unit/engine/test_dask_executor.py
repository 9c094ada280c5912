"""The worker tasks on a Dask distributed cluster give the local run's numbers.

A ``LocalCluster`` of 2 worker processes (one thread each) on this machine stands in for a real cluster: the
library (``EvalConfig.scheduler``) and the CLI (``--scheduler``) send the tokenising and statistics tasks there,
and every table equals the local run's; each worker loaded an analyzer once and reused it.

Both runs evaluate the sample's first :data:`SEGMENTS` segments of its five systems (100 pairs): with the chunk sizes
of ``everything_to_the_pool`` every level is still cut into several tokenising tasks per worker (so an analyzer is
reused) and every metric into two statistics tasks, which is what the cluster is checked on.
"""

from __future__ import annotations

import sys

import pytest

import korean_eval.engine.dask_executor as db
import korean_eval.engine.workers as wk
from korean_eval.cli.main import main
from korean_eval.engine.cache import NullCache
from korean_eval.engine.pipeline import evaluate
from korean_eval.model.config import EvalConfig
from tests.support.helpers import assert_same_results, head_of_sample, write_head_of_sample

distributed = pytest.importorskip("distributed")

LEVELS = ("word", "mecab", "kiwi", "char", "jamo")  # all installed by requirements.txt (not checked at collection:
# that loaded Kiwi's model, ≈ 0.5 GB, in every process importing this module)
METRICS = ("bleu", "chrf", "chrf++", "ter")
SEGMENTS = 20  # of the sample (module docstring)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    ) as local:
        yield local
        db.disconnect(local.scheduler_address)  # before the cluster closes: no reconnection attempts


@pytest.fixture
def everything_to_the_pool(monkeypatch):
    monkeypatch.setattr(wk, "PARALLEL_MIN_PAIRS", 1)  # the sample is small: send its tasks anyway
    monkeypatch.setattr(wk, "TOKENISE_CHUNK_CHARS", 2000)
    monkeypatch.setattr(wk, "CHUNK_PAIRS", 97)


def _loaded_analyzers() -> dict:
    """In a worker: how often its cached analyzers were built and reused."""
    from korean_eval.levels import registry as tokenizers
    return {name: getattr(tokenizers, name).cache_info()._asdict() for name in ("_mecab", "kiwi_analyzer")}


@pytest.mark.slow
def test_dask_run_equals_the_local_run(cluster, everything_to_the_pool):
    sample = head_of_sample(SEGMENTS)
    local = evaluate(sample, EvalConfig(levels=LEVELS, metrics=METRICS, jobs=1), cache=NullCache())
    config = EvalConfig(levels=LEVELS, metrics=METRICS, scheduler=cluster.scheduler_address)
    remote = evaluate(sample, config, cache=NullCache())
    assert remote.tokens == local.tokens
    assert_same_results(remote, local)
    executor = db.connect(cluster.scheduler_address)
    assert executor.workers == 2
    per_worker = executor.client.run(_loaded_analyzers)
    assert len(per_worker) == 2
    for info in per_worker.values():
        for name in ("_mecab", "kiwi_analyzer"):
            assert info[name]["misses"] <= 1  # loaded at most once in this worker …
    assert sum(info["_mecab"]["hits"] for info in per_worker.values()) > 0  # … and reused by later tasks
    # Kiwi's tasks run on the cluster (they prefer one worker; under load Dask may move some to another)
    assert sum(info["kiwi_analyzer"]["misses"] for info in per_worker.values()) >= 1


@pytest.mark.slow
def test_cli_with_a_scheduler_writes_the_local_tables(cluster, everything_to_the_pool, tmp_path, capsys):
    common = ["run", *write_head_of_sample(tmp_path / "input", SEGMENTS), "--levels", "char,jamo", "--metrics",
              "bleu,chrf,ter", "--bootstrap", "30", "--spa-permutations", "30", "--no-cache", "--quiet"]
    assert main([*common, "--jobs", "1", "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask")]) == 0
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "dask").iterdir())
    for name in names:
        if name not in ("timings.csv", "token_stats.csv", "run.json"):
            assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name


def test_unreachable_scheduler_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(db, "CONNECT_TIMEOUT", 1)
    code = main(["run", "--levels", "char", "--metrics", "bleu", "--bootstrap", "0", "--no-cache", "--quiet",
                 "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert "Traceback" not in err


def test_jobs_and_scheduler_together_are_refused(capsys):
    code = main(["run", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:9", "--no-cache"])
    assert code == 2 and "--jobs" in capsys.readouterr().err


def test_a_blank_scheduler_address_is_refused():
    with pytest.raises(ValueError, match="scheduler"):
        EvalConfig(scheduler=" ")


def test_the_local_pool_stays_the_default():
    assert EvalConfig().scheduler is None
    assert "korean_eval.engine.dask_executor" not in sys.modules or db.connect.__module__ == "korean_eval.engine.dask_executor"
