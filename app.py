"""korean-eval dashboard: how well BLEU, chrF and TER agree with humans for Korean, at every token level.

Run with ``streamlit run app.py``. The first screen shows the bundled sample (simulated human scores); the Data page
loads your own files. Pages only read widgets, call the backend (``korean_eval``) and draw; shared helpers are in
``ui/``.
"""

import streamlit as st

from ui import sidebar, state
from ui.widgets import md_escape

st.set_page_config(page_title="korean-eval", page_icon=":material/translate:", layout="wide")

PAGES = [
    st.Page("pages/correlations.py", title="Correlations", icon=":material/bar_chart:", default=True),
    st.Page("pages/scores.py", title="Scores & rankings", icon=":material/leaderboard:"),
    st.Page("pages/segments.py", title="Segments", icon=":material/scatter_plot:"),
    st.Page("pages/tokens.py", title="Tokens", icon=":material/text_fields:"),
    st.Page("pages/lens.py", title="Korean lens", icon=":material/manage_search:"),
    st.Page("pages/data.py", title="Data", icon=":material/upload_file:"),
    st.Page("pages/downloads.py", title="Downloads", icon=":material/download:"),
]

page = st.navigation(PAGES, position="top")
state.resume_target_page()
with st.sidebar:
    st.markdown("### korean-eval")
    data = state.evalset()
    if data is not None:
        st.caption(
            f"Data: **{md_escape(state.source())}** · {len(data.systems)} systems × {data.n_segments} segments"
        )
        if not data.refs:
            st.caption("Scores only, no texts: your own metric scores are evaluated; token levels and metrics below "
                       "apply when you load texts.")
    st.page_link("pages/data.py", label="Load your own data", icon=":material/upload_file:")
state.store_settings(sidebar.render())
with state.app_run():
    page.run()
