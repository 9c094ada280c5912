"""korean-eval dashboard: how well BLEU, chrF and TER agree with humans for Korean, at every token level.

Run with ``streamlit run app.py``. The first screen shows the bundled sample (simulated human scores); the Data page
loads your own files. Pages only read widgets, call the backend (``korean_eval``) and draw; shared helpers are in
``ui/``.

Streamlit runs this file as the module ``__main__``. The worker processes of a large evaluation are *spawned*, and a
spawned process imports the parent's main script again, as ``__mp_main__``: there this file must do nothing, hence
the guard at the bottom and every import inside :func:`main` (docs/design.md §7).
"""


#: A chart without points or axes, 10 px tall (Plotly's least height).
PLOTLY_WARM_UP = {"data": [{"type": "scatter", "x": [], "y": []}], "layout": {"height": 10, "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
                                         "xaxis": {"visible": False}, "yaxis": {"visible": False}}}


def main() -> None:
    """Navigation first (it shows while the backend is still being imported), then the sidebar, then the page."""
    import streamlit as st

    st.set_page_config(page_title="korean-eval", page_icon=":material/translate:", layout="wide")
    # reached by its URL (an annotator's link, or /annotate): not in the menu, whose links must fit beside the sidebar
    annotate = st.Page("pages/annotate.py", title="Annotate", icon=":material/rate_review:", url_path="annotate",
                       visibility="hidden")
    if st.query_params.get("token"):
        # an annotator's link: their queue and nothing else — no other page, no sidebar, no evaluation data loaded
        from ui.navigation import TARGET_KEY, app_run

        page = st.navigation([annotate], position="hidden")
        st.session_state.pop(TARGET_KEY, None)
        _run_page(page, app_run)
        return
    page = st.navigation(
        [
            st.Page("pages/correlations.py", title="Correlations", icon=":material/bar_chart:", default=True),
            st.Page("pages/scores.py", title="Scores & rankings", icon=":material/leaderboard:"),
            st.Page("pages/segments.py", title="Segments", icon=":material/scatter_plot:"),
            st.Page("pages/tokens.py", title="Tokens", icon=":material/text_fields:"),
            st.Page("pages/lens.py", title="Korean lens", icon=":material/manage_search:"),
            st.Page("pages/data.py", title="Data", icon=":material/upload_file:"),
            st.Page("pages/downloads.py", title="Downloads", icon=":material/download:"),
            annotate,
        ],
        position="top",
    )
    if page.url_path == annotate.url_path:  # the annotation page reads no evaluation data and draws no sidebar
        from ui.navigation import app_run

        _run_page(page, app_run)
        return

    # Plotly's JavaScript is the page's largest part and the browser loads it only for a first chart: an empty one,
    # drawn at the start of a session's first run and removed once the sidebar is drawn, lets it load while the
    # backend is imported and the page computed, so that the page's first chart is drawn as soon as it arrives
    # (once: the browser keeps the script, and drawing it at every rerun would cost every page a chart's work;
    # removed at once, it would never reach the browser, which would then never ask for the script)
    warm_up = st.sidebar.empty()
    if not st.session_state.get("ke_plotly_loaded"):
        st.session_state["ke_plotly_loaded"] = True
        warm_up.plotly_chart(PLOTLY_WARM_UP, key="ke_plotly_warm_up", config={"staticPlot": True})
    with st.spinner("Loading the evaluation library…"):  # the first run after the server starts imports it
        from launcher import page_sent, wait_for_first_screen

        wait_for_first_screen()  # `korean-eval app` imports it meanwhile: never in two threads at once
        from ui import service, sidebar, state
        from ui.widgets import md_escape

    service.limits()  # the server's limits for several users, applied to the worker pools at the first run
    state.resume_target_page()
    with st.sidebar:
        st.markdown("### korean-eval")
        data = state.evalset()
        if data is not None:
            st.caption(
                f"Data: **{md_escape(state.source())}** · {len(data.systems)} systems × {data.n_segments} segments"
            )
            if not data.refs:
                st.caption("Scores only, no texts: your own metric scores are evaluated; token levels and metrics "
                           "below apply when you load texts.")
        st.page_link("pages/data.py", label="Load your own data", icon=":material/upload_file:")
    state.store_settings(sidebar.render())
    warm_up.empty()
    try:
        with state.app_run():
            page.run()
    finally:  # also when the page stops early (st.stop)
        page_sent()


def _run_page(page, app_run) -> None:
    """Run ``page`` as app.py's page (``app_run``: :func:`ui.navigation.app_run`), then say the page was sent."""
    from launcher import page_sent, wait_for_first_screen

    wait_for_first_screen()  # `korean-eval app` imports the backend meanwhile: never in two threads at once
    try:
        with app_run():
            page.run()
    finally:
        page_sent()


if __name__ == "__main__":  # False in a spawned worker process, which imports this file as __mp_main__
    main()
