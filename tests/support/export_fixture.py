"""A CLI run with every export (``--out``, ``--latex``, ``--report``) on the bundled sample, two of its systems
renamed to names LaTeX and HTML must escape (``A_B&C%`` and ``<i>x & 'y'``), and a small evaluation of the same
data through the library (the tests' independent side)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from korean_eval.cli.main import main
from korean_eval.inputs.sample import sample_files

LEVELS = ("word", "char", "jamo")
METRICS = ("bleu", "chrf", "ter")
RESAMPLES = 60
SEED = 7
RENAMED = {"sys_josa": "A_B&C%", "sys_literal": "<i>x & 'y'"}


@dataclass
class ExportRun:
    root: Path
    out: Path
    latex: Path
    report: Path
    cache: Path


def run_exports(root: Path, statistic: str = "pearson") -> ExportRun:
    """Run ``python -m korean_eval run`` with the exports into ``root`` (its own cache there)."""
    files = sample_files()
    systems = root / "systems"
    systems.mkdir(parents=True)
    for path in files["systems"]:
        shutil.copy(path, systems / f"{RENAMED.get(Path(path).stem, Path(path).stem)}.txt")
    human = Path(files["human"]).read_text(encoding="utf-8")
    for old, new in RENAMED.items():
        human = human.replace(f"{old}\t", f"{new}\t")
    (root / "human.tsv").write_text(human, encoding="utf-8")
    run = ExportRun(root, root / "out", root / "tex", root / "report" / "report.html", root / "cache")
    code = main(["run", "--ref", str(files["ref"]), "--sys-dir", str(systems), "--human", str(root / "human.tsv"),
                 "--levels", ",".join(LEVELS), "--metrics", ",".join(METRICS), "--bootstrap", str(RESAMPLES),
                 "--seed", str(SEED), "--statistic", statistic, "--spa-permutations", "0", "--quiet",
                 "--cache-dir", str(run.cache), "--out", str(run.out), "--latex", str(run.latex),
                 "--report", str(run.report)])
    assert code == 0
    return run
