"""What ``run --mtme DIR`` uses by default: the folder's own metric scores, meta-evaluated next to ours (unless
``--no-mtme-metrics``), and every rater group of the chosen human score, merged, with the human ceiling (unless one
group is named); the notes (stderr and ``run.json``) say which were used and how to choose others.

Folders: the small fixture of tests/make_mtme_fixture.py, with two MQM rater groups whose ``.seg.rating`` files both
rate every item (tests/make_spans_fixture.py's errors); and the held-out WMT24 chat data (../shared/heldout) written
in mt-metrics-eval's layout with a metric file of sentence chrF computed here by sacrebleu.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from scipy import stats

from korean_eval.cli.main import main
from korean_eval.inputs.mtme.files import DirTree
from korean_eval.inputs.mtme.layout import scan
from korean_eval.inputs.mtme.load import RATER_GROUP_NAME, default_human_names
from tests.support.command_line import FAST, error_line
from tests.support.helpers import SHARED, require
from tests.support.make_mtme_fixture import LP, MT_SYSTEMS, N_SEGMENTS, write_fixture
from tests.support.make_spans_fixture import write_rater_groups


@pytest.fixture
def groups_folder(tmp_path: Path) -> Path:
    base = write_fixture(tmp_path / "data")
    write_rater_groups(base)
    return base


def _run(capsys, *args: str) -> tuple[int, str]:
    code = main(["run", *args])
    return code, capsys.readouterr().err


def _meta(out: Path) -> dict:
    return json.loads((out / "run.json").read_text(encoding="utf-8"))


def test_the_folders_metric_scores_are_meta_evaluated_by_default(tmp_path: Path, capsys):
    folder, out = write_fixture(tmp_path / "data"), tmp_path / "out"
    code, err = _run(capsys, "--mtme", str(folder), *FAST, "--out", str(out))
    assert code == 0, err
    corr = pd.read_csv(out / "correlations.csv")
    assert sorted(corr.loc[corr["level"] == "given", "metric"].unique()) == ["COMET-22-refA", "MetricX-24-refA"]
    said = ("meta-evaluated next to ours (every one computed with the references scored against): COMET-22-refA, "
            "MetricX-24-refA; --mtme-metrics NAME,… chooses some, --no-mtme-metrics leaves them out")
    assert said in err
    assert any(said in n for n in _meta(out)["validation_notes"])
    assert "BLEU-refB" in err  # not loaded, and the note says why (another reference)


def test_no_mtme_metrics_leaves_them_out_and_says_so(tmp_path: Path, capsys):
    folder, out = write_fixture(tmp_path / "data"), tmp_path / "out"
    code, err = _run(capsys, "--mtme", str(folder), "--no-mtme-metrics", *FAST, "--out", str(out))
    assert code == 0, err
    assert "given" not in set(pd.read_csv(out / "correlations.csv")["level"])
    assert "are left out (--no-mtme-metrics)" in err
    assert any("--no-mtme-metrics" in n for n in _meta(out)["validation_notes"])


@pytest.mark.parametrize(("args", "message"), [
    (["--no-mtme-metrics"], "error: --no-mtme-metrics: needs --mtme"),
    (["--mtme", "x", "--no-mtme-metrics", "--mtme-metrics", "COMET-22-refA"],
     "error: --no-mtme-metrics: cannot be combined with --mtme-metrics"),
])
def test_no_mtme_metrics_conflicts_are_refused(capsys, args, message):
    assert main(["run", *args, *FAST]) == 2 and error_line(capsys).startswith(message)


def test_every_rater_group_is_used_by_default_with_the_human_ceiling(groups_folder: Path, tmp_path: Path, capsys):
    out = tmp_path / "out"
    code, err = _run(capsys, "--mtme", str(groups_folder), "--no-mtme-metrics", *FAST, "--out", str(out))
    assert code == 0, err
    assert ("human scores: the 2 rater groups mqm.rater1, mqm.rater2 (every rater group of 'mqm', the first method "
            "in sorted order), merged per item; their agreement is the human ceiling; choose with --mtme-human") in err
    ceiling = pd.read_csv(out / "human_ceiling.csv")
    assert set(ceiling["comparison"]) == {"group mqm.rater1 vs mqm.rater2"}
    seg = ceiling[(ceiling["granularity"] == "segment") & (ceiling["grouping"] == "none")]
    n_items = len(MT_SYSTEMS) * N_SEGMENTS - 1  # less the one missing hypothesis
    assert (seg["n"] == n_items).all()
    meta = _meta(out)
    assert not any("no human ceiling" in n for n in meta["notes"])
    ratings = pd.read_csv(out / "human_ratings.csv")
    assert sorted(ratings["group"].unique()) == ["mqm.rater1", "mqm.rater2"]


def test_a_method_name_takes_its_rater_groups_and_one_group_can_be_named(groups_folder: Path, tmp_path: Path, capsys):
    code, err = _run(capsys, "--mtme", str(groups_folder), "--mtme-human", "mqm", "--no-mtme-metrics", *FAST,
                     "--out", str(tmp_path / "a"))
    assert code == 0, err
    assert "the 2 rater groups mqm.rater1, mqm.rater2 (every rater group of 'mqm')" in err
    code, err = _run(capsys, "--mtme", str(groups_folder), "--mtme-human", "mqm.rater1", "--no-mtme-metrics", *FAST,
                     "--out", str(tmp_path / "b"))
    assert code == 0, err
    assert "human scores: mqm.rater1 (as named); not used: mqm.rater2; choose with --mtme-human" in err
    notes = _meta(tmp_path / "b")["notes"]
    assert ("no human ceiling: one rater group (mqm.rater1) with one rater; the agreement between raters needs two "
            "raters or rater groups who rated the same items") in notes


def test_groups_that_share_no_item_are_named_in_the_note(tmp_path: Path, capsys):
    base = write_fixture(tmp_path / "data")
    write_rater_groups(base, rated_by_both=False)  # rater2 rated nothing: one group left with judgments
    code, err = _run(capsys, "--mtme", str(base), "--no-mtme-metrics", *FAST, "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert any(n.startswith("no human ceiling: ") for n in _meta(tmp_path / "out")["notes"])


def test_default_human_names(tmp_path: Path):
    plain = scan(DirTree(write_fixture(tmp_path / "a"))).pairs[0]
    assert default_human_names(plain) == ("esa",)  # esa and mqm: single scores, the first in sorted order
    base = write_fixture(tmp_path / "b")
    write_rater_groups(base)
    assert default_human_names(scan(DirTree(base)).pairs[0]) == ("mqm.rater1", "mqm.rater2")
    assert [bool(RATER_GROUP_NAME.match(n)) for n in ("mqm.rater1", "esa-human2", "mqm.merged", "wmt-z", "mqm")] == [
        True, True, False, False, False]


HELDOUT = SHARED / "heldout" / "wmt24_chat_enko"


def _heldout_folder(root: Path) -> tuple[Path, dict[str, list[float]]]:
    """The held-out WMT24 chat data in mt-metrics-eval's layout (human scores named ``wmt``), with sentence chrF by
    sacrebleu as the folder's metric ``chrF-refA``; the chrF scores by system."""
    data = require(HELDOUT)
    base = root / "wmt24"
    for folder in ("sources", "references", f"system-outputs/{LP}", "human-scores", f"metric-scores/{LP}"):
        (base / folder).mkdir(parents=True)
    (base / "sources" / f"{LP}.txt").write_bytes((data / "src.txt").read_bytes())
    (base / "references" / f"{LP}.refA.txt").write_bytes((data / "ref.txt").read_bytes())
    refs = (data / "ref.txt").read_text(encoding="utf-8").splitlines()
    human = pd.read_csv(data / "human.tsv", sep="\t", dtype={"system": str})
    chrf, human_lines = {}, []
    for path in sorted((data / "systems").glob("*.txt")):
        (base / "system-outputs" / LP / path.name).write_bytes(path.read_bytes())
        hyps = path.read_text(encoding="utf-8").splitlines()
        chrf[path.stem] = [sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps, refs, strict=True)]
        by_seg = human[human["system"] == path.stem].set_index("seg_id")["score"]
        human_lines += [f"{path.stem}\t{float(by_seg[i])!r}" if i in by_seg.index else f"{path.stem}\tNone"
                        for i in range(len(refs))]
    (base / "human-scores" / f"{LP}.wmt.seg.score").write_text("\n".join(human_lines) + "\n", encoding="utf-8")
    (base / "metric-scores" / LP / "chrF-refA.seg.score").write_text(
        "".join(f"{s}\t{v!r}\n" for s, values in chrf.items() for v in values), encoding="utf-8")
    return base, chrf


def test_heldout_wmt24_folder_metric_is_meta_evaluated_next_to_ours(tmp_path: Path, capsys):
    """The folder's chrF (sacrebleu on the raw text) and ours at level word (on sacrebleu's 13a tokens, which also
    unescape ``&gt;``: two segments of this data differ) beside each other, each checked against scipy's Pearson r
    of the same sentence scores with the human scores."""
    base, chrf = _heldout_folder(tmp_path / "data")
    out = tmp_path / "out"
    code, err = _run(capsys, "--mtme", str(base), "--levels", "word", "--metrics", "chrf", "--bootstrap", "0",
                     "--spa-permutations", "0", "--quiet", "--out", str(out))
    assert code == 0, err
    assert "meta-evaluated next to ours (every one computed with the references scored against): chrF-refA" in err
    corr = pd.read_csv(out / "correlations.csv")
    seg = corr[(corr["granularity"] == "segment") & (corr["grouping"] == "none") & (corr["statistic"] == "pearson")]
    ours = seg[seg["metric"] == "chrf"]["value"].item()
    theirs = seg[seg["metric"] == "chrF-refA"]["value"].item()
    human = pd.read_csv(HELDOUT / "human.tsv", sep="\t", dtype={"system": str})
    refs = (HELDOUT / "ref.txt").read_text(encoding="utf-8").splitlines()
    hyps = {p.stem: p.read_text(encoding="utf-8").splitlines() for p in (HELDOUT / "systems").glob("*.txt")}
    tok = Tokenizer13a()
    words = [sacrebleu.sentence_chrf(tok(hyps[s][i]), [tok(refs[i])]).score
             for s, i in zip(human["system"], human["seg_id"], strict=True)]
    raw = [chrf[s][i] for s, i in zip(human["system"], human["seg_id"], strict=True)]
    np.testing.assert_allclose(theirs, stats.pearsonr(raw, human["score"]).statistic, rtol=1e-9)
    np.testing.assert_allclose(ours, stats.pearsonr(words, human["score"]).statistic, rtol=1e-9)
