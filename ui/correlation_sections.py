"""Sections of the Correlations page that draw: the headline cards, the metric × level charts, the significance
matrix (on request, with an estimate of its time) and the comparison of two configurations (Streamlit; the
statements are :mod:`ui.headlines`, the figures :mod:`ui.charts` / :mod:`ui.grid_charts`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from korean_eval.metaeval.tables.costs import significance_seconds
from korean_eval.model import vocabulary as vocab
from ui import ceiling, formats, grid_charts, headlines, statistics_state, views
from ui import significance_views as sig_views
from ui.state import Context
from ui.widgets import chart, fit_table, md_escape


def _draw_card(card: headlines.Card) -> None:
    with st.container(border=True):
        st.caption(md_escape(card.title))
        st.markdown(f"**{md_escape(card.statement)}**")
        if card.detail:
            st.caption(md_escape(card.detail))
        if card.caution:
            st.markdown(f":orange[{md_escape(card.caution)}]")


def headline_card(ctx: Context, view: pd.DataFrame, plotted: headlines.Plotted, granularity: str, n_systems: int):
    """The card of one granularity for the statistic and grouping its chart draws (``plotted``;
    :func:`ui.headlines.tested_card` from the top cluster's tests, :func:`ui.headlines.accuracy_card` for a statistic
    without a test) and the ``(level, metric)`` the chart outlines. ``view``: the chart's rows
    (:func:`ui.views.correlation_view`); the card reads its numbers from them."""
    if not np.isfinite(view.loc[view["granularity"] == granularity, "shown"].astype(float)).any():
        return None, frozenset()  # nothing defined: nothing to test
    why = headlines.untested_reason(plotted, int(ctx.results.settings.get("spa_permutations", 0) or 0))
    if why is not None:
        return headlines.accuracy_card(view, granularity, plotted.statistic, n_systems, plotted.grouping, why), frozenset()
    if plotted.statistic in ("acc_eq", "spa"):
        from korean_eval.metaeval.tables.accuracy_significance import ACCURACY_TESTS

        table, clusters = statistics_state.accuracy_top_cluster_tables(ctx, plotted.statistic)
        test = ACCURACY_TESTS[plotted.statistic][2]
    else:
        table, clusters = statistics_state.top_cluster_tables(ctx, plotted.statistic, granularity, plotted.grouping)
        test = statistics_state.HEADLINE_TEST
    return headlines.tested_card(view, plotted, granularity, n_systems, table, clusters, test, statistics_state.SEED,
                                 statistics_state.N_RESAMPLES, statistics_state.ALPHA)


def headline_cards(ctx: Context, view: pd.DataFrame,
                   plotted: dict[str, headlines.Plotted]) -> dict[str, frozenset[tuple[str, str]]]:
    """Draw the cards (per granularity, the top significance cluster by the statistic and grouping its chart draws,
    ``plotted``: :func:`ui.headlines.plotted_statistics`; the metric whose level matters most) and return, per
    granularity, the top cluster's ``(level, metric)`` pairs for the chart to outline."""
    n_systems = int(ctx.results.human_systems["human_mean"].notna().sum())
    tops: dict[str, frozenset[tuple[str, str]]] = {g: frozenset() for g in vocab.GRANULARITIES}
    cols = st.columns(3)
    for col, gran in zip(cols[:2], vocab.GRANULARITIES, strict=True):
        card, tops[gran] = headline_card(ctx, view, plotted[gran], gran, n_systems)
        if card is not None:
            with col:
                _draw_card(card)
    spread = headlines.level_spread(view)
    if spread is not None:
        segment = plotted["segment"]
        low, high = spread["low"], spread["high"]
        hi_name, lo_name = vocab.config_name(high["level"], high["metric"]), vocab.config_name(low["level"], low["metric"])
        if views.is_correlation(segment.statistic):
            verdict = statistics_state.comparison(ctx, hi_name, lo_name, segment.statistic, "segment", segment.grouping,
                                                  (statistics_state.HEADLINE_TEST,))
        elif segment.statistic == "acc_eq" and segment.grouping == "item":
            verdict = statistics_state.accuracy_comparison(ctx, hi_name, lo_name, "acc_eq")
        else:
            verdict = None
        with cols[2]:
            _draw_card(headlines.spread_card(spread, segment.statistic, verdict, segment.grouping,
                                             statistics_state.SEED, statistics_state.ALPHA))
    return tops


def correlation_charts(ctx: Context, view: pd.DataFrame, undefined: dict[str, str], form: str,
                       tops: dict[str, frozenset[tuple[str, str]]], ceilings: dict[str, pd.Series] | None = None,
                       plotted: dict[str, headlines.Plotted] | None = None) -> None:
    """Both granularities' charts (:func:`ui.grid_charts.chart_form`): a few bars side by side, more bars or a grid
    at full page width, one below the other; a granularity whose correlations are all undefined says why. Each draws
    the statistic and grouping of ``plotted`` (default: the sidebar's), as its headline card states them. The human
    ceiling of a granularity (``ceilings``, :func:`ui.ceiling.ceiling_rows`) is a dashed line on bars, a caption
    under a grid."""
    ceilings = ceilings or {}
    s = ctx.settings
    plotted = plotted or headlines.plotted_statistics("chart", s.statistic, s.grouping)
    n = int((view["granularity"] == "segment").sum())
    as_bars = grid_charts.chart_form(form, n) == "bars"
    side_by_side = as_bars and n <= grid_charts.SIDE_BY_SIDE_LIMIT
    if as_bars and n > grid_charts.BAR_LIMIT:
        st.caption(f"{n} bars per chart are crowded: the grid (Automatic beyond {grid_charts.BAR_LIMIT}) reads better.")
    places = st.columns(2, gap="medium") if side_by_side else [st.container(), st.container()]
    for place, gran in zip(places, vocab.GRANULARITIES, strict=True):
        with place:
            if undefined[gran]:
                st.warning(f"**{gran.capitalize()} level**: {undefined[gran]}", icon=":material/block:")
                continue
            shown = plotted[gran].statistic
            note = f"grouping: {plotted[gran].grouping}" if gran == "segment" else ""
            fig = grid_charts.correlation_chart(view, gran, shown, "bars" if as_bars else "grid", tops[gran], note)
            if gran in ceilings and as_bars:
                ceiling.add_ceiling_line(fig, ceilings[gran])
            chart(fig, f"correlation-{gran}")
            if gran in ceilings and not as_bars:
                st.caption(f"Human ceiling ({md_escape(ceilings[gran]['comparison'])}): {ceilings[gran]['value']:.3f}")


def ceiling_notice(view: pd.DataFrame, ceilings: dict[str, pd.Series]) -> None:
    """What the human ceiling is, and a warning naming every configuration above it (:func:`ui.ceiling.above_ceiling`)."""
    if not ceilings:
        return
    parts = [f"{g} level {r['value']:.3f}" for g, r in ceilings.items()]
    st.caption(
        f"Dashed line: the **human ceiling** ({md_escape(next(iter(ceilings.values()))['comparison'])}; "
        f"{', '.join(parts)}) — how well the raters agree with each other, measured with the same statistic on the "
        "items they share. A metric cannot be expected to agree with the humans better than they agree among "
        "themselves."
    )
    above = ceiling.above_ceiling(view, ceilings)
    if len(above):
        names = "; ".join(f"{md_escape(r.metric)} at {r.level} ({r.granularity}: {r.agreement:.3f} > {r.ceiling:.3f})"
                          for r in above.itertuples())
        st.warning(f"**{ceiling.ABOVE_TEXT.capitalize()}** — {names}. Agreement above the raters' own agreement "
                   "usually means few shared items, a leak between metric and ratings, or a data problem; it is "
                   "not a better metric.", icon=":material/report:")


def significance_matrix(ctx: Context, statistic: str, granularity: str, test: str) -> None:
    """The significance matrix of every configuration (rank order, clusters outlined) and its cluster table: beside
    it for a small matrix, below it at full width for a large one."""
    grouping_used = vocab.grouping_used(granularity, ctx.settings.grouping)
    table, clusters = statistics_state.significance(ctx, statistic, granularity, grouping_used, test)
    if table.empty or clusters.empty:
        st.info("No significance can be computed for these data (no human scores or fewer than two configurations).")
        return
    matrix = sig_views.significance_pivot(table, clusters, test)
    labels = sig_views.cluster_labels(clusters)
    gran_text = f"segment level, grouping {grouping_used}" if granularity == "segment" else "system level"
    fig = grid_charts.significance_heatmap(
        matrix, labels, list(clusters["cluster"].astype(int)), list(clusters["correlation"].astype(float)),
        None, alpha=statistics_state.ALPHA,
    )
    # what the cells are, above the chart and wrapping with the page: as the chart's title it was cut in a narrow
    # column, and Plotly lifted it out of the figure above the colour bar of a large matrix
    st.caption(f"**{views.STATISTIC_LABELS[statistic]}, {gran_text}**: each cell is p that the row's configuration "
               "agrees more with the humans than the column's")
    _matrix_and_clusters(fig, clusters)
    if matrix.isna().to_numpy().sum() > len(matrix):
        st.caption(
            "Empty cells: p undefined — the Williams test does not apply to grouped correlations, or a correlation "
            "is undefined (too few points or constant scores)."
        )
    _design_limit(table, statistic, granularity, test)
    n_pts = int(table["n"].max()) if len(table) else 0
    st.caption(
        f"{sig_views.SIGNIFICANCE_TESTS[test]}, {table['method'].iloc[0]}"
        + (f", seed {statistics_state.SEED}" if test != "williams" else "")
        + f"; {n_pts:,} {'(system, segment) pairs' if granularity == 'segment' else 'systems'} per comparison; "
        f"clusters (outlined) at α = {statistics_state.ALPHA:g}. The full table (every ordered pair, r of each side, n) is on "
        "the Downloads page."
    )


def comparison(ctx: Context, view: pd.DataFrame) -> None:
    """Two configurations picked by the user, compared by :func:`ui.statistics_state.comparison` (a verdict in a sentence)."""
    s = ctx.settings
    configs = list(dict.fromkeys(vocab.config_name(lv, m) for lv, m in zip(view["level"], view["metric"], strict=True)))

    def _label(config: str) -> str:
        level, metric = vocab.parse_config(config)
        return f"{views.metric_label(metric)} at {level}"

    k1, k2, k3 = st.columns([2, 2, 1])
    a = k1.selectbox("Configuration A", configs, format_func=_label, key="cmp_a", persist_state="session")
    b = k2.selectbox("Configuration B", configs, index=min(1, len(configs) - 1), format_func=_label, key="cmp_b",
                     persist_state="session")
    gran = k3.radio("Level", list(vocab.GRANULARITIES), key="cmp_gran", persist_state="session")
    if not views.is_correlation(s.statistic):
        st.caption("Comparisons test correlations: choose Pearson, Spearman or Kendall in the sidebar.")
    elif a == b:
        st.caption("Pick two different configurations.")
    else:
        verdict = statistics_state.comparison(ctx, a, b, s.statistic, gran, s.grouping)
        (st.success if verdict["significant"] else st.info)(md_escape(verdict["sentence"]))
        st.caption(
            "One-sided paired permutation test (segments swapped whole; exact when there are at most 16 units), and "
            "at the system level also the Williams test, over the points both share; error rates are compared by "
            "their agreement (−r)."
        )


def significance_request(ctx: Context, statistic: str, granularity: str, test: str) -> bool:
    """The button that computes the significance matrix of these settings, with what it will cost beside it
    (:func:`korean_eval.metaeval.tables.costs.significance_seconds`); True in the run its click started. Nothing is
    computed before the click, and a computed matrix is kept (:func:`ui.statistics_state.significance`), so changing a widget
    never recomputes one."""
    res = ctx.results
    n = len(res.segment_matrices)
    points = (int(np.isfinite(res.human_matrix).sum()) if granularity == "segment"
              else int(res.human_systems["human_mean"].notna().sum()))
    seconds = significance_seconds(n, points, statistic, granularity, ctx.settings.grouping, test, statistics_state.N_RESAMPLES)
    left, right = st.columns([2, 3], vertical_alignment="center")
    clicked = left.button("Compute the significance matrix", key="sig_compute", icon=":material/play_arrow:")
    right.caption(
        f"{n * (n - 1) // 2:,} pairs of configurations, {points:,} "
        f"{'(system, segment) pairs' if granularity == 'segment' else 'systems'} each, {statistics_state.N_RESAMPLES:,} "
        f"permutations: {formats.duration(seconds)} (estimated from measured costs). Computed once for these data "
        "and settings, then kept: changing the statistic, level or test asks again."
    )
    return clicked


def accuracy_significance_matrix(ctx: Context, statistic: str) -> None:
    """The significance matrix and rank clusters of every configuration by ``acc_eq`` (segment level) or ``spa``
    (system level), with WMT's tests (:func:`ui.statistics_state.accuracy_significance`)."""
    from korean_eval.metaeval.tables.accuracy_significance import ACCURACY_TEST_NOTES, ACCURACY_TESTS

    table, clusters = statistics_state.accuracy_significance(ctx, statistic)
    if table.empty or clusters.empty:
        st.info(f"No significance by {views.SYMBOLS[statistic]} can be computed for these data (no human scores, "
                "no SPA permutations or fewer than two configurations).")
        return
    granularity, grouping, test = ACCURACY_TESTS[statistic]
    matrix = sig_views.significance_pivot(table, clusters, test)
    fig = grid_charts.significance_heatmap(
        matrix, sig_views.cluster_labels(clusters), list(clusters["cluster"].astype(int)),
        list(clusters["correlation"].astype(float)), None, alpha=statistics_state.ALPHA,
    )
    where = "segment level, over segments" if granularity == "segment" else "system level"
    st.caption(f"**{views.STATISTIC_LABELS[statistic]}, {where}**: each cell is p that the row's configuration "
               "agrees more with the humans than the column's")
    _matrix_and_clusters(fig, clusters)
    _design_limit(table, statistic, granularity, test)
    st.caption(f"{md_escape(ACCURACY_TEST_NOTES[test])}; {table['method'].iloc[0]}, seed {statistics_state.SEED}; "
               f"{int(table['n'].max()):,} segments per comparison; clusters (outlined) at α = {statistics_state.ALPHA:g}. "
               "The full table is on the Downloads page.")


def _design_limit(table: pd.DataFrame, statistic: str, granularity: str, test: str) -> None:
    """Say so when the matrix's permutation tests cannot reach α on these data
    (:func:`korean_eval.metaeval.tables.resolution.table_resolution`): clusters that then hold every configuration are
    a property of the design, not a finding."""
    from korean_eval.metaeval.tables.resolution import table_resolution

    found = table_resolution(table[table["test"] == test], statistic, granularity, test, statistics_state.ALPHA,
                             statistics_state.SEED, statistics_state.N_RESAMPLES)
    if found.cannot_separate:
        st.info(md_escape(f"{found.limit}. The clusters above are what the design forces, not a finding."),
                icon=":material/info:")
    elif found.limit:
        st.caption(md_escape(found.limit + "."))


def _matrix_and_clusters(fig, clusters: pd.DataFrame) -> None:
    """A significance matrix with its rank clusters beside it (below it when the matrix is large)."""
    small = len(clusters) <= grid_charts.MATRIX_BESIDE_LIMIT
    left, right = st.columns([5, 2], gap="medium") if small else (st.container(), st.container())
    with left:
        chart(fig, "significance-matrix")
    with right:
        st.markdown("**Rank clusters**")
        shown = sig_views.cluster_table(clusters)
        fit_table(shown, height=480 if len(shown) > 12 else None, break_anywhere=["configurations (agreement)"])
