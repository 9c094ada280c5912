"""The annotation page: an annotator opens their link (``…/annotate?token=…``) and judges their queue, one item at a time.

What the page shows comes only from :class:`korean_eval.annotation.access.AnnotatorSession` — the annotator's own
queue, progress and judgments; no system name, no result, nothing of another annotator (the session has no way to
read them). A token that opens nothing gets one line and nothing else.

An item (Kocmi et al. 2024, ESA; contrastive ESA with several translations side by side): the source (or the
reference, where the campaign has no source) between its document's neighbouring segments, greyed; each translation
in the span editor (:mod:`ui.annotation.span_widget`) with a 0–100 score on ESA's anchors (:mod:`ui.annotation.esa`);
a warning for a score below 66 without a marked error. **Submit** stores every translation's judgment in one
committed transaction (:meth:`~korean_eval.annotation.access.AnnotatorSession.submit`) before the next item is drawn.
**Previous item** shows an item already judged, read-only: a stored judgment is never replaced (a second
submission of an item stores nothing), and the page says so. Time on an item counts from its first drawing in the
session to the submission.
"""

from __future__ import annotations

import time

import streamlit as st

from korean_eval.annotation.access import AccessDenied, AnnotatorSession, annotator_session
from korean_eval.annotation.judgments import ErrorSpan, Judgment, JudgmentError
from korean_eval.annotation.storage import JudgedItem, ShownItem
from ui.annotation import esa
from ui.annotation.span_widget import span_editor
from ui.annotation.store import NoDatabase, campaign_store
from ui.widgets import md_escape

TOKEN_PARAM = "token"
#: Session keys: the position looked back at (None: the current item), the last submission's note.
VIEW_KEY = "ann_view"
NOTE_KEY = "ann_note"
SCORE_PREFIX, SCORED_PREFIX, SPANS_PREFIX, STARTED_PREFIX = "ann_score_", "ann_scored_", "ann_spans_", "ann_started_"


def render() -> None:
    """The whole page."""
    st.title("Annotate translations")
    token = st.query_params.get(TOKEN_PARAM, "")
    if not token:
        _ask_for_token()
        return
    try:
        session = annotator_session(campaign_store(), token)
    except (AccessDenied, NoDatabase) as err:
        st.error(f"This link or token opens no annotation queue: {md_escape(err)}. Check the link you were given.")
        return
    note = st.session_state.pop(NOTE_KEY, None)
    if note:
        st.success(note)
    viewing = st.session_state.get(VIEW_KEY)
    if viewing is not None:
        judged = session.judged(viewing)
        if judged is not None:
            _show_judged(session, judged)
            return
        st.session_state[VIEW_KEY] = None
    shown = session.next_item()
    if shown is None:
        progress = session.progress()
        st.success(f"All {progress.total} items of your queue are judged. Thank you!")
        _back_button(session, progress.total + 1)
        return
    _show_item(session, shown)


def _ask_for_token() -> None:
    st.write("Open the link you were given, or paste your annotator token here.")
    with st.form("ann_token_form", border=False):
        typed = st.text_input("Annotator token", type="password", key="ann_token_input")
        if st.form_submit_button("Open my queue", type="primary") and typed.strip():
            st.query_params[TOKEN_PARAM] = typed.strip()
            st.rerun()


def _progress(session: AnnotatorSession, position: int, total: int, seconds: float | None) -> None:
    done = session.progress().done
    timing = "" if seconds is None else f" · {_clock(seconds)} on this item"
    st.progress(done / total if total else 1.0, text=f"Item {position} of {total} · {done} judged{timing}")


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


def _context(shown: ShownItem) -> None:
    """The source (or the reference) between its document's neighbouring segments, greyed."""
    label = "Source" if shown.source is not None else "Reference (this campaign has no source)"
    text = shown.source if shown.source is not None else shown.reference
    with st.container(border=True):
        st.markdown(f"**{label}**" + (" — with its document's neighbouring segments, greyed"
                                      if shown.before or shown.after else ""))
        for line in shown.before:
            st.markdown(f":gray[{md_escape(line)}]")
        st.markdown(f"**{md_escape(text or '')}**")
        for line in shown.after:
            st.markdown(f":gray[{md_escape(line)}]")


def _letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else str(i + 1)


def _show_item(session: AnnotatorSession, shown: ShownItem) -> None:
    started = st.session_state.setdefault(STARTED_PREFIX + shown.item, time.time())
    _progress(session, shown.position, shown.total, time.time() - started)
    _guide()
    _context(shown)
    several = len(shown.candidates) > 1
    st.markdown("**Translations** — mark every error, then score each one" if several else
                "**Translation** — mark every error, then give a score")
    given: list[tuple[str, tuple[ErrorSpan, ...], float | None]] = []
    problems: list[str] = []
    columns = st.columns(min(len(shown.candidates), 3)) if several else [st.container()]
    for i, (unit, text) in enumerate(shown.candidates):
        with columns[i % len(columns)]:
            if several:
                st.markdown(f"**Translation {_letter(i)}**")
            try:
                spans = span_editor(text, SPANS_PREFIX + unit)
            except JudgmentError as err:
                spans = ()
                problems.append(f"Translation {_letter(i)}: {err}")
            score = _score(unit, spans)
            given.append((unit, spans, score))
    missing = [_letter(i) for i, (_u, _s, score) in enumerate(given) if score is None]
    for problem in problems:
        st.error(md_escape(problem))
    if missing:
        st.caption("Score " + (f"translations {', '.join(missing)}" if several else "the translation")
                   + " before submitting.")
    with st.container(horizontal=True):
        judged_before = [p for p in session.judged_positions() if p < shown.position]
        if st.button("← Previous item", key="ann_back", disabled=not judged_before):
            st.session_state[VIEW_KEY] = judged_before[-1]
            st.rerun()
        submit = st.button("Submit and show the next item", type="primary", key=f"ann_submit_{shown.item}",
                           disabled=bool(missing or problems))
    if submit:
        _submit(session, shown, given, time.time() - started)


def _score(unit: str, spans: tuple[ErrorSpan, ...]) -> float | None:
    """The slider of one translation with ESA's anchors; its value once the annotator has moved it, else None."""
    key = SCORE_PREFIX + unit
    st.slider("Score (0–100)", 0, 100, value=50, key=key, on_change=_scored, args=(unit,),
              help=" · ".join(f"{a.score}: {a.label}" for a in esa.ANCHORS))
    st.caption(" · ".join(f"**{a.score}** {a.label}" for a in esa.ANCHORS))
    if not st.session_state.get(SCORED_PREFIX + unit):
        # a score counts once the annotator sets it; 50, where the slider starts, is set with this button
        st.button(f"Not scored yet: move the slider, or score {st.session_state[key]} as it stands", key=f"ann_keep_{unit}",
                  type="tertiary", on_click=_scored, args=(unit,))
        return None
    score = float(st.session_state[key])
    st.caption(f"Your score {score:g}: {esa.anchor_text(score)}")
    if esa.needs_span_warning(score, spans):
        st.warning(f"A score below {esa.SPAN_EXPECTED_BELOW} with no error marked: mark the errors that make it "
                   "low (or [MISSING] for an omission) — or check the score.")
    return score


def _scored(unit: str) -> None:
    st.session_state[SCORED_PREFIX + unit] = True


def _submit(session: AnnotatorSession, shown: ShownItem, given, seconds: float) -> None:
    judgments = [Judgment(unit, score, spans, round(seconds, 3)) for unit, spans, score in given]
    try:
        result = session.submit(shown.item, judgments)
    except (JudgmentError, AccessDenied) as err:
        st.error(f"Not stored: {md_escape(err)}")
        return
    for unit, _spans, _score in given:
        for prefix in (SCORE_PREFIX, SCORED_PREFIX, SPANS_PREFIX):
            st.session_state.pop(prefix + unit, None)
    st.session_state.pop(STARTED_PREFIX + shown.item, None)
    st.session_state[NOTE_KEY] = (f"Item {shown.position} stored." if result.status == "stored" else
                                  f"Item {shown.position} was already stored; the first judgment is kept.")
    st.rerun()


def _show_judged(session: AnnotatorSession, judged: JudgedItem) -> None:
    shown = judged.shown
    _progress(session, shown.position, shown.total, None)
    st.info(f"You are looking back at item {shown.position}, judged earlier. A submitted judgment is kept as it was "
            "and cannot be changed here.")
    _context(shown)
    by_unit = {j.unit: j for j in judged.judgments}
    several = len(shown.candidates) > 1
    columns = st.columns(min(len(shown.candidates), 3)) if several else [st.container()]
    for i, (unit, text) in enumerate(shown.candidates):
        judgment = by_unit.get(unit)
        with columns[i % len(columns)]:
            if several:
                st.markdown(f"**Translation {_letter(i)}**")
            span_editor(text, f"ann_seen_{shown.item}_{unit}", spans=judgment.spans if judgment else (), readonly=True)
            if judgment is not None:
                st.markdown(f"Score **{judgment.score:g}** ({esa.anchor_text(judgment.score)}) · "
                            f"{_clock(judgment.seconds)} on the item")
    positions = session.judged_positions()
    with st.container(horizontal=True):
        _back_button(session, shown.position, positions)
        later = [p for p in positions if p > shown.position]
        if later and st.button("Next judged item →", key="ann_forward"):
            st.session_state[VIEW_KEY] = later[0]
            st.rerun()
        if st.button("Back to the current item", type="primary", key="ann_current"):
            st.session_state[VIEW_KEY] = None
            st.rerun()


def _back_button(session: AnnotatorSession, position: int, positions: list[int] | None = None) -> None:
    earlier = [p for p in (positions if positions is not None else session.judged_positions()) if p < position]
    if st.button("← Previous item", key="ann_back", disabled=not earlier):
        st.session_state[VIEW_KEY] = earlier[-1]
        st.rerun()


def _guide() -> None:
    with st.expander("How to annotate (ESA)"):
        st.markdown(
            "1. **Mark the errors** in the translation: drag the mouse over the characters (or use Shift+←/→), then "
            "**Minor (1)** or **Major (2)**. Click a mark to change its severity (**S**) or delete it (**Del**). "
            "Marks need not be exact to the character; mark each error separately.\n"
            f"   - **Minor**: {esa.SEVERITY_HELP['minor']}\n"
            f"   - **Major**: {esa.SEVERITY_HELP['major']}\n"
            "   - Content of the source missing from the translation: mark **[MISSING]**.\n"
            "2. **Score** the whole translation on the slider:\n"
            + "\n".join(f"   - **{a.score}: {a.label}** — {a.description}" for a in esa.ANCHORS))
