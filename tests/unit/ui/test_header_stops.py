"""The header Stop's bookkeeping (:class:`ui.stopping._HeaderStops`): a key is kept for the session whose latest run
met the stop, given to that session's next run once, and forgotten with the session's run threads."""

from __future__ import annotations

import gc
import threading

from ui.stopping import _HeaderStops


def _in_thread(fn) -> threading.Thread:
    thread = threading.Thread(target=fn)
    thread.start()
    thread.join()
    return thread


def test_a_stop_goes_to_the_sessions_next_run_once_and_only_from_its_latest_run():
    stops = _HeaderStops()
    stops.take("s1")  # this thread: s1's latest run
    stops.mark("s1", "lens")
    _in_thread(lambda: stops.mark("s1", "older"))  # not s1's latest run: Streamlit ending it for a newer one
    assert stops.take("s1") == {"lens"}
    assert stops.take("s1") == set()


def test_a_sessions_entries_go_with_its_run_threads():
    stops = _HeaderStops()

    def run() -> None:
        stops.take("gone")
        stops.mark("gone", "lens")  # a stop never taken: its session ended

    thread = _in_thread(run)
    assert "gone" in stops.latest and stops.keys == {"gone": {"lens"}}
    del thread
    gc.collect()
    assert "gone" not in stops.latest
    stops.take("other")
    assert "gone" not in stops.keys
