"""Headlines that state significance and grids that scale: the top significance cluster found with only the tests
it needs equals the full clustering's; the cards' statements; every chart labels every row and column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables import significance as sig
from korean_eval.model.config import EvalConfig
from ui import charts, grid_charts, headlines

LEVELS = ["word", "mecab", "kiwi", "okt", "komoran", "kkma", "hannanum", "spm", "char", "jamo"]
METRICS = ["bleu", "chrf", "chrf+", "chrf++", "ter", "nltk-bleu", "gleu", "nist", "ribes", "character", "eed"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield evaluate(load_sample(), EvalConfig(levels=("word", "char", "jamo")))


# ------------------------------------------------------------------------------------------ top cluster


@pytest.mark.parametrize(("statistic", "granularity"), [("pearson", "segment"), ("kendall", "system")])
def test_top_cluster_equals_the_first_cluster_of_the_full_table(results, statistic, granularity):
    full = sig.significance_table(results, statistic, granularity, "none", tests=("perm-inputs",))
    clusters = sig.rank_clusters_table(results, statistic, granularity, "none", table=full)
    table, top = sig.top_cluster_table(results, statistic, granularity, "none")
    expected = list(clusters.loc[clusters["cluster"] == 1, "config"])
    assert list(top.loc[top["cluster"] == 1, "config"]) == expected
    assert len(top) == min(len(expected) + 1, len(clusters))  # walked down to the first configuration below
    if len(top) > len(expected):
        assert top["cluster"].iloc[-1] == 2 and top["config"].iloc[-1] == clusters["config"].iloc[len(expected)]
    # only the pairs (earlier, candidate) of the walked configurations were tested, with the full table's p-values
    walked = len(top)
    assert len(table) == walked * (walked - 1) <= len(full)
    merged = table.merge(full, on=["config_a", "config_b", "test"], suffixes=("", "_full"))
    assert len(merged) == len(table)
    for column in ("p_value", "r_a", "r_b", "n", "method"):
        assert (merged[column] == merged[f"{column}_full"]).all(), column


def test_significance_table_of_chosen_pairs_and_its_progress(results):
    configs = ["word/bleu", "char/chrf", "jamo/ter"]
    calls = []
    table = sig.significance_table(results, "pearson", "segment", "none", tests=("perm-inputs",), configs=configs,
                                   pairs=[("word/bleu", "jamo/ter")], progress=lambda f, m: calls.append(f))
    assert set(zip(table["config_a"], table["config_b"], strict=True)) == {("word/bleu", "jamo/ter"),
                                                                          ("jamo/ter", "word/bleu")}
    assert calls and calls[-1] == 1.0
    full = sig.significance_table(results, "pearson", "segment", "none", tests=("perm-inputs",), configs=configs)
    assert full.set_index(["config_a", "config_b"]).loc[("jamo/ter", "word/bleu"), "p_value"] == pytest.approx(
        table.set_index(["config_a", "config_b"]).loc[("jamo/ter", "word/bleu"), "p_value"], abs=0)


# ------------------------------------------------------------------------------------------------ cards


def clusters_of(values: list[float], clusters: list[int], metric: str = "chrf+") -> pd.DataFrame:
    levels = [f"l{k}" for k in range(len(values))]
    return pd.DataFrame({"config": [f"{lv}/{metric}" for lv in levels], "level": levels, "metric": metric,
                         "sign": 1.0, "correlation": values, "cluster": clusters})


def chart_of(clusters: pd.DataFrame, granularity: str = "segment") -> pd.DataFrame:
    """The chart's rows of the configurations of ``clusters``, as :func:`ui.views.correlation_view` gives them
    (agreement drawn: an error rate negated and labelled with a minus)."""
    negated = clusters["sign"] < 0
    label = clusters["metric"].map(lambda m: {"chrf+": "chrF+", "ter": "TER"}.get(m, m))
    return pd.DataFrame({"granularity": granularity, "level": clusters["level"], "metric": clusters["metric"],
                         "value": clusters["correlation"] * clusters["sign"], "shown": clusters["correlation"],
                         "shown_label": np.where(negated, "−" + label, label)})


def basis(granularity: str = "segment", statistic: str = "pearson", **kw) -> headlines.Basis:
    return headlines.Basis(statistic, granularity, "none", "paired permutation test",
                           kw.pop("resampling", "Monte-Carlo, 1,000 permutations, seed 12345"), **kw)


def card_of(clusters: pd.DataFrame, n_defined: int, n_systems: int, **kw) -> headlines.Card:
    b = basis(**kw)
    return headlines.cluster_card(clusters, chart_of(clusters, b.granularity), b, n_defined, n_systems)


def test_card_names_the_top_cluster_and_its_range():
    card = card_of(clusters_of([0.514, 0.513, 0.505, 0.48], [1, 1, 1, 2]), 66, 20)
    assert card.statement == "chrF+ at l0 and 2 others tie at the top (r 0.505–0.514)"
    assert "Top significance cluster: 3 of 66" in card.detail and "paired permutation test" in card.detail
    assert "best" not in card.statement.lower() and card.caution == ""
    # the detail states statistic, grouping, test, resampling and α
    assert ("Decided by: Pearson r, segment level, grouping none (all (system, segment) pairs pooled); paired "
            "permutation test; Monte-Carlo, 1,000 permutations, seed 12345; α = 0.05.") in card.detail


def test_card_says_no_significant_difference_when_all_tie():
    card = card_of(clusters_of([0.51, 0.50, 0.50], [1, 1, 1]), 3, 20)
    assert card.statement == "No significant difference: all 3 configurations tie (r 0.50–0.51)"


def test_card_with_a_single_leader_names_the_next():
    clusters = clusters_of([0.9, 0.5], [1, 2], "ter").assign(sign=-1.0)
    card = card_of(clusters, 8, 20, statistic="kendall")
    assert card.statement.startswith("−TER at l0 agrees most with the humans (τ = 0.900), significantly more than "
                                     "the next, −TER at l1 (τ = 0.500)")


def test_system_card_counts_systems_and_warns_below_eight():
    few = card_of(clusters_of([0.99, 0.98], [1, 1]), 2, 5, granularity="system")
    assert few.title == "System level · 5 systems" and "too few to call a winner" in few.caution
    assert "Pearson r, system level (each system's corpus score against its mean human score)" in few.detail
    many = card_of(clusters_of([0.99, 0.98], [1, 1]), 2, 8, granularity="system")
    assert many.title == "System level · 8 systems" and many.caution == ""


def test_a_test_that_cannot_reach_alpha_is_never_a_tie():
    limit = ("With 4 systems the exact test has 16 sign patterns: its smallest p-value is 0.0625 > α = 0.05, so no "
             "difference can be significant; ≥ 5 systems needed")
    card = card_of(clusters_of([0.99, 0.98, 0.97], [1, 1, 1]), 3, 4, granularity="system",
                   resampling="exact, 16 sign patterns", limit=limit, cannot_separate=True)
    assert card.statement == "The test cannot separate these 3 configurations (r 0.97–0.99)"
    assert "tie" not in card.statement and "No significant difference" not in card.statement
    assert card.detail.startswith(limit + ". Decided by: Pearson r, system level")
    assert "exact, 16 sign patterns; α = 0.05" in card.detail


def test_the_card_reads_the_charts_rows():
    clusters = clusters_of([0.6, 0.5], [1, 2])
    chart = chart_of(clusters).assign(shown=[0.61, 0.52])  # a chart drawing other numbers: the card says those
    card = headlines.cluster_card(clusters, chart, basis(), 2, 20)
    assert "(r = 0.610)" in card.statement and "(r = 0.520)" in card.statement
    with pytest.raises(ValueError, match="not on the chart"):
        headlines.cluster_card(clusters, chart.iloc[:1], basis(), 2, 20)


def test_accuracies_are_never_called_winners():
    view = pd.DataFrame({"granularity": "segment", "level": ["word", "char"], "metric": "bleu",
                         "shown": [0.61, 0.63], "shown_label": "BLEU"})
    card = headlines.accuracy_card(view, "segment", "acc_eq", 20)
    assert card.statement.startswith("Highest acc_eq: BLEU at char (0.630") and "Not tested" in card.detail
    assert "grouping none (every pair of (system, segment) entries pooled)" in card.detail


def test_value_range_uses_the_decimals_it_needs():
    assert headlines.value_range([0.5012, 0.5049], "r") == "r 0.501–0.505"
    assert headlines.value_range([0.5, 0.5], "r") == "r = 0.500"
    assert headlines.value_range([-0.41, 0.2], "r") == "r −0.41–0.20"


def test_spread_card_states_the_test_of_its_two_ends():
    view = pd.DataFrame({"granularity": "segment", "level": ["word", "jamo", "word", "jamo"],
                         "metric": ["bleu", "bleu", "chrf", "chrf"], "shown": [0.30, 0.50, 0.45, 0.46],
                         "shown_label": ["BLEU", "BLEU", "chrF", "chrF"]})
    spread = headlines.level_spread(view)
    assert spread["metric"] == "bleu"
    card = headlines.spread_card(spread, "pearson", {"p_values": {"perm-inputs": 0.2}, "significant": False,
                                                     "methods": {"perm-inputs": "Monte-Carlo, 1000 permutations"}})
    assert card.title == "Token level matters most for BLEU" and card.statement == "r 0.300 at word → 0.500 at jamo"
    assert "do not differ significantly" in card.detail and "p = 0.200" in card.detail
    assert "Pearson r, segment level, grouping none" in card.detail
    assert "Monte-Carlo, 1,000 permutations, seed 12345; α = 0.05" in card.detail
    few = headlines.spread_card(spread, "pearson", {"p_values": {"perm-inputs": 0.25}, "significant": False,
                                                    "methods": {"perm-inputs": "exact, 4 patterns"}})
    assert few.detail.startswith("The test cannot separate the two ends (p = 0.250): With 2 segments the exact test "
                                 "has 4 sign patterns: its smallest p-value is 0.25 > α = 0.05")


# ------------------------------------------------------------------------------------------------ grids


def large_view(granularity: str = "segment") -> pd.DataFrame:
    rows = [
        {"granularity": granularity, "level": lv, "metric": m, "value": -0.4 if m == "ter" else 0.4 + 0.001 * k,
         "shown": 0.4 + 0.001 * k, "shown_low": np.nan, "shown_high": np.nan, "n": 10_000, "signature": "sig",
         "shown_label": ("−" if m == "ter" else "") + m.upper(), "metric_label": m.upper(), "family": "word",
         "ci_low": np.nan, "ci_high": np.nan}
        for k, (m, lv) in enumerate((m, lv) for m in METRICS for lv in LEVELS)
    ]
    return pd.DataFrame(rows)


def test_large_grid_labels_every_level_and_metric_and_outlines_the_top():
    view = large_view()
    top = frozenset({("word", "bleu"), ("jamo", "eed")})
    fig = grid_charts.correlation_chart(view, "segment", "pearson", "auto", top).to_plotly_json()
    heat = fig["data"][0]
    assert heat["type"] == "heatmap"
    layout = fig["layout"]
    assert layout["xaxis"]["tickmode"] == "array" and list(layout["xaxis"]["ticktext"]) == LEVELS
    assert layout["yaxis"]["tickmode"] == "array"
    assert list(layout["yaxis"]["ticktext"]) == list(dict.fromkeys(view["shown_label"]))
    assert len(layout["shapes"]) == 2  # the two top-cluster cells outlined
    text = np.array(heat["text"], dtype=object)
    assert text[0, 0] == "<b>0.400</b>" and text[-1, -1].startswith("<b>") and text[0, 1] == "0.401"
    assert layout["height"] >= 11 * grid_charts.ROW_PX
    assert heat["textfont"]["size"] >= charts.MIN_TEXT


def test_few_configurations_stay_bars_with_every_label_and_readable_values():
    view = large_view()
    view = view[view["level"].isin(["word", "char", "jamo"]) & view["metric"].isin(["bleu", "chrf"])]
    fig = grid_charts.correlation_chart(view, "segment", "pearson", "auto", frozenset({("char", "bleu")}))
    layout = fig.to_plotly_json()["layout"]
    assert all(t.type == "bar" for t in fig.data)
    assert layout["xaxis"]["tickmode"] == "linear" and layout["xaxis"]["dtick"] == 1
    assert layout["uniformtext"]["minsize"] >= charts.MIN_TEXT
    assert all(t.textfont.size >= charts.MIN_TEXT for t in fig.data)
    texts = [x for t in fig.data if t.text is not None for x in t.text]
    (outline,) = [t for t in fig.data if t.name == "top significance cluster"]
    assert [list(c) for c in outline.x] == [["BLEU"], ["char"]] and outline.marker.line.width > 0
    assert [x for x in texts if x.startswith("<b>")] == ["<b>0.41</b>"]  # char/bleu (0.408): the top cluster
    assert grid_charts.chart_form("grid", 6) == "grid" and grid_charts.chart_form("bars", 110) == "bars"
    assert grid_charts.chart_form("auto", grid_charts.BAR_LIMIT) == "bars"
    assert grid_charts.chart_form("auto", grid_charts.BAR_LIMIT + 1) == "grid"


@pytest.mark.parametrize("n", [25, 66])
def test_significance_matrix_labels_every_row_and_column_and_outlines_clusters(n):
    labels = [f"{m}@{lv}" for m in METRICS for lv in LEVELS][:n]
    clusters = sorted([1 + k // 10 for k in range(n)])
    matrix = pd.DataFrame(np.full((n, n), 0.5), index=labels, columns=labels)
    fig = grid_charts.significance_heatmap(matrix, labels, clusters, list(np.linspace(0.9, 0.2, n)), "t")
    layout = fig.to_plotly_json()["layout"]
    assert layout["yaxis"]["tickmode"] == layout["xaxis"]["tickmode"] == "array"
    assert len(layout["yaxis"]["ticktext"]) == n
    assert all(lab in row for lab, row in zip(labels, layout["yaxis"]["ticktext"], strict=True))
    # rows carry the names; columns their numbers, beyond 40 odd ones below, even ones above (a second axis over
    # the first)
    columns = dict(zip(layout["xaxis"]["tickvals"], layout["xaxis"]["ticktext"], strict=True))
    if n > grid_charts.MATRIX_ALTERNATE_FROM:
        assert layout["xaxis2"]["overlaying"] == "x" and layout["xaxis2"]["tickmode"] == "array"
        columns.update(zip(layout["xaxis2"]["tickvals"], layout["xaxis2"]["ticktext"], strict=True))
    else:
        assert "xaxis2" not in layout
    assert [columns[k] for k in range(n)] == [str(k) for k in range(1, n + 1)]
    assert len(layout["shapes"]) == len(set(clusters))
    assert layout["height"] >= n * grid_charts.MATRIX_ROW_PX
    assert layout["yaxis"]["tickfont"]["size"] >= charts.MIN_TEXT


def test_pairwise_accuracy_grid_and_flip_grid_label_everything():
    acc = pd.DataFrame([{"metric": m, "metric_label": m.upper(), "level": lv, "family": "word",
                         "pairwise_accuracy": 0.9, "n_pairs": 190, "spa": 0.95} for m in METRICS for lv in LEVELS])
    fig = grid_charts.accuracy_chart(acc).to_plotly_json()
    assert fig["data"][0]["type"] == "heatmap"
    assert list(fig["layout"]["xaxis"]["ticktext"]) == LEVELS
    assert list(fig["layout"]["yaxis"]["ticktext"]) == [m.upper() for m in METRICS]
    assert np.array(fig["data"][0]["text"], dtype=object)[0, 0] == "171/190"
    counts = pd.DataFrame(1, index=[m.upper() for m in METRICS], columns=LEVELS)
    flips = grid_charts.flip_heatmap(counts, 190).to_plotly_json()["layout"]
    assert list(flips["xaxis"]["ticktext"]) == LEVELS and flips["xaxis"]["tickmode"] == "array"
