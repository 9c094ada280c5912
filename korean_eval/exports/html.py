"""One self-contained HTML report of an evaluation (docs/design.md §2, "Exports").

A single file that opens offline from ``file://``: Plotly's JavaScript is included once (one ``<script>`` with
:func:`plotly.offline.get_plotlyjs`; every figure with ``include_plotlyjs=False``), no external style sheet, font,
image or script. It holds the figures of the dashboard's main views for the run's settings
(:mod:`korean_eval.exports.charts`: correlations at the segment and system level drawn as agreement with the humans
— error rates negated, the dashboard's rule, :mod:`korean_eval.metaeval.tables.agreement` — with their 95 %
intervals where computed, system scores per level, rank agreement, flipped pairs, tokens per word), the tables
(correlations with CIs, system scores with ranks, token statistics, flipped pairs; headers for people), the Korean
lens when its result is given, the settings, the signatures, the data's SHA-256, the validation report and the
human-score note (the bundled sample's are simulated). Every number cell carries its exact value in ``data-value``
(Python's ``repr`` of the float) and its column's own name in ``data-column``, so a test can compare it with the
CSVs; all text from the user's files is escaped.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

import korean_eval
from korean_eval.exports.tables import (
    BOOLEAN_TEXTS,
    HUMAN_COLUMN,
    STATISTIC_NAMES,
    TopClusters,
    column_label,
    correlation_grid,
    format_rank,
    metric_label,
    run_error_rates,
    run_levels,
    run_metrics,
    system_score_table,
    token_table,
)
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import Results, has_human_scores
from korean_eval.model.vocabulary import GRANULARITIES, grouping_used

if TYPE_CHECKING:
    from korean_eval.lens.run import LensResult

STYLE = """
body{font-family:'Noto Sans KR','Source Sans Pro',system-ui,sans-serif;margin:2rem auto;max-width:1200px;
padding:0 1rem;color:#222;line-height:1.45}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}
table{border-collapse:collapse;font-size:.85rem;margin:.6rem 0}
th,td{border-bottom:1px solid #e4e4e4;padding:.2rem .55rem;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}td.top{font-weight:700}
.note{background:#FFF4E5;border-left:4px solid #F58518;padding:.5rem .8rem;margin:.8rem 0}
.meta{color:#555;font-size:.9rem}code{font-size:.8rem;overflow-wrap:anywhere}figure.chart{margin:1rem 0}
details>summary{cursor:pointer;color:#1f4e8c}
tr[data-system]>td:first-child{white-space:nowrap}
"""
#: Number columns of the report's tables → digits shown (the exact value is in ``data-value``).
DIGITS = {"value": 4, "shown": 4, "ci_low": 4, "ci_high": 4, "epsilon": 4, "score": 2, "human_mean": 3, "metric_score": 2,
          "tokens_per_segment": 2, "tokens_per_word": 3, "metric_a": 2, "metric_b": 2, "human_a": 3,
          "human_b": 3, "precision": 3, "recall": 3, "f1": 3, "agreement": 3, "honorific_mismatch_rate": 3,
          "mean_change": 2, "mean_penalty": 2, "relative_to_drop": 2}
#: Headers of the Korean lens's tables (:func:`_lens_section`), beyond the common ones.
LENS_HEADERS = {"hyp": "hypothesis morphemes", "ref": "reference morphemes", "matched": "matched morphemes",
                "errors": "errors (unmatched)", "f1": "F1", "agree": "segments agreeing",
                "agreement": "speech level agreement", "hyp_spaces": "hypothesis spaces",
                "ref_spaces": "reference spaces", "both": "spaces in both", "applied": "segments perturbed",
                "not_applicable": "could not apply", "relative_to_drop": "relative to a dropped content eojeol",
                "ci_low": "95 % CI low", "ci_high": "95 % CI high"}


def _cell(column: str, value: object, top: bool = False) -> str:
    """One ``<td>``: numbers right-aligned with ``data-value`` = repr of the float; the booleans of
    :data:`~korean_eval.exports.tables.BOOLEAN_TEXTS` as words; other text escaped."""
    if isinstance(value, (bool, np.bool_)) and column in BOOLEAN_TEXTS:
        return f"<td>{html.escape(BOOLEAN_TEXTS[column][0 if value else 1])}</td>"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return f"<td>{html.escape('' if value is None or value is pd.NA else str(value))}</td>"
    number = float(value)
    if not np.isfinite(number):
        shown = "–"
    elif column in DIGITS:
        shown = f"{number:.{DIGITS[column]}f}"
    else:
        shown = str(int(number)) if number.is_integer() else f"{number:g}"
    cls = "num top" if top else "num"
    return f'<td class="{cls}" data-column="{html.escape(column)}" data-value="{number!r}">{shown}</td>'


def html_table(frame: pd.DataFrame, table_id: str, top: Sequence[bool] | None = None,
               headers: Mapping[str, str] | None = None) -> str:
    """``frame`` as an HTML table (``id`` = ``table_id``); ``top`` marks rows whose value cell is bold. Headers are
    for people (``headers``, else :func:`~korean_eval.exports.tables.column_label`); each number cell keeps its
    column's own name in ``data-column``."""
    headers = headers or {}
    head = "".join(f"<th>{html.escape(headers.get(c) or column_label(c))}</th>" for c in frame.columns)
    rows = []
    for i, row in enumerate(frame.itertuples(index=False)):
        bold = bool(top[i]) if top is not None else False
        rows.append("<tr>" + "".join(_cell(c, v, bold and c == "value") for c, v in zip(frame.columns, row,
                                                                                        strict=True)) + "</tr>")
    return f'<table id="{html.escape(table_id)}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _figure(fig, name: str) -> str:
    body = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{name}",
                       config={"displaylogo": False, "responsive": True})
    return f'<figure class="chart" data-chart="{html.escape(name)}">{body}</figure>'


def _top_rows(corr: pd.DataFrame, statistic: str, grouping: str, top: TopClusters) -> list[bool]:
    """Which rows of the correlations table are the top cluster's (the statistic and grouping it was found for)."""
    return [s == statistic and gp == grouping_used(g, grouping) and (lv, m) in top.of(g)
            for g, gp, s, lv, m in zip(corr["granularity"], corr["grouping"], corr["statistic"], corr["level"],
                                       corr["metric"], strict=True)]


#: The columns of a correlation grid the report shows (the plotted agreement beside the value as computed).
SHOWN_GRID_COLUMNS = ["level", "metric", "value", "ci_low", "ci_high", "shown", "n", "higher_is_better", "top"]


def _correlation_caption(statistic: str, has_ci: bool, as_grid: bool, top: TopClusters, rates: str = "") -> str:
    """What the correlation charts show, promising only what they draw."""
    if not has_ci:
        intervals = "No intervals were computed (the run's bootstrap was off)."
    elif as_grid:
        intervals = "The 95 % bootstrap intervals are in each cell's hover box and in the tables below."
    else:
        intervals = "Error bars: 95 % bootstrap intervals (segments resampled with all their systems)."
    return (f"<p>{html.escape(STATISTIC_NAMES.get(statistic, statistic))} with the human scores per token level × "
            f"metric, drawn as <b>agreement</b>: an error rate ({html.escape(rates + ': ' if rates else '')}lower is "
            "better) agrees with the "
            "humans when it correlates negatively, so its correlation is negated and labelled with a minus (−TER); "
            "taller bars and darker cells always mean closer agreement. The tables give each value as computed. "
            f"{intervals} {_marked_text(top)}</p>")


def _marked_text(top: TopClusters) -> str:
    """What the outline and bold mark, per granularity, with the test as it ran; where the test cannot reach α, why
    nothing is marked (:meth:`TopClusters.limit_of`)."""
    parts = []
    for granularity in GRANULARITIES:
        method, limit = html.escape(top.method_of(granularity)), top.limit_of(granularity)
        parts.append(f"{granularity} level: nothing is marked — {html.escape(limit)} ({method})" if limit
                     else f"{granularity} level: {method}")
    return "Outlined, bold: the top significance cluster (" + "; ".join(parts) + ")."


def _correlation_section(results: Results, statistic: str, grouping: str, top: TopClusters) -> list[str]:
    from korean_eval.exports.charts import BAR_LIMIT, correlation_figure

    families = dict(zip(results.token_stats["level"], results.token_stats["family"], strict=True))
    grids = {g: correlation_grid(results, g, statistic, grouping, top.of(g)) for g in GRANULARITIES}
    has_ci = any(bool(np.isfinite(grid["ci_low"].to_numpy(float)).any()) for grid in grids.values())
    as_grid = any(len(grid) > BAR_LIMIT for grid in grids.values())
    out = ["<h2 id='correlations'>Correlation with the human scores</h2>",
           _correlation_caption(statistic, has_ci, as_grid, top, run_error_rates(results))]
    value_header = {"value": STATISTIC_NAMES.get(statistic, statistic) + " (as computed)"}
    for granularity, grid in grids.items():
        if grid.empty:
            out.append(f"<p>No {granularity}-level correlations (no human scores).</p>")
            continue
        title = f"{STATISTIC_NAMES.get(statistic, statistic)}: agreement with the humans, {granularity} level"
        out.append(_figure(correlation_figure(grid, families, granularity, title, statistic),
                           f"correlation-{granularity}"))
        shown = grid[SHOWN_GRID_COLUMNS].assign(metric=[metric_label(m) for m in grid["metric"]])
        out.append(html_table(shown, f"table-correlations-{granularity}", list(grid["top"]), value_header))
    corr = results.correlations
    out += ["<details><summary>Every correlation (all statistics and groupings) as computed, with 95 % intervals; "
            "bold: the top cluster</summary>", html_table(corr, "table-correlations",
                                                          _top_rows(corr, statistic, grouping, top)),
            "</details>"]
    return out


def score_pivot(table: pd.DataFrame, metric: str, columns: Sequence[str], table_id: str) -> str:
    """One metric's system scores as the study's Table 4: systems as rows, ``Human`` and the levels as columns,
    each cell ``score (rank)`` with ``data-value`` (the score) and ``data-rank``."""
    part = table[table["metric"] == metric]
    cells = {(r.system, r.column): (float(r.score), float(r.rank)) for r in part.itertuples()}
    head = "<th>system</th>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    rows = []
    for system in dict.fromkeys(part["system"]):
        row = [f"<td>{html.escape(str(system))}</td>"]
        for column in columns:
            score, rank = cells.get((system, column), (float("nan"), float("nan")))
            shown = "–" if not np.isfinite(score) else f"{score:.2f} ({format_rank(rank)})"
            row.append(f'<td class="num" data-column="{html.escape(str(column))}" data-value="{score!r}" '
                       f'data-rank="{rank!r}">{shown}</td>')
        rows.append(f'<tr data-system="{html.escape(str(system))}">' + "".join(row) + "</tr>")
    return (f'<table id="{html.escape(table_id)}" data-metric="{html.escape(metric)}"><thead><tr>{head}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table>')


def _scores_section(results: Results) -> list[str]:
    from korean_eval.exports.charts import flip_figure, rank_figure, system_score_figure

    table = system_score_table(results)
    has_ranks = bool(results.human_systems["human_rank"].notna().any())
    columns = [HUMAN_COLUMN, *run_levels(results)] if has_ranks else run_levels(results)
    out = ["<h2 id='scores'>System scores and rankings</h2>",
           "<p>Raw scores are not comparable across token levels: compare systems within a level. Each cell: the "
           "score (its rank among the systems, 1 = best; for an error rate, the lowest)"
           + ("; Human: the mean human score.</p>" if has_ranks else ".</p>")]
    for i, metric in enumerate(run_metrics(results)):
        direction = "" if results.higher_is_better(metric) else " (lower is better)"
        out += [f"<h3>{html.escape(metric_label(metric))}{direction}</h3>",
                score_pivot(table, metric, columns, f"table-scores-{i}"),
                _figure(system_score_figure(table, metric), f"scores-{i}")]
        if has_ranks:
            out.append(_figure(rank_figure(table, metric), f"ranks-{i}"))
    n = len(results.systems)
    if has_ranks and n > 1:
        out += ["<h3>Flipped pairs</h3>",
                _figure(flip_figure(results.flips, run_metrics(results), run_levels(results), n * (n - 1) // 2),
                        "flipped-pairs"),
                "<details><summary>Every flipped pair</summary>", html_table(results.flips, "table-flipped-pairs"),
                "</details>"]
    return out


def _tokens_section(results: Results) -> list[str]:
    from korean_eval.exports.charts import tokens_per_word_figure

    tokens = token_table(results)
    return ["<h2 id='tokens'>Token statistics</h2>", _figure(tokens_per_word_figure(tokens), "tokens-per-word"),
            "<p>Over every reference and hypothesis (repeats counted); vocabulary: distinct tokens.</p>",
            html_table(tokens, "table-token-stats")]


def _lens_section(lens: LensResult) -> list[str]:
    """The Korean lens's section (:func:`korean_eval.lens.run.run_lens`): the error profile (heatmap with small
    support greyed, and its table), speech levels and spacing per system, the perturbation probe when it ran, and
    the correlations of error counts with the human scores when there are any."""
    from korean_eval.exports.charts import lens_probe_figure, lens_profile_figure
    from korean_eval.lens.pos_categories import CATEGORY_LABELS
    from korean_eval.lens.profile import ALL, MIN_SUPPORT

    whole = lens.profile[lens.profile["subcategory"] == ALL].drop(columns="subcategory")
    whole = whole.assign(category=[CATEGORY_LABELS.get(c, c) for c in whole["category"]])
    out = ["<h2 id='lens'>Korean lens</h2>",
           "<p>Kiwi's morphological analysis of every hypothesis and reference: which kinds of Korean errors each "
           "system makes (the same tables as <code>korean-eval profile</code>). Per category, F1 = 2·matched / "
           "(hypothesis + reference morphemes), over counts summed per system. Grey cells rest on fewer than "
           f"{MIN_SUPPORT} morphemes: too few to read (their counts are in the hover box and the table).</p>",
           _figure(lens_profile_figure(lens.profile), "lens-profile"),
           html_table(whole, "table-lens-profile", headers=LENS_HEADERS),
           "<h3>Speech level and spacing per system</h3>",
           html_table(lens.speech_levels, "table-lens-speech-levels", headers=LENS_HEADERS),
           html_table(lens.spacing, "table-lens-spacing", headers=LENS_HEADERS)]
    if lens.probe is not None:
        out += ["<h3>Perturbation probe</h3>",
                "<p>Each kind perturbs every reference once; the metric scores the perturbed reference against the "
                "original. 1 = punished as much as dropping a content eojeol, 0 = not noticed, below 0 = rewarded."
                "</p>", _figure(lens_probe_figure(lens.probe.summary), "lens-probe"),
                "<details><summary>The probe's table</summary>",
                html_table(lens.probe.summary, "table-lens-probe", headers=LENS_HEADERS), "</details>"]
    links = lens.human_links
    if not links.empty:
        corr = links[links["analysis"] == "correlation"].drop(columns="analysis")
        whole = corr[(corr["statistic"] == "pearson") & ~corr["feature"].str.contains("/", regex=False)]
        out += ["<h3>What the humans punish</h3>",
                "<p>Descriptive, not causal: Pearson r of each per-segment error count with the human score over all "
                "(system, segment) pairs with both, with its bootstrap 95 % interval (negative: more such errors, "
                "lower human scores).</p>",
                html_table(whole.drop(columns="statistic"), "table-lens-human-links",
                           headers={**LENS_HEADERS, "value": "Pearson r", "feature": "errors counted"}),
                "<details><summary>Every subcategory and statistic</summary>",
                html_table(corr, "table-lens-human-links-all", headers=LENS_HEADERS), "</details>"]
    if lens.notes:
        out.append("<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in lens.notes) + "</ul>")
    return out


def _run_section(results: Results, evalset: EvalSet | None, meta: Mapping[str, object]) -> list[str]:
    signatures = pd.DataFrame([{"configuration": k, "signature": v} for k, v in results.signatures().items()])
    out = ["<h2 id='run'>Settings, signatures and data</h2>",
           f"<pre id='settings'>{html.escape(json.dumps(meta, ensure_ascii=False, indent=2, default=str))}</pre>",
           html_table(signatures, "table-signatures")]
    if evalset is not None:
        summary = pd.DataFrame([{"item": k, "value": str(v)} for k, v in evalset.summary().items()])
        out += [f"<p>Data SHA-256: <code id='data-sha256'>{evalset.content_hash()}</code></p>",
                "<h3>Validation report</h3>", html_table(summary, "table-data-summary")]
        notes = evalset.report.notes
        out.append("<ul id='validation-notes'>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>"
                   if notes else "<p>No validation notes.</p>")
        excluded = evalset.report.excluded_summary()
        out.append(html_table(excluded, "table-excluded") if len(excluded) else "<p>No row was excluded.</p>")
    if results.notes:
        out.append("<h3>Notes</h3><ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in results.notes) + "</ul>")
    return out


def _ranking_section(ranking: pd.DataFrame, pairs: pd.DataFrame | None, how: str) -> list[str]:
    """The ranking check: each configuration's systems best first with its significance clusters, and every
    tested pair (:mod:`korean_eval.metaeval.tables.system_ranking`)."""
    rows = []
    for (level, metric), group in ranking.groupby(["level", "metric"], sort=False):
        group = group.sort_values("position")
        clusters = [" ≈ ".join(g["system"]) for _, g in group.groupby("cluster", sort=True)]
        rows.append({"metric": metric_label(metric), "level": level, "systems, best first": " > ".join(clusters)})
    out = ["<h2 id='ranking'>Ranking check</h2>",
           "<p>Per metric × token level, the systems best first: “&gt;” a significant difference, “≈” systems of one "
           "significance cluster (WMT's clustering: a system starts a new cluster when a member of the current one is "
           f"significantly better). {html.escape(how)}</p>",
           html_table(pd.DataFrame(rows), "table-ranking")]
    if pairs is not None and len(pairs):
        out += ["<details><summary>Every tested pair of systems</summary>", html_table(pairs, "table-metric-pairs"),
                "</details>"]
    return out


def html_report(results: Results, evalset: EvalSet | None, top: TopClusters, statistic: str = "pearson",
                grouping: str = "none", meta: Mapping[str, object] | None = None,
                lens: LensResult | None = None, ranking: Mapping[str, pd.DataFrame] | None = None,
                ranking_how: str = "") -> str:
    """The whole report as one HTML document (see the module docstring). ``meta``: the run's settings and
    signatures as :func:`korean_eval.exports.csv_zip.run_metadata` gives them (written in full); ``lens``: the
    Korean lens of the same data (:func:`korean_eval.lens.run.run_lens`), whose section the report then holds
    (nothing is computed for it here); ``ranking``: the ranking check's tables by file name (``system_ranking.csv``,
    ``metric_pairs.csv``), whose section the report then holds, with ``ranking_how`` (its tests and settings)."""
    from plotly.offline import get_plotlyjs

    from korean_eval.exports.csv_zip import run_metadata

    meta = dict(meta) if meta is not None else run_metadata(results, evalset)
    head = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            "<title>korean-eval report</title>", f"<style>{STYLE}</style>",
            f"<script type='text/javascript'>{get_plotlyjs()}</script>", "</head><body>"]
    intro = ["<h1>korean-eval report</h1>",
             f"<p class='meta'>korean-eval {html.escape(korean_eval.__version__)} · {len(results.systems)} systems · "
             f"{len(results.seg_ids)} segments · levels {html.escape(', '.join(run_levels(results)))} · metrics "
             f"{html.escape(', '.join(metric_label(m) for m in run_metrics(results)))}</p>"]
    if evalset is not None and evalset.human_note:
        intro.append(f"<div class='note' id='human-note'>{html.escape(evalset.human_note)}</div>")
    intro.append("<p><a href='#correlations'>Correlations</a> · <a href='#scores'>Scores and rankings</a> · "
                 + ("<a href='#ranking'>Ranking check</a> · " if ranking is not None else "") +
                 "<a href='#tokens'>Tokens</a> · " + ("<a href='#lens'>Korean lens</a> · " if lens is not None else "")
                 + "<a href='#run'>Settings, signatures, data</a></p>")
    body = (_correlation_section(results, statistic, grouping, top) if has_human_scores(results) else
            ["<h2 id='correlations'>Correlation with the human scores</h2><p>No human scores: the correlations and "
             "the comparisons with humans need them; the ranking check below needs none.</p>"])
    body += _scores_section(results)
    if ranking is not None and len(ranking.get("system_ranking.csv", ())):
        body += _ranking_section(ranking["system_ranking.csv"], ranking.get("metric_pairs.csv"), ranking_how)
    body += _tokens_section(results)
    body += _lens_section(lens) if lens is not None else []
    body += _run_section(results, evalset, meta)
    return "\n".join(head + intro + body + ["</body></html>", ""])
