"""Data: load references + system files, or one long table, or keep the sample; QC raw human judgments; check the
validation report and a preview of what will be evaluated."""

import hashlib
import math

import pandas as pd
import streamlit as st

from korean_eval.inputs.human_qc.options import QCOptions, detect_columns
from korean_eval.inputs.human_qc.report import QCResult
from korean_eval.inputs.human_qc.run import run_qc
from korean_eval.inputs.table_reader import Table, parse_number, read_table
from korean_eval.model.evalset import InputError
from ui import charts, directions, display_tables, service, state, views
from ui.inputs import (
    TableRoles,
    Upload,
    build_from_scores,
    build_from_table,
    build_from_texts,
    check_sizes,
    default_system_name,
    given_metric_names,
    guess_table_roles,
    table_head,
    with_human_scores,
)
from ui.mtme_panel import mtme_panel, ratings_inputs
from ui.widgets import chart, csv_button, fit_table, human_note, input_error, md_escape

state.enter_page("pages/data.py")
service.warm_up(state.settings().config.levels)  # Kiwi's worker starts while the user chooses files

NONE = "—"
FLASH_KEY = "data_flash"
TABLE_TYPES = ["csv", "tsv", "jsonl", "json", "txt"]
LIMIT = state.upload_limit_bytes()
EXCLUDED_ROWS_SHOWN = 1000
QC_ROWS_SHOWN = 1000

# ------------------------------------------------------------------------------------------------ helpers


def _upload(file) -> Upload | None:
    return Upload.of(file) if file is not None else None


@st.cache_data(show_spinner=False, max_entries=4)
def _head(name: str, data: bytes, max_bytes: int) -> pd.DataFrame:
    return table_head(Upload(name, data), max_bytes=max_bytes)


@st.cache_data(show_spinner="Reading the judgments…", max_entries=2)
def _judgments(name: str, data: bytes) -> Table:
    return read_table(data, name, multiline_cells=False)


def _finite_numbers(cells: pd.Series) -> pd.Series:
    """The finite numbers among text cells (:func:`korean_eval.inputs.table_reader.parse_number`), for a chart."""
    numbers = (parse_number(str(cell)) for cell in cells)
    return pd.Series([x for x in numbers if x is not None and math.isfinite(x)], dtype=float)


@st.cache_data(show_spinner=False, max_entries=4)
def _metric_names(name: str, data: bytes, max_bytes: int) -> list[str]:
    return given_metric_names(Upload(name, data), max_bytes)


def _directions(given) -> dict[str, bool] | None:
    """The direction prompt for an uploaded own-score file (None without one, or when it cannot be read: the
    build then names the problem)."""
    if given is None:
        return None
    try:
        names = _metric_names(given.name, given.getvalue(), LIMIT)
    except (InputError, ValueError):
        return None
    return directions.prompt(names)


def _apply(build, label: str, given_directions: dict[str, bool] | None = None) -> None:
    try:
        evalset = build()
    except (InputError, ValueError) as err:
        input_error(err)
        return
    state.use(evalset, label)
    if given_directions is not None:
        directions.declare(given_directions)
    st.session_state[FLASH_KEY] = (
        f"Loaded {md_escape(label)}: {len(evalset.systems)} systems × {evalset.n_segments} segments. "
        "Every page now shows these data; the validation report is below."
    )
    st.rerun()


# ----------------------------------------------------------------------------------------------- panels


def _texts_panel() -> None:
    c1, c2 = st.columns(2)
    refs = c1.file_uploader(
        "Reference file(s) — one segment per line; several files = several references",
        accept_multiple_files=True,
        key="up_refs",
    )
    systems = c2.file_uploader(
        "System outputs — one file per system, line-aligned with the reference",
        accept_multiple_files=True,
        key="up_systems",
    )
    names = None
    if systems:
        st.caption("System names (from the file names; edit to rename):")
        edited = st.data_editor(
            pd.DataFrame({"file": [f.name for f in systems], "system": [default_system_name(f.name) for f in systems]}),
            disabled=["file"],
            hide_index=True,
            key="names_" + hashlib.sha1("|".join(f.name for f in systems).encode()).hexdigest()[:8],
        )
        names = [str(n) for n in edited["system"]]
    c3, c4, c5 = st.columns(3)
    human = c3.file_uploader("Human scores (system, seg_id, score)", type=TABLE_TYPES, key="up_human")
    given = c4.file_uploader("Your own metric scores (system, seg_id, one column per metric)", type=TABLE_TYPES, key="up_given")
    src = c5.file_uploader("Source file (optional)", key="up_src")
    ratings, weights, offset = ratings_inputs("txt")
    st.caption("seg_id of text files is the 0-based line number.")
    given_directions = _directions(given)
    if st.button("Use these files", type="primary", disabled=not (refs and systems), key="use_texts"):
        _apply(
            lambda: build_from_texts(
                [Upload.of(f) for f in refs],
                [Upload.of(f) for f in systems],
                names,
                _upload(human),
                _upload(given),
                _upload(src),
                max_bytes=LIMIT,
                ratings=[Upload.of(f) for f in ratings or []],
                mqm_weights=weights,
                ratings_seg_offset=offset,
            ),
            f"{refs[0].name} + {len(systems)} system file{'s' if len(systems) > 1 else ''}",
            given_directions,
        )


def _table_panel() -> None:
    uploaded = st.file_uploader(
        "One table with a row per (system, segment): CSV, TSV or JSONL", type=TABLE_TYPES, key="up_table"
    )
    if uploaded is not None:
        up = Upload.of(uploaded)
        try:
            head = _head(up.name, up.data, LIMIT)
        except (InputError, ValueError) as err:
            input_error(err)
            return
        columns = list(head.columns)
        guess = guess_table_roles(columns)
        k = "tbl_" + hashlib.sha1("|".join(columns).encode()).hexdigest()[:8] + "_"

        def _index(role: str, options: list[str]) -> int:
            first = guess[role][0] if guess[role] else None
            return options.index(first) if first in options else 0

        c1, c2, c3 = st.columns(3)
        sys_col = c1.selectbox("System column", columns, index=_index("system", columns), key=k + "system")
        seg_cols = c2.multiselect(
            "Segment id column(s)", columns, default=list(guess["seg_id"]), key=k + "seg",
            help="Several columns are joined with “-” (e.g. DocID + SentID → 1-3).",
        )
        hyp_col = c3.selectbox("Hypothesis column", columns, index=_index("hyp", columns), key=k + "hyp")
        c4, c5, c6 = st.columns(3)
        ref_cols = c4.multiselect("Reference column(s)", columns, default=list(guess["ref"]), key=k + "ref")
        optional = [NONE, *columns]
        src_col = c5.selectbox("Source column (optional)", optional, index=_index("src", optional), key=k + "src")
        score_col = c6.selectbox(
            "Human score column (optional)", optional, index=_index("score", optional), key=k + "score",
            help="E.g. the study's Z_adequacy. Several rows of one (system, segment) are averaged.",
        )
        with st.expander("Table preview"):
            fit_table(head, height=420)
        c7, c8 = st.columns(2)
        human = c7.file_uploader("Or a separate human-score file (system, seg_id, score)", type=TABLE_TYPES, key="up_human_t")
        given = c8.file_uploader("Your own metric scores (optional)", type=TABLE_TYPES, key="up_given_t")
        ratings, weights, offset = ratings_inputs("table")
        given_directions = _directions(given)
        roles = TableRoles(
            system=sys_col,
            seg_id=tuple(seg_cols),
            hyp=hyp_col,
            ref=tuple(ref_cols),
            src=None if src_col == NONE else src_col,
            score=None if score_col == NONE else score_col,
        )
        if st.button("Use this table", type="primary", key="use_table"):
            _apply(
                lambda: build_from_table(up, roles, _upload(human), _upload(given), max_bytes=LIMIT,
                                         ratings=[Upload.of(f) for f in ratings], mqm_weights=weights,
                                         ratings_seg_offset=offset),
                up.name, given_directions,
            )


def _scores_panel() -> None:
    st.caption(
        "Meta-evaluate metric scores you computed elsewhere (COMET, BLEURT, your own metric), without the texts: "
        "correlations with the humans, rankings, flipped pairs and significance, at the level \"given\"."
    )
    c1, c2 = st.columns(2)
    given = c1.file_uploader(
        "Your metric scores (system, seg_id, one column per metric)", type=TABLE_TYPES, key="up_scores_only"
    )
    human = c2.file_uploader("Human scores (system, seg_id, score)", type=TABLE_TYPES, key="up_scores_human")
    given_directions = _directions(given)
    if st.button("Use these scores", type="primary", disabled=not (given and human), key="use_scores"):
        _apply(
            lambda: build_from_scores(Upload.of(given), Upload.of(human), max_bytes=LIMIT),
            f"{given.name} + {human.name} (scores only)",
            given_directions,
        )


def _sample_panel() -> None:
    st.markdown(
        "The bundled sample: 120 English→Korean news-style segments, five simulated MT systems (each made by "
        "rule-based edits of the reference: particles, endings, word order, spacing, dropped words…) and "
        "**simulated** human scores."
    )
    if state.is_sample():
        st.caption("The sample is the current data.")
    elif st.button("Use the bundled sample", type="primary", key="use_sample"):
        state.use_sample()
        st.rerun()


def _qc_panel() -> None:
    st.subheader("Quality control of raw human judgments")
    st.caption(
        "Upload one row per judgment (rater, item, system, score). The study's procedure is preselected: drop each "
        "rater's first 10 judgments, z-score per rater, Tukey fences (k = 1.5) on every score column, average repeats. "
        "The resulting per-item scores can replace the human scores of the current data."
    )
    raw = st.file_uploader("Raw judgments (CSV or TSV)", type=["csv", "tsv", "txt"], key="up_judgments")
    if raw is None:
        return
    up = Upload.of(raw)
    try:
        check_sizes([up], LIMIT)
        raw_table = _judgments(up.name, up.data)
    except ValueError as err:
        input_error(err)
        return
    judgments = raw_table.frame()
    try:
        options = _qc_options(judgments)
        result = run_qc(judgments, options, lines=raw_table.lines)
    except ValueError as err:
        input_error(err)
        return
    _qc_result(result, judgments, up)


def _qc_options(judgments: pd.DataFrame) -> QCOptions:
    """The column roles (prefilled by detection) and QC parameters picked on the page (ValueError if invalid)."""
    cols = [str(c) for c in judgments.columns]
    det = detect_columns(judgments)
    k = "qc_" + hashlib.sha1("|".join(cols).encode()).hexdigest()[:8] + "_"
    c1, c2, c3, c4 = st.columns(4)
    rater_col = c1.selectbox("Rater", cols, index=cols.index(det["rater_col"]) if det["rater_col"] in cols else 0, key=k + "rater")
    system_col = c2.selectbox("System", cols, index=cols.index(det["system_col"]) if det["system_col"] in cols else 0, key=k + "system")
    item_cols = c3.multiselect("Item (segment id) column(s)", cols, default=list(det["item_cols"]), key=k + "items")
    score_cols = c4.multiselect("Score column(s); the first is the human score", cols, default=list(det["score_cols"]), key=k + "scores")
    p1, p2, p3, p4 = st.columns(4)
    drop_first = p1.number_input("Warm-up: drop each rater's first N", min_value=0, value=10, step=1, key=k + "drop")
    zscore = p2.toggle("Z-score per rater", value=True, key=k + "z")
    fences = p3.toggle("Tukey fences", value=True, key=k + "fences")
    iqr_k = p3.number_input("k", min_value=0.0, value=1.5, step=0.5, key=k + "k", disabled=not fences)
    average = p4.toggle("Average repeated judgments", value=True, key=k + "avg")
    flag = p4.toggle("Flag outlier systems", value=False, key=k + "flag")
    threshold = p4.number_input("robust |z| >", min_value=0.5, value=2.5, step=0.5, key=k + "thr", disabled=not flag)
    return QCOptions(
        rater_col=rater_col,
        system_col=system_col,
        item_cols=tuple(item_cols) or None,
        score_cols=tuple(score_cols) or None,
        drop_first=int(drop_first),
        zscore=zscore,
        iqr_k=float(iqr_k) if fences else None,
        average_repeats=average,
        flag_outlier_systems=flag,
        outlier_threshold=float(threshold),
    )


def _qc_result(result: QCResult, judgments: pd.DataFrame, up: Upload) -> None:
    """What QC did (counts, summary, score distribution, tables) and the button that uses its item scores."""
    rep = result.report
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Judgments read", f"{rep.n_input:,}")
    m2.metric("Kept", f"{rep.n_kept:,}", delta=f"{rep.n_kept - rep.n_input:,}", delta_color="off")
    m3.metric("Item scores", f"{rep.n_item_scores:,}")
    m4.metric("Outlier systems", len(rep.outlier_systems))
    left, right = st.columns([3, 2])
    with left:
        st.markdown("\n".join(f"- {md_escape(line)}" for line in rep.summary_lines()
                                if not line.startswith(("  ", "Per-system means"))))
    with right:
        first = result.options.score_cols[0]
        before = _finite_numbers(judgments[first])
        chart(charts.distribution(before, result.judgments[first].dropna(), first), "qc-distribution")
    names = ["Steps", "System means", "Per rater", "Per system", "Fences", "Unusable rows", "Item scores"]
    for name, tab, frame in zip(
        names,
        st.tabs(names),
        [rep.steps.drop(columns=["key"]), rep.system_means, rep.per_rater, rep.per_system, rep.fences, rep.invalid_rows, result.item_scores],
        strict=True,
    ):
        with tab:
            fit_table(display_tables.readable(frame, rows=QC_ROWS_SHOWN), height=420 if len(frame) > 10 else None)
            if len(frame) > QC_ROWS_SHOWN:
                st.caption(f"The first {QC_ROWS_SHOWN:,} of {len(frame):,} rows; the CSV has every row.")
                csv_button(frame, f"qc_{name.lower().replace(' ', '_')}.csv", key=f"qc_csv_{name}")
    scores = result.item_scores_without_outliers if result.options.flag_outlier_systems else result.item_scores
    if st.button(
        f"Use these {len(scores):,} item scores as the human scores of the current data",
        type="primary",
        key="use_qc",
    ):
        current = state.evalset()
        if current is not None:
            _apply(lambda: with_human_scores(current, scores, up.name), f"{state.source()} + QC'd {up.name}")


def _report() -> None:
    """The current data: summary counts, notes, excluded rows with reasons, human coverage, a preview."""
    current = state.evalset()
    if current is None:
        return
    st.subheader("Current data: validation report")
    st.caption(f"Source: {md_escape(state.source())}")
    human_note(current)
    summary = current.summary()
    cols = st.columns(4)
    for i, (label, value) in enumerate(summary.items()):
        cols[i % 4].metric(label, f"{value:,}" if isinstance(value, int) else str(value))
    if current.report.notes:
        st.markdown("**Notes**")
        st.markdown("\n".join(f"- {md_escape(n)}" for n in current.report.notes))
    excluded = current.report.excluded_frame()
    if len(excluded):
        by_reason = current.report.excluded_summary()
        st.warning(
            f"{len(excluded):,} input row(s) were not used: "
            + "; ".join(f"{md_escape(r.file)} — {md_escape(r.reason)} ({r.rows:,})" for r in by_reason.head(6).itertuples())
            + ("; …" if len(by_reason) > 6 else "")
            + ". Every excluded row, with its line, is listed below.",
            icon=":material/filter_alt:",
        )
        st.markdown(f"**Excluded rows** ({len(excluded):,}), by file and reason")
        fit_table(current.report.excluded_summary())
        with st.expander("Every excluded row"):
            fit_table(excluded.head(EXCLUDED_ROWS_SHOWN), height=420 if len(excluded) > 10 else None)
            if len(excluded) > EXCLUDED_ROWS_SHOWN:
                st.caption(f"The first {EXCLUDED_ROWS_SHOWN:,} of {len(excluded):,}; excluded_rows.csv (Downloads) has all.")
    else:
        st.caption("No row was excluded.")
    if current.human is not None:
        st.markdown("**Human scores per system**")
        overview = display_tables.human_overview_text(views.human_overview(current))
        fit_table(overview, height=420 if len(overview) > 10 else None)
    if current.given is not None:
        st.markdown("**Your own metric scores**: " + ", ".join(md_escape(m) for m in current.given["metric"].unique()))
    st.markdown("**Preview** (first 20 segments)")
    names = list(current.systems)
    key = "preview_" + hashlib.sha1("|".join(names).encode()).hexdigest()[:8]
    shown = st.multiselect("Systems in the preview", names, default=names[:3], key=key) if names else []
    fit_table(views.preview(current, systems=shown), height=640)


# ------------------------------------------------------------------------------------------------- page

st.title("Data")
st.caption(
    "Load references and one file per system, one long table, a .zip of a test set in mt-metrics-eval's layout, or "
    "(Scores only) just your metric scores; add "
    "human scores (or quality-control raw judgments below) and, if you have them, your own metric scores (e.g. "
    "COMET computed elsewhere). Files are decoded (UTF-8 with or without BOM, CP949/EUC-KR, UTF-16), "
    "NFC-normalised and checked; anything dropped is listed with its reason. Files of up to "
    f"{LIMIT / 2**20:g} MB each; nothing you upload is run, used as a file path or shown to other users."
)


if FLASH_KEY in st.session_state:
    st.success(st.session_state.pop(FLASH_KEY), icon=":material/check_circle:")

mode = st.segmented_control(
    "Source",
    ["Text files", "One long table", "Scores only", "mt-metrics-eval (.zip)", "Bundled sample"],
    key="data_mode",
    required=True,
    default="Text files",
    persist_state="session",
)
panels = {"Text files": _texts_panel, "One long table": _table_panel, "Scores only": _scores_panel,
          "mt-metrics-eval (.zip)": lambda: mtme_panel(LIMIT, _apply)}
panels.get(mode, _sample_panel)()
st.divider()
_qc_panel()
st.divider()
_report()
