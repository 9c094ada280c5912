"""The evaluation queue of a shared server (korean_eval.engine.admission): how many compute at once, who waits,
in which order, and what a waiting caller sees; with real threads where waiting is concerned."""

from __future__ import annotations

import threading

import pytest

from korean_eval.engine.admission import EvaluationQueue, QueueFull


def test_at_most_max_running_compute_and_the_rest_wait_in_arrival_order():
    q = EvaluationQueue(max_running=2, max_large=2, per_owner=1, max_waiting=5)
    a, b, c, d = (q.join(owner) for owner in "abcd")
    assert [t.admitted for t in (a, b, c, d)] == [True, True, False, False]
    assert q.position(a) == (0, 2)
    assert q.position(c) == (1, 2) and q.position(d) == (2, 2)
    assert q.state() == {"running": 2, "large": 0, "waiting": 2}
    q.leave(b)
    assert c.admitted and not d.admitted and q.position(d) == (1, 1)
    q.leave(d)  # gives up waiting
    assert q.state() == {"running": 2, "large": 0, "waiting": 0}


def test_a_small_evaluation_passes_a_large_one_held_back_by_the_large_limit():
    q = EvaluationQueue(max_running=2, max_large=1, per_owner=1)
    grid = q.join("u1", large=True)
    second_grid = q.join("u2", large=True)
    small = q.join("u3", large=False)
    assert grid.admitted and not second_grid.admitted and small.admitted
    assert q.position(second_grid) == (1, 1)
    q.leave(grid)
    assert second_grid.admitted


def test_one_session_computes_one_evaluation_at_a_time():
    q = EvaluationQueue(max_running=3, max_large=3, per_owner=1)
    first = q.join("s")
    again = q.join("s")
    other = q.join("t")
    assert first.admitted and not again.admitted and other.admitted
    q.leave(first)
    assert again.admitted


def test_a_full_queue_refuses_with_the_reason():
    q = EvaluationQueue(max_running=1, max_large=1, max_waiting=1)
    q.join("a")
    q.join("b")
    with pytest.raises(QueueFull, match="1 evaluations are waiting"):
        q.join("c")
    assert q.state()["waiting"] == 1


def test_slot_reports_the_position_while_waiting_and_leaves_when_the_waiter_gives_up():
    q = EvaluationQueue(max_running=1, max_large=1)
    holder = q.join("holder")
    seen: list[tuple[int, int]] = []

    class GaveUp(BaseException):
        pass

    def on_wait(position: int, waiting: int) -> None:
        seen.append((position, waiting))
        if len(seen) == 3:
            raise GaveUp

    with pytest.raises(GaveUp), q.slot("waiter", False, on_wait, step=0.01):
        pytest.fail("admitted while the only slot was held")
    assert seen == [(1, 1)] * 3
    assert q.state() == {"running": 1, "large": 0, "waiting": 0}
    q.leave(holder)
    assert q.state()["running"] == 0


def test_waiters_on_threads_start_in_turn_and_never_more_than_allowed():
    q = EvaluationQueue(max_running=2, max_large=2, max_waiting=10)
    lock = threading.Lock()
    running, peak, order = [0], [0], []
    release = threading.Event()

    def evaluation(name: str) -> None:
        with q.slot(name, False, lambda p, n: None, step=0.01):
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
                order.append(name)
            release.wait(5)
            with lock:
                running[0] -= 1

    threads = [threading.Thread(target=evaluation, args=(f"s{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    assert _eventually(lambda: q.state() == {"running": 2, "large": 0, "waiting": 4})
    release.set()
    for t in threads:
        t.join(10)
    assert peak[0] == 2 and len(order) == 6 and q.state() == {"running": 0, "large": 0, "waiting": 0}


def _eventually(condition, seconds: float = 5.0) -> bool:
    event = threading.Event()
    for _ in range(int(seconds / 0.01)):
        if condition():
            return True
        event.wait(0.01)
    return condition()


def test_bad_limits_are_refused():
    with pytest.raises(ValueError):
        EvaluationQueue(max_running=0, max_large=1)
