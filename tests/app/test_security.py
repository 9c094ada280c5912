"""Security of the dashboard: user text is never markup, uploads are bounded, nothing uploaded is run or used as a
path, and one user's data never reaches another user's session.

* static checks over ``app.py``, ``pages/`` and ``ui/`` (AST): no ``unsafe_allow_html``/``st.html``/components (but
  the one span editor, whose script writes text only as text nodes), no eval/exec/pickle/subprocess/open/Path, no
  module-level mutable state;
* runtime checks through AppTest: hostile system names, segments and metric names uploaded through the Data page
  come out escaped on every page; hostile file names are only names; two sessions see only their own data, and
  every shared cache is keyed by content hashes.
"""

from __future__ import annotations

import ast
import builtins
import codecs
import json
import os
import re
import subprocess
import tomllib
import uuid
from pathlib import Path

import pytest
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.Heading_pb2 import Heading
from streamlit.proto.Markdown_pb2 import Markdown
from streamlit.proto.Metric_pb2 import Metric
from streamlit.proto.PlotlyChart_pb2 import PlotlyChart
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Table

from korean_eval.inputs import text_files as textio
from korean_eval.inputs.sample import load_sample, shared_sample
from korean_eval.model.evalset import InputError
from tests.support.apptest import APP
from tests.support.data_page import (
    HUMAN,
    REF,
    SYS_A,
    SYS_B,
    SYS_C,
    data_page,
    human_csv,
    text,
    unescape,
)
from ui import inputs, state, statistics_state
from ui.inputs import Upload, check_sizes
from ui.widgets import md_escape

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
#: The only module that defines a custom component: the annotation page's span editor (inline HTML, CSS and JS).
COMPONENT = ROOT / "ui" / "annotation" / "span_widget.py"
PAGES = ["pages/correlations.py", "pages/scores.py", "pages/segments.py", "pages/tokens.py", "pages/data.py",
         "pages/downloads.py"]

SCRIPT = "<script>alert(1)</script>"
LINK = "[x](javascript:alert(1))"
IMG = "<img src=x onerror=alert(1)>"
BOLD = "<b onmouseover=alert(1)>COMET</b>"
RAW_HTML = re.compile(r"(?<!\\)<\s*(script|img|b\s+on)", re.I)


# -------------------------------------------------------------------------------------------------- helpers


def walk(node):
    """Every node of an AppTest element tree (main area and sidebar)."""
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from walk(child)


def rendered(at: AppTest) -> tuple[list[tuple[str, str, object]], list[str]]:
    """(markdown-like texts as (kind, text, proto), Plotly specs) of everything on the current page."""
    texts, specs = [], []
    for node in walk(at._tree):
        proto = getattr(node, "proto", None)
        if isinstance(proto, Markdown):
            texts.append(("markdown", proto.body, proto))
        elif isinstance(proto, (Alert, Heading)):
            texts.append((type(proto).__name__, proto.body, proto))
        elif isinstance(proto, Metric):
            texts += [("metric", proto.label, proto), ("metric", proto.body, proto)]
        elif isinstance(node, Table):  # st.table: every cell and header is Markdown
            frame = node.value
            cells = [*frame.columns, *frame.to_numpy().ravel()]
            texts += [("table", str(c), proto) for c in cells if isinstance(c, str)]
        elif isinstance(proto, PlotlyChart):
            # decoded (Plotly's JSON writes "</" as "<\/"), re-encoded without escapes
            specs.append(json.dumps(json.loads(proto.spec), ensure_ascii=False))
    return texts, specs


def upload_hostile(**session) -> AppTest:
    """Through the Data page's long-table panel (file names cannot hold ``/``; a system column can hold anything):
    hostile system names, a hostile reference and hypothesis, a hostile own-metric name."""
    import csv
    import io

    names = {"sys_a": SCRIPT, "sys_b": LINK, "sys_c": "sys_c"}
    hyps = {"sys_a": SYS_A, "sys_b": SYS_B, "sys_c": [IMG, *SYS_C[1:]]}
    refs = [IMG, *REF[1:]]
    table, given = io.StringIO(), io.StringIO()
    tw, gw = csv.writer(table, lineterminator="\n"), csv.writer(given, lineterminator="\n")
    tw.writerow(["system", "seg_id", "hyp", "ref", "score"])
    gw.writerow(["system", "seg_id", BOLD])
    for key, name in names.items():
        for i, (hyp, ref) in enumerate(zip(hyps[key], refs, strict=True)):
            tw.writerow([name, i, hyp, ref, HUMAN[key][i]])
            gw.writerow([name, i, HUMAN[key][i] / 100 + 0.01 * i])
    at = data_page(**session)
    at.segmented_control(key="data_mode").set_value("One long table").run()
    at.file_uploader(key="up_table").set_value(("hostile.csv", table.getvalue().encode(), "text/csv"))
    at.run()
    at.file_uploader(key="up_given_t").set_value(("given.csv", given.getvalue().encode(), "text/csv"))
    at.run()
    at.button(key="use_table").click().run()
    assert not at.exception and not at.error, [unescape(e.value) for e in at.error]
    evalset = at.session_state[state.EVALSET_KEY]
    assert set(evalset.systems) == {SCRIPT, LINK, "sys_c"} and evalset.refs[0][0] == IMG
    assert evalset.systems["sys_c"][0] == IMG and BOLD in set(evalset.given["metric"])
    return at


# ----------------------------------------------------------------------------------------- static checks


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return f"{_name(func.value)}.{func.attr}"
    return ""


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_user_text_can_be_rendered_as_html(path):
    tree = ast.parse(path.read_text(), str(path))
    for call in _calls(tree):
        for kw in call.keywords:
            if kw.arg == "unsafe_allow_html":
                # allowed only with a literal, constant string (no user text can reach it)
                assert isinstance(kw.value, ast.Constant) and not kw.value.value or (
                    call.args and isinstance(call.args[0], ast.Constant)
                ), f"{path.name}:{call.lineno}: unsafe_allow_html with non-constant content"
        name = _name(call.func)
        assert not name.endswith(("st.html", "components.html", "components.iframe", "st.iframe")), (
            f"{path.name}:{call.lineno}: {name} renders raw HTML"
        )
    if path != COMPONENT:
        assert "streamlit.components" not in path.read_text() and "components.v2" not in path.read_text()


def test_the_span_editor_puts_user_text_into_the_page_only_as_text():
    """The component's script never parses markup or code: the translation becomes text nodes (``textContent``)."""
    from ui.annotation import span_widget

    for banned in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(",
                   "setAttribute('on", 'setAttribute("on', "srcdoc"):
        assert banned not in span_widget.JS and banned not in span_widget.HTML, banned
    assert "textContent = c" in span_widget.JS  # each character of the translation


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_is_executed_evaluated_or_opened(path):
    tree = ast.parse(path.read_text(), str(path))
    banned_calls = {"eval", "exec", "compile", "__import__", "open", "Path", "os.system", "os.popen", "input"}
    banned_modules = {"pickle", "marshal", "shelve", "subprocess", "importlib", "runpy", "ctypes", "dill"}
    for call in _calls(tree):
        name = _name(call.func)
        assert name not in banned_calls and not name.startswith(("subprocess.", "pickle.", "os.")), (
            f"{path.name}:{call.lineno}: {name}()"
        )
        assert not name.endswith((".read_csv", ".read_json", ".read_pickle", ".open", ".read_bytes", ".read_text")), (
            f"{path.name}:{call.lineno}: {name}() reads a path"
        )
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            assert not any(m.split(".")[0] in banned_modules for m in modules), f"{path.name}:{node.lineno}: {modules}"


MUTABLE = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
MUTABLE_CALLS = {"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "Counter", "bytearray"}


@pytest.mark.parametrize("path", [p for p in SOURCES if "ui" in p.relative_to(ROOT).parts[:1]],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_level_mutable_state(path):
    """Modules of ``ui/`` live for the whole server process (pages are re-run per session): a module-level mutable
    container would be shared by every user. Only UPPER_CASE constants (tables of labels, never mutated) may be
    containers; the shared caches are ``st.cache_*`` functions keyed by content hashes (checked at run time)."""
    tree = ast.parse(path.read_text(), str(path))
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            is_mutable = isinstance(value, MUTABLE) or (
                isinstance(value, ast.Call) and _name(value.func).split(".")[-1] in MUTABLE_CALLS
            )
            for target in targets:
                if isinstance(target, ast.Name) and is_mutable:
                    assert target.id.isupper(), f"{path.name}:{node.lineno}: module-level mutable {target.id}"
    # and nothing in ui/ mutates such a constant
    constants = {
        t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name) and t.id.isupper()
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            if node.func.value.id in constants:
                assert node.func.attr not in {"append", "update", "pop", "clear", "add", "extend", "setdefault",
                                              "remove", "insert", "popitem"}, f"{path.name}:{node.lineno}"
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    assert t.value.id not in constants, f"{path.name}:{node.lineno}: writes into {t.value.id}"


# ------------------------------------------------------------------------------------------ escaping at run time


def test_hostile_names_and_segments_are_escaped_on_every_page():
    at = upload_hostile()
    seen_in_charts = {"script": False, "img": False, "metric": False}
    for page in PAGES:
        at.switch_page(page).run()
        if page == "pages/correlations.py":
            if any(b.key == "sig_compute" for b in at.button):  # not computed yet in this process
                at.button(key="sig_compute").click().run()  # the significance matrix: hostile names in its labels
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not at.error, (page, [unescape(e.value) for e in at.error])
        texts, specs = rendered(at)
        assert texts, page
        for kind, body, proto in texts:
            if isinstance(proto, Markdown):
                assert not proto.allow_html, (page, body)
            assert not RAW_HTML.search(body), (page, kind, body)
            assert "](javascript" not in body, (page, kind, body)
        for spec in specs:
            assert "<script" not in spec and "<img" not in spec and "<b onmouseover" not in spec, page
            seen_in_charts["script"] |= "&lt;script&gt;alert(1)&lt;/script&gt;" in spec
            seen_in_charts["img"] |= "&lt;img src=x onerror=alert(1)&gt;" in spec
            seen_in_charts["metric"] |= "&lt;b onmouseover=alert(1)&gt;COMET&lt;/b&gt;" in spec
        if page == "pages/data.py":
            # the names are shown, as text: escaped Markdown in the report, raw text in the preview table
            joined = unescape(" ".join(body for _, body, _ in texts))
            assert BOLD in joined
            preview = at.table[-1].value
            assert md_escape(SCRIPT) in preview.columns and unescape(preview[md_escape("reference")].iloc[0]) == IMG
        if page == "pages/downloads.py":
            # download file names are fixed or sanitised, whatever the metric and system names
            for button in at.get("download_button"):
                assert re.fullmatch(r"[0-9A-Za-z_.+-]+", _file_name(button)), _file_name(button)
    assert all(seen_in_charts.values()), seen_in_charts  # the hostile texts did reach the charts, escaped


def _file_name(button) -> str:
    """The file name a download button offers (the single-table buttons are labelled with it)."""
    return button.label.split(" (")[0].replace("All results as one zip", "korean-eval-results.zip")


def test_sidebar_source_label_from_a_hostile_file_name_is_escaped():
    at = data_page()
    at.file_uploader(key="up_refs").set_value([(f"{SCRIPT}.txt", text(REF), "text/plain")])
    at.file_uploader(key="up_systems").set_value([("a.txt", text(SYS_A), "text/plain")])
    at.run()
    at.button(key="use_texts").click().run()
    assert not at.exception and not at.error
    caption = next(c.value for c in at.sidebar.caption if "Data:" in c.value)
    assert not RAW_HTML.search(caption) and SCRIPT in unescape(caption)


# -------------------------------------------------------------------------------------------- size bounds


def test_upload_size_is_bounded_by_the_server_config():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    limit_mb = config["server"]["maxUploadSize"]
    assert 1 <= limit_mb <= 50, "the dashboard accepts at most 50 MB per file"
    assert state.upload_limit_bytes() == limit_mb * 2**20  # the page reads the same setting the server enforces
    assert config["client"]["showErrorDetails"] in ("none", False)  # tracebacks never reach the browser
    limit = limit_mb * 2**20
    check_sizes([Upload("ok.txt", b"a" * limit)], limit)  # exactly the limit passes
    with pytest.raises(InputError, match=r"big\.txt: file is .* MB; the dashboard accepts files of at most"):
        check_sizes([Upload("big.txt", b"a" * (limit + 1))], limit)
    # every builder of the Data page applies it before reading anything
    with pytest.raises(InputError, match=r"^big\.txt"):
        inputs.build_from_texts([Upload("ref.txt", text(REF))], [Upload("big.txt", b"a" * (limit + 1))], max_bytes=limit)
    with pytest.raises(InputError, match=r"^big\.csv"):
        inputs.table_head(Upload("big.csv", b"a" * (limit + 1)), max_bytes=limit)


def test_the_data_page_refuses_a_file_over_the_limit():
    limit = state.upload_limit_bytes()
    at = data_page()
    at.file_uploader(key="up_refs").set_value([("ref.txt", text(REF), "text/plain")])
    at.file_uploader(key="up_systems").set_value([("big.txt", b"x\n" * (limit // 2 + 1), "text/plain")])
    at.run()
    at.button(key="use_texts").click().run()
    assert not at.exception
    assert [unescape(e.value) for e in at.error] == [
        f"big.txt: file is {(limit + 2) / 2**20:.1f} MB; the dashboard accepts files of at most {limit / 2**20:g} MB "
        "(server.maxUploadSize). Evaluate bigger data with the command line (python -m korean_eval) or split the file"
    ]


def test_the_backend_refuses_files_over_its_own_limit():
    limit = textio.MAX_FILE_BYTES
    assert limit >= state.upload_limit_bytes()  # the dashboard's limit is the tighter one
    with pytest.raises(InputError, match=r"^huge\.txt: file is \d+ MB; the limit is \d+ MB"):
        textio.read_text_lines(bytes(limit + 1), "huge.txt")  # refused before anything is decoded
    with pytest.raises(InputError, match=r"^huge\.csv: file is"):
        from korean_eval.inputs.table_reader import read_table

        read_table(bytes(limit + 1), "huge.csv")


# ------------------------------------------------------------------------------ nothing run, nothing opened


def test_file_names_are_only_names_and_contents_are_only_text(tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-CONTENT\n" * 6)
    marker = f"ke_probe_{uuid.uuid4().hex}"
    probe = Path("/tmp") / marker
    traversal = "../" * 12 + str(secret).lstrip("/")
    code_lines = [
        f"__import__('os').system('touch {probe}')",
        f"{{{{ cycler.__init__.__globals__.os.system('touch {probe}') }}}}",
        f"${{7*7}} `touch {probe}` $(touch {probe})",
        f"=cmd|' /C touch {probe}'!A0",
        f"!!python/object/apply:os.system ['touch {probe}']",
        f"<% system('touch {probe}') %>",
    ]
    opened, evaluated = [], []
    real_open, real_eval, real_exec = builtins.open, builtins.eval, builtins.exec

    def spy_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def spy_eval(source, *args, **kwargs):
        evaluated.append(source)
        return real_eval(source, *args, **kwargs)

    def spy_exec(source, *args, **kwargs):
        evaluated.append(source)
        return real_exec(source, *args, **kwargs)

    def no_shell(*args, **kwargs):
        raise AssertionError(f"a process was started: {args}")

    at = data_page()
    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(builtins, "eval", spy_eval)
    monkeypatch.setattr(builtins, "exec", spy_exec)
    monkeypatch.setattr(os, "system", no_shell)
    monkeypatch.setattr(subprocess, "Popen", no_shell)
    at.file_uploader(key="up_refs").set_value([("ref.txt", text(REF), "text/plain")])
    at.file_uploader(key="up_systems").set_value(
        [(traversal, text(code_lines), "text/plain"), ("/tmp/x", text(SYS_B), "text/plain"),
         ("../../etc/passwd", text(SYS_C), "text/plain")]
    )
    at.run()
    at.button(key="use_texts").click().run()
    assert not at.exception and not at.error, [unescape(e.value) for e in at.error]
    for page in ("pages/correlations.py", "pages/scores.py", "pages/segments.py", "pages/tokens.py"):
        at.switch_page(page).run()
        assert not at.exception and not at.error
    monkeypatch.undo()
    evalset = at.session_state[state.EVALSET_KEY]
    assert list(evalset.systems) == ["secret", "x", "passwd"]  # file stems: names, never paths
    assert evalset.systems["secret"] == code_lines  # the uploaded text, verbatim, not the file at that path
    assert evalset.systems["passwd"] == SYS_C
    assert not any("SECRET" in line for hyps in evalset.systems.values() for line in hyps)
    assert not any(p in (str(secret), "/tmp/x", "/etc/passwd") or "passwd" in p or marker in p for p in opened)
    assert not any(isinstance(s, str) and (marker in s or "SECRET" in s) for s in evaluated)
    assert not probe.exists()


# --------------------------------------------------------------------------------------- session isolation


def _everything(at: AppTest) -> str:
    """All the text a session shows: elements, chart specs, table cells, widget options and labels."""
    parts = []
    for node in walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        value = getattr(node, "value", None)
        if hasattr(value, "to_csv"):
            parts.append(value.to_csv())
            parts.append(" ".join(map(str, value.columns)) + " " + " ".join(map(str, value.index)))
    return "\n".join(parts)


def test_one_users_data_never_reaches_another_session():
    marker_system, marker_text = "private_sys_7f3a", "비밀 문장 7f3a 입니다"
    # session A loads its own data through the Data page and computes every statistic
    a = data_page(pair_human_test="wilcoxon")
    a.file_uploader(key="up_refs").set_value([("ref.txt", text(REF), "text/plain")])
    a.file_uploader(key="up_systems").set_value(
        [(f"{marker_system}.txt", text([marker_text, *SYS_A[1:]]), "text/plain"),
         ("sys_b.txt", text(SYS_B), "text/plain"), ("sys_c.txt", text(SYS_C), "text/plain")]
    )
    a.file_uploader(key="up_human").set_value(
        ("human.csv", human_csv({marker_system: HUMAN["sys_a"], "sys_b": HUMAN["sys_b"], "sys_c": HUMAN["sys_c"]}),
         "text/csv")
    )
    a.run()
    a.button(key="use_texts").click().run()
    seen_by_a = []
    for page in PAGES:
        a.switch_page(page).run()
        if page == "pages/correlations.py":
            if any(x.key == "sig_compute" for x in a.button):  # not computed yet in this process
                a.button(key="sig_compute").click().run()
        assert not a.exception and not a.error
        seen_by_a.append(_everything(a))
    assert marker_system in "".join(seen_by_a) and "7f3a" in "".join(seen_by_a)  # (A sees its own data)
    assert any(x.label.startswith("system_pairs_bleu_wilcoxon") for x in a.get("download_button"))
    data_a = a.session_state[state.EVALSET_KEY]
    key_a = state.results_key(data_a, a.session_state[state.SETTINGS_KEY].config)

    # session B, started afterwards in the same server process, sees the bundled sample on every page
    b = AppTest.from_file(APP, default_timeout=300)
    for k, v in {"level|mecab": False, "level|kiwi": False, "level|jamo": False}.items():
        b.session_state[k] = v
    b.run()
    assert state.EVALSET_KEY not in b.session_state
    assert any("bundled sample" in c.value and "5 systems × 120 segments" in c.value for c in b.sidebar.caption)
    for page in PAGES:
        b.switch_page(page).run()
        if page == "pages/correlations.py":
            if any(x.key == "sig_compute" for x in b.button):  # not computed yet in this process
                b.button(key="sig_compute").click().run()
        assert not b.exception and not b.error
        shown = _everything(b)
        assert marker_system not in shown and "7f3a" not in shown, page
        if page == "pages/downloads.py":
            labels = [x.label for x in b.get("download_button")]
            assert any(label.startswith("system_pairs_bleu_bootstrap") for label in labels)  # B's own
            assert not any(label.startswith("system_pairs_bleu_wilcoxon") for label in labels)  # A's stay A's
    key_b = state.results_key(load_sample(), b.session_state[state.SETTINGS_KEY].config)
    assert key_a != key_b

    # every shared cache is keyed by content hashes: a session finds an entry only by holding the same data
    hex64 = r"[0-9a-f]{64}"
    assert key_a in state._store().items and key_b in state._store().items
    for key in state._store().items:
        assert re.fullmatch(hex64, key), key
    for key in statistics_state._stats_store().items:
        assert re.fullmatch(rf"{hex64}\|{hex64}", key), key
    for key in statistics_state._ci_store().items:
        assert re.fullmatch(rf"{hex64}\|\d+(\|[a-z_,]+)?", key), key  # the resamples, the statistics when not all
    # the key is the content: the same data rebuilt gives the same key, one changed character another one
    rebuilt = inputs.build_from_texts(
        [Upload("other-name.txt", text(REF))],
        [Upload(f"{marker_system}.txt", text([marker_text, *SYS_A[1:]])), Upload("sys_b.txt", text(SYS_B)),
         Upload("sys_c.txt", text(SYS_C))],
        human=Upload("h.csv", human_csv({marker_system: HUMAN["sys_a"], "sys_b": HUMAN["sys_b"],
                                         "sys_c": HUMAN["sys_c"]})),
    )
    config = a.session_state[state.SETTINGS_KEY].config
    assert state.results_key(rebuilt, config) == key_a
    rebuilt.systems["sys_b"][0] += "."
    assert state.results_key(rebuilt, config) != key_a

    # no module of ui/ holds A's data outside those content-keyed caches, and the shared sample is untouched
    import ui

    modules = ("charts", "inputs", "shared_store", "sidebar", "state", "statistics_state", "views", "widgets")
    for module in (getattr(ui, name) for name in modules):
        for name, value in vars(module).items():
            if name.startswith("__") or callable(value) or isinstance(value, type(ui)):
                continue
            assert marker_system not in json.dumps(value, default=repr, ensure_ascii=False), (module.__name__, name)
    assert shared_sample().content_hash() == load_sample().content_hash()


def test_a_session_with_its_own_data_does_not_change_what_a_running_session_sees():
    b = AppTest.from_file(APP, default_timeout=300)
    for k, v in {"level|mecab": False, "level|kiwi": False, "level|jamo": False}.items():
        b.session_state[k] = v
    b.run()
    before = sorted(c.proto.spec for c in b.get("plotly_chart"))
    a = data_page()
    a.file_uploader(key="up_refs").set_value([("ref.txt", codecs.BOM_UTF8 + text(REF), "text/plain")])
    a.file_uploader(key="up_systems").set_value([("sys_a.txt", text(SYS_A), "text/plain"),
                                                 ("sys_b.txt", text(SYS_B), "text/plain")])
    a.run()
    a.button(key="use_texts").click().run()
    a.switch_page("pages/correlations.py").run()
    b.run()
    assert sorted(c.proto.spec for c in b.get("plotly_chart")) == before
    assert any("bundled sample" in c.value for c in b.sidebar.caption)
