"""Paper-ready LaTeX tables (booktabs) of one evaluation (docs/design.md §2, "Exports").

Files (:func:`latex_tables`): ``correlations_segment.tex`` and ``correlations_system.tex`` (the correlation with
the humans per token level × metric; the top significance cluster in bold; 95 % bootstrap interval on a second
line when computed), ``system_scores.tex`` (the kor_sacrebleu study's Table 4 shape: systems as rows, one panel per
metric with a column per level, each cell the system score and its rank in parentheses), ``token_stats.tex`` (the
study's Table 2 shape: tokens per segment, vocabulary, tokens per word per level). Each is a ``table`` float with a
caption, a label and a note holding the signatures, to ``\\input{}`` into a paper.

What the including document needs: ``\\usepackage{booktabs}``; for Hangul in system names or metric names
``\\usepackage{kotex}`` (Debian ``texlive-lang-korean``; with XeLaTeX/LuaLaTeX kotex as well); ``\\usepackage[T1]
{fontenc}`` is recommended but not needed (every special character is written as a command). Numbers are copied
from the tidy tables (:mod:`korean_eval.exports.tables`), rounded for display only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

import korean_eval
from korean_eval.exports.tables import (
    HUMAN_COLUMN,
    TopClusters,
    correlation_grid,
    format_rank,
    metric_label,
    run_error_rates,
    run_levels,
    run_metrics,
    signature_groups,
    system_score_table,
    token_table,
)
from korean_eval.model.results import Results, has_human_scores
from korean_eval.model.vocabulary import GRANULARITIES, STATISTIC_SYMBOLS, grouping_used

PREAMBLE_NOTE = (
    "% Needs \\usepackage{booktabs}; for Hangul (e.g. in system names) \\usepackage{kotex} (texlive-lang-korean).\n"
    "% \\usepackage[T1]{fontenc} is recommended; every special character is written as a command.\n"
)
_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "%": r"\%", "_": r"\_",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
    "|": r"\textbar{}", '"': r"\textquotedbl{}",
}
_CONTROL = {"\n": " ", "\r": " ", "\t": " "}


def latex_escape(text: object) -> str:
    """``text`` as LaTeX that prints it literally: the ten special characters and ``< > | "`` (which OT1 fonts
    print as other glyphs) as commands, line breaks and tabs as spaces."""
    return "".join(_SPECIAL.get(ch, _CONTROL.get(ch, ch)) for ch in str(text))


#: Symbols of the statistics' sentences written in math mode (pdfLaTeX's text fonts have no α or ≥).
_MATH = {"α": r"$\alpha$", "≥": r"$\geq$"}


def _with_math(text: str) -> str:
    """:func:`latex_escape` of ``text`` with :data:`_MATH`'s symbols in math mode."""
    return "".join(_MATH.get(ch, latex_escape(ch)) for ch in str(text))


def _number(value: float, digits: int) -> str:
    """``value`` rounded to ``digits`` (a minus sign, not a hyphen, before a negative one); ``--`` when undefined."""
    if value is None or not np.isfinite(value):
        return "--"
    text = f"{value:.{digits}f}"
    return "$-$" + text[1:] if text.startswith("-") else text


def _tabular(columns: str, header: Sequence[str], body: Iterable[str]) -> list[str]:
    return [f"\\begin{{tabular}}{{{columns}}}", "\\toprule", " & ".join(header) + " \\\\", "\\midrule", *body,
            "\\bottomrule", "\\end{tabular}"]


def _table(name: str, lines: Sequence[str], caption: str, label: str, note: str) -> str:
    """A ``table`` float around ``lines`` (a tabular) with ``caption``, ``label`` and a footnote-size ``note``."""
    head = f"% {name}: written by korean-eval {korean_eval.__version__}\n" + PREAMBLE_NOTE
    body = ["\\begin{table}[t]", "\\centering", "\\small", *lines]
    if note:
        body += ["\\par\\smallskip", f"\\parbox{{\\linewidth}}{{\\footnotesize\\raggedright {note}}}"]
    body += [f"\\caption{{{caption}}}", f"\\label{{{label}}}", "\\end{table}"]
    return head + "\n".join(body) + "\n"


def signature_note(results: Results, metrics: Sequence[str]) -> str:
    """The signatures of ``metrics`` without repetition (sacrebleu's part per metric, the level part per level)."""
    parts, levels = signature_groups(results.signatures())
    texts = []
    for metric, head, lvs in parts:
        if metric not in metrics:
            continue
        where = "" if set(lvs) >= set(run_levels(results)) else f" ({latex_escape(', '.join(lvs))})"
        texts.append(f"{latex_escape(metric_label(metric))}{where}: \\texttt{{{_breakable(head)}}}")
    if levels:
        texts.append("levels: " + "; ".join(f"\\texttt{{{_breakable(v)}}}" for v in levels.values()))
    return "Signatures. " + "; ".join(texts) + "." if texts else ""


def _breakable(text: str) -> str:
    """Escaped text that may break after each ``|`` (signatures are long)."""
    return r"\textbar\allowbreak{}".join(latex_escape(part) for part in text.split("|"))


def _grid_cell(row: pd.Series, with_ci: bool) -> tuple[str, str]:
    value = _number(row["value"], 3)
    shown = f"\\textbf{{{value}}}" if row["top"] and value != "--" else value
    ci = ""
    if with_ci and np.isfinite(row["ci_low"]) and np.isfinite(row["ci_high"]):
        ci = f"{{\\scriptsize[{_number(row['ci_low'], 3)}, {_number(row['ci_high'], 3)}]}}"
    return shown, ci


def correlation_table(results: Results, granularity: str, statistic: str, grouping: str, top: TopClusters,
                      with_ci: bool = True) -> str:
    """``correlations_<granularity>.tex``: levels as rows, metrics as columns, the correlation of ``statistic``
    (segment level with ``grouping``); the top cluster's cells in bold; CIs on a second line when present. The
    caption states statistic, grouping, n and the test with its resampling (:meth:`TopClusters.method_of`), and when
    that test cannot reach α on these data, why no cell is bold (:meth:`TopClusters.limit_of`)."""
    grid = correlation_grid(results, granularity, statistic, grouping, top.of(granularity))
    metrics = run_metrics(results)
    cells = {(r.level, r.metric): _grid_cell(grid.loc[i], with_ci) for i, r in grid.iterrows()}
    body = []
    for level in run_levels(results):
        row = [cells.get((level, m), ("--", "")) for m in metrics]
        body.append(f"{latex_escape(level)} & " + " & ".join(v for v, _ in row) + " \\\\")
        if any(ci for _, ci in row):
            body.append(" & " + " & ".join(ci for _, ci in row) + " \\\\[2pt]")
    header = ["Level", *(latex_escape(metric_label(m)) for m in metrics)]
    lines = _tabular("l" + "r" * len(metrics), header, body)
    symbol = STATISTIC_SYMBOLS.get(statistic, statistic)
    rates = run_error_rates(results)
    n = int(grid["n"].max()) if len(grid) and grid["n"].notna().any() else 0
    unit = "system-segment pairs" if granularity == "segment" else "systems"
    grouped = f", grouping {grouping_used(granularity, grouping)}" if granularity == "segment" else ""
    method, limit = latex_escape(top.method_of(granularity)), top.limit_of(granularity)
    marked = (f"No cell is bold: {_with_math(limit)} ({method})." if limit
              else f"Bold: the top significance cluster ({method}).")
    caption = (f"{statistic.title()} correlation ({latex_escape(symbol)}) with human scores at the {granularity} "
               f"level{grouped} (n = {n} {unit}). {marked}"
               + (f" Error rates ({latex_escape(rates)}) agree with humans when they correlate negatively." if rates
                  else "")
               + (" Second line: 95\\% bootstrap confidence interval." if with_ci and grid["ci_low"].notna().any() else ""))
    return _table(f"correlations_{granularity}.tex", lines, caption, f"tab:korean-eval-correlations-{granularity}",
                  signature_note(results, metrics))


def system_scores_table(results: Results) -> str:
    """``system_scores.tex``: systems as rows; per metric a panel with the human mean and a column per level, each
    cell ``score (rank)``."""
    table = system_score_table(results)
    levels = run_levels(results)
    with_human = has_human_scores(results)
    columns = [HUMAN_COLUMN, *levels] if with_human else levels
    body = []
    for metric in run_metrics(results):
        part = table[table["metric"] == metric]
        cells = {(r.system, r.column): f"{_number(r.score, 2)} ({format_rank(r.rank)})" if np.isfinite(r.score) else "--"
                 for r in part.itertuples()}
        direction = "" if results.higher_is_better(metric) else " (lower is better)"
        if body:
            body.append("\\midrule")
        body.append(f"\\multicolumn{{{len(columns) + 1}}}{{l}}{{\\textit{{{latex_escape(metric_label(metric))}"
                    f"{direction}}}}} \\\\")
        for system in dict.fromkeys(part["system"]):
            body.append(latex_escape(system) + " & " + " & ".join(cells.get((system, c), "--") for c in columns) + " \\\\")
    lines = _tabular("l" + "r" * len(columns), ["System", *(latex_escape(c) for c in columns)], body)
    caption = ("System scores per token level (rank among the systems in parentheses, 1 = best)"
               + ("; Human: mean human score" if with_human else "")
               + ". Raw scores are not comparable across token levels; system scores come from statistics summed "
               "over the corpus.")
    return _table("system_scores.tex", lines, caption, "tab:korean-eval-system-scores",
                  signature_note(results, run_metrics(results)))


def token_stats_table(results: Results) -> str:
    """``token_stats.tex``: per level its family, tokens per segment, vocabulary and tokens per word."""
    table = token_table(results)
    body = [
        f"{latex_escape(r.level)} & {latex_escape(r.family)} & {_number(r.tokens_per_segment, 1)} & "
        f"{'--' if not np.isfinite(r.vocabulary) else f'{int(r.vocabulary):,}'.replace(',', '{,}')} & "
        f"{_number(r.tokens_per_word, 2)} \\\\"
        for r in table.itertuples()
    ]
    lines = _tabular("llrrr", ["Level", "Family", "Tokens/segment", "Vocabulary", "Tokens/word"], body)
    versions = "; ".join(f"{latex_escape(r.level)}: \\texttt{{{latex_escape(r.version)}}}" for r in table.itertuples())
    caption = ("Token statistics per level over every reference and hypothesis (repeats counted): tokens per "
               "segment, vocabulary (distinct tokens) and tokens per whitespace word.")
    return _table("token_stats.tex", lines, caption, "tab:korean-eval-token-stats", f"Tokenizers. {versions}.")


def ranking_table(results: Results, ranking: pd.DataFrame, how: str) -> str:
    """``system_ranking.tex``: per metric × level the systems best first, a significance cluster's members joined
    by $\\approx$ and clusters separated by $>$ (:mod:`korean_eval.metaeval.tables.system_ranking`); ``how``: the
    tests and their settings, for the caption."""
    body = []
    for metric in run_metrics(results):
        rows = ranking[ranking["metric"] == metric]
        if rows.empty:
            continue
        if body:
            body.append("\\midrule")
        for level in [lv for lv in run_levels(results) if lv in set(rows["level"])]:
            group = rows[rows["level"] == level].sort_values("position")
            clusters = [" $\\approx$ ".join(latex_escape(s) for s in g["system"])
                        for _, g in group.groupby("cluster", sort=True)]
            body.append(f"{latex_escape(metric_label(metric))} & {latex_escape(level)} & "
                        + " $>$ ".join(clusters) + " \\\\")
    lines = _tabular("llp{0.62\\linewidth}", ["Metric", "Level", "Systems, best first"], body)
    caption = ("System rankings per metric and token level: $>$ a significant difference, $\\approx$ systems of one "
               "significance cluster (no significant difference; WMT's clustering, a system starts a new cluster when a "
               "member of the current one is significantly better). " + latex_escape(how).replace("--", "-{}-"))
    return _table("system_ranking.tex", lines, caption, "tab:korean-eval-system-ranking",
                  signature_note(results, run_metrics(results)))


def latex_tables(results: Results, top: TopClusters, statistic: str = "pearson", grouping: str = "none",
                 with_ci: bool = True, ranking: pd.DataFrame | None = None, ranking_how: str = "") -> dict[str, str]:
    """File name → LaTeX source of every table (see the module docstring): the correlation tables only with human
    scores; ``system_ranking.tex`` when the ranking check's ``ranking`` (``system_ranking.csv``) is given, with
    ``ranking_how`` (its tests and settings) in its caption."""
    tables = {}
    if has_human_scores(results):
        tables = {f"correlations_{g}.tex": correlation_table(results, g, statistic, grouping, top, with_ci)
                  for g in GRANULARITIES}
    tables["system_scores.tex"] = system_scores_table(results)
    if ranking is not None and len(ranking):
        tables["system_ranking.tex"] = ranking_table(results, ranking, ranking_how)
    tables["token_stats.tex"] = token_stats_table(results)
    return tables


def write_latex(tables: dict[str, str], out_dir: str | Path) -> list[Path]:
    """Write :func:`latex_tables`' files into ``out_dir`` (created if needed); return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in tables.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
