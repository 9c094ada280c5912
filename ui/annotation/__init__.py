"""The annotator's side of an ESA campaign in the dashboard (:mod:`korean_eval.annotation`; docs/design.md §4,
"Collected judgments").

* :mod:`ui.annotation.esa` — ESA's score anchors, severities and the checks before a submission (pure);
* :mod:`ui.annotation.span_widget` — the error-span editor, a Streamlit custom component (inline HTML/CSS/JS);
* :mod:`ui.annotation.page` — the annotation page: token, queue, item, submission, looking back;
* :mod:`ui.annotation.store` — the campaign database the page opens.
"""
