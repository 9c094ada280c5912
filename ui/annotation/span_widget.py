"""The error-span editor: a translation whose characters an annotator marks as minor or major errors, a Streamlit
custom component (``streamlit.components.v2``, inline HTML, CSS and JavaScript; no build step).

What the annotator does (the component's own help line says the same):

* select characters by dragging the mouse over them, or from the keyboard: ←/→ move a caret, Shift+←/→ select,
  Space selects the character at the caret;
* press **Minor (1)** or **Major (2)** — or the keys 1 and 2 — to mark the selection; a new mark replaces the
  marks it overlaps;
* click a mark (or move the caret into it) to choose it, then **Minor ⇄ major (S)** changes its severity and
  **Delete mark (Del)** removes it;
* the ``[MISSING]`` token after the translation marks an omission: select it and mark it like text.

Offsets are Python's: the text is split into code points (``Array.from`` in JavaScript, as ``str`` indexes them),
never UTF-16 code units, so a character outside the Basic Multilingual Plane (an emoji) counts once. The component
returns ``[{start, end, severity, missing}, …]`` (start inclusive, end exclusive; an omission ``start == end ==
len(text)``), checked on the Python side by :func:`ui.annotation.esa.parse_spans`. The translation is put into the
page as text nodes only (``textContent``), never as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from korean_eval.annotation.judgments import ErrorSpan
from ui.annotation.esa import parse_spans

HTML = """
<div class="ke-spans">
  <div class="ke-text" tabindex="0" role="application"
       aria-label="Translation. Select characters with the mouse or with Shift and the arrow keys, then press 1 for a minor or 2 for a major error."></div>
  <div class="ke-bar">
    <button type="button" data-act="minor" class="minor-btn">Minor (1)</button>
    <button type="button" data-act="major" class="major-btn">Major (2)</button>
    <button type="button" data-act="toggle">Minor ⇄ major (S)</button>
    <button type="button" data-act="delete">Delete mark (Del)</button>
    <span class="ke-status" aria-live="polite"></span>
  </div>
  <div class="ke-legend">
    <span><span class="swatch minor"></span>minor error</span>
    <span><span class="swatch major"></span>major error</span>
    <span><span class="swatch sel"></span>selected, not marked yet</span>
    <span class="ke-help">Drag over the text (or Shift+←/→), then 1 or 2. Click a mark, then S or Del.
      Missing content: mark [MISSING].</span>
  </div>
</div>
"""

CSS = """
.ke-spans { font-family: var(--st-font, sans-serif); color: var(--st-text-color, #262730); }
.ke-text { font-size: 1.2rem; line-height: 2.3; padding: 0.5rem 0.75rem; border: 1px solid #c9ccd3;
  border-radius: 0.5rem; white-space: pre-wrap; word-break: keep-all; overflow-wrap: anywhere; cursor: text;
  user-select: none; -webkit-user-select: none; background: var(--st-background-color, #fff); }
.ke-text:focus { outline: 3px solid #1c6dd0; outline-offset: 1px; }
.ke-text .ch { padding: 0.15em 0; }
.ke-text .ch.minor { background: #ffd966; box-shadow: inset 0 -3px 0 #e69500; }
.ke-text .ch.major { background: #ffb3b3; box-shadow: inset 0 -3px 0 #c81e1e; }
.ke-text .ch.sel { background: #cfe2ff; box-shadow: inset 0 -3px 0 #1c6dd0; }
.ke-text .ch.active { outline: 2px solid #111; outline-offset: 0; }
.ke-text:focus .ch.caret { box-shadow: inset 2px 0 0 #111; }
.ke-text:focus .ch.caret.minor, .ke-text:focus .ch.caret.major, .ke-text:focus .ch.caret.sel {
  box-shadow: inset 2px 0 0 #111, inset 0 -3px 0 #111; }
.ke-text .missing-token { font-family: monospace; font-size: 0.95rem; margin-left: 0.5em; padding: 0.1em 0.3em;
  border: 1px dashed #888; border-radius: 0.3rem; color: #555; }
.ke-bar { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin-top: 0.5rem; }
.ke-bar button { font: inherit; font-size: 0.9rem; padding: 0.25rem 0.7rem; border-radius: 0.4rem;
  border: 1px solid #9aa0a6; background: #f7f7f9; color: #262730; cursor: pointer; }
.ke-bar button.minor-btn { background: #ffd966; border-color: #e69500; }
.ke-bar button.major-btn { background: #ffb3b3; border-color: #c81e1e; }
.ke-bar button:disabled { opacity: 0.45; cursor: default; }
.ke-bar button:focus-visible { outline: 3px solid #1c6dd0; }
.ke-status { font-size: 0.9rem; color: #444; margin-left: 0.3rem; }
.ke-legend { display: flex; flex-wrap: wrap; gap: 1rem; font-size: 0.85rem; color: #444; margin-top: 0.4rem; }
.ke-legend .swatch { display: inline-block; width: 1.1em; height: 0.9em; margin-right: 0.3em; vertical-align: -0.1em;
  border-radius: 0.15rem; }
.ke-legend .swatch.minor { background: #ffd966; box-shadow: inset 0 -3px 0 #e69500; }
.ke-legend .swatch.major { background: #ffb3b3; box-shadow: inset 0 -3px 0 #c81e1e; }
.ke-legend .swatch.sel { background: #cfe2ff; box-shadow: inset 0 -3px 0 #1c6dd0; }
.ke-help { color: #555; }
.ke-spans.readonly .ke-bar button, .ke-spans.readonly .ke-help { display: none; }
.ke-spans.readonly .ke-text { cursor: default; }
"""

# The state of one editor lives on its root element (``root.__ke``), which Streamlit keeps across script runs; the
# function below runs at every run with that run's data, and starts again from ``data.spans`` only when the text
# (or the editor's identity) changed.
JS = """
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector('.ke-spans');
  const identity = (data.identity || '') + '\\u0000' + data.text;
  if (!root.__ke || root.__ke.identity !== identity || root.__ke.readonly !== !!data.readonly) {
    const chars = Array.from(data.text);  // code points: the offsets Python uses
    root.__ke = {
      identity, chars, n: chars.length, readonly: !!data.readonly,
      spans: (data.spans || []).map(s => ({start: s.start, end: s.end, severity: s.severity, missing: !!s.missing})),
      sel: null, caret: 0, active: null, dragging: false, moved: false,
    };
    build(root, root.__ke);
  }
  root.__ke.emit = (spans) => setStateValue('spans', spans);
  if (!root.__keWired) { wire(root); root.__keWired = true; }
  paint(root, root.__ke);
}

function build(root, st) {
  root.classList.toggle('readonly', st.readonly);
  const box = root.querySelector('.ke-text');
  box.replaceChildren();
  st.chars.forEach((c, i) => {
    const el = document.createElement('span');
    el.className = 'ch';
    el.dataset.i = String(i);
    el.textContent = c;
    box.appendChild(el);
  });
  const missing = document.createElement('span');
  missing.className = 'ch missing-token';
  missing.dataset.i = String(st.n);
  missing.textContent = '[MISSING]';
  missing.title = 'Mark this when content of the source is missing from the translation';
  box.appendChild(missing);
  box.tabIndex = st.readonly ? -1 : 0;
}

function markAt(st, i) {
  return st.spans.findIndex(s => s.missing ? i === st.n : (s.start <= i && i < s.end));
}

function selRange(st) {
  if (!st.sel) return null;
  return [Math.min(st.sel.anchor, st.sel.focus), Math.max(st.sel.anchor, st.sel.focus)];
}

function paint(root, st) {
  const box = root.querySelector('.ke-text');
  const range = selRange(st);
  const active = st.active === null ? null : st.spans[st.active];
  for (const el of box.children) {
    const i = Number(el.dataset.i);
    const k = markAt(st, i);
    const mark = k >= 0 ? st.spans[k] : null;
    el.classList.toggle('minor', !!mark && mark.severity === 'minor');
    el.classList.toggle('major', !!mark && mark.severity === 'major');
    el.classList.toggle('sel', !!range && range[0] <= i && i <= range[1]);
    el.classList.toggle('active', !!active && k === st.active);
    el.classList.toggle('caret', !st.readonly && i === st.caret);
    el.title = mark ? `${mark.severity} error${st.readonly ? '' : ': click, then S to change or Del to delete'}`
                    : (i === st.n ? el.title : '');
  }
  const can = {minor: !!range || !!active, major: !!range || !!active, toggle: !!active, delete: !!active};
  for (const b of root.querySelectorAll('.ke-bar button')) b.disabled = st.readonly || !can[b.dataset.act];
  const status = root.querySelector('.ke-status');
  const count = st.spans.length;
  const marks = `${count} mark${count === 1 ? '' : 's'}`;
  if (range) {
    const text = range[0] === st.n ? '[MISSING]' : st.chars.slice(range[0], Math.min(range[1], st.n - 1) + 1).join('');
    status.textContent = `Selected “${text}”: press 1 (minor) or 2 (major). ${marks}.`;
  } else if (active) {
    const text = active.missing ? '[MISSING]' : st.chars.slice(active.start, active.end).join('');
    status.textContent = `${active.severity} error on “${text}” chosen: S changes it, Del deletes it. ${marks}.`;
  } else {
    status.textContent = st.readonly ? marks : `${marks}.`;
  }
  root.dataset.spans = JSON.stringify(st.spans);  // for a reader of the page (and tests): the marks as stored
}

function commit(root, st) {
  st.spans.sort((a, b) => a.start - b.start || a.end - b.end);
  paint(root, st);
  st.emit(st.spans.map(s => ({start: s.start, end: s.end, severity: s.severity, missing: s.missing})));
}

function mark(root, st, severity) {
  const range = selRange(st);
  if (range) {
    let span;
    if (range[0] === st.n) span = {start: st.n, end: st.n, severity, missing: true};
    else span = {start: range[0], end: Math.min(range[1], st.n - 1) + 1, severity, missing: false};
    st.spans = st.spans.filter(s => span.missing ? !s.missing : (s.missing || s.end <= span.start || span.end <= s.start));
    st.spans.push(span);
    st.spans.sort((a, b) => a.start - b.start || a.end - b.end);
    st.active = st.spans.indexOf(span);
    st.sel = null;
  } else if (st.active !== null) {
    st.spans[st.active].severity = severity;
  } else return;
  commit(root, st);
}

function toggle(root, st) {
  if (st.active === null) return;
  const s = st.spans[st.active];
  s.severity = s.severity === 'minor' ? 'major' : 'minor';
  commit(root, st);
}

function remove(root, st) {
  if (st.active === null) return;
  st.spans.splice(st.active, 1);
  st.active = null;
  commit(root, st);
}

function charIndex(target) {
  const el = target && target.closest ? target.closest('.ch') : null;
  return el ? Number(el.dataset.i) : null;
}

function wire(root) {
  const box = root.querySelector('.ke-text');
  const st = () => root.__ke;
  box.addEventListener('mousedown', (e) => {
    const s = st();
    if (s.readonly || e.button !== 0) return;
    const i = charIndex(e.target);
    if (i === null) return;
    e.preventDefault();
    box.focus();
    s.dragging = true;
    s.moved = false;
    s.sel = {anchor: i, focus: i};
    s.caret = i;
    s.active = null;
    paint(root, s);
  });
  box.addEventListener('mouseover', (e) => {
    const s = st();
    if (!s.dragging) return;
    const i = charIndex(e.target);
    if (i === null || !s.sel || s.sel.focus === i) return;
    s.sel.focus = i;
    s.caret = i;
    s.moved = true;
    paint(root, s);
  });
  const finish = () => {
    const s = st();
    if (!s.dragging) return;
    s.dragging = false;
    if (!s.moved && s.sel) {  // a click: on a mark it chooses the mark, elsewhere it selects one character
      const k = markAt(s, s.sel.anchor);
      if (k >= 0) { s.active = k; s.sel = null; }
    }
    paint(root, s);
  };
  box.addEventListener('mouseup', finish);
  box.addEventListener('mouseleave', finish);
  box.addEventListener('keydown', (e) => {
    const s = st();
    if (s.readonly) return;
    const step = {ArrowLeft: -1, ArrowRight: 1}[e.key];
    if (step !== undefined || e.key === 'Home' || e.key === 'End') {
      const to = e.key === 'Home' ? 0 : e.key === 'End' ? s.n : Math.max(0, Math.min(s.n, s.caret + step));
      if (e.shiftKey) {
        if (!s.sel) s.sel = {anchor: s.caret, focus: s.caret};
        s.sel.focus = to;
        s.active = null;
      } else {
        s.sel = null;
        const k = markAt(s, to);
        s.active = k >= 0 ? k : null;
      }
      s.caret = to;
    } else if (e.key === ' ') {
      s.sel = {anchor: s.caret, focus: s.caret};
      s.active = null;
    } else if (e.key === '1' || e.key === '2') {
      mark(root, s, e.key === '1' ? 'minor' : 'major');
    } else if (e.key === 's' || e.key === 'S') {
      toggle(root, s);
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      remove(root, s);
    } else if (e.key === 'Escape') {
      s.sel = null;
      s.active = null;
    } else return;
    e.preventDefault();
    paint(root, s);
  });
  for (const b of root.querySelectorAll('.ke-bar button')) {
    b.addEventListener('mousedown', (e) => e.preventDefault());  // keep the selection and the text's focus
    b.addEventListener('click', () => {
      const s = st();
      const act = b.dataset.act;
      if (act === 'minor' || act === 'major') mark(root, s, act);
      else if (act === 'toggle') toggle(root, s);
      else if (act === 'delete') remove(root, s);
    });
  }
}
"""

_EDITOR = st.components.v2.component("korean_eval_error_spans", html=HTML, css=CSS, js=JS)


def span_editor(text: str, key: str, *, spans: Sequence[ErrorSpan] = (), readonly: bool = False,
                on_change: Callable[[], None] | None = None) -> tuple[ErrorSpan, ...]:
    """Draw the span editor for the translation ``text`` and return the annotator's spans, checked.

    Args:
        text: the translation (the offsets count its code points, as ``str`` does).
        key: the widget's key, one per translation on the page (its spans live in the session under it).
        spans: the spans to start from (a judgment already stored, shown read-only with ``readonly``).
        readonly: show the marks without letting them change.
        on_change: called when the annotator changes the marks (before the rerun).

    Returns:
        The spans (:func:`ui.annotation.esa.parse_spans`); ``spans`` when read-only.

    Raises:
        JudgmentError: what the browser sent is not a valid list of spans of ``text``.
    """
    start = [s.to_dict() for s in spans]
    if not readonly and isinstance(st.session_state.get(key), dict):
        start = st.session_state[key].get("spans") or start  # the marks so far, if the editor is drawn anew
    result = _EDITOR(key=key, data={"text": text, "identity": key, "spans": start, "readonly": readonly},
                     default={"spans": start}, on_spans_change=on_change or _nothing)
    if readonly:
        return tuple(spans)
    return parse_spans(result.get("spans"), text)


def _nothing() -> None:
    """The editor's change callback when the caller has none (Streamlit keeps a state only with a callback)."""
