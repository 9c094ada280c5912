"""An annotator's process for the SIGKILL test: ``python -m tests.support.submit_until_killed DB TOKEN`` judges the
next item of the token's queue again and again, as fast as it can, and prints each item's key once its submission
has returned (committed) — until its queue is done or it is killed."""

from __future__ import annotations

import sys

from korean_eval.annotation.access import annotator_session
from korean_eval.annotation.judgments import ErrorSpan, Judgment
from korean_eval.annotation.storage import CampaignStore


def main(db: str, token: str) -> None:
    session = annotator_session(CampaignStore(db), token)
    print("ready", flush=True)
    while (shown := session.next_item()) is not None:
        given = [Judgment(unit, 55.0, (ErrorSpan(0, 1, "major"),), 2.0) for unit, _text in shown.candidates]
        status = session.submit(shown.item, given).status
        print(f"{status} {shown.item}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
