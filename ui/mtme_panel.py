"""The Data page's panel for a ``.zip`` of a folder in mt-metrics-eval's layout: upload, choices, load.

Choices (docs/design.md §4): the test set × language pair, the reference(s) to score against (several =
multi-reference), the segment-level human scores (several = rater groups; by default every rater group of the first
method, :func:`korean_eval.inputs.mtme.load.default_human_names`) and their direction, the MQM weights of rating
files, whether reference copies are systems, and the folder's segment-level metric files meta-evaluated as your own
metrics (by default all that fit the references). Loading is :func:`ui.inputs.build_from_mtme`;
the metric files read as lower-is-better go to the sidebar's "Your metrics where lower is better".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import streamlit as st

from korean_eval.inputs.mtme.layout import LanguagePair, MtmeContents, describe, metric_references
from korean_eval.inputs.mtme.load import ALL_METRICS, HUMAN_DIRECTIONS, MtmeOptions, default_human_names
from korean_eval.inputs.spans.seg_offset import OFFSET_LABEL
from korean_eval.inputs.spans.weights import DEFAULT_WEIGHTS
from korean_eval.model.evalset import EvalSet, InputError
from ui import directions
from ui.inputs import Upload, build_from_mtme, mtme_contents
from ui.widgets import input_error

WEIGHTS_HELP = ("severity[/category]:weight, the most specific match per error, and cap:N per segment; default: "
                "Freitag et al. (2021), as mt-metrics-eval's score_mqm.py. Shown in the human scores' note.")
OFFSET_HELP = ("Added to the integer seg_id of a ratings table: -1 for a Google MQM TSV (numbered from 1) with text "
               "files (numbered from 0). Shown in the human scores' note.")
DIRECTION_LABELS = {
    "auto": "auto (MQM penalties ≥ 0: lower is better; otherwise higher)",
    "higher": "higher is better",
    "lower": "lower is better (error penalties)",
}


@st.cache_data(show_spinner="Reading the archive…", max_entries=2)
def _contents(name: str, data: bytes, max_bytes: int) -> MtmeContents:
    return mtme_contents(Upload(name, data), max_bytes)


def _choices(pair: LanguagePair, key: str) -> MtmeOptions:
    """The widgets of one language pair → loader options."""
    refs_known = sorted(pair.references)
    c1, c2 = st.columns(2)
    refs = c1.multiselect("Reference(s) to score against", refs_known, default=refs_known[:1], key=key + "refs",
                          help="Several references = a multi-reference evaluation (nrefs in every signature).")
    humans = pair.human_names("seg")
    chosen = c2.multiselect("Human scores (segment level)", humans, default=list(default_human_names(pair)),
                            key=key + "human", disabled=not humans, help="A .seg.score file or a .seg.rating file "
                            "(error spans, MQM weights below). Several names = rater groups (e.g. esa-human1, "
                            "esa-human2): merged per item, and their agreement is the human ceiling; by default every "
                            "rater group of the first method in sorted order (mqm.rater1, mqm.rater2 of mqm). The "
                            "system-level file of a single score name is used at system level.")
    weights = st.text_input("MQM weights (rating files)", value=DEFAULT_WEIGHTS, key=key + "weights",
                            disabled=not pair.ratings, help=WEIGHTS_HELP)
    c3, c4 = st.columns(2)
    direction = c3.radio("Human score direction", HUMAN_DIRECTIONS, format_func=DIRECTION_LABELS.get, key=key + "dir")
    copies = [s for s in pair.reference_systems() if s not in refs]
    as_systems = c4.checkbox(
        f"Evaluate the reference copies as systems ({', '.join(copies) or 'none'})", key=key + "refsys",
        disabled=not copies, help="mt-metrics-eval's human systems; a reference scored against is never a system.",
    )
    usable = [f.name for f in pair.metrics if f.level == "seg" and metric_references(f.name, refs_known) <= set(refs)]
    c5, c6 = st.columns(2)
    with_metrics = c5.checkbox("Meta-evaluate the folder's metric scores next to ours", value=True,
                               key=key + "with_metrics", disabled=not pair.metrics,
                               help="Its segment-level metric files (COMET, MetricX, …) as your own metrics (level "
                               "given), meta-evaluated like ours: every one computed with the chosen references (or "
                               "none), or those chosen beside.")
    metrics = c6.multiselect("Only these (empty: all)", usable, key=key + "metrics", disabled=not with_metrics,
                             help="Segment-level files computed with the chosen references (or none). MetricX-like "
                             "penalties ≥ 0 are read as lower-is-better.")
    chosen_metrics = (tuple(metrics) or ALL_METRICS) if with_metrics else ()
    return MtmeOptions(lp=pair.lp, test_set=pair.test_set, references=tuple(refs),
                       human=chosen[0] if len(chosen) == 1 else None, human_groups=tuple(chosen) if len(chosen) > 1 else (),
                       human_direction=str(direction), refs_as_systems=bool(as_systems), metrics=chosen_metrics,
                       mqm_weights=weights)


def ratings_inputs(key: str) -> tuple[list, str, int]:
    """An uploader of error-span ratings (one rater group per file), the MQM weights and the seg_id offset of the
    ratings (:mod:`korean_eval.inputs.spans.seg_offset`)."""
    r1, r2, r3 = st.columns([3, 2, 1])
    files = r1.file_uploader("Or error-span ratings (MQM/ESA): mt-metrics-eval .seg.rating, Google MQM TSV or ESA "
                             "table; several files = rater groups", accept_multiple_files=True, key=f"up_ratings_{key}")
    weights = r2.text_input("MQM weights", value=DEFAULT_WEIGHTS, key=f"mqm_weights_{key}", help=WEIGHTS_HELP)
    offset = r3.number_input(OFFSET_LABEL, value=0, step=1, key=f"ratings_seg_offset_{key}", help=OFFSET_HELP)
    return list(files or []), weights, int(offset)


def mtme_panel(limit: int, apply: Callable[[Callable[[], EvalSet], str], None]) -> None:
    """Upload, choices and the load button; ``apply(build, label)`` makes the built EvalSet the current data."""
    st.caption(
        "A .zip of a test-set folder in mt-metrics-eval's layout (sources/, documents/, references/, "
        "system-outputs/, human-scores/, metric-scores/; e.g. wmt24/ of mt-metrics-eval-v2), or of a folder "
        "holding several. Nothing is extracted; unsafe archives (paths leaving the folder, links) are refused."
    )
    uploaded = st.file_uploader("mt-metrics-eval folder (.zip)", type=["zip"], key="up_mtme")
    if uploaded is None:
        return
    upload = Upload.of(uploaded)
    try:
        contents = _contents(upload.name, upload.data, limit)
        if not contents.pairs:
            raise InputError(upload.name, "no test set in mt-metrics-eval's layout (no sources/SRC-TGT.txt file)")
    except (InputError, ValueError) as err:
        input_error(err)
        return
    key = "mtme_" + hashlib.sha1(upload.data).hexdigest()[:8] + "_"
    labels = [f"{p.test_set} · {p.lp}" for p in contents.pairs]
    label = st.selectbox("Test set · language pair", labels, key=key + "pair")
    pair = contents.pairs[labels.index(label)]
    options = _choices(pair, key + pair.test_set + pair.lp + "_")
    with st.expander("What the archive holds"):
        st.text(describe(contents))

    def build() -> EvalSet:
        loaded = build_from_mtme(upload, options, max_bytes=limit)
        st.session_state[directions.PENDING_KEY] = dict.fromkeys(loaded.lower_is_better, True)
        return loaded.evalset

    if st.button("Use this test set", type="primary", key="use_mtme", disabled=not options.references):
        apply(build, f"{pair.test_set} {pair.lp} ({upload.name})")
