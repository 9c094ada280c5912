"""`python -m korean_eval run --statistic pdp` on the sample: correlations.csv carries the pdp rows with bootstrap
intervals, the summary prints PDP per segment (grouping item), and the significance table compares by PDP with
grouping item (:func:`korean_eval.model.vocabulary.headline_grouping`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from korean_eval.cli.main import main
from korean_eval.metaeval.stats.correlation import segment_correlation
from tests.support.helpers import ROOT


def test_cli_writes_pdp_rows_and_tests_by_pdp(tmp_path, capsys):
    out = tmp_path / "out"
    sample = ROOT / "sample_data"
    code = main(
        ["run", "--ref", str(sample / "ref.txt"), "--sys-dir",
         str(sample / "systems"), "--human", str(sample / "human.tsv"), "--levels", "word,char", "--metrics",
         "bleu,ter", "--statistic", "pdp", "--bootstrap", "100", "--spa-permutations", "0", "--no-cache", "--quiet",
         "--out", str(out), "--latex", str(tmp_path / "tex")]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "PDP (segment level: grouping item) correlation with humans" in printed.out
    corr = pd.read_csv(out / "correlations.csv")
    pdp = corr[corr["statistic"] == "pdp"]
    assert set(zip(pdp["granularity"], pdp["grouping"], strict=True)) == {
        ("segment", "none"), ("segment", "item"), ("segment", "system"), ("system", "none")}
    assert pdp[["ci_low", "ci_high"]].notna().all().all()
    seg = pd.read_csv(out / "segment_scores.csv", dtype={"seg_id": str})
    human = pd.read_csv(sample / "human.tsv", sep="\t", dtype={"seg_id": str})
    bleu = seg[(seg["level"] == "char") & (seg["metric"] == "bleu")].pivot(index="system", columns="seg_id",
                                                                          values="score")
    h = human.pivot_table(index="system", columns="seg_id", values="score").reindex(index=bleu.index,
                                                                                   columns=bleu.columns)
    want = segment_correlation(bleu.to_numpy(float), h.to_numpy(float), "pdp", "item").value
    row = pdp[(pdp["level"] == "char") & (pdp["metric"] == "bleu") & (pdp["grouping"] == "item")]
    assert np.isclose(float(row["value"].iloc[0]), want, rtol=0, atol=1e-12)
    significance = pd.read_csv(out / "significance.csv")
    # the chosen statistic's tests, beside WMT's acc_eq tests (SPA's are off: --spa-permutations 0)
    assert set(significance["statistic"]) == {"pdp", "acc_eq"}
    segment = significance[(significance["granularity"] == "segment") & (significance["statistic"] == "pdp")]
    assert set(segment["grouping"]) == {"item"} and len(segment)  # PDP is compared per segment, as WMT25
    assert "grouping item" in (tmp_path / "tex" / "correlations_segment.tex").read_text(encoding="utf-8")
