"""The Downloads page's paper-ready exports: the LaTeX tables as one zip and the self-contained HTML report, built
by the library (:mod:`korean_eval.exports.latex`, :mod:`korean_eval.exports.html`) for the dashboard's settings, with
the top significance cluster of the Correlations page's headline (:func:`ui.statistics_state.top_cluster_tables`) and its 95 %
bootstrap intervals (:func:`ui.statistics_state.correlations_with_ci`), and the Korean lens when its page computed it
(:func:`computed_lens`)."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from dataclasses import dataclass

from korean_eval.exports.csv_zip import run_metadata
from korean_eval.exports.html import html_report
from korean_eval.exports.latex import latex_tables
from korean_eval.exports.tables import TopClusters, tested_top_clusters
from korean_eval.model.vocabulary import GRANULARITIES
from ui import ranking_state, statistics_state
from ui.state import Context

LATEX_ZIP = "korean-eval-latex.zip"
REPORT_HTML = "korean-eval-report.html"


@dataclass(frozen=True)
class Exports:
    """The LaTeX tables zipped (one ``.tex`` per table) and the HTML report, as bytes."""

    latex_zip: bytes
    report_html: bytes


def exports_key(ctx: Context) -> str:
    """Session-state key of the exports of these results and display settings."""
    return f"ke_exports|{ctx.key}|{ctx.settings.statistic}|{ctx.settings.grouping}"


def _top_clusters(ctx: Context) -> TopClusters:
    """The headline's top clusters (:func:`ui.statistics_state.top_cluster_tables`) with each granularity's test as it
    ran, none marked where the test cannot reach α (:func:`korean_eval.exports.tables.tested_top_clusters`)."""
    if not ctx.has_human:
        return TopClusters(method="no significance test: no human scores")
    found = {g: statistics_state.top_cluster_tables(ctx, ctx.settings.statistic, g, ctx.settings.grouping)
             for g in GRANULARITIES}
    return tested_top_clusters(found, ctx.settings.statistic, statistics_state.N_RESAMPLES, statistics_state.SEED,
                               statistics_state.ALPHA)


def computed_lens(ctx: Context):
    """The Korean lens of these data and settings if the lens page computed it already (with its probe if that ran),
    else None: the report then has no lens section (nothing is computed for it here)."""
    from ui import lens_state

    config = ctx.settings.config
    if not ctx.evalset.refs:
        return None
    return lens_state.cached_lens(ctx.evalset, config, True) or lens_state.cached_lens(ctx.evalset, config, False)


def prepare_exports(ctx: Context) -> Exports:
    """Both exports for ``ctx`` (the top clusters and intervals computed with progress bars when not cached)."""
    results = ctx.results
    if ctx.has_human:
        results = dataclasses.replace(results, correlations=statistics_state.correlations_with_ci(ctx, statistics_state.N_RESAMPLES))
    top = _top_clusters(ctx)
    statistic, grouping = ctx.settings.statistic, ctx.settings.grouping
    ranking = ranking_state.ranking_checks(ctx) if len(results.systems) > 1 else None
    how = ranking_state.SETTINGS.describe(len(results.seg_ids))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in latex_tables(results, top, statistic, grouping,
                                       ranking=ranking["system_ranking.csv"] if ranking else None,
                                       ranking_how=how).items():
            zf.writestr(name, text)
    meta = run_metadata(results, ctx.evalset, {"bootstrap": {"resamples": statistics_state.N_RESAMPLES, "seed": statistics_state.SEED}})
    report = html_report(results, ctx.evalset, top, statistic, grouping, meta, lens=computed_lens(ctx),
                         ranking=ranking, ranking_how=how)
    return Exports(buf.getvalue(), report.encode("utf-8"))
