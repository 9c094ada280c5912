"""Ctrl+C during ``korean-eval run`` (korean_eval.cli.stopping): a real command in a process group of its own, on
the worker pool, gets SIGINT once its first progress line is on stderr. It ends with exit status 130 and one line
saying what it wrote, without a traceback, leaving no process behind, no table, and in the cache only what it
finished (no result, nothing of the level it was stopped in).
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from tests.support.app_server import ROOT, group_members, wait_until
from tests.support.helpers import write_head_of_sample

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")


def test_ctrl_c_stops_the_run_with_one_line_and_keeps_only_what_it_finished(tmp_path):
    args = write_head_of_sample(tmp_path / "data", 40)
    cache, out = tmp_path / "cache", tmp_path / "out"
    env = {**os.environ, "KOREAN_EVAL_PARALLEL_MIN_PAIRS": "1"}  # the worker pool on the small sample
    command = [sys.executable, "-m", "korean_eval", "run", *args, "--levels", "char,komoran", "--metrics", "bleu",
               "--jobs", "2", "--bootstrap", "0", "--out", str(out), "--cache-dir", str(cache)]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    err = bytearray()

    def read() -> None:
        while chunk := proc.stderr.read1(4096):
            err.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert wait_until(lambda: b"tokenising at level" in err or proc.poll() is not None, 120, 0.05), err
        assert proc.poll() is None, err.decode()
        os.kill(proc.pid, signal.SIGINT)  # the command alone (a terminal's Ctrl+C reaches the group; workers ignore it)
        sent = time.monotonic()
        status = proc.wait(60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    reader.join(10)
    text = err.decode(errors="replace")
    assert status == 130, text
    assert took < 15, took
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    last = text.rstrip("\n").split("\n")[-1]
    assert wait_until(lambda: not group_members(proc.pid), 20), group_members(proc.pid)  # workers gone too
    assert not out.exists()
    with sqlite3.connect(cache / "cache-v1.sqlite") as con:
        tokens, stats, blobs = (con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("tokens", "stats", "blobs"))
        komoran = con.execute("SELECT COUNT(*) FROM tokens WHERE lk LIKE '%komoran%'").fetchone()[0]
    assert blobs == 0 and komoran == 0  # no result, and nothing of the level it was stopped in
    if tokens or stats:  # a level finished before the stop: kept, and said so
        said = r"the tokens and statistics finished so far kept in the cache \(a new run starts from them\); no tables in "
        assert re.fullmatch(r"stopped after \d+\.\d s; " + said + re.escape(str(out)), last), text
    else:
        assert re.fullmatch(r"stopped after \d+\.\d s; nothing written \(nothing stored in the cache, no tables in "
                            + re.escape(str(out)) + r"\)", last), text
