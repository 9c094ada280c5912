"""Downloads: every table as CSV, everything as one zip (tables + settings and signatures as JSON), and the
paper-ready exports (LaTeX tables, one self-contained HTML report; :mod:`ui.exports`)."""

import streamlit as st

from korean_eval.exports import csv_zip as report
from ui import exports, state, statistics_state
from ui.widgets import csv_button


@st.cache_data(show_spinner="Computing every result within each domain…", max_entries=4)
def _domain_tables(results_key: str, _results, _evalset) -> dict:
    """Per-domain tables (with documents, e.g. an mt-metrics-eval folder), once per data + settings."""
    return report.domain_tables(_results, _evalset)


state.enter_page("pages/downloads.py")
ctx = state.context()
res, data = ctx.results, ctx.evalset

st.title("Downloads")
st.caption(
    "Tables are tidy CSV (UTF-8, one header row). `run.json` in the zip holds the settings, every signature and a "
    "summary of the data — what a paper needs to report the numbers exactly. Charts: use the camera button in each "
    "chart's toolbar to save it as PNG."
)
if data.human_note:
    st.info(data.human_note, icon=":material/science:")

extra = {}
if data.human is not None:
    extra["human_scores.csv"] = data.human
if data.report.excluded:
    extra["excluded_rows.csv"] = data.report.excluded_frame()
with_ci = statistics_state.computed_confidence_intervals(ctx)
if with_ci is not None:
    extra["correlations_with_ci.csv"] = with_ci
extra.update(_domain_tables(ctx.key, res, data))
computed = statistics_state.computed_statistics(ctx)
extra.update(computed)
tables = report.result_tables(res, extra)

st.download_button(
    "All results as one zip",
    data=report.tables_zip(
        res,
        data,
        extra,
        {"significance": {"n_resamples": statistics_state.N_RESAMPLES, "seed": statistics_state.SEED, "alpha": statistics_state.ALPHA,
                          "tables": sorted(computed)}} if computed else None,
    ),
    file_name="korean-eval-results.zip",
    mime="application/zip",
    type="primary",
    icon=":material/folder_zip:",
    key="dl_zip",
    on_click="ignore",
)
if with_ci is not None:
    covered = with_ci.attrs.get("confidence_intervals", {}).get("statistics")
    st.caption(
        "`correlations_with_ci.csv`: 95% bootstrap intervals "
        + (f"of the statistics charted so far ({', '.join(covered)}); the other rows' are empty until the "
           "Correlations page charts them (or the paper-ready exports below are prepared)." if covered is not None
           else "of every row.")
    )
if computed:
    st.caption(
        f"Significance tables computed in this session are included ({len(computed)}): resampling with "
        f"{statistics_state.N_RESAMPLES} resamples/permutations, seed {statistics_state.SEED}, α = {statistics_state.ALPHA:g}."
    )
else:
    st.caption(
        "Significance tables (system pairs, significance matrix) are added here once computed on the Correlations "
        "and Scores & rankings pages."
    )
st.subheader("Paper-ready exports")
st.caption(
    "LaTeX (booktabs) tables — the correlation grids at the segment and system level (top significance cluster in "
    "bold, 95% bootstrap intervals), system scores with ranks, token statistics, signatures in a note — and one "
    "HTML file with every chart and table, the settings, signatures, data hash and validation report, which opens "
    "offline; with the Korean lens's section when the Korean lens page has computed it for these settings. For the "
    f"current settings: {ctx.settings.statistic}, segment grouping {ctx.settings.grouping}."
)
prepared = st.session_state.get(exports.exports_key(ctx))
if prepared is None and st.button("Prepare the LaTeX tables and the HTML report", icon=":material/article:",
                                  key="prepare_exports"):
    prepared = exports.prepare_exports(ctx)
    st.session_state[exports.exports_key(ctx)] = prepared
if prepared is not None:
    left, right = st.columns(2)
    left.download_button(f"{exports.LATEX_ZIP} (LaTeX tables)", data=prepared.latex_zip, file_name=exports.LATEX_ZIP,
                         mime="application/zip", icon=":material/functions:", key="dl_latex", on_click="ignore")
    right.download_button(f"{exports.REPORT_HTML} (HTML report)", data=prepared.report_html,
                          file_name=exports.REPORT_HTML, mime="text/html", icon=":material/web:", key="dl_report",
                          on_click="ignore")

st.subheader("Single tables")
for name, frame in tables.items():  # one column: a long file name (significance tables) is never cut
    csv_button(frame, name)
