"""Exports: tables as CSV, one zip with run.json, spreadsheet-formula defusing."""

import io
import json
import zipfile

import pandas as pd

from korean_eval.engine.pipeline import evaluate
from korean_eval.exports.csv_zip import tables_zip, to_csv_bytes, write_tables
from korean_eval.inputs.tables import attach_human
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import evalset_from_texts


def small_results():
    ref = "고양이가 앉았다.\n날씨가 좋다.\n회의는 3시.\n".encode()
    systems = [("=evil.txt", "고양이 앉았다.\n날씨 좋다.\n회의 3시.\n".encode()), ("B.txt", ref), ("C.txt", "개.\n비.\n밥.\n".encode())]
    ev = evalset_from_texts([("ref.txt", ref)], systems)
    human = "system,seg_id,score\n" + "".join(f"{s},{i},{v}\n" for s, v0 in (("=evil", 50), ("B", 90), ("C", 10)) for i, v in enumerate([v0, v0 + 1, v0 + 2]))
    attach_human(ev, human.encode(), "h.csv")
    return ev, evaluate(ev, EvalConfig(levels=("char",), metrics=("bleu", "ter")))


def test_formula_cells_are_defused_numbers_kept():
    out = to_csv_bytes(pd.DataFrame({"system": ["=1+1", "+x", "A", "-2.5"], "v": [-1.0, 2.0, 3.0, 4.0]})).decode()
    assert out.splitlines() == ["system,v", "'=1+1,-1.0", "'+x,2.0", "A,3.0", "-2.5,4.0"]


def test_zip_holds_every_table_and_signatures(tmp_path):
    ev, results = small_results()
    data = tables_zip(results, ev, extra={"extra_table": pd.DataFrame({"a": [1]})})
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        meta = json.loads(zf.read("run.json"))
        systems = pd.read_csv(zf.open("system_scores.csv"))
    assert {"segment_scores.csv", "system_scores.csv", "correlations.csv", "rankings.csv", "extra_table.csv", "run.json"} <= names
    assert meta["signatures"]["char/bleu"].endswith("|level:char-1")
    assert meta["data_sha256"] == ev.content_hash()
    assert "'=evil" in set(systems["system"])
    written = write_tables(results, tmp_path, ev)
    assert (tmp_path / "run.json").exists() and len(written) == 9
