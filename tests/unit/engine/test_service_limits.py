"""The limits of a shared deployment (korean_eval.engine.limits) read from environment variables, the message of an
evaluation too large for them, and ``korean-eval app``'s options that set them."""

from __future__ import annotations

import pytest

from korean_eval.cli.app import split_limit_options
from korean_eval.engine.limits import ENV_NAMES, ServiceLimits, size_problem


def test_defaults_and_every_variable():
    assert ServiceLimits.from_env({}) == ServiceLimits()
    env = {
        "KOREAN_EVAL_MAX_RUNNING": "3", "KOREAN_EVAL_MAX_LARGE_RUNNING": "2", "KOREAN_EVAL_MAX_WAITING": "0",
        "KOREAN_EVAL_SESSION_RUNNING": "2", "KOREAN_EVAL_MAX_PAIR_LEVELS": "50_000",
        "KOREAN_EVAL_POOL_IDLE_SECONDS": "never", "KOREAN_EVAL_RESULT_IDLE_SECONDS": "2.5",
        "KOREAN_EVAL_ANALYZERS_IN_WORKERS": "no", "KOREAN_EVAL_ANALYZER_PROCESSES": "any",
    }
    limits = ServiceLimits.from_env(env)
    assert limits == ServiceLimits(3, 2, 0, 2, 50_000, None, 2.5, False, None)
    assert ServiceLimits.from_env(limits.as_env()) == limits
    assert set(limits.as_env()) == set(ENV_NAMES.values())
    two = ServiceLimits.from_env({"KOREAN_EVAL_ANALYZER_PROCESSES": "2"})
    assert two.analyzer_processes == 2 and ServiceLimits.from_env(two.as_env()) == two


@pytest.mark.parametrize(
    ("name", "raw"),
    [("KOREAN_EVAL_MAX_RUNNING", "0"), ("KOREAN_EVAL_MAX_RUNNING", "two"), ("KOREAN_EVAL_MAX_PAIR_LEVELS", "-5"),
     ("KOREAN_EVAL_POOL_IDLE_SECONDS", "soon"), ("KOREAN_EVAL_POOL_IDLE_SECONDS", "-1"),
     ("KOREAN_EVAL_RESULT_IDLE_SECONDS", "inf"), ("KOREAN_EVAL_ANALYZERS_IN_WORKERS", "maybe"),
     ("KOREAN_EVAL_ANALYZER_PROCESSES", "0"), ("KOREAN_EVAL_ANALYZER_PROCESSES", "one")],
)
def test_a_bad_value_names_its_variable(name, raw):
    with pytest.raises(ValueError, match=name):
        ServiceLimits.from_env({name: raw})


def test_too_large_an_evaluation_is_refused_with_both_numbers_and_a_way_out():
    limits = ServiceLimits(max_pair_levels=25_000)
    assert size_problem(2_200, 10, limits) == ""
    message = size_problem(2_200, 12, limits)
    assert "2,200 (system, segment) pairs × 12 token levels = 26,400" in message
    assert "at most 25,000 per evaluation" in message and "choose at most 11 token levels" in message
    assert "load at most 25,000" in size_problem(30_000, 1, limits)
    assert size_problem(100, 0, limits) == ""  # own scores only: the pairs counted once


def test_app_options_become_environment_variables_and_the_rest_goes_to_streamlit():
    env, rest = split_limit_options(["--server.port", "8600", "--max-running", "3", "--max-upload-mb=40",
                                     "--pool-idle-seconds", "never", "--analyzer-processes", "2",
                                     "--server.headless", "true"])
    assert env == {"KOREAN_EVAL_MAX_RUNNING": "3", "KOREAN_EVAL_POOL_IDLE_SECONDS": "never",
                   "KOREAN_EVAL_ANALYZER_PROCESSES": "2"}
    assert rest == ["--server.port", "8600", "--server.maxUploadSize", "40", "--server.headless", "true"]
    with pytest.raises(ValueError, match="KOREAN_EVAL_MAX_RUNNING"):
        split_limit_options(["--max-running", "none"])
    with pytest.raises(ValueError, match="--max-waiting needs a value"):
        split_limit_options(["--max-waiting"])
