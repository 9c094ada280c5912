"""What each token may read and do: an annotator's token their own queue, the campaign's admin token everything.

An annotator token (:func:`annotator_session`) reads the next item of that annotator's own queue — the source with
its document context, the translations under opaque keys in that annotator's order, never a system name and nothing
that marks an attention check — their own progress and their own earlier judgments (to look back at; a judgment once
stored is not changed), and submits judgments of items in their own queue. It cannot read results, other
annotators' items or judgments, or system names: the session has no such method, and an item of another queue is
refused. The admin token (:func:`admin_session`) reads everything of its campaign: progress, every judgment with
its system, the attention checks' outcomes. A token that is wrong, of another kind or of another campaign raises
:class:`AccessDenied` and reads nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from korean_eval.annotation.attention import CLEAR_MARGIN, attention_passed
from korean_eval.annotation.judgments import Judgment
from korean_eval.annotation.storage import CampaignStore, JudgedItem, NotInQueue, ShownItem, SubmitResult

__all__ = ["AccessDenied", "AdminSession", "AnnotatorSession", "Progress", "admin_session", "annotator_session"]


class AccessDenied(PermissionError):
    """The token opens nothing here, or asks for something its holder may not read or change."""


@dataclass(frozen=True)
class Progress:
    """An annotator's progress: items judged of the items in their queue."""

    done: int
    total: int


class AnnotatorSession:
    """An annotator's view of a campaign, opened with their token (:func:`annotator_session`)."""

    def __init__(self, store: CampaignStore, annotator_id: int, number: int) -> None:
        self._store = store
        self._id = annotator_id
        self.number = number

    def next_item(self) -> ShownItem | None:
        """The first item of this annotator's queue not yet judged (None when the queue is done)."""
        return self._store.next_item(self._id)

    def progress(self) -> Progress:
        return Progress(*self._store.progress(self._id))

    def judged_positions(self) -> list[int]:
        """The 1-based queue positions this annotator has judged, in queue order."""
        return self._store.judged_positions(self._id)

    def judged(self, position: int) -> JudgedItem | None:
        """This annotator's judged item at 1-based ``position`` with their own judgments (None if not judged)."""
        return self._store.judged_item(self._id, position)

    def submit(self, item: str, judgments: Sequence[Judgment]) -> SubmitResult:
        """Store this annotator's judgments of every translation of ``item`` (one committed transaction; a second
        submission of the same item stores nothing and reports ``duplicate``).

        Raises:
            AccessDenied: ``item`` is not in this annotator's queue.
            JudgmentError: a judgment missing, extra, or not fitting its translation.
        """
        try:
            return self._store.submit(self._id, item, judgments)
        except NotInQueue as err:
            raise AccessDenied(str(err)) from None


class AdminSession:
    """The campaign owner's view, opened with the admin token (:func:`admin_session`)."""

    def __init__(self, store: CampaignStore, campaign_id: int) -> None:
        self._store = store
        self.campaign_id = campaign_id

    def campaign(self) -> dict[str, object]:
        """Name, protocol, settings and notes of the plan, creation time."""
        return self._store.campaign_row(self.campaign_id)

    def status(self) -> pd.DataFrame:
        """Per annotator: ``annotator, items, done, judgments, seconds``."""
        return self._store.status_table(self.campaign_id)

    def judgments(self) -> pd.DataFrame:
        """Every judgment with its system (:meth:`CampaignStore.judgments_table`)."""
        return self._store.judgments_table(self.campaign_id)

    def attention(self, margin: float = CLEAR_MARGIN) -> pd.DataFrame:
        """Each judged attention check: ``annotator, seg_id, system, damage, original_score, damaged_score,
        passed`` (:func:`~korean_eval.annotation.attention.attention_passed`; ``passed`` is None while the
        annotator has not judged the original)."""
        table = self.judgments()
        checks = table[table["attention_of"].notna()]
        originals = table[table["attention_of"].isna()].groupby(["annotator", "unit"])["score"].mean()
        rows = []
        for r in checks.itertuples():
            original = originals.get((r.annotator, r.attention_of))
            rows.append({"annotator": r.annotator, "seg_id": r.seg_id, "system": r.system, "damage": r.damage,
                         "original_score": original, "damaged_score": r.score,
                         "passed": None if original is None else attention_passed(original, r.score, margin)})
        return pd.DataFrame(rows, columns=["annotator", "seg_id", "system", "damage", "original_score",
                                           "damaged_score", "passed"])


def annotator_session(store: CampaignStore, token: str) -> AnnotatorSession:
    """The session of the annotator whose token is ``token``; :class:`AccessDenied` for any other token."""
    found = store.annotator_of(token) if isinstance(token, str) and token else None
    if found is None:
        raise AccessDenied("this link or token belongs to no annotator")
    annotator_id, _campaign, number = found
    return AnnotatorSession(store, annotator_id, number)


def admin_session(store: CampaignStore, token: str) -> AdminSession:
    """The admin session of the campaign whose admin token is ``token``; :class:`AccessDenied` for any other."""
    campaign_id = store.campaign_of_admin(token) if isinstance(token, str) and token else None
    if campaign_id is None:
        raise AccessDenied("this token is not a campaign's admin token")
    return AdminSession(store, campaign_id)
