"""``korean-eval annotate create`` and ``annotate status``: a campaign stored with its tokens printed once, its
progress read with the admin token, and bad input refused in one ``error:`` line naming the file or option."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from korean_eval.annotation.access import annotator_session
from korean_eval.annotation.judgments import Judgment
from korean_eval.annotation.storage import CampaignStore
from korean_eval.cli.main import main
from tests.support.command_line import REF, SYSTEMS, error_line, write_texts


def _create(tmp_path, capsys, *extra: str) -> tuple[str, dict[str, str]]:
    ref, systems = write_texts(tmp_path / "texts")
    db = str(tmp_path / "campaign.db")
    argv = ["annotate", "create", "--ref", str(ref), *(a for n, p in systems.items() for a in ("--sys", f"{n}={p}")),
            "--db", db, "--annotators", "2", *extra]
    assert main(argv) == 0
    out = capsys.readouterr().out
    tokens = dict(line.split("\t")[:2] for line in out.splitlines() if "\t" in line)
    return db, tokens


def test_create_prints_each_token_once_and_stores_only_hashes(tmp_path, capsys):
    db, tokens = _create(tmp_path, capsys, "--double", "0", "--attention", "0")
    assert set(tokens) == {"admin", "annotator 1", "annotator 2"} and all(len(t) == 43 for t in tokens.values())
    with sqlite3.connect(db) as conn:
        stored = {h for (h,) in conn.execute("SELECT token_hash FROM annotation_annotators")}
        stored |= {h for (h,) in conn.execute("SELECT admin_token_hash FROM annotation_campaigns")}
        dump = "\n".join(conn.iterdump())
    assert stored == {hashlib.sha256(t.encode()).hexdigest() for t in tokens.values()}
    assert not any(t in dump for t in tokens.values())
    store = CampaignStore(db)
    judged = 0
    for name in ("annotator 1", "annotator 2"):
        session = annotator_session(store, tokens[name])
        judged += session.progress().total
        shown = session.next_item()
        session.submit(shown.item, [Judgment(u, 40.0) for u, _ in shown.candidates])
    store.close()
    assert judged == len(REF) * len(SYSTEMS)
    assert main(["annotate", "status", "--db", db, "--admin-token", tokens["admin"]]) == 0
    out = capsys.readouterr().out
    assert f"2 of {judged} items judged" in out


def test_contrastive_with_a_source_and_the_token_from_the_environment(tmp_path, capsys, monkeypatch):
    src = tmp_path / "src.txt"
    src.write_text("one\ntwo\nthree\n", encoding="utf-8")
    db, tokens = _create(tmp_path, capsys, "--protocol", "contrastive", "--src", str(src), "--attention", "0")
    monkeypatch.setenv("KOREAN_EVAL_ADMIN_TOKEN", tokens["admin"])
    assert main(["annotate", "status", "--db", db]) == 0
    assert "contrastive" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "named"), [
    (["annotate", "status", "--db", "{db}", "--admin-token", "wrong"], "--admin-token"),
    (["annotate", "status", "--db", "{db}", "--admin-token", "{annotator}"], "--admin-token"),
    (["annotate", "status", "--db", "{db}"], "--admin-token"),
    (["annotate", "status", "--db", "mysql://host/db", "--admin-token", "x"], "--db"),
    (["annotate", "status", "--db", "{tmp}/no/such/folder/c.db", "--admin-token", "x"], "--db"),
    (["annotate", "create", "--ref", "{tmp}/missing.txt", "--sys-dir", "{tmp}/texts", "--db", "{db}",
      "--annotators", "1"], "missing.txt"),
    (["annotate", "create", "--ref", "{tmp}/texts/ref.txt", "--db", "{db}", "--annotators", "1"], "--sys"),
    (["annotate", "create", "--ref", "{tmp}/texts/ref.txt", "--sys-dir", "{tmp}/texts", "--src", "{tmp}/texts",
      "--db", "{db}", "--annotators", "1"], "--src"),
])
def test_bad_input_is_one_error_line_naming_it(tmp_path, capsys, monkeypatch, argv, named):
    monkeypatch.delenv("KOREAN_EVAL_ADMIN_TOKEN", raising=False)
    db, tokens = _create(tmp_path, capsys)
    values = {"db": db, "tmp": str(tmp_path), "annotator": tokens["annotator 1"]}
    assert main([a.format(**values) for a in argv]) == 2
    assert named in error_line(capsys)


@pytest.mark.parametrize("option", [["--annotators", "0"], ["--double", "1.5"], ["--attention", "x"],
                                    ["--items", "none"], ["--protocol", "mqm"], ["--seed", "-1"]])
def test_bad_settings_are_refused_by_name(tmp_path, capsys, option):
    ref, _systems = write_texts(tmp_path / "texts")
    with pytest.raises(SystemExit) as stop:
        main(["annotate", "create", "--ref", str(ref), "--sys-dir", str(tmp_path / "texts"), "--db",
              str(tmp_path / "c.db"), "--annotators", "2", *option])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert option[0] in err and "Traceback" not in err
