"""The direction (higher or lower is better) of the user's own metric scores: asked on the Data page, pre-filled
from each column's name, kept for the session, and checked against the humans.

The pure part (no Streamlit): :func:`guess_lower_is_better` (a column's name → an error rate?) and
:func:`inverted_metrics` (own metrics declared higher-is-better whose every correlation with the humans is
negative). The widgets: :func:`prompt` (one choice per column, next to the upload), :func:`sidebar_choice` (the
sidebar's multiselect, which the configuration reads) and :func:`warning`. A choice made on the Data page reaches
the sidebar through :func:`declare` (the sidebar's widget cannot be set once drawn in a run, so the choice waits
in session state until the sidebar's next run).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import streamlit as st

from korean_eval.model.results import GIVEN_LEVEL, Results
from korean_eval.model.vocabulary import STATISTICS
from ui.widgets import md_escape

HIGHER, LOWER = "higher is better", "lower is better"
#: Whole name parts that make a column an error rate: TER (and HTER), CharacTER, EED, MetricX (any version),
#: WER/CER, "err"/"errors".
ERROR_RATE_PARTS = frozenset({"ter", "hter", "character", "eed", "metricx", "wer", "cer", "err", "errs", "errors"})
#: Substrings of a name that make it an error rate or a cost, wherever they occur ("ErrorRate", "edit_distance").
ERROR_RATE_SUBSTRINGS: tuple[str, ...] = ("error", "loss", "distance", "penalty", "perplexity")

SIDEBAR_KEY = "given_lower_is_better"  # the sidebar multiselect's widget key (its value: the lower-is-better names)
CHOICES_KEY = "given_directions"  # metric name → True when lower is better: every choice made in this session
PENDING_KEY = "given_directions_pending"  # choices made on the Data page, applied by the sidebar's next run
NAMES_KEY = "given_directions_names"  # the metric names the sidebar's multiselect was last set up for
PROMPT_PREFIX = "given_dir|"  # the Data page's radio per metric column


def _name_parts(name: str) -> set[str]:
    """Lower-case parts of a column name, split at non-letters, at digits and at case changes ("jamoTER" → jamo,
    ter; "MetricX-24" → metricx, metric, x, 24)."""
    plain = re.findall(r"[a-z]+|\d+", name.lower())
    camel = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    return {*plain, *(p.lower() for p in camel)}


def guess_lower_is_better(name: str) -> bool:
    """Whether a metric column named ``name`` is, by its name, an error rate or a cost (lower is better).

    Case-insensitive. True when a part of the name (:func:`_name_parts`) is one of :data:`ERROR_RATE_PARTS`, or
    starts with ``metricx``, or the name contains one of :data:`ERROR_RATE_SUBSTRINGS`. Only a pre-fill: the user
    confirms every column on the Data page. "better", "filter" or "chrF" are not error rates (no whole part "ter").
    """
    parts = _name_parts(name)
    lowered = name.lower()
    return (
        bool(parts & ERROR_RATE_PARTS)
        or any(p.startswith("metricx") for p in parts)
        or any(s in lowered for s in ERROR_RATE_SUBSTRINGS)
    )


def inverted_metrics(results: Results) -> list[str]:
    """Own metrics (level ``given``) read as higher-is-better whose every defined correlation with the humans
    (Pearson, Spearman, Kendall; segment level in every grouping and system level) is negative: probably error
    rates declared the wrong way round. Sorted by name."""
    corr = results.correlations
    rows = corr[(corr["level"] == GIVEN_LEVEL) & corr["statistic"].isin(STATISTICS)]
    out = []
    for metric, sub in rows.groupby("metric", sort=True):
        values = sub["value"].to_numpy(float)
        values = values[np.isfinite(values)]
        if results.higher_is_better(str(metric), GIVEN_LEVEL) and len(values) and (values < 0).all():
            out.append(str(metric))
    return out


def lower_names(choices: Mapping[str, bool], names: Sequence[str]) -> list[str]:
    """The ``names`` whose direction is lower-is-better: the recorded choice, else the name's guess."""
    return [n for n in names if choices.get(n, guess_lower_is_better(n))]


# ------------------------------------------------------------------------------------------------ widgets


def prompt(names: Sequence[str]) -> dict[str, bool]:
    """One higher/lower-is-better choice per metric column (pre-filled from an earlier choice, else the name);
    returns metric name → True when lower is better."""
    st.markdown("**Direction of your metrics**: is a higher score better, or a lower one (an error rate)?")
    recorded = st.session_state.get(CHOICES_KEY, {})
    out: dict[str, bool] = {}
    cols = st.columns(min(len(names), 3) or 1)
    for i, name in enumerate(names):
        guess = guess_lower_is_better(name)
        lower = recorded.get(name, guess)
        choice = cols[i % len(cols)].radio(
            name,
            [HIGHER, LOWER],
            index=1 if lower else 0,
            key=PROMPT_PREFIX + name,
            horizontal=True,
            help=("Pre-filled from the name: it looks like an error rate or a cost (TER, CharacTER, EED, MetricX, "
                  "…error, loss, distance, WER)." if guess else "Pre-filled from the name: not an error rate's name.")
            + " Rankings, correlation signs and pairwise accuracy follow this choice.",
        )
        out[name] = choice == LOWER
    st.caption("Pre-filled from the column names; check each before you load the file. The sidebar's "
               "\"Your metrics where lower is better\" changes it later.")
    return out


def declare(choices: Mapping[str, bool]) -> None:
    """Record the Data page's choices; the sidebar applies them in its next run (:func:`sidebar_choice`)."""
    st.session_state[PENDING_KEY] = dict(choices)


def sidebar_choice(names: Sequence[str]) -> tuple[str, ...]:
    """The sidebar multiselect of the metrics where lower is better (only with own metric scores): pre-set from the
    Data page's choices, else from earlier choices, else from the names; every change is recorded."""
    choices: dict[str, bool] = dict(st.session_state.get(CHOICES_KEY, {}))
    pending = st.session_state.pop(PENDING_KEY, None)
    choices.update(pending or {})
    if pending is not None or SIDEBAR_KEY not in st.session_state or st.session_state.get(NAMES_KEY) != list(names):
        st.session_state[SIDEBAR_KEY] = lower_names(choices, names)
        st.session_state[NAMES_KEY] = list(names)
    chosen = st.multiselect(
        "Your metrics where lower is better",
        list(names),
        key=SIDEBAR_KEY,
        help="Error-rate metrics you computed elsewhere (MetricX, TER, WER …): ranked lowest-first, and their "
        "correlations read as agreement when negative, like TER. Pre-filled from the Data page's choice.",
    )
    choices.update({n: n in chosen for n in names})
    st.session_state[CHOICES_KEY] = choices
    return tuple(sorted(str(n) for n in chosen if n in names))


def _mark_lower(names: Sequence[str]) -> None:
    """Callback of the warning's button: these metrics are lower-is-better from now on."""
    st.session_state[PENDING_KEY] = {**st.session_state.get(PENDING_KEY, {}), **dict.fromkeys(names, True)}


def warning(results: Results) -> None:
    """A warning when an own metric read as higher-is-better correlates negatively with the humans everywhere,
    with a button that declares it lower-is-better."""
    names = inverted_metrics(results)
    if not names:
        return
    listed = ", ".join(md_escape(n) for n in names)
    st.warning(
        f"**{listed}**: declared *higher is better*, but {'its' if len(names) == 1 else 'their'} correlation with the "
        "humans is negative at every granularity. If lower is better (an error rate, a loss, a distance), "
        "rankings, pairwise accuracy and the best configuration are read the wrong way round.",
        icon=":material/swap_vert:",
    )
    st.button(f"Treat {listed} as lower is better", key="given_dir_fix", on_click=_mark_lower, args=(names,))

