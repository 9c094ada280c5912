"""Admission of evaluations on a shared server: at most so many compute at once, the others wait their turn.

:class:`EvaluationQueue` keeps one :class:`Ticket` per evaluation that asked to run. A ticket is *admitted* (it may
compute) while fewer than ``max_running`` tickets are admitted, fewer than ``max_large`` admitted tickets are large
when it is large, and fewer than ``per_owner`` admitted tickets have its owner (a dashboard session); the waiting
tickets are considered in arrival order, and a ticket that one of these limits holds back is passed by later
tickets that it does not hold back (a small evaluation passes a large one waiting for the large limit). A waiting
ticket knows its place: position *p* of the *n* tickets waiting. No thread is started here: a caller waits on
:meth:`EvaluationQueue.wait` in short steps and can give up between them (:meth:`EvaluationQueue.leave`).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


class QueueFull(RuntimeError):
    """No room in the queue: as many evaluations wait as the server allows."""


@dataclass(eq=False)
class Ticket:
    """One evaluation's place in the queue.

    Attributes:
        owner: who asked (a session id); large: whether it counts against the large limit; number: arrival order;
        admitted: whether it may compute now; left: whether it left the queue (done or given up).
    """

    owner: str
    large: bool
    number: int
    admitted: bool = False
    left: bool = False
    since: float = field(default_factory=time.monotonic)


class EvaluationQueue:
    """At most ``max_running`` evaluations computing at once, ``max_large`` of them large, ``per_owner`` of one
    owner; at most ``max_waiting`` waiting (one more raises :class:`QueueFull`). Thread-safe."""

    def __init__(self, max_running: int, max_large: int, per_owner: int = 1, max_waiting: int = 12):
        if min(max_running, max_large, per_owner) < 1 or max_waiting < 0:
            raise ValueError("the queue needs max_running, max_large, per_owner ≥ 1 and max_waiting ≥ 0")
        self.max_running, self.max_large, self.per_owner = max_running, max_large, per_owner
        self.max_waiting = max_waiting
        self._tickets: list[Ticket] = []  # admitted and waiting, in arrival order
        self._numbers = itertools.count()
        self._changed = threading.Condition()

    def join(self, owner: str, large: bool = False) -> Ticket:
        """A new ticket, admitted at once if the limits allow; :class:`QueueFull` when it would have to wait and
        ``max_waiting`` tickets wait already."""
        with self._changed:
            ticket = Ticket(owner, large, next(self._numbers))
            self._tickets.append(ticket)
            self._admit()
            if not ticket.admitted and len(self._waiting()) > self.max_waiting:
                self._tickets.remove(ticket)
                ticket.left = True
                raise QueueFull(f"{self.max_waiting} evaluations are waiting already")
            return ticket

    def leave(self, ticket: Ticket) -> None:
        """Take ``ticket`` out (its evaluation ended, or its owner gave up waiting); admits the next ones."""
        with self._changed:
            if ticket.left:
                return
            ticket.left = True
            self._tickets.remove(ticket)
            self._admit()
            self._changed.notify_all()

    def wait(self, ticket: Ticket, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for ``ticket`` to be admitted; whether it is."""
        with self._changed:
            return self._changed.wait_for(lambda: ticket.admitted or ticket.left, timeout) and ticket.admitted

    def position(self, ticket: Ticket) -> tuple[int, int]:
        """(1-based place of ``ticket`` among the waiting tickets, how many wait); (0, n) once admitted."""
        with self._changed:
            waiting = self._waiting()
            return (waiting.index(ticket) + 1 if ticket in waiting else 0), len(waiting)

    def state(self) -> dict[str, int]:
        """``running`` (admitted), ``large`` (admitted and large), ``waiting``."""
        with self._changed:
            admitted = [t for t in self._tickets if t.admitted]
            return {"running": len(admitted), "large": sum(t.large for t in admitted), "waiting": len(self._waiting())}

    @contextmanager
    def slot(self, owner: str, large: bool, on_wait: Callable[[int, int], None], step: float = 0.5) -> Iterator[Ticket]:
        """Wait for a turn (``on_wait(position, waiting)`` about every ``step`` seconds meanwhile), hold it for the
        block, then leave. Whatever ``on_wait`` raises (e.g. the waiting session went away) leaves the queue."""
        ticket = self.join(owner, large)
        try:
            while not self.wait(ticket, 0 if ticket.admitted else step):
                on_wait(*self.position(ticket))
            yield ticket
        finally:
            self.leave(ticket)

    def _waiting(self) -> list[Ticket]:
        return [t for t in self._tickets if not t.admitted]

    def _admit(self) -> None:
        """Admit every waiting ticket the limits allow, in arrival order (lock held)."""
        admitted = [t for t in self._tickets if t.admitted]
        running, large = len(admitted), sum(t.large for t in admitted)
        per_owner: dict[str, int] = {}
        for t in admitted:
            per_owner[t.owner] = per_owner.get(t.owner, 0) + 1
        for t in self._waiting():
            if running >= self.max_running:
                break
            if (t.large and large >= self.max_large) or per_owner.get(t.owner, 0) >= self.per_owner:
                continue
            t.admitted = True
            running += 1
            large += t.large
            per_owner[t.owner] = per_owner.get(t.owner, 0) + 1
        self._changed.notify_all()
