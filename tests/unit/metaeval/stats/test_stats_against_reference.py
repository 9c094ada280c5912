"""Tests of the pure layer of korean_eval.metaeval (names, correlations, significance tests, bootstrap CIs,
system-pair labels), the fast functions against the loops of korean_eval.metaeval.stats.reference."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from korean_eval.metaeval.stats import permutation
from korean_eval.metaeval.stats.comparisons import (
    compare_correlations,
    pair_correlations,
    rank_clusters,
    williams_test,
)
from korean_eval.metaeval.stats.correlation import (
    correlate,
    correlation,
    segment_correlation,
    system_correlation,
    system_means,
)
from korean_eval.metaeval.stats.pairwise import (
    SYSTEM_PAIR_LABELS,
    label_system_pair,
    paired_bootstrap_from_resamples,
    paired_bootstrap_means,
    pairwise_accuracy,
    wilcoxon_ranksum_human,
)
from korean_eval.metaeval.stats.permutation import permutation_deltas, permutation_p, permutation_test
from korean_eval.metaeval.stats.reference import (
    exact_permutation_p_loop,
    paired_bootstrap_means_loop,
    paired_bootstrap_metric,
    permutation_deltas_loop,
    resampled_segment_correlations,
    resampled_system_correlations,
    resampled_system_correlations_from_scores,
)
from korean_eval.metaeval.stats.resampling import (
    bootstrap_indices,
    bootstrap_segment_correlations,
    bootstrap_system_scores,
    count_weighted_means,
    percentile_ci,
    resample_counts,
    system_correlations,
)
from korean_eval.metaeval.stats.weighted import weighted_correlations
from korean_eval.model.vocabulary import (
    GRANULARITIES,
    GROUPINGS,
    STATISTICS,
    check_choice,
    config_label,
    config_name,
    direction_sign,
    grouping_used,
    is_grouped,
    parse_config,
)

# ----------------------------------------------------------------------------------------------------------------
# fixtures / helpers
# ----------------------------------------------------------------------------------------------------------------


def _synthetic(
    n_systems: int = 5, n_items: int = 40, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Human matrix and two metric matrices correlated with it (b noisier than a), a few human scores missing."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(n_systems, 1)) + rng.normal(size=(n_systems, n_items))
    human = quality + 0.3 * rng.normal(size=quality.shape)
    a = quality + 0.5 * rng.normal(size=quality.shape)
    b = quality + 1.5 * rng.normal(size=quality.shape)
    human[rng.random(human.shape) < 0.1] = np.nan
    return human, a, b


def _ratio(sums: np.ndarray) -> np.ndarray:
    """A minimal "metric": corpus score = summed matches / summed length."""
    return sums[..., 0] / sums[..., 1]


def _segment_values(metric: np.ndarray, human: np.ndarray, statistic: str, grouping: str, idx: np.ndarray) -> np.ndarray:
    """Resampled segment-level correlations of the index matrix ``idx`` (the fast path)."""
    return bootstrap_segment_correlations(metric, human, statistic, grouping, resample_counts(idx, metric.shape[1]))


def _system_values(stats: np.ndarray, human: np.ndarray, statistic: str, idx: np.ndarray) -> np.ndarray:
    """Resampled system-level correlations, system scores from summed statistics (the fast path)."""
    counts = resample_counts(idx, stats.shape[1])
    return system_correlations(bootstrap_system_scores(stats, _ratio, counts), count_weighted_means(counts, human), statistic)


def _system_values_from_scores(seg: np.ndarray, human: np.ndarray, statistic: str, idx: np.ndarray) -> np.ndarray:
    """Resampled system-level correlations, system score = mean of segment scores (the fast path)."""
    counts = resample_counts(idx, seg.shape[1])
    return system_correlations(count_weighted_means(counts, seg), count_weighted_means(counts, human), statistic)


# ----------------------------------------------------------------------------------------------------------------
# vocabulary and correlations
# ----------------------------------------------------------------------------------------------------------------


def test_vocabulary_and_configuration_names() -> None:
    assert check_choice("grouping", "item", GROUPINGS) == "item"
    with pytest.raises(ValueError, match="unknown granularity 'corpus'; choose one of segment, system"):
        check_choice("granularity", "corpus", GRANULARITIES)
    assert grouping_used("system", "item") == "none" and grouping_used("segment", "item") == "item"
    assert is_grouped("segment", "system") and not is_grouped("system", "system")
    assert not is_grouped("segment", "none")
    assert config_name("char", "chrf") == "char/chrf"
    assert parse_config("char/chrf") == ("char", "chrf") == parse_config(("char", "chrf"))
    assert parse_config("given/my/metric") == ("given", "my/metric")
    with pytest.raises(ValueError, match="level/metric"):
        parse_config("chrf")
    assert config_label("chrF", "char") == "chrF@char"
    assert (direction_sign(True), direction_sign(False)) == (1.0, -1.0)


def test_correlation_dispatches_on_granularity_and_validates() -> None:
    human, a, _ = _synthetic()
    for grouping in GROUPINGS:
        assert correlation(a, human, "kendall", "segment", grouping) == segment_correlation(a, human, "kendall", grouping)
    sys_a, sys_h = a.mean(axis=1), system_means(human)
    np.testing.assert_allclose(sys_h, np.nanmean(human, axis=1), rtol=1e-15)
    assert correlation(sys_a, sys_h, "pearson", "system") == system_correlation(sys_a, sys_h, "pearson")
    assert np.isnan(system_means(np.array([[np.nan, np.nan]]))[0])
    with pytest.raises(ValueError, match="unknown correlation statistic 'tau'"):
        correlate(np.arange(3.0), np.arange(3.0), "tau")
    with pytest.raises(ValueError, match="unknown grouping"):
        segment_correlation(a, human, "pearson", "segment")
    with pytest.raises(ValueError, match="unknown granularity"):
        correlation(a, human, "pearson", "corpus")


# ----------------------------------------------------------------------------------------------------------------
# Williams
# ----------------------------------------------------------------------------------------------------------------


def test_williams_acceptance_numbers() -> None:
    assert round(williams_test(0.65, 0.55, 0.30, 50), 4) == 0.2093
    assert round(williams_test(0.65, 0.55, 0.30, 50, df_offset=3), 4) == 0.2093
    assert round(williams_test(0.65, 0.55, 0.30, 50, df_offset=2), 4) == 0.2092
    # df_offset changes only the t distribution's df; the (n-3) inside t stays (n-2 there too would give 0.2071).
    k = 1 - 0.65**2 - 0.55**2 - 0.30**2 + 2 * 0.65 * 0.55 * 0.30
    t = 0.10 * np.sqrt(49 * 1.30) / np.sqrt(2 * k * 49 / 47 + (1.2**2 / 4) * 0.7**3)
    assert williams_test(0.65, 0.55, 0.30, 50, df_offset=2) == pytest.approx(sps.t.sf(t, 48), rel=1e-12)


def test_williams_direction_and_undefined() -> None:
    assert williams_test(0.55, 0.65, 0.30, 50) == pytest.approx(1 - williams_test(0.65, 0.55, 0.30, 50))
    assert williams_test(0.6, 0.6, 0.5, 30) == pytest.approx(0.5)
    assert np.isnan(williams_test(float("nan"), 0.5, 0.3, 50))
    assert np.isnan(williams_test(0.6, 0.5, 0.3, 3))


# ----------------------------------------------------------------------------------------------------------------
# seeding
# ----------------------------------------------------------------------------------------------------------------


def test_bootstrap_indices_seeded() -> None:
    a = bootstrap_indices(30, 200, seed=7)
    assert a.shape == (200, 30) and a.min() >= 0 and a.max() < 30
    np.testing.assert_array_equal(a, bootstrap_indices(30, 200, seed=7))
    assert not np.array_equal(a, bootstrap_indices(30, 200, seed=8))
    # the same draw as sacrebleu's paired bootstrap
    expected = np.random.default_rng(12345).choice(30, size=(1000, 30), replace=True)
    np.testing.assert_array_equal(bootstrap_indices(30), expected)


def test_resample_counts() -> None:
    idx = np.array([[0, 0, 2], [1, 2, 2]])
    np.testing.assert_array_equal(resample_counts(idx, 3), [[2, 0, 1], [0, 1, 2]])


def test_bootstrap_ci_and_permutation_repeatable() -> None:
    human, a, b = _synthetic(n_items=20)
    ci1 = percentile_ci(_segment_values(a, human, "pearson", "none", bootstrap_indices(20, 200, seed=1)))
    ci2 = percentile_ci(_segment_values(a, human, "pearson", "none", bootstrap_indices(20, 200, seed=1)))
    ci3 = percentile_ci(_segment_values(a, human, "pearson", "none", bootstrap_indices(20, 200, seed=2)))
    assert ci1 == ci2 and ci1 != ci3

    # a case with a mid-range p-value, so that another seed visibly changes the Monte-Carlo estimate
    rng = np.random.default_rng(3)
    h = rng.normal(size=(4, 25))  # 25 items: Monte-Carlo (up to 16 the test is exact and ignores the seed)
    m1 = h + rng.normal(size=h.shape)
    m2 = h + 1.1 * rng.normal(size=h.shape)
    p1 = permutation_test(m1, m2, h, "pearson", n_permutations=300, seed=1)
    assert 0.05 < p1 < 0.95
    assert p1 == permutation_test(m1, m2, h, "pearson", n_permutations=300, seed=1)
    assert p1 != permutation_test(m1, m2, h, "pearson", n_permutations=300, seed=2)


# ----------------------------------------------------------------------------------------------------------------
# permutation test vs exact enumeration
# ----------------------------------------------------------------------------------------------------------------


def _exact_permutation_p(a: np.ndarray, b: np.ndarray, h: np.ndarray, corr, axis_units: int) -> float:
    """Exact p over all 2**n_units swap patterns (independent re-implementation)."""

    def z(x: np.ndarray) -> np.ndarray:
        return (x - x.mean()) / x.std()

    za, zb = z(a), z(b)
    observed = corr(za, h) - corr(zb, h)
    hits = 0
    patterns = list(itertools.product([False, True], repeat=axis_units))
    for pattern in patterns:
        swap = np.array(pattern)
        pa, pb = np.where(swap, zb, za), np.where(swap, za, zb)
        hits += corr(pa, h) - corr(pb, h) >= observed - 1e-12
    return hits / len(patterns)


def _exact_example(granularity: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, object, int]:
    """3 systems x 6 items (segment, Pearson) or 6 systems (system, Spearman): 2**6 swap patterns."""
    rng = np.random.default_rng(11)
    if granularity == "segment":
        h = rng.normal(size=(3, 6))
        a, b = h + 0.8 * rng.normal(size=h.shape), h + 1.2 * rng.normal(size=h.shape)
        return a, b, h, "pearson", lambda x, y: segment_correlation(x, y, "pearson", "none")[0], 6
    h = rng.normal(size=6)
    a, b = h + 0.8 * rng.normal(size=6), h + 1.2 * rng.normal(size=6)
    return a, b, h, "spearman", lambda x, y: system_correlation(x, y, "spearman")[0], 6


@pytest.mark.parametrize("granularity", ["segment", "system"])
def test_small_permutation_test_is_exact(granularity: str) -> None:
    a, b, h, stat, corr, units = _exact_example(granularity)
    exact = _exact_permutation_p(a, b, h, corr, units)
    got = permutation_deltas(a, b, h, stat, granularity=granularity, n_permutations=4000, seed=5)
    assert got.exact and got.method == "exact, 64 patterns"
    assert 0.02 < exact < 0.98 and got.p_value() == pytest.approx(exact, abs=1e-12)
    assert permutation_test(a, b, h, stat, granularity=granularity, seed=99) == got.p_value()  # no seed involved


@pytest.mark.parametrize("granularity", ["segment", "system"])
def test_monte_carlo_permutation_matches_exact_enumeration(granularity: str, monkeypatch) -> None:
    """Forced to Monte-Carlo (at most 4 units exact), the estimate is within noise of the exact p."""
    a, b, h, stat, corr, units = _exact_example(granularity)
    n_perm = 4000
    monkeypatch.setattr(permutation, "MAX_EXACT_UNITS", 4)
    permutation._swap_weights.cache_clear()
    got = permutation_deltas(a, b, h, stat, granularity=granularity, n_permutations=n_perm, seed=5)
    permutation._swap_weights.cache_clear()
    exact = _exact_permutation_p(a, b, h, corr, units)
    assert not got.exact and got.method == f"Monte-Carlo, {n_perm} permutations"
    se = np.sqrt(exact * (1 - exact) / n_perm)
    assert abs(got.p_value() - exact) < 4 * se + 1 / (n_perm + 1), (got.p_value(), exact)


@pytest.mark.parametrize(("statistic", "grouping"), [("pearson", "none"), ("kendall", "item"), ("spearman", "system")])
def test_four_systems_give_p_in_sixteenths(statistic: str, grouping: str) -> None:
    """4 systems: 2**4 = 16 swap patterns at the system level, so every p is k/16 and none is below 1/16; equal to
    the brute-force loop over all patterns. At the segment level with 5 items: k/32."""
    rng = np.random.default_rng(4)
    for _ in range(5):
        h = rng.normal(size=4)
        a, b = h + 0.2 * rng.normal(size=4), h + rng.normal(size=4)
        for x, y in ((a, b), (b, a)):
            p = permutation_test(x, y, h, statistic, "system")
            assert p * 16 == pytest.approx(round(p * 16), abs=1e-9) and p >= 1 / 16
            assert p == pytest.approx(exact_permutation_p_loop(x, y, h, statistic, "system", "none"), abs=1e-12)
    h = rng.normal(size=(4, 5)).round(1)
    a, b = (h + 0.3 * rng.normal(size=h.shape)).round(1), (h + rng.normal(size=h.shape)).round(1)
    got = permutation_deltas(a, b, h, statistic, "segment", grouping)
    assert got.method == "exact, 32 patterns"
    assert got.p_value() * 32 == pytest.approx(round(got.p_value() * 32), abs=1e-9)
    assert got.p_value() == pytest.approx(exact_permutation_p_loop(a, b, h, statistic, "segment", grouping), abs=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# confidence intervals
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statistic", "grouping"), [("pearson", "none"), ("kendall", "item"), ("spearman", "system")]
)
def test_segment_ci_contains_point_estimate(statistic: str, grouping: str) -> None:
    human, a, _ = _synthetic(n_items=30)
    point = segment_correlation(a, human, statistic, grouping)[0]
    lo, hi = percentile_ci(_segment_values(a, human, statistic, grouping, bootstrap_indices(30, 200)))
    assert lo < point < hi
    assert hi - lo < 0.6


def test_system_ci_contains_point_estimate() -> None:
    rng = np.random.default_rng(4)
    n_sys, n_items = 8, 60
    level = np.linspace(0.2, 0.6, n_sys)[:, None]
    length = rng.integers(5, 20, size=(n_sys, n_items)).astype(float)
    matches = rng.binomial(length.astype(int), np.broadcast_to(level, length.shape)).astype(float)
    stats = np.stack([matches, length], axis=-1)
    human = level + 0.2 * rng.normal(size=(n_sys, n_items))
    human[rng.random(human.shape) < 0.2] = np.nan
    point = system_correlation(_ratio(stats.sum(axis=1)), np.nanmean(human, axis=1), "pearson")[0]
    lo, hi = percentile_ci(_system_values(stats, human, "pearson", bootstrap_indices(n_items, 300)))
    assert lo < point < hi
    seg = matches / length
    point_s = system_correlation(seg.mean(axis=1), np.nanmean(human, axis=1), "pearson")[0]
    lo_s, hi_s = percentile_ci(_system_values_from_scores(seg, human, "pearson", bootstrap_indices(n_items, 300)))
    assert lo_s < point_s < hi_s


def test_system_ci_uses_summed_statistics() -> None:
    # (matches, length) per segment. Ratio of sums: 0.1, 0.2, 0.3; mean of segment ratios: 0.5, 0.2, 0.3.
    stats = np.array(
        [
            [[1, 1], [0, 9]],
            [[2, 10], [2, 10]],
            [[3, 10], [3, 10]],
        ],
        dtype=float,
    )
    human = np.array([[0.1, np.nan], [0.2, 0.2], [0.3, 0.3]])
    every_item_once = np.tile(
        np.arange(2), (5, 1)
    )  # each "resample" is the full set: CI collapses to the estimate
    for values in (
        _system_values(stats, human, "spearman", every_item_once),
        resampled_system_correlations(stats, _ratio, human, "spearman", every_item_once),
    ):
        assert percentile_ci(values) == pytest.approx((1.0, 1.0))
    seg_scores = stats[..., 0] / stats[..., 1]
    for values in (
        _system_values_from_scores(seg_scores, human, "spearman", every_item_once),
        resampled_system_correlations_from_scores(seg_scores, human, "spearman", every_item_once),
    ):
        assert percentile_ci(values) == pytest.approx((-0.5, -0.5))  # averaging segment scores: another answer

    # random resamples: the vectorised path equals the loop summing the drawn rows per system
    rng = np.random.default_rng(9)
    stats = np.stack([rng.integers(0, 10, size=(4, 12)), rng.integers(10, 20, size=(4, 12))], axis=-1).astype(
        float
    )
    human = rng.normal(size=(4, 12))
    human[0, :6] = np.nan
    idx = bootstrap_indices(12, 50, seed=3)
    loop = resampled_system_correlations(stats, _ratio, human, "pearson", idx)
    np.testing.assert_allclose(_system_values(stats, human, "pearson", idx), loop, rtol=0, atol=1e-12)


def test_percentile_ci_drops_nan() -> None:
    assert percentile_ci(np.array([np.nan, 1.0, 2.0, 3.0]), alpha=0.0) == (1.0, 3.0)
    assert all(np.isnan(percentile_ci(np.array([np.nan]))))


# ----------------------------------------------------------------------------------------------------------------
# comparing configurations
# ----------------------------------------------------------------------------------------------------------------


def test_compare_correlations_segment_and_system() -> None:
    human, a, b = _synthetic(n_items=25)
    c = compare_correlations(a, b, human, "pearson", "segment", n_permutations=200)
    ok = np.isfinite(human)
    assert c.n == int(ok.sum())
    assert c.r_a == pytest.approx(segment_correlation(a, human, "pearson")[0])
    assert c.r_ab == pytest.approx(segment_correlation(np.where(ok, a, np.nan), b, "pearson")[0])
    assert c.p_williams == pytest.approx(williams_test(c.r_a, c.r_b, c.r_ab, c.n))
    assert c.p_williams_df_n2 == pytest.approx(williams_test(c.r_a, c.r_b, c.r_ab, c.n, 2))
    assert c.r_a > c.r_b and c.p_williams < 0.05 and c.p_permutation < 0.05

    grouped = compare_correlations(a, b, human, "kendall", "segment", grouping="item", n_permutations=50)
    assert np.isnan(grouped.p_williams) and 0 < grouped.p_permutation <= 1
    # the reverse comparison from the correlations already computed: Williams of (r_b, r_a) with the same r_ab
    pair = pair_correlations(a, b, human, "pearson")
    back = compare_correlations(b, a, human, "pearson", n_permutations=200, pair=pair.swapped())
    assert (back.r_a, back.r_b, back.r_ab) == (pair.r_b, pair.r_a, pair.r_ab)
    assert back.p_williams == williams_test(pair.r_b, pair.r_a, pair.r_ab, pair.n)

    sys_h, sys_a, sys_b = np.nanmean(human, axis=1), a.mean(axis=1), b.mean(axis=1)
    s = compare_correlations(sys_a, sys_b, sys_h, "pearson", "system", n_permutations=100)
    assert s.n == 5 and s.r_a == pytest.approx(system_correlation(sys_a, sys_h, "pearson")[0])


def test_reverse_direction_from_the_same_coins_and_rank_clusters() -> None:
    human, a, b = _synthetic(n_items=25)
    rng = np.random.default_rng(1)
    configs = {"a": a, "b": b, "a2": a + 0.05 * rng.normal(size=a.shape)}
    # the permutation p of (b, a) derived from (a, b)'s draws equals running the test on (b, a)
    deltas = permutation_deltas(a, b, human, "pearson", n_permutations=200)
    assert deltas.p_value() == permutation_test(a, b, human, "pearson", n_permutations=200)
    assert deltas.reversed().p_value() == permutation_test(b, a, human, "pearson", n_permutations=200)
    loop_obs, loop_deltas, _ = permutation_deltas_loop(a, b, human, "pearson", "segment", "none", 200, 12345)
    back_obs, back_deltas, _ = permutation_deltas_loop(b, a, human, "pearson", "segment", "none", 200, 12345)
    assert back_obs == -loop_obs and np.array_equal(back_deltas, -loop_deltas)  # exactly antisymmetric

    p = {}
    for x, y in itertools.permutations(configs, 2):
        r = pair_correlations(configs[x], configs[y], human, "pearson")
        p[(x, y)] = williams_test(r.r_a, r.r_b, r.r_ab, r.n)
    assert p[("a", "b")] < 0.05 and p[("b", "a")] > 0.95
    correlations = {name: segment_correlation(m, human, "pearson")[0] for name, m in configs.items()}
    clusters = rank_clusters(correlations, p)
    assert clusters["a"] == clusters["a2"] == 1 and clusters["b"] == 2


def test_rank_clusters_by_hand() -> None:
    corr = {"w": 0.9, "x": 0.85, "y": 0.7, "z": 0.65, "v": float("nan")}
    pv = {(i, j): 0.5 for i in corr for j in corr if i != j}
    pv[("w", "y")] = 0.01  # w beats y -> y starts cluster 2 ...
    pv[("x", "z")] = 0.01  # ... x is no longer in the current cluster, so z stays in cluster 2
    assert rank_clusters(corr, pv) == {"w": 1, "x": 1, "y": 2, "z": 2, "v": 2}
    pv[("y", "z")] = 0.001
    assert rank_clusters(corr, pv)["z"] == 3


# ----------------------------------------------------------------------------------------------------------------
# system pairs
# ----------------------------------------------------------------------------------------------------------------

REFS = [
    "오늘 서울의 날씨는 맑고 따뜻합니다 .",
    "그는 매일 아침 공원에서 달리기를 한다 .",
    "회의는 오후 세 시에 시작될 예정입니다 .",
    "이 책은 한국 현대사를 다루고 있다 .",
    "정부는 새로운 경제 정책을 발표했다 .",
    "학생들은 도서관에서 시험 공부를 하고 있다 .",
    "우리는 다음 주에 부산으로 여행을 갈 것이다 .",
    "그 식당의 음식은 정말 맛있었다 .",
    "환자는 수술 후 빠르게 회복하고 있습니다 .",
    "기차가 예정보다 십 분 늦게 도착했다 .",
    "그녀는 피아노를 오 년 동안 배웠다 .",
    "이 제품은 환경 친화적인 재료로 만들어졌다 .",
    "시장은 주민들과 함께 문제를 논의했다 .",
    "아이들이 운동장에서 축구를 하고 있다 .",
    "회사는 올해 매출이 크게 증가했다고 밝혔다 .",
    "비가 와서 경기가 연기되었습니다 .",
    "나는 커피보다 차를 더 좋아한다 .",
    "박물관은 월요일마다 문을 닫는다 .",
    "그 영화는 전 세계적으로 큰 인기를 끌었다 .",
    "선생님은 학생들에게 숙제를 내 주셨다 .",
]
SYS_X = [
    "오늘 서울 날씨는 맑고 따뜻합니다 .",
    "그는 아침마다 공원에서 뛴다 .",
    "회의는 오후 세 시에 시작할 예정입니다 .",
    "이 책은 한국 현대 역사에 관한 것이다 .",
    "정부는 새 경제 정책을 발표했다 .",
    "학생들이 도서관에서 공부하고 있다 .",
    "우리는 다음 주 부산에 여행을 갈 것이다 .",
    "그 레스토랑 음식은 아주 맛있었다 .",
    "환자는 수술 후에 빠르게 회복하고 있습니다 .",
    "기차는 십 분 늦게 도착했다 .",
    "그녀는 오 년 동안 피아노를 배웠다 .",
    "이 제품은 환경 친화적인 재료로 만들어졌다 .",
    "시장은 주민들과 문제를 논의했다 .",
    "아이들은 운동장에서 공을 차고 있다 .",
    "회사는 올해 매출이 크게 늘었다고 밝혔다 .",
    "비가 와서 경기가 미뤄졌다 .",
    "나는 커피보다 차를 더 좋아한다 .",
    "박물관은 월요일에 휴관한다 .",
    "그 영화는 전 세계에서 큰 인기를 끌었다 .",
    "선생님께서 학생들에게 숙제를 내셨다 .",
]
SYS_Y = [
    "오늘 서울은 날씨가 맑고 따뜻하다 .",
    "그는 매일 아침 공원에서 달리기를 한다 .",
    "회의는 오후 3시에 시작됩니다 .",
    "이 책은 한국의 현대사를 다룬다 .",
    "정부가 새로운 경제 정책을 발표하였다 .",
    "학생들은 도서관에서 시험 공부를 하고 있다 .",
    "다음 주에 우리는 부산으로 여행 간다 .",
    "그 식당 음식은 정말 맛있었다 .",
    "환자는 수술 이후 빨리 회복 중입니다 .",
    "기차가 예정보다 십 분 늦게 도착했다 .",
    "그녀는 피아노를 오 년간 배웠다 .",
    "이 제품은 친환경 재료로 만들어졌다 .",
    "시장은 주민들과 함께 그 문제를 토론했다 .",
    "아이들이 운동장에서 축구를 하고 있다 .",
    "회사는 올해 매출이 많이 늘었다고 말했다 .",
    "비 때문에 경기가 연기되었습니다 .",
    "나는 차를 커피보다 더 좋아해 .",
    "박물관은 매주 월요일 문을 닫는다 .",
    "그 영화는 세계적으로 인기가 많았다 .",
    "선생님은 학생들에게 숙제를 주셨다 .",
]


@pytest.mark.parametrize("n_samples", [1000, 300])
def test_paired_bootstrap_equals_sacrebleu(monkeypatch: pytest.MonkeyPatch, n_samples: int) -> None:
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest, estimate_ci

    monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # sacrebleu's default seed 12345
    bleu = BLEU()
    _, results = PairedTest(
        [("y", SYS_Y), ("x", SYS_X)], {"BLEU": bleu}, references=[REFS], test_type="bs", n_samples=n_samples
    )()
    baseline, system = results["BLEU"]

    stats_x = np.array(bleu._extract_corpus_statistics(SYS_X, [REFS]), dtype=float)
    stats_y = np.array(bleu._extract_corpus_statistics(SYS_Y, [REFS]), dtype=float)

    def bleu_from_sums(sums: np.ndarray) -> np.ndarray:
        sums = np.asarray(sums)
        flat = sums.reshape(-1, sums.shape[-1])
        return np.array([bleu._compute_score_from_stats(row).score for row in flat]).reshape(sums.shape[:-1])

    idx = bootstrap_indices(len(REFS), n_samples, seed=12345)
    for dtype in (np.float32, np.float64):
        res = paired_bootstrap_metric(stats_x, stats_y, bleu_from_sums, idx, dtype=dtype)
        assert res.diff == pytest.approx(system.score - baseline.score, abs=1e-12)
        assert res.p_value == system.p_value
        assert 0.05 < res.p_value < 0.95  # a non-trivial p-value
        assert res.ci_low < res.diff < res.ci_high
    # same resamples: with float32 sums the bootstrap mean and CI of system x are sacrebleu's, bit for bit
    sums = (resample_counts(idx, len(REFS)) @ stats_x).astype(np.float32)
    assert estimate_ci(bleu_from_sums(sums)) == (system.mean, system.ci)


def test_paired_bootstrap_identical_systems() -> None:
    stats = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 3.0]])
    res = paired_bootstrap_metric(stats, stats, _ratio, bootstrap_indices(3, 100))
    assert res == (0.0, 1.0, 0.0, 0.0)


def test_paired_bootstrap_human() -> None:
    h_a = np.array([80.0, 70.0, np.nan, 60.0, 90.0, 75.0])
    h_b = np.array([70.0, 72.0, 50.0, np.nan, 80.0, 65.0])
    idx = bootstrap_indices(6, 500)
    res = paired_bootstrap_means(h_a, h_b, idx)
    assert res.diff == pytest.approx(75.0 - 67.4)  # each system's mean over its own scores
    assert res.ci_low <= res.diff <= res.ci_high
    assert 0 < res.p_value <= 1
    loop = paired_bootstrap_means_loop(h_a, h_b, idx)
    assert res.p_value == loop.p_value and res == pytest.approx(loop, abs=1e-12)
    w = wilcoxon_ranksum_human(h_a, h_b)
    assert w.diff == pytest.approx(75.0 - 67.4)
    assert w.p_value == pytest.approx(sps.ranksums([80, 70, 60, 90, 75], [70, 72, 50, 80, 65]).pvalue)


@pytest.mark.parametrize(
    ("metric_diff", "metric_p", "human_diff", "human_p", "label"),
    [
        (1.0, 0.01, 2.0, 0.01, "agree"),
        (1.0, 0.50, 2.0, 0.50, "agree"),
        (-1.0, 0.01, -2.0, 0.01, "agree"),
        (1.0, 0.01, 2.0, 0.50, "metric significant, humans not"),
        (1.0, 0.50, 2.0, 0.01, "humans significant, metric not"),
        (1.0, 0.01, -2.0, 0.01, "flipped"),
        (1.0, 0.01, -2.0, 0.50, "flipped"),
        (-1.0, 0.50, 2.0, 0.01, "flipped"),
        (1.0, 0.50, -2.0, 0.50, "flipped, neither significant"),
        (0.0, 0.90, -2.0, 0.01, "humans significant, metric not"),  # zero difference: not opposite sign
        (
            1.0,
            0.05,
            2.0,
            0.049,
            "humans significant, metric not",
        ),  # p < alpha is significant, p = alpha is not
        (1.0, float("nan"), 2.0, 0.01, "humans significant, metric not"),
    ],
)
def test_label_system_pair(
    metric_diff: float, metric_p: float, human_diff: float, human_p: float, label: str
) -> None:
    assert label_system_pair(metric_diff, metric_p, human_diff, human_p) == label
    assert label in SYSTEM_PAIR_LABELS


def test_pairwise_accuracy_by_hand() -> None:
    # pairs: (0,1) agree, (0,2) agree, (0,3) agree, (1,2) disagree, (1,3) agree, (2,3) metric tie only -> disagree
    assert pairwise_accuracy(np.array([1, 2, 3, 3]), np.array([1, 3, 2, 4])) == pytest.approx(4 / 6)
    # a human tie only also disagrees: (0,1) humans tie, metric not; NaN systems are dropped
    assert pairwise_accuracy(np.array([1, 2, 3, np.nan]), np.array([1, 1, 2, 5])) == pytest.approx(2 / 3)
    # a pair both sides tie agrees: (0,1) tied by both, (0,2) and (1,2) agree -> 3/3
    assert pairwise_accuracy(np.array([5, 5, 7]), np.array([2, 2, 3])) == 1.0
    # (0,1) tied by both agrees; (0,2) and (1,2) tied by the metric only disagree
    assert pairwise_accuracy(np.array([5, 5, 5]), np.array([2, 2, 3])) == pytest.approx(1 / 3)
    # error-rate metric: lower is better; a tie stays a tie after negation
    assert pairwise_accuracy(np.array([30, 20, 10]), np.array([1, 2, 3]), higher_is_better=False) == 1.0
    assert pairwise_accuracy(np.array([10, 10]), np.array([4, 4]), higher_is_better=False) == 1.0
    assert np.isnan(pairwise_accuracy(np.array([1.0]), np.array([2.0])))


def test_pairwise_accuracy_equals_loop_with_ties() -> None:
    """Against mt-metrics-eval's ``Agreement`` loop, written out: sign(Δmetric) == sign(Δhuman) per pair."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        m, h = rng.integers(0, 3, size=7).astype(float), rng.integers(0, 3, size=7).astype(float)
        pairs = [(i, j) for i in range(7) for j in range(i + 1, 7)]
        want = sum(np.sign(m[i] - m[j]) == np.sign(h[i] - h[j]) for i, j in pairs) / len(pairs)
        assert pairwise_accuracy(m, h) == pytest.approx(want)


# ----------------------------------------------------------------------------------------------------------------
# vectorised equivalents: the same values as the reference loops above
# ----------------------------------------------------------------------------------------------------------------

def _tied(n_systems: int = 4, n_items: int = 30, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Metric and human matrices with many ties (rounded), some human scores missing, one constant column."""
    rng = np.random.default_rng(seed)
    human = rng.normal(size=(n_systems, n_items)).round(1)
    metric = (human + rng.normal(size=human.shape)).round(1)
    human[rng.random(human.shape) < 0.15] = np.nan
    metric[:, 3] = 0.5  # an item whose across-system correlation is undefined
    return metric, human


@pytest.mark.parametrize("statistic", STATISTICS)
def test_weighted_correlations_equal_expanded_multiset(statistic: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(0, 6, size=25).astype(float)  # heavy ties
    y = (x + rng.integers(0, 4, size=25)).astype(float)
    x[2] = np.nan
    counts = rng.integers(0, 3, size=(40, 25)).astype(float)
    counts[0] = 0
    counts[1] = 0
    counts[1, :2] = 1  # two points: defined for Pearson/Spearman unless tied
    counts[2] = 0
    counts[2, [0, 5, 9]] = 2
    got = weighted_correlations(x, y, statistic, counts)
    for row, c in zip(got, counts, strict=True):
        ok = np.isfinite(x) & (c > 0)
        want = correlate(np.repeat(x[ok], c[ok].astype(int)), np.repeat(y[ok], c[ok].astype(int)), statistic)
        assert (np.isnan(row) and np.isnan(want)) or row == pytest.approx(want, abs=1e-12), (row, want)
    # a row per point set (x varies by row) goes through the general kernel: same definition
    xs = np.vstack([x, x[::-1]])
    both = weighted_correlations(xs, y, statistic, counts[3])
    assert both[0] == pytest.approx(got[3], abs=1e-12)
    ok = np.isfinite(xs[1])
    c = counts[3].astype(int)
    assert both[1] == pytest.approx(correlate(np.repeat(xs[1][ok], c[ok]), np.repeat(y[ok], c[ok]), statistic))


def test_weighted_correlations_validates() -> None:
    with pytest.raises(ValueError, match="non-negative integers"):
        weighted_correlations(np.arange(3.0), np.arange(3.0), "pearson", np.array([1.0, 0.5, 1.0]))
    with pytest.raises(ValueError, match="unknown correlation statistic"):
        weighted_correlations(np.arange(3.0), np.arange(3.0), "tau")
    constant = weighted_correlations(np.ones(4), np.arange(4.0), "pearson", np.ones((2, 4)))
    assert np.isnan(constant).all()


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("grouping", GROUPINGS)
def test_bootstrap_segment_correlations_equal_loop(statistic: str, grouping: str) -> None:
    metric, human = _tied()
    idx = bootstrap_indices(30, 120, seed=4)
    loop = resampled_segment_correlations(metric, human, statistic, grouping, idx)
    fast = bootstrap_segment_correlations(metric, human, statistic, grouping, resample_counts(idx, 30))
    np.testing.assert_allclose(fast, loop, rtol=0, atol=1e-12)
    assert percentile_ci(fast) == pytest.approx(percentile_ci(loop))


@pytest.mark.parametrize("statistic", STATISTICS)
def test_bootstrap_system_correlations_equal_loop(statistic: str) -> None:
    rng = np.random.default_rng(5)
    n_sys, n_items = 6, 40
    length = rng.integers(5, 20, size=(n_sys, n_items)).astype(float)
    matches = rng.binomial(length.astype(int), np.linspace(0.2, 0.6, n_sys)[:, None]).astype(float)
    stats = np.stack([matches, length], axis=-1)
    human = np.linspace(0, 1, n_sys)[:, None] + 0.5 * rng.normal(size=(n_sys, n_items))
    human[rng.random(human.shape) < 0.2] = np.nan
    idx = bootstrap_indices(n_items, 150, seed=2)
    fast = _system_values(stats, human, statistic, idx)
    loop = resampled_system_correlations(stats, _ratio, human, statistic, idx)
    np.testing.assert_allclose(fast, loop, rtol=0, atol=1e-12)
    assert percentile_ci(fast) == pytest.approx(percentile_ci(loop))
    seg = matches / length
    from_scores = _system_values_from_scores(seg, human, statistic, idx)
    loop = resampled_system_correlations_from_scores(seg, human, statistic, idx)
    np.testing.assert_allclose(from_scores, loop, rtol=0, atol=1e-12)


def test_bootstrap_system_scores_absent_rows_contribute_nothing() -> None:
    stats = np.array(
        [
            [[1, 2], [np.nan, np.nan], [3, 4]],  # system 0 lacks item 1
            [[1, 1], [2, 2], [0, 4]],
        ],
        dtype=float,
    )
    counts = np.array([[1, 1, 1], [0, 2, 0], [2, 0, 1]], dtype=float)
    got = bootstrap_system_scores(stats, _ratio, counts)
    np.testing.assert_allclose(got[0], [4 / 6, 3 / 7])  # full set: each system over its own segments
    assert np.isnan(got[1, 0]) and got[1, 1] == pytest.approx(1.0)  # system 0 drew none of its segments
    np.testing.assert_allclose(got[2], [5 / 8, 2 / 6])


def test_system_correlations_min_systems() -> None:
    m = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, np.nan]])
    h = np.array([1.0, 3.0, 2.0])
    got = system_correlations(m, h, "pearson")
    assert got[0] == pytest.approx(system_correlation(m[0], h, "pearson")[0])
    assert np.isnan(got[1]) and np.isnan(system_correlation(m[1], h, "pearson")[0])  # two systems: undefined


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("grouping", GROUPINGS)
def test_permutation_deltas_equal_loop(statistic: str, grouping: str) -> None:
    metric, human = _tied(n_items=20, seed=3)
    other = (metric + np.random.default_rng(8).normal(size=metric.shape)).round(1)
    obs, deltas, exact = permutation_deltas(metric, other, human, statistic, "segment", grouping, 150, seed=6)
    ref_obs, ref_deltas, ref_exact = permutation_deltas_loop(metric, other, human, statistic, "segment", grouping, 150, 6)
    assert obs == pytest.approx(ref_obs, abs=1e-12) and not exact and not ref_exact  # 20 items: Monte-Carlo
    np.testing.assert_allclose(deltas, ref_deltas, rtol=0, atol=1e-12)
    assert permutation_p(obs, deltas) == permutation_p(ref_obs, ref_deltas)
    back = permutation_deltas_loop(other, metric, human, statistic, "segment", grouping, 150, 6)
    assert permutation_p(-obs, -deltas) == permutation_p(*back)


@pytest.mark.parametrize("statistic", STATISTICS)
def test_permutation_deltas_system_level(statistic: str) -> None:
    rng = np.random.default_rng(12)
    h = rng.normal(size=7)
    a, b = h + 0.5 * rng.normal(size=7), h + rng.normal(size=7)
    a[2] = np.nan
    obs, deltas, exact = permutation_deltas(a, b, h, statistic, "system", n_permutations=300, seed=1)
    ref = permutation_deltas_loop(a, b, h, statistic, "system", "none", 300, 1)
    assert obs == pytest.approx(ref.observed, abs=1e-12) and exact and len(deltas) == 2**6  # 6 common systems
    np.testing.assert_allclose(deltas, ref.deltas, rtol=0, atol=1e-12)
    assert permutation_p(obs, deltas, exact) == ref.p_value()
    assert ref.p_value() == pytest.approx(exact_permutation_p_loop(a, b, h, statistic, "system", "none"))
    obs2, deltas2, _ = permutation_deltas(a[:3], b[:3], h[:3], statistic, "system", n_permutations=50)
    assert np.isnan(obs2) and np.isnan(deltas2).all()  # two common systems: undefined, as system_correlation


def test_paired_bootstrap_means_and_from_resamples() -> None:
    h_a = np.array([80.0, 70.0, 65.0, 60.0, 90.0, 75.0])
    h_b = np.array([70.0, 72.0, 50.0, 61.0, 80.0, 65.0])
    idx = bootstrap_indices(6, 400, seed=3)
    # same items on both sides: the paired bootstrap of the human difference
    got = paired_bootstrap_means(h_a, h_b, idx)
    want = paired_bootstrap_means_loop(h_a, h_b, idx)
    assert got.diff == pytest.approx(want.diff) and got.p_value == want.p_value
    assert (got.ci_low, got.ci_high) == pytest.approx((want.ci_low, want.ci_high))
    # different items: each system's own mean
    h_b[0] = np.nan
    assert paired_bootstrap_means(h_a, h_b, idx).diff == pytest.approx(h_a.mean() - np.nanmean(h_b))
    assert paired_bootstrap_means(h_a, h_b, idx).p_value == paired_bootstrap_means_loop(h_a, h_b, idx).p_value
    # from resampled per-system scores: sacrebleu's p and interval, as paired_bootstrap_metric
    stats_a = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 3.0], [3.0, 3.0], [1.0, 5.0], [2.0, 2.0]])
    stats_b = stats_a[::-1].copy()
    counts = resample_counts(idx, 6)
    res = paired_bootstrap_from_resamples(
        _ratio(stats_a.sum(0)) - _ratio(stats_b.sum(0)), _ratio(counts @ stats_a) - _ratio(counts @ stats_b)
    )
    assert res == paired_bootstrap_metric(stats_a, stats_b, _ratio, idx)
    assert all(np.isnan(paired_bootstrap_from_resamples(float("nan"), np.ones(3))))
