"""Each pipeline stage on its own (docs/design.md §2): plan → tokenise → score → collect → meta-evaluate.

Small hand-made inputs, exact expectations; the whole pipeline's numbers are checked against sacrebleu in
tests/unit/engine/test_speed_features.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from korean_eval.engine.cache import DiskCache, NullCache
from korean_eval.engine.collect import (
    Cell,
    collect_cell,
    segment_table,
    system_table,
    timing_table,
    token_stats_row,
)
from korean_eval.engine.human_side import HumanScores
from korean_eval.engine.pipeline import (
    Ticker,
    evaluate,
    given_cells,
    meta_evaluate_cell,
)
from korean_eval.engine.planning import (
    level_pairs,
    lookup_tokens,
    plan_level,
    plan_run,
    tokenize_texts,
    work_order,
)
from korean_eval.engine.scoring import dispatch_level, score_cell
from korean_eval.engine.tokenise_stage import prepare_level, tokenise
from korean_eval.engine.workers import Scheduler
from korean_eval.metrics import make_metric
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet


@pytest.fixture
def tiny() -> EvalSet:
    """Two systems × three segments; system B lacks segment 2 and repeats system A's hypothesis of segment 0."""
    refs = [["고양이가 잔다", "비가 온다", "밥을 먹었다"]]
    systems = {"A": ["고양이가 잔다", "비 온다", "밥 먹었다"], "B": ["고양이가 잔다", "눈이 온다", None]}
    human = pd.DataFrame(
        {"system": ["A", "A", "A", "B", "B"], "seg_id": ["0", "1", "2", "0", "1"], "score": [90.0, 60, 70, 85, 20]}
    )
    return EvalSet(["0", "1", "2"], refs, systems, human=human)


def tokens_at(name: str, evalset: EvalSet, config: EvalConfig) -> tuple:
    level = prepare_level(name, evalset, config)
    texts = plan_run(evalset, config).texts
    tok, _, _ = tokenize_texts(level, texts, NullCache())
    return level, tok


# ---- plan ---------------------------------------------------------------------------------------------------


def test_plan_run_orders_the_longest_levels_first_and_counts_the_steps(tiny):
    config = EvalConfig(levels=("word", "mecab", "char", "jamo"), metrics=("bleu", "ter"))
    run = plan_run(tiny, config)
    assert run.levels == ["word", "mecab", "char", "jamo"]
    assert run.work_order == ["jamo", "char", "word", "mecab"] == work_order(run.levels)
    assert run.texts == tiny.refs[0] + ["고양이가 잔다", "비 온다", "밥 먹었다", "고양이가 잔다", "눈이 온다"]
    assert run.words == 16
    assert run.steps == 4 * (1 + 2) + 1


def test_plan_run_without_references_has_no_levels(tiny):
    no_text = EvalSet(tiny.seg_ids, [], {"A": [], "B": []}, human=tiny.human)
    run = plan_run(no_text, EvalConfig())
    assert run.levels == run.work_order == [] and run.steps == 1


def test_plan_level_lists_the_pairs_to_compute(tiny):
    config = EvalConfig(levels=("char",), metrics=("bleu", "chrf"))
    level, tok = tokens_at("char", tiny, config)
    plan = plan_level("char", level, tok, tiny, config, NullCache())
    assert plan.positions.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]]
    assert plan.hyps == [tok[h] for h in ["고양이가 잔다", "비 온다", "밥 먹었다", "고양이가 잔다", "눈이 온다"]]
    assert plan.refs == [[tok[r] for r in ["고양이가 잔다", "비가 온다", "밥을 먹었다", "고양이가 잔다", "비가 온다"]]]
    assert plan.keys[0] == plan.keys[3]  # same hypothesis and reference: one pair key
    assert plan.ref_ids.tolist() == [0, 1, 2, 0, 1] and len(plan.unique_refs) == 3
    assert [p.name for p in plan.metrics] == ["bleu", "chrf"]
    for p in plan.metrics:
        assert p.todo == [0, 1, 2, 4]  # pair 3 repeats pair 0
        assert not p.found.any()


def test_plan_level_computes_only_what_the_cache_lacks(tiny, tmp_path):
    config = EvalConfig(levels=("word",), metrics=("bleu",))
    level, tok = tokens_at("word", tiny, config)
    cache = DiskCache(tmp_path)
    first = plan_level("word", level, tok, tiny, config, cache)
    p = first.metrics[0]
    stats = p.metric.segment_statistics([first.hyps[i] for i in (0, 2)], [[first.refs[0][i] for i in (0, 2)]])
    cache.put_stats(p.key, zip([first.keys[0], first.keys[2]], stats, p.metric.segment_scores(stats), strict=True))
    again = plan_level("word", level, tok, tiny, config, cache).metrics[0]
    assert again.found.tolist() == [True, False, True, True, False]
    assert again.todo == [1, 4]
    assert np.array_equal(again.stats[[0, 2, 3]], stats[[0, 1, 0]])


# ---- tokenise -----------------------------------------------------------------------------------------------


def test_token_lookup_reads_what_tokenising_stored(tiny, tmp_path):
    level = prepare_level("char", tiny, EvalConfig())
    texts = plan_run(tiny, EvalConfig()).texts
    cold = lookup_tokens(level, texts, DiskCache(tmp_path))
    assert len(cold.missing) == len(set(texts)) and not cold.tokens
    tok, _, _ = tokenize_texts(level, texts, DiskCache(tmp_path))
    warm = lookup_tokens(level, texts, DiskCache(tmp_path))
    assert warm.missing == [] and warm.tokens == tok
    assert tok["비 온다"] == "비 온 다"


def test_tokenise_stage_yields_every_level_in_work_order_with_progress(tiny):
    config = EvalConfig(levels=("word", "char", "jamo"), metrics=("bleu",), jobs=1)
    run = plan_run(tiny, config)
    messages: list[tuple[float, str]] = []
    ticker = Ticker(lambda f, m: messages.append((f, m)), run.steps)
    levels = list(tokenise(run, tiny, config, NullCache(), Scheduler(1), ticker))
    assert [t.name for t in levels] == ["jamo", "char", "word"]
    assert [m for _, m in messages] == [f"tokenising at level {t.name}" for t in levels]
    assert [f for f, _ in messages] == [0.0, 1 / run.steps, 2 / run.steps] and ticker.done == 3
    word = levels[2]
    assert word.tokens["고양이가 잔다"] == "고양이가 잔다" and word.fallbacks == 0
    row = token_stats_row(word, run.texts, run.words)
    assert (row["level"], row["tokens"], row["words"], row["tokens_per_word"]) == ("word", 16, 16, 1.0)


# ---- score --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["bleu", "chrf", "chrf++", "ter", "eed"])
def test_score_cell_equals_the_metric_called_directly(tiny, metric):
    config = EvalConfig(levels=("char",), metrics=(metric,), jobs=1)
    level, tok = tokens_at("char", tiny, config)
    plan = plan_level("char", level, tok, tiny, config, NullCache())
    sched = Scheduler(1)
    (source,) = dispatch_level(plan, tiny.n_refs, config, sched)
    scored = score_cell(plan, plan.metrics[0], source, (2, 3), tiny.n_refs, NullCache(), sched)
    direct = make_metric(metric)
    expected = direct.segment_statistics(plan.hyps, plan.refs)
    assert np.array_equal(scored.stats[plan.positions[:, 0], plan.positions[:, 1]], expected)
    assert np.isnan(scored.stats[1, 2]).all() and np.isnan(scored.cell.segment_scores[1, 2])
    assert scored.cell.segment_scores[0].tolist() == list(direct.segment_scores(expected[:3]))
    assert scored.cell.system_scores.tolist() == [direct.corpus_score(expected[:3]), direct.corpus_score(expected[3:])]
    assert scored.cell.signature.endswith(f"|level:{level.version()}")
    assert scored.cell.higher_is_better == direct.info.higher_is_better


def test_nothing_is_dispatched_for_cached_metrics(tiny, tmp_path):
    config = EvalConfig(levels=("word",), metrics=("bleu", "chrf"), jobs=1)
    level, tok = tokens_at("word", tiny, config)
    cold = evaluate(tiny, config, cache=DiskCache(tmp_path))
    plan = plan_level("word", level, tok, tiny, config, DiskCache(tmp_path))
    sched = Scheduler(1)
    assert dispatch_level(plan, tiny.n_refs, config, sched) == [None, None]
    scored = score_cell(plan, plan.metrics[1], None, (2, 3), tiny.n_refs, NullCache(), sched)
    assert np.array_equal(scored.cell.segment_scores, cold.segment_matrices[("word", "chrf")], equal_nan=True)


# ---- collect ------------------------------------------------------------------------------------------------


def test_collect_cell_makes_one_row_per_present_pair_and_per_system():
    seg = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    cell = Cell("char", "bleu", seg, np.array([2.5, np.nan]), "sig", True)
    rows = collect_cell(cell, ["A", "B"], ["s0", "s1", "s2"])
    assert rows.segments.to_dict("records") == [
        {"system": "A", "seg_id": "s0", "level": "char", "metric": "bleu", "score": 1.0},
        {"system": "A", "seg_id": "s2", "level": "char", "metric": "bleu", "score": 3.0},
    ]
    assert [(r["system"], r["n_segments"], r["signature"]) for r in rows.systems] == [("A", 2, "sig"), ("B", 0, "sig")]
    assert np.isnan(rows.systems[1]["score"])
    table = system_table([rows, rows])
    assert list(table.columns) == ["system", "level", "metric", "score", "signature", "n_segments"] and len(table) == 4
    assert len(segment_table([rows, rows])) == 4 and segment_table([]).empty


def test_timing_table_keeps_the_stage_order_and_adds_worker_seconds():
    table = timing_table(
        [("char", 1.0), ("word", 2.0)],
        [[("char", "bleu", 0.5), ("char", "ter", 0.25)], [("word", "bleu", 0.125)]],
        [("char", "bleu", 0.1), ("char", "ter", 0.2), ("word", "bleu", 0.3), ("given", "x", 0.4)],
        {("char", "bleu"): 3.0, ("char", ""): 9.0},
    )
    assert list(table.itertuples(index=False, name=None)) == [
        ("tokenise", "char", "", 1.0),
        ("score", "char", "bleu", 3.5),
        ("score", "char", "ter", 0.25),
        ("tokenise", "word", "", 2.0),
        ("score", "word", "bleu", 0.125),
        ("meta", "char", "bleu", 0.1),
        ("meta", "char", "ter", 0.2),
        ("meta", "word", "bleu", 0.3),
        ("meta", "given", "x", 0.4),
    ]


# ---- meta-evaluate ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "ter_cap", "capped"), [("ter", True, True), ("ter", False, False), ("bleu", True, False)]
)
def test_meta_evaluate_cell_caps_only_ter_and_only_when_asked(metric, ter_cap, capped):
    seg = np.array([[150.0, 20.0, 30.0], [40.0, 250.0, 10.0]])
    human = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])  # humans prefer A
    humans = HumanScores(human, human.mean(axis=1))
    cell = Cell("char", metric, seg, np.array([60.0, 90.0]), "sig", metric != "ter")
    out = meta_evaluate_cell(cell, ["A", "B"], humans, EvalConfig(ter_cap=ter_cap))
    assert np.array_equal(out.matrix, np.minimum(seg, 100.0) if capped else seg)
    assert {(r["level"], r["metric"]) for r in out.correlations} == {("char", metric)}
    assert [r["system"] for r in out.rankings] == ["A", "B"]
    assert len(out.flips) == (0 if metric == "ter" else 1)  # lower TER (A) agrees with the humans, higher BLEU (B) not


def test_given_cells_follow_the_declared_direction(tiny):
    tiny.given = pd.DataFrame(
        {"system": ["A", "B", "A"], "seg_id": ["0", "0", "1"], "metric": ["X", "X", "Y"], "score": [1.0, 2.0, 4.0]}
    )
    cells, notes = given_cells(tiny, EvalConfig(given_lower_is_better=("X", "Z")))
    assert [(c.level, c.metric, c.higher_is_better) for c in cells] == [("given", "X", False), ("given", "Y", True)]
    assert cells[0].system_scores.tolist() == [1.0, 2.0] and "lower is better" in cells[0].signature
    assert notes == ["lower-is-better metric(s) not among your metric scores: Z"]


# ---- the runner ---------------------------------------------------------------------------------------------


def test_runner_reports_every_stage_in_order(tiny):
    config = EvalConfig(levels=("word", "char"), metrics=("bleu", "ter"), jobs=1)
    messages: list[tuple[float, str]] = []
    results = evaluate(tiny, config, lambda f, m: messages.append((f, m)))
    steps = 2 * 3 + 1
    # each step's first report, without the counts a step reports as its tasks finish ("…: 2 of 4 cells"), nor
    # the repeats of a report while the run waits
    labels = [(f, m.split(": ")[0]) for f, m in messages]
    firsts = [(f, m) for i, (f, m) in enumerate(labels) if i == 0 or labels[i - 1][1] != m]
    assert firsts == [
        (0 / steps, "tokenising at level char"),
        (1 / steps, "tokenising at level word"),
        (2 / steps, "scoring bleu at level word"),
        (3 / steps, "scoring ter at level word"),
        (4 / steps, "scoring bleu at level char"),
        (5 / steps, "scoring ter at level char"),
        (6 / steps, "meta-evaluation"),
        (1.0, "done"),
    ]
    assert list(results.timings[["stage", "level", "metric"]].itertuples(index=False, name=None)) == [
        ("tokenise", "word", ""), ("score", "word", "bleu"), ("score", "word", "ter"),
        ("tokenise", "char", ""), ("score", "char", "bleu"), ("score", "char", "ter"),
        ("meta", "word", "bleu"), ("meta", "word", "ter"), ("meta", "char", "bleu"), ("meta", "char", "ter"),
    ]  # fmt: skip
    assert list(results.stats) == [("word", "bleu"), ("word", "ter"), ("char", "bleu"), ("char", "ter")]
    assert level_pairs(tiny, results.tokens["word"])[0] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
