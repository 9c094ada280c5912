"""Milliseconds per ESA submission (one committed transaction each) on SQLite and PostgreSQL: ~200 submissions
from 4 threads at once, 4 annotators of one campaign from the bundled sample; median and p95 per submission.

    .venv/bin/python benchmarks/bench_annotation_submits.py   # PostgreSQL through a throwaway local server when installed
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from korean_eval.annotation.access import annotator_session  # noqa: E402
from korean_eval.annotation.campaign import CampaignSettings, plan_campaign  # noqa: E402
from korean_eval.annotation.judgments import ErrorSpan, Judgment  # noqa: E402
from korean_eval.annotation.storage import CampaignStore  # noqa: E402
from korean_eval.inputs.sample import load_sample  # noqa: E402

PER_THREAD = 50


def measure(url: str) -> list[float]:
    store = CampaignStore(url)
    plan = plan_campaign(load_sample(), CampaignSettings(annotators=4))
    created = store.create(plan)
    times: list[float] = []

    def annotate(token: str) -> None:
        session = annotator_session(store, token)
        for _ in range(PER_THREAD):
            shown = session.next_item()
            given = [Judgment(u, 70.0, (ErrorSpan(0, 2, "minor"),), 5.0) for u, _ in shown.candidates]
            start = time.perf_counter()
            session.submit(shown.item, given)
            times.append((time.perf_counter() - start) * 1000)

    threads = [threading.Thread(target=annotate, args=(t,)) for t in created.annotator_tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.close()
    return times


def report(name: str, times: list[float]) -> None:
    times = sorted(times)
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"{name}: {len(times)} submissions, median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
          f"max {times[-1]:.1f} ms")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        report("SQLite (WAL, synchronous=FULL)", measure(str(Path(folder) / "judgments.db")))
    try:
        from tests.support.postgres_server import postgres_server

        with postgres_server() as server:
            report("PostgreSQL (local server, unix socket)", measure(server.new_database()))
    except BaseException as err:  # pytest.skip raises outside pytest too
        print(f"PostgreSQL: not measured ({err})")


if __name__ == "__main__":
    main()
