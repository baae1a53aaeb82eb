"""The replay session's own logic (the engine runs only in `nox -s engine-replay`): what it feeds the
engine for a rule's example, and how it judges the engine's outcome against the rule's claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from handbook.kb.loader import load_kb
from handbook.oracles.replay import Outcome, _argv_and_env, judge


@pytest.fixture(scope="module")
def kb():
    return load_kb()


def test_examples_point_at_the_stand_in_model():
    text = "SGLANG_X=1 python -m sglang.launch_server --model-path m --speculative-draft-model-path d --tp-size 2"
    argv, env = _argv_and_env(text, Path("/tmp/stand-in"))
    assert argv == [
        "--model-path",
        "/tmp/stand-in",
        "--speculative-draft-model-path",
        "/tmp/stand-in",
        "--tp-size",
        "2",
    ]
    assert env == {"SGLANG_X": "1"}


def test_every_replayed_rule_has_an_example_that_breaks_it(kb):
    replayed = [r for r in kb.rules.values() if r.engine.established == "replay"]
    assert replayed and all(r.example for r in replayed)


def test_judging_a_raise(kb):
    rule = kb.rules["tp-divisible-by-attn-dp"]
    where = "sglang/srt/arg_groups/parallel_hook.py:handle_data_parallelism"
    assert judge(rule, Outcome(raised="AssertionError", where=where)) == (
        True,
        f"raised AssertionError at {where}",
    )
    assert judge(rule, Outcome(raised="ValueError", where=where))[0] is False
    assert judge(rule, Outcome()) == (False, "resolved without error")


def test_judging_an_adjustment(kb):
    rule = kb.rules["a2a-ep-size-follows-tp"]
    assert judge(rule, Outcome(declared=[("_a2a_ep_size", {"ep_size": 8})])) == (
        True,
        "declared by _a2a_ep_size",
    )
    assert judge(rule, Outcome(declared=[("_page_size_default", {"page_size": 1})])) == (
        False,
        "no adjustment seen by _a2a_ep_size",
    )


def test_judging_advice_the_engine_ignores(kb):
    rule = kb.rules["aiter-page-size-16"]
    assert judge(rule, Outcome()) == (True, "resolved without error")
    assert judge(rule, Outcome(raised="ValueError", where="x.py:f", message="boom"))[0] is False
