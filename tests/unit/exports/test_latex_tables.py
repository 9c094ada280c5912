"""LaTeX exports (``run --latex DIR``, :mod:`korean_eval.exports.latex`): the numbers read back from the ``.tex``
files equal the CSVs', the bold cells are the top significance cluster, text is escaped, and the tables compile
with ``pdflatex`` (Debian's texlive-latex-base + texlive-latex-recommended, installed by ``scripts/setup`` under CI).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from korean_eval.cli.main import main
from korean_eval.engine.pipeline import evaluate
from korean_eval.exports.latex import latex_escape
from korean_eval.exports.tables import find_top_clusters
from korean_eval.inputs.tables import attach_human
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import evalset_from_texts
from tests.support.export_fixture import LEVELS, METRICS, RENAMED, RESAMPLES, SEED
from tests.support.helpers import IN_CI

TABLES = ["correlations_segment.tex", "correlations_system.tex", "system_scores.tex", "system_ranking.tex",
          "token_stats.tex"]
LABELS = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER"}


def _number(cell: str) -> float:
    """A cell's number: ``\\textbf{…}`` and the ``$-$`` minus undone."""
    cell = re.sub(r"\\textbf\{(.*)\}", r"\1", cell.strip()).replace("$-$", "-")
    return float(cell)


def _body_rows(tex: str) -> list[list[str]]:
    """The cells of the rows between ``\\midrule`` and ``\\bottomrule`` (``\\\\`` ends a row)."""
    body = tex.split("\\midrule", 1)[1].split("\\bottomrule", 1)[0]
    rows = [re.sub(r"\\\\(\[[^]]*\])?\s*$", "", line).strip() for line in body.strip().splitlines()]
    return [[c.strip() for c in re.split(r"(?<!\\)&", row)] for row in rows if row and row != "\\midrule"]


def _grid(tex: str) -> dict[tuple[str, str], tuple[str, tuple[float, float] | None]]:
    """(level, metric label) → (cell text, CI) of a correlation table."""
    header = tex.split("\\toprule", 1)[1].split("\\\\", 1)[0]
    metrics = [c.strip() for c in header.split(" & ")][1:]
    cells: dict = {}
    level = None
    for row in _body_rows(tex):
        if row[0]:
            level = row[0]
            for metric, cell in zip(metrics, row[1:], strict=True):
                cells[(level, metric)] = (cell, None)
        else:
            for metric, cell in zip(metrics, row[1:], strict=True):
                low, high = re.fullmatch(r"\{\\scriptsize\[(.*), (.*)\]\}", cell).groups()
                cells[(level, metric)] = (cells[(level, metric)][0], (_number(low), _number(high)))
    return cells


@pytest.mark.parametrize("granularity", ["segment", "system"])
def test_correlation_grid_equals_correlations_csv(export_run, granularity):
    corr = pd.read_csv(export_run.out / "correlations.csv")
    rows = corr[(corr["granularity"] == granularity) & (corr["statistic"] == "pearson") & (corr["grouping"] == "none")]
    cells = _grid((export_run.latex / f"correlations_{granularity}.tex").read_text(encoding="utf-8"))
    assert len(cells) == len(LEVELS) * len(METRICS) == len(rows)
    for r in rows.itertuples():
        text, ci = cells[(r.level, LABELS[r.metric])]
        assert _number(text) == round(r.value, 3)
        assert ci == (round(r.ci_low, 3), round(r.ci_high, 3))


def _library_results(export_run):
    """The same evaluation through the library (not the CLI): the independent side of the top-cluster test."""
    systems = [(p.name, p.read_bytes()) for p in sorted((export_run.root / "systems").glob("*.txt"))]
    from korean_eval.inputs.sample import sample_files

    ev = evalset_from_texts([("ref.txt", Path(sample_files()["ref"]).read_bytes())], systems)
    attach_human(ev, (export_run.root / "human.tsv").read_bytes(), "human.tsv")
    return evaluate(ev, EvalConfig(levels=LEVELS, metrics=METRICS, spa_permutations=0, seed=SEED))


def test_bold_cells_are_the_top_cluster(export_run):
    top = find_top_clusters(_library_results(export_run), "pearson", n_permutations=RESAMPLES, seed=SEED)
    clusters = pd.read_csv(export_run.out / "clusters.csv")
    for granularity in ("segment", "system"):
        cells = _grid((export_run.latex / f"correlations_{granularity}.tex").read_text(encoding="utf-8"))
        bold = {(lv, m) for (lv, m), (text, _) in cells.items() if text.startswith("\\textbf{")}
        expected = {(lv, LABELS[m]) for lv, m in top.of(granularity)}
        assert expected and bold == expected, granularity
        first = clusters[(clusters["granularity"] == granularity) & (clusters["statistic"] == "pearson")
                         & (clusters["cluster"] == 1)]  # clusters.csv also ranks by acc_eq and SPA
        assert {(lv, LABELS[m]) for lv, m in zip(first["level"], first["metric"], strict=True)} == bold
        assert len(bold) < len(cells)  # the test can fail: not every cell is bold


def test_system_scores_and_ranks_equal_the_csvs(export_run):
    scores = pd.read_csv(export_run.out / "system_scores.csv", keep_default_na=False)
    ranks = pd.read_csv(export_run.out / "rankings.csv", keep_default_na=False)
    human = pd.read_csv(export_run.out / "human_systems.csv", keep_default_na=False).set_index("system")
    tex = (export_run.latex / "system_scores.tex").read_text(encoding="utf-8")
    header = [c.strip() for c in tex.split("\\toprule", 1)[1].split("\\\\", 1)[0].split(" & ")]
    assert header == ["System", "Human", *LEVELS]
    metric, seen = None, 0
    names = {latex_escape(s): s for s in scores["system"]}
    for row in _body_rows(tex):
        if row[0].startswith("\\multicolumn"):
            metric = {v: k for k, v in LABELS.items()}[re.search(r"\\textit\{(\w+)", row[0]).group(1)]
            continue
        system = names[row[0]]
        for column, cell in zip(header[1:], row[1:], strict=True):
            value, rank = re.fullmatch(r"(\S+) \((\S+)\)", cell).groups()
            if column == "Human":
                expected = human.loc[system, "human_mean"], human.loc[system, "human_rank"]
            else:
                r = ranks[(ranks["system"] == system) & (ranks["level"] == column) & (ranks["metric"] == metric)]
                s = scores[(scores["system"] == system) & (scores["level"] == column) & (scores["metric"] == metric)]
                assert float(r["metric_score"].iloc[0]) == float(s["score"].iloc[0])
                expected = s["score"].iloc[0], r["metric_rank"].iloc[0]
            assert _number(value) == round(float(expected[0]), 2)
            assert float(rank) == float(expected[1])
            seen += 1
    assert seen == len(METRICS) * 5 * (len(LEVELS) + 1)


def test_token_stats_equal_token_stats_csv(export_run):
    stats = pd.read_csv(export_run.out / "token_stats.csv").set_index("level")
    rows = _body_rows((export_run.latex / "token_stats.tex").read_text(encoding="utf-8"))
    assert [r[0] for r in rows] == list(LEVELS)
    for level, family, per_segment, vocabulary, per_word in rows:
        s = stats.loc[level]
        assert family == s["family"]
        assert float(per_segment) == round(s["tokens"] / s["texts"], 1)
        assert float(per_word) == round(s["tokens_per_word"], 2)
        assert 0 < int(vocabulary.replace("{,}", "")) <= s["tokens"]
    assert int(rows[-1][3].replace("{,}", "")) < int(rows[0][3].replace("{,}", ""))  # jamo: fewer types than words


def test_text_is_escaped():
    assert latex_escape("A_B&C%") == r"A\_B\&C\%"
    assert latex_escape(r"\x{$#^~}<|>") == (r"\textbackslash{}x\{\$\#\textasciicircum{}\textasciitilde{}\}"
                                              r"\textless{}\textbar{}\textgreater{}")
    assert latex_escape("한국어 시스템") == "한국어 시스템"
    assert latex_escape("a\nb\tc") == "a b c"


def test_system_names_are_escaped_in_the_files(export_run):
    tex = (export_run.latex / "system_scores.tex").read_text(encoding="utf-8")
    assert latex_escape(RENAMED["sys_josa"]) in tex and "A_B&C%" not in tex
    assert r"\textless{}i\textgreater{}x \& 'y'" in tex
    for name in TABLES:
        text = (export_run.latex / name).read_text(encoding="utf-8")
        assert "\\usepackage{kotex}" in text.split("\\begin{table}")[0]  # the comment naming what is needed
        body = text.split("\\begin{table}", 1)[1]
        math = ("$-$", "$>$", "$\\approx$")  # the tables' own symbols, written in math mode
        plain = body.replace(" & ", " ")
        for symbol in math:
            plain = plain.replace(symbol, "")
        assert not re.search(r"(?<!\\)[&%_#$]", plain), name  # every special char escaped


def _compile(directory: Path, preamble: str = "", tables: list[str] = TABLES) -> subprocess.CompletedProcess:
    doc = directory / "doc.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n" + preamble
                   + "\\begin{document}\n" + "".join(f"\\input{{{name}}}\n" for name in tables)
                   + "\\end{document}\n", encoding="utf-8")
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=directory,
                          capture_output=True, text=True, timeout=120)


def _require_pdflatex() -> None:
    if shutil.which("pdflatex") is None:
        if IN_CI:
            pytest.fail("pdflatex is required under CI=true (scripts/setup installs texlive-latex-base and "
                        "texlive-latex-recommended)")
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended)")


def test_tables_compile_with_pdflatex(export_run, tmp_path):
    _require_pdflatex()
    for name in TABLES:
        shutil.copy(export_run.latex / name, tmp_path / name)
    done = _compile(tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log


def test_hangul_compiles_with_kotex(tmp_path):
    """A system with a Korean name: needs kotex (texlive-lang-korean, ~60 MB with its fonts; scripts/setup installs
    it under CI, where its absence fails the test)."""
    _require_pdflatex()
    if subprocess.run(["kpsewhich", "kotex.sty"], capture_output=True, text=True).stdout.strip() == "":
        if IN_CI:
            pytest.fail("kotex.sty is required under CI=true (scripts/setup installs texlive-lang-korean)")
        pytest.skip("kotex.sty not installed (texlive-lang-korean, ~60 MB): Hangul cannot be typeset by pdflatex")
    ref = "고양이가 앉았다.\n날씨가 좋다.\n회의는 3시.\n".encode()
    systems = [("한국어 시스템.txt", "고양이 앉았다.\n날씨 좋다.\n회의 3시.\n".encode()), ("B.txt", ref),
               ("C.txt", "개.\n비.\n밥.\n".encode())]
    ev = evalset_from_texts([("ref.txt", ref)], systems)
    from korean_eval.exports.latex import latex_tables, write_latex
    from korean_eval.exports.tables import TopClusters

    results = evaluate(ev, EvalConfig(levels=("char",), metrics=("bleu",)))
    written = write_latex(latex_tables(results, TopClusters()), tmp_path)  # no human scores: no correlation tables
    assert [p.name for p in written] == ["system_scores.tex", "token_stats.tex"]
    done = _compile(tmp_path, "\\usepackage{kotex}\n", [p.name for p in written])
    assert done.returncode == 0, done.stdout[-3000:]


def test_export_paths_are_checked_before_any_work(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(["run", "--latex", str(tmp_path / "file"), "--levels", "char", "--no-cache"]) == 2
    assert "--latex" in capsys.readouterr().err
    assert main(["run", "--report", str(tmp_path), "--levels", "char", "--no-cache"]) == 2
    assert "--report" in capsys.readouterr().err
