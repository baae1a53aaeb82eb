"""The argparse ``type`` conversions the checker replays (handbook/checker/argv.py ``convert``) at their edges,
against the engine's own: sglang/benchmark/serving.py ``_finite_positive_float`` (line 2243 of the 0.5.23
wheel) refuses ``not math.isfinite(parsed) or parsed <= 0``, so 0 is not positive and the smallest
subnormal is."""

from __future__ import annotations

import pytest

from handbook.checker import check_command
from handbook.checker.argv import BadValue, convert
from handbook.engine import load_snapshot

BENCH = "python -m sglang.benchmark.serving"


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot()


def option(snapshot, flag, program="bench_serving"):
    return snapshot.parser(program).option(flag)


@pytest.mark.parametrize("text", ["0", "0.0", "-0", "-0.0", "-1", "-5e-324", "inf", "-inf", "nan", "", "abc"])
def test_a_finite_positive_float_refuses_zero_and_below(snapshot, text):
    with pytest.raises(BadValue) as raised:
        convert(option(snapshot, "--gsp-zipf-alpha"), text)
    assert raised.value.expected.en == "a finite number > 0"


@pytest.mark.parametrize(
    ("text", "value"), [("5e-324", 5e-324), ("1e-300", 1e-300), ("1", 1.0), ("1e308", 1e308)]
)
def test_a_finite_positive_float_takes_anything_above_zero(snapshot, text, value):
    assert convert(option(snapshot, "--gsp-zipf-alpha"), text) == value


def test_zero_is_refused_with_the_exact_message(snapshot):
    findings = check_command(f"{BENCH} --gsp-zipf-alpha 0", snapshot)
    assert [(f.severity, f.code, f.line, f.message.en) for f in findings] == [
        ("error", "value.type", 1, "--gsp-zipf-alpha got 0, expected a finite number > 0")
    ]
    assert check_command(f"{BENCH} --gsp-zipf-alpha 5e-324", snapshot) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("ttft:1", ("ttft", 1.0)), ("tpot:0.5", ("tpot", 0.5)), ("e2el:5e-324", ("e2el", 5e-324))],
)
def test_a_goodput_slo_is_a_name_and_a_positive_number(snapshot, text, value):
    assert convert(option(snapshot, "--goodput"), text) == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ttft:0", "a finite number > 0"),
        ("ttft:-1", "a finite number > 0"),
        ("ttft:", "a finite number > 0"),
        ("ttft", "a finite number > 0"),  # the engine: "expected a finite float > 0, got ''"
        (":500", "KEY:VALUE with KEY in ttft, tpot, e2el (VALUE in milliseconds)"),
        ("latency:50", "KEY:VALUE with KEY in ttft, tpot, e2el (VALUE in milliseconds)"),
        ("TTFT:50", "KEY:VALUE with KEY in ttft, tpot, e2el (VALUE in milliseconds)"),
    ],
)
def test_a_goodput_slo_refuses_zero_an_unknown_key_and_a_missing_part(snapshot, text, expected):
    with pytest.raises(BadValue) as raised:
        convert(option(snapshot, "--goodput"), text)
    assert raised.value.expected.en == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0), ("1", 1), ("1k", 1000), ("1Ki", 1024), ("1.5k", 1500), ("0Ki", 0), ("-1", -1), (" 2 ", 2)],
)
def test_a_human_readable_int(snapshot, text, value):
    assert convert(option(snapshot, "--context-length", "launch_server"), text) == value
