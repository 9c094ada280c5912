"""One declaration per metric: the registry, the constructors, the dashboard's option widgets and the CLI's
``--override`` parsing all read a metric's :class:`MetricDeclaration`, and the registry still builds exactly the
metrics it built before (names, options, cache keys).
"""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.cli.main import main, parse_overrides
from korean_eval.inputs.text_files import InputError
from korean_eval.metrics import (
    METRIC_CLASSES,
    METRIC_NAMES,
    declaration,
    make_metric,
    metric_group,
    metric_info,
    validate_options,
)
from korean_eval.metrics.declaration import IntOption, MetricDeclaration, Parameter, RuntimeSetting

# Metric.options_key() of every registered metric with its defaults (the statistics' cache keys), as before the
# declarations; sacrebleu 2.6.0 and nltk 3.10.4.
OPTIONS_KEYS = {
    "bleu": "nrefs:1|case:mixed|eff:no|tok:none|smooth:exp|version:2.6.0|options:max_ngram_order=4",
    "chrf": "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0|options:beta=2,char_order=6,word_order=0",
    "chrf+": "nrefs:1|case:mixed|eff:yes|nc:6|nw:1|space:no|version:2.6.0|options:beta=2,char_order=6,word_order=1",
    "chrf++": "nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0|options:beta=2,char_order=6,word_order=2",
    "ter": "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0|options:",
    "nltk-bleu": "nltk-bleu|nrefs:1|smooth:method1|eps:0.1|ngram:4|version:3.10.4"
    "|options:epsilon=0.1,k=5,max_ngram_order=4,smoothing=method1",
    "gleu": "gleu|nrefs:1|ngram:1-4|version:3.10.4|options:max_len=4,min_len=1",
    "nist": "nist|nrefs:1|ngram:5|info:test-set-refs|version:3.10.4|options:max_ngram_order=5",
    "ribes": "ribes|nrefs:1|alpha:0.25|beta:0.1|version:3.10.4|options:alpha=0.25,beta=0.1",
    "character": "character|nrefs:1|shift:rwth-i6|norm:hyp-chars|space:counted|cap:1|maxtok:1500|version:1"
    "|options:max_tokens=1500",
    "eed": "eed|nrefs:1|alpha:2|rho:0.3|del:0.2|ins:1|sub:1|pad:space|version:1"
    "|options:alpha=2.0,deletion=0.2,insertion=1.0,rho=0.3",
}


def _typed(options: dict) -> dict:
    """Options with their types, so that ``2`` and ``2.0`` (which format differently in cache keys) differ."""
    return {name: (type(value), value) for name, value in options.items()}


def test_the_registry_is_the_declared_classes_declarations_in_order():
    assert METRIC_NAMES == tuple(d.name for cls in METRIC_CLASSES for d in cls.declarations)
    built_in = ("bleu", "chrf", "chrf+", "chrf++", "ter", "nltk-bleu", "gleu", "nist", "ribes", "character", "eed")
    assert METRIC_NAMES[: len(built_in)] == built_in  # a new metric is added after them
    assert {metric_group(n) for n in METRIC_NAMES[:5]} == {"sacrebleu"}
    assert {metric_group(n) for n in METRIC_NAMES[5:]} == {"extended"}
    assert [n for n in built_in if not metric_info(n).higher_is_better] == ["ter", "character", "eed"]
    assert all(declaration(n).error_rate == (not metric_info(n).higher_is_better) for n in METRIC_NAMES)


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_declared_defaults_are_what_make_metric_builds(name):
    declared = declaration(name)
    metric = make_metric(name)
    assert type(metric) in METRIC_CLASSES and declared in type(metric).declarations
    assert _typed(metric.info.options) == _typed(declared.defaults)
    assert list(metric.info.options) == list(declared.defaults)
    assert metric.info == metric_info(name)  # read from the declaration, nothing constructed
    assert (metric.info.name, metric.info.label, metric.info.group, metric.info.higher_is_better) == (
        declared.name, declared.label, declared.group, declared.higher_is_better
    )
    assert metric.options_key() == OPTIONS_KEYS[name]


@pytest.mark.parametrize("cls", METRIC_CLASSES, ids=lambda c: c.__name__)
def test_constructor_defaults_come_from_the_first_declaration(cls):
    first = cls.declarations[0]
    parameters = inspect.signature(cls.__init__).parameters
    for item in (*first.arguments, *first.runtime):
        assert parameters[item.name].default == item.default, item.name
        assert type(parameters[item.name].default) is type(item.default), item.name
    assert cls().info == metric_info(first.name)


def test_chrf_family_is_one_class_with_three_declarations_differing_in_word_order():
    chrf, plus, plusplus = (declaration(n) for n in ("chrf", "chrf+", "chrf++"))
    assert type(make_metric("chrf")) is type(make_metric("chrf+")) is type(make_metric("chrf++"))
    assert [d.default("word_order") for d in (chrf, plus, plusplus)] == [0, 1, 2]
    for other in (plus, plusplus):
        options = tuple(replace(o, default=0) if o.name == "word_order" else o for o in other.arguments)
        assert replace(other, name="chrf", label="chrF", arguments=options) == chrf
    # the label follows the word order, the name the registry entry (as before the declarations)
    assert (make_metric("chrf++", {"word_order": 0}).info.name, make_metric("chrf++", {"word_order": 0}).info.label) \
        == ("chrf++", "chrF")
    assert make_metric("chrf", {"word_order": 3}).info.label == "chrF (w3)"


def test_runtime_settings_reach_only_the_metrics_that_declare_them():
    ter = make_metric("ter", implementation="sacrebleu", n_jobs=2)
    assert (ter.implementation, ter.n_jobs) == ("sacrebleu", 2)
    assert make_metric("character", implementation="sacrebleu", n_jobs=1).n_jobs == 1
    assert not hasattr(make_metric("bleu", implementation="sacrebleu", n_jobs=1), "n_jobs")
    assert [s.name for s in declaration("ter").runtime] == ["implementation", "n_jobs"]
    assert "n_jobs" not in make_metric("character", n_jobs=1).info.options  # never part of a cache key


@pytest.mark.parametrize("name", [n for n in METRIC_NAMES if declaration(n).options])
def test_validation_messages_come_from_the_declaration(name):
    for option in declaration(name).options:
        assert validate_options(name, {option.name: str(option.high)}) == {option.name: option.high}
        message = f"{name} {option.name} must be between {option.low} and {option.high}, got {option.high + 1}"
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            make_metric(name, {option.name: option.high + 1})
        with pytest.raises(ValueError, match=f"{option.name} must be an integer, got 2.5"):
            validate_options(name, {option.name: 2.5})
    allowed = ", ".join(o.name for o in declaration(name).options)
    with pytest.raises(ValueError, match=re.escape(f"{name} has no option 'nope' (options: {allowed})")):
        validate_options(name, {"nope": 1})


def test_unknown_metric_and_metric_without_options():
    with pytest.raises(ValueError, match="unknown metric 'meteor'; metrics are bleu, chrf"):
        declaration("meteor")
    with pytest.raises(ValueError, match=r"ter has no option 'beta' \(options: none\)"):
        make_metric("ter", {"beta": 2})


def test_declarations_validate_themselves():
    with pytest.raises(ValueError, match="default 10 is outside 1..9"):
        IntOption("max_ngram_order", 10, 1, 9, "maximum n-gram order")
    with pytest.raises(ValueError, match="group 'other'"):
        MetricDeclaration("x", "X", "other", True)
    with pytest.raises(ValueError, match="lower-case"):
        MetricDeclaration("BLEU", "BLEU", "sacrebleu", True)
    with pytest.raises(ValueError, match="declares n more than once"):
        MetricDeclaration("x", "X", "extended", True, arguments=(Parameter("n", 1, ""),),
                          runtime=(RuntimeSetting("n", None, ""),))
    with pytest.raises(KeyError):
        declaration("ribes").option("alpha")  # a fixed parameter, not an option


def test_cli_override_parsing_reads_the_declaration():
    nist = declaration("nist").option("max_ngram_order")
    assert parse_overrides(["char:nist:max_ngram_order= 7", "*:chrf++:word_order=0"]) == {
        "char": {"nist": {"max_ngram_order": 7}}, "*": {"chrf++": {"word_order": 0}}
    }
    with pytest.raises(InputError, match=f"between {nist.low} and {nist.high}, got {nist.high + 1}"):
        parse_overrides([f"char:nist:max_ngram_order={nist.high + 1}"])
    with pytest.raises(InputError, match="--override: 'char:bleu:max_ngram_order=x': bleu max_ngram_order must be an "
                                         "integer, got 'x'"):
        parse_overrides(["char:bleu:max_ngram_order=x"])
    with pytest.raises(InputError, match=r"gleu has no option 'min_len' \(options: max_len\)"):
        parse_overrides(["char:gleu:min_len=2"])
    with pytest.raises(InputError, match="unknown metric 'meteor'"):
        parse_overrides(["char:meteor:n=2"])


def test_cli_refuses_an_out_of_range_override_with_the_declared_bounds(capsys):
    option = declaration("chrf+").option("beta")
    code = main(["run", "--levels", "char", "--metrics", "chrf+", "--override", f"*:chrf+:beta={option.low - 1}",
                 "--bootstrap", "0", "--no-cache", "--quiet"])
    assert code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert errors == [f"error: --override: '*:chrf+:beta={option.low - 1}': chrf+ beta must be between "
                      f"{option.low} and {option.high}, got {option.low - 1}"]


def _override_widgets() -> None:
    from ui import sidebar

    sidebar._overrides(("word",), ("bleu", "chrf++", "ter", "nltk-bleu", "gleu", "nist", "ribes"))


def test_sidebar_option_widgets_are_the_declared_options(monkeypatch):
    # AppTest installs its script as sys.modules["__main__"]; restore the real one afterwards, or worker processes
    # started later by "spawn" would re-run the script
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])
    at = AppTest.from_function(_override_widgets, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    widgets = {w.key: w for w in at.number_input}
    expected = {
        f"ovr|word|{m}|{o.name}": o for m in ("bleu", "chrf++", "nltk-bleu", "gleu", "nist") for o in declaration(m).options
    }
    assert set(widgets) == set(expected)  # TER and RIBES declare no option
    for key, option in expected.items():
        widget = widgets[key]
        assert (widget.value, widget.min, widget.max) == (option.default, option.low, option.high)
        assert widget.help == f"{option.help} (default {option.default}, {option.low}–{option.high})"
