"""The settings shared by every page (drawn in the sidebar by app.py, on every page).

Token levels are chosen in one go: ticking and unticking levels changes nothing on the pages until the Apply button
makes the ticked levels the applied ones (:data:`ui.state.APPLIED_LEVELS_KEY`), so that several ticks start one
evaluation. Until then the sidebar lists the changes and, for every level added, the estimated seconds it takes on
the current data (:func:`korean_eval.engine.estimates.level_estimates`: the measured costs, less what the token cache
holds), so a slow level (KoNLPy's Java analyzers, SentencePiece's training on much text) is announced before it
starts. The levels ticked when a session starts are applied at once.
"""

from __future__ import annotations

from collections import defaultdict

import streamlit as st

from korean_eval.engine.estimates import level_estimates, run_seconds
from korean_eval.engine.pools import analyzers_in_workers
from korean_eval.levels.costs import started_levels
from korean_eval.levels.registry import FAMILIES, SpmLevel, level_names, level_table, study_levels
from korean_eval.metrics import declaration, metric_group, metric_names
from korean_eval.model.config import EvalConfig
from korean_eval.model.defaults import LEVELS
from ui import directions, formats, state
from ui.state import Settings
from ui.views import (
    CHOSEN_STATISTICS,
    FAMILY_LABELS,
    GROUPING_LABELS,
    STATISTIC_LABELS,
    grouping_label,
    metric_label,
)
from ui.widgets import md_escape

DEFAULT_LEVELS: tuple[str, ...] = LEVELS
GROUP_LABELS = {"sacrebleu": "sacrebleu metrics", "extended": "extended"}
LEVEL_PREFIX = state.LEVEL_PREFIX
#: An added level estimated to take at least this many seconds is marked as slow beside its estimate.
SLOW_LEVEL_SECONDS = 10.0
METRIC_PREFIX = "metrics|"
OVERRIDE_PREFIX = "ovr|"
SPM_UPLOAD_KEY = "spm_model_upload"


def levels_info() -> list[dict[str, str]]:
    """One row per registered level (:func:`korean_eval.levels.registry.level_table`), kept while the registry
    holds the same levels."""
    return _levels_info(level_names())


@st.cache_resource(show_spinner="Checking which tokenizers are installed…")
def _levels_info(names: tuple[str, ...]) -> list[dict[str, str]]:
    return level_table()


def metric_groups() -> dict[str, list[str]]:
    """The registered metrics by declared group, in registry order."""
    return _metric_groups(metric_names())


@st.cache_resource(show_spinner=False)
def _metric_groups(names: tuple[str, ...]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for name in names:
        groups[metric_group(name)].append(name)
    return dict(groups)


def _init(key: str, value: object) -> None:
    """Set a widget's starting value once (so tests and callbacks can preset it through session state)."""
    if key not in st.session_state:
        st.session_state[key] = value


def _levels() -> tuple[tuple[str, ...], bytes | None]:
    """The applied token levels (module docstring), and the uploaded SentencePiece model (if spm is applied and one
    was uploaded)."""
    st.markdown("**Token levels**")
    rows = levels_info()
    with st.container(horizontal=True, gap="small"):
        st.button("all", key="levels_all", on_click=_tick_levels, args=(rows, study_levels()),
                  help="Tick every level of the study's grid that can run here (all but khaiii); Apply starts them. "
                  "The levels with a JVM (KoNLPy) and SentencePiece take longer.")
        st.button("defaults", key="levels_defaults", on_click=_tick_levels, args=(rows, DEFAULT_LEVELS),
                  help=f"Tick the default levels: {', '.join(DEFAULT_LEVELS)}; Apply starts them.")
    ticked: list[str] = []
    unavailable: list[dict[str, str]] = []
    for family in FAMILIES:
        fam_rows = [r for r in rows if r["family"] == family]
        if not fam_rows:
            continue
        st.caption(FAMILY_LABELS[family].capitalize())
        with st.container(horizontal=True, gap="small"):
            for r in fam_rows:
                key = LEVEL_PREFIX + r["level"]
                ok = r["available"] == "yes"
                _init(key, ok and r["level"] in DEFAULT_LEVELS)
                if not ok:
                    st.session_state[key] = False
                    unavailable.append(r)
                tip = f"{r['label']}: {r['description']}" + (f" ({r['version']})" if r["version"] else "")
                if not ok:
                    tip = f"Unavailable: {r['reason']}"
                if st.checkbox(r["level"], key=key, disabled=not ok, help=tip) and ok:
                    ticked.append(r["level"])
    for r in unavailable:
        st.caption(f"⊘ {r['level']} is unavailable: {r['reason']}")
    available = {r["level"] for r in rows if r["available"] == "yes"}
    _init(state.APPLIED_LEVELS_KEY, tuple(ticked))
    applied = tuple(lv for lv in st.session_state[state.APPLIED_LEVELS_KEY] if lv in available)
    if tuple(ticked) != applied:
        _pending_levels(tuple(ticked), applied)
    spm_model = _spm_settings() if SpmLevel.name in ticked else None
    return applied, spm_model if SpmLevel.name in applied else None


def _pending_levels(ticked: tuple[str, ...], applied: tuple[str, ...]) -> None:
    """The ticked levels not applied yet: what changes, each added level's estimate, Apply (with the estimate of
    the whole run) and Undo."""
    added = [lv for lv in ticked if lv not in applied]
    removed = [lv for lv in applied if lv not in ticked]
    with st.container(border=True):
        changes = [f"+ {lv}" for lv in added] + [f"− {lv}" for lv in removed]
        st.caption(f"Not applied yet: {', '.join(changes)}. The pages show {', '.join(applied) or 'no level'} until "
                   "you press Apply.")
        total = 0.0
        data = state.evalset()
        if added and data is not None and data.refs:
            started = () if analyzers_in_workers() else started_levels()
            estimates = level_estimates(data, added, state.disk_cache(), started)
            total = run_seconds(data, estimates, _chosen_metrics())
            for lv in added:
                est = estimates[lv]
                if not est.texts:
                    st.caption(f"{lv}: its tokens are cached — at once")
                    continue
                slow = ", slow" if est.seconds >= SLOW_LEVEL_SECONDS else ""
                start = (f"its analyzer starts in {formats.duration(est.start)}; " if est.start >= 1 else "")
                st.caption(f"{lv}: {formats.duration(est.seconds)}{slow} ({start}{est.texts:,} texts to tokenise)")
        with st.container(horizontal=True, gap="small"):
            st.button("Apply" + (f" ({formats.duration(total)})" if total >= 1 else ""), key="levels_apply",
                      type="primary", icon=":material/play_arrow:", on_click=state.apply_levels, args=(ticked,),
                      disabled=not ticked,
                      help="Evaluate the ticked levels (estimated on the machine the costs were measured on; tokens "
                      "already cached cost nothing). A running evaluation can be stopped; the pages then keep the "
                      "last results.")
            st.button("Undo", key="levels_undo", on_click=state.apply_levels, args=(applied,),
                      help="Tick the applied levels again.")
        if not ticked:
            st.caption("Tick at least one level to apply.")


def _chosen_metrics() -> tuple[str, ...]:
    """The metrics chosen in the sidebar so far (their pills' values), for an estimate drawn before they are."""
    groups = st.session_state.get("metric_groups") or []
    return tuple(m for g in groups for m in st.session_state.get(METRIC_PREFIX + g, []) or [])


def _tick_levels(rows: list[dict[str, str]], wanted: tuple[str, ...]) -> None:
    """Tick exactly the levels of ``wanted`` that are available here (the "all" and "defaults" buttons)."""
    for r in rows:
        st.session_state[LEVEL_PREFIX + r["level"]] = r["available"] == "yes" and r["level"] in wanted


def _spm_settings() -> bytes | None:
    """Vocabulary size of the model trained on the references, or the user's own ``.model`` file (its bytes)."""
    uploaded = st.file_uploader(
        "Your SentencePiece model (optional)",
        type=["model"],
        key=SPM_UPLOAD_KEY,
        help="The .model file of your MT system's SentencePiece, to score at its pieces. Without one, a unigram "
        "model is trained on the references.",
    )
    model = _valid_spm_model(uploaded.name, uploaded.getvalue()) if uploaded is not None else None
    _init("spm_vocab", SpmLevel.DEFAULT_VOCAB)
    st.number_input(
        "SentencePiece vocabulary (upper bound)",
        min_value=100,
        max_value=64000,
        step=500,
        key="spm_vocab",
        disabled=model is not None,
        help="A unigram model is trained on the references; small data gets a smaller vocabulary. Not used when "
        "you upload a model.",
    )
    return model


def _valid_spm_model(name: str, data: bytes) -> bytes | None:
    """``data`` if SentencePiece can load it (a caption names it); otherwise None, after an error naming the file."""
    try:
        level = SpmLevel(model=data)
    except ValueError as err:
        st.error(f"{md_escape(name)}: {md_escape(err)}. The SentencePiece model is trained on the references instead.")
        return None
    st.caption(f"SentencePiece: your model {md_escape(name)}, {level.piece_count():,} pieces ({level.version()}).")
    return data


def _given_directions() -> tuple[str, ...]:
    """Which of the user's own metric scores are error rates (lower is better); nothing without such scores."""
    data = state.evalset()
    if data is None or data.given is None or data.given.empty:
        return ()
    return directions.sidebar_choice(sorted(data.given["metric"].unique()))


def _metrics() -> tuple[str, ...]:
    st.markdown("**Metrics**")
    groups = metric_groups()
    names = [g for g in ("sacrebleu", "extended") if g in groups] + [g for g in groups if g not in GROUP_LABELS]
    _init("metric_groups", ["sacrebleu"] if "sacrebleu" in groups else names[:1])
    on = st.segmented_control(
        "Metric groups",
        names,
        selection_mode="multi",
        key="metric_groups",
        format_func=lambda g: GROUP_LABELS.get(g, g),
        label_visibility="collapsed",
    )
    if "extended" not in groups:
        st.caption("Extended metrics (NLTK BLEU, GLEU, NIST, RIBES, …) are not installed here.")
    chosen: list[str] = []
    for group in names:
        if group not in (on or []):
            continue
        key = METRIC_PREFIX + group
        _init(key, list(groups[group]))
        chosen += st.pills(
            GROUP_LABELS.get(group, group),
            groups[group],
            selection_mode="multi",
            key=key,
            format_func=metric_label,
            label_visibility="collapsed",
            persist_state="session",
        )
    return tuple(m for m in metric_names() if m in chosen)


def _override_key(level: str, metric: str, option: str) -> str:
    return f"{OVERRIDE_PREFIX}{level}|{metric}|{option}"


def _reset_overrides() -> None:
    for key in [k for k in st.session_state if str(k).startswith(OVERRIDE_PREFIX)]:
        st.session_state[key] = _default_of(str(key))


def _default_of(key: str) -> int:
    """The declared default of the option an override widget's key names."""
    _, _level, metric, option = key.split("|")
    return declaration(metric).option(option).default


def _overrides(levels: tuple[str, ...], metrics: tuple[str, ...]) -> dict:
    """The per-level option widgets (one per declared option of each chosen metric) and the changed values."""
    with_specs = [m for m in metrics if declaration(m).options]
    overrides: dict[str, dict[str, dict[str, int]]] = {}
    for level in levels:
        for metric in with_specs:
            for spec in declaration(metric).options:
                value = st.session_state.get(_override_key(level, metric, spec.name), spec.default)
                if value != spec.default:
                    overrides.setdefault(level, {}).setdefault(metric, {})[spec.name] = int(value)
    label = "Per-level metric settings" + (f" ({sum(len(o) for lv in overrides.values() for o in lv.values())} changed)" if overrides else "")
    with st.expander(label, icon=":material/tune:"):
        if not levels or not with_specs:
            st.caption("Choose a level and a metric with options (BLEU, chrF, NLTK-BLEU, GLEU, NIST, CharacTER) to change them.")
            return overrides
        level = st.selectbox("Level", levels, key="ovr_level", persist_state="session")
        for metric in with_specs:
            specs = declaration(metric).options
            st.caption(metric_label(metric))
            cols = st.columns(len(specs))
            for spec, col in zip(specs, cols, strict=True):
                key = _override_key(level, metric, spec.name)
                _init(key, spec.default)
                col.number_input(
                    spec.name.replace("_", " "),
                    min_value=spec.low,
                    max_value=spec.high,
                    step=1,
                    key=key,
                    help=f"{spec.help} (default {spec.default}, {spec.low}–{spec.high})",
                    persist_state="session",
                )
        if overrides:
            st.caption(
                "Changed: "
                + "; ".join(
                    f"{lv} {metric_label(m)} " + ", ".join(f"{k}={v}" for k, v in o.items())
                    for lv, per in overrides.items()
                    for m, o in per.items()
                )
            )
            st.button("Reset to defaults", on_click=_reset_overrides, key="ovr_reset")
    return overrides


def render() -> Settings:
    """Draw the sidebar settings and return them (validated into an :class:`EvalConfig`)."""
    with st.sidebar:
        levels, spm_model = _levels()
        st.divider()
        metrics = _metrics()
        overrides = _overrides(levels, metrics)
        given_lower = _given_directions()
        st.divider()
        st.markdown("**Correlation with humans**")
        _init("statistic", "pearson")
        statistic = st.radio(
            "Statistic",
            list(CHOSEN_STATISTICS),
            key="statistic",
            format_func=lambda s: STATISTIC_LABELS[s].split()[0],
            horizontal=True,
            help="Pearson, Spearman, Kendall: correlations with the human scores. PDP: pairwise difference Pearson "
            "(DiIanni & Deutsch 2025; WMT25 via mt-metrics-eval): Pearson r of the differences between every two "
            "systems' scores of a segment, pooled over segments — choose grouping “item” for it (with “none” it is "
            "Pearson r). acc_eq: WMT's segment-level "
            "tie-calibrated pairwise accuracy (Deutsch et al. 2023; per segment, the share of system pairs the "
            "metric orders — or ties, within a tuned ε — as the humans do); at system level it comes with SPA, "
            "WMT's soft pairwise accuracy (Thompson et al. 2024).",
        )
        _init("grouping", "none")
        grouping = st.selectbox(
            "Segment-level grouping",
            list(GROUPING_LABELS),
            key="grouping",
            format_func=lambda g: f"{g}: {grouping_label(statistic, g)}",
            help="How segment-level correlations are taken: over all pairs, per segment across systems, or per system "
            "across segments (the per-group correlations are averaged).",
        )
        _init("ter_cap", False)
        ter_cap = st.checkbox(
            "Cap segment TER at 100",
            key="ter_cap",
            help="Sentence TER exceeds 100 when a hypothesis is much longer than its reference; the study capped it "
            "before correlating. System TER is never capped.",
        )
        spm_vocab = int(st.session_state.get("spm_vocab", SpmLevel.DEFAULT_VOCAB)) if SpmLevel.name in levels else \
            SpmLevel.DEFAULT_VOCAB
    config = EvalConfig(
        levels=levels,
        metrics=metrics,
        overrides=overrides,
        ter_cap=bool(ter_cap),
        spm_vocab=spm_vocab,
        spm_model=spm_model,
        given_lower_is_better=given_lower,
    )
    return Settings(config=config, statistic=statistic or "pearson", grouping=grouping or "none")
