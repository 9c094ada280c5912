"""Annotate: an annotator's queue of translations to judge with Error Span Annotation (an annotator's link opens it)."""

from ui.navigation import enter_page

enter_page("pages/annotate.py")

from ui.annotation.page import render  # noqa: E402  (after the redirect: a page opened alone imports nothing more)

render()
