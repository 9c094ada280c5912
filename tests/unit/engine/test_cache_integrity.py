"""The cache never returns another run's tables nor stops a run on a bad row: the stored result's key includes the
order of the systems, and malformed or corrupted statistics and token rows are left out and computed again (the
tables equal an uncached run's)."""

import pandas as pd
import pytest

from korean_eval.inputs.tables import attach_human
from korean_eval.model.evalset import EvalSet, evalset_from_texts


def _three_systems(order: tuple[str, ...] = ("A", "B", "C")) -> EvalSet:
    texts = {
        "A": "나는 학교에 간다\n오늘 날씨가 좋다\n책을 읽었다\n밥을 먹자\n",
        "B": "나는 학교 간다\n오늘은 날씨 좋다\n책 읽었다\n밥 먹자\n",
        "C": "학교에 간다\n날씨가 아주 좋다\n책을 읽는다\n밥을 먹었다\n",
    }
    ev = evalset_from_texts(
        [("ref.txt", "나는 학교에 간다\n오늘 날씨가 좋다\n책을 읽었다\n밥을 먹자\n".encode())],
        [(f"{s}.txt", texts[s].encode()) for s in order],
    )
    human = "system,seg_id,score\n" + "".join(
        f"{s},{i},{v}\n" for s, vals in {"A": (90, 80, 70, 60), "B": (50, 55, 52, 40), "C": (70, 20, 65, 30)}.items()
        for i, v in enumerate(vals)
    )
    return attach_human(ev, human.encode(), "human.csv")


def _config():
    from korean_eval.model.config import EvalConfig

    return EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"), jobs=1)


def _tables(results) -> dict[str, pd.DataFrame]:
    return {
        name: getattr(results, name).reset_index(drop=True)
        for name in ("segment_scores", "system_scores", "correlations", "rankings", "human_systems")
    }


def _assert_same_tables(a, b) -> None:
    for name, frame in _tables(a).items():
        pd.testing.assert_frame_equal(frame, _tables(b)[name], check_exact=True, obj=name)


def test_result_key_includes_the_order_of_systems() -> None:
    from korean_eval.engine.result_store import result_key

    abc, cba = _three_systems(("A", "B", "C")), _three_systems(("C", "B", "A"))
    assert abc.content_hash() == cba.content_hash()  # the same data …
    assert result_key(abc, _config()) != result_key(cba, _config())  # … but not the same tables
    assert result_key(abc, _config()) == result_key(_three_systems(("A", "B", "C")), _config())


def test_stored_result_of_another_system_order_is_not_reused(tmp_path) -> None:
    from korean_eval.engine.cache import DiskCache, NullCache
    from korean_eval.engine.pipeline import evaluate

    evaluate(_three_systems(("A", "B", "C")), _config(), cache=DiskCache(tmp_path))
    warm = evaluate(_three_systems(("C", "A", "B")), _config(), cache=DiskCache(tmp_path))
    assert "cached result" not in set(warm.timings["stage"])
    assert warm.systems == ["C", "A", "B"]
    assert list(dict.fromkeys(warm.system_scores["system"])) == ["C", "A", "B"]
    _assert_same_tables(warm, evaluate(_three_systems(("C", "A", "B")), _config(), cache=NullCache()))
    again = evaluate(_three_systems(("C", "A", "B")), _config(), cache=DiskCache(tmp_path))
    assert again.timings["stage"].iloc[-1] == "cached result" and again.systems == ["C", "A", "B"]


def test_well_formed_stats_leaves_out_malformed_rows() -> None:
    import numpy as np

    from korean_eval.engine.cache import well_formed_stats

    good = np.array([1.0, 2.0, 3.0]).tobytes()
    rows = [
        (b"k1", good, 0.5), (b"k2", good[:-3], 0.5), (b"k3", good + good[:8], 0.5), (b"k4", good, "abc"),
        (b"k5", "text", 0.5), (b"k6", good, 1), (b"k7", b"", 0.0), (b"k8", None, 0.0),
    ]
    assert well_formed_stats(rows) == [(b"k1", good, 0.5), (b"k6", good, 1.0)]
    assert well_formed_stats([(b"k3", good + good[:8], 0.5), (b"k1", good, 0.5), (b"k6", good, 1)])[0][0] == b"k1"


@pytest.mark.parametrize(
    "corruption",
    [
        "UPDATE stats SET v = substr(v, 1, length(v) - 3) WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1)",
        "UPDATE stats SET v = v || zeroblob(8) WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1)",
        "UPDATE stats SET v = v || zeroblob(8) WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 2)",
        "UPDATE stats SET s = 'not a number' WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1 OFFSET 5)",
        "UPDATE stats SET v = 'abcdefgh' WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1 OFFSET 2)",
        "UPDATE tokens SET v = CAST(x'00ff' AS TEXT) WHERE (lk, k) IN (SELECT lk, k FROM tokens LIMIT 1)",
        "UPDATE tokens SET v = NULL WHERE (lk, k) IN (SELECT lk, k FROM tokens LIMIT 1 OFFSET 3)",
    ],
)
def test_a_corrupt_cache_row_is_recomputed(tmp_path, corruption: str) -> None:
    import sqlite3

    from korean_eval.engine.cache import DiskCache, NullCache
    from korean_eval.engine.pipeline import evaluate

    cold = evaluate(_three_systems(), _config(), cache=NullCache())
    first = DiskCache(tmp_path)
    first.store_results = False
    _assert_same_tables(evaluate(_three_systems(), _config(), cache=first), cold)
    con = sqlite3.connect(first.path)
    assert con.execute(corruption).rowcount >= 1
    con.commit()
    con.close()
    warm = DiskCache(tmp_path)
    warm.store_results = False
    _assert_same_tables(evaluate(_three_systems(), _config(), cache=warm), cold)
    assert warm.enabled and warm.problem == ""
