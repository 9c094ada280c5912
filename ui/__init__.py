"""Streamlit-side helpers of the dashboard (app.py + pages/). The scoring library ``korean_eval`` never imports this.

* :mod:`ui.inputs` — uploaded bytes → EvalSet (pure, no Streamlit: tested directly);
* :mod:`ui.views` — result tables → display tables (pure pandas);
* :mod:`ui.charts` — result tables → Plotly figures (pure Plotly);
* :mod:`ui.state` — session state, result caching, progress bar;
* :mod:`ui.sidebar` — the settings shared by every page;
* :mod:`ui.widgets` — small drawing helpers (escaped text, chart/table/download wrappers).
"""
