"""checker.js's json.loads (pyJson) and its steps at their boundaries, through node.

The Python checker reads a JSON-valued flag or variable with json.loads (handbook/checker/argv.py,
envcheck.py); checker.js reads it with pyJson, a JsonScanner with one method per kind of value. Python's own
json.loads is the referee for the whole texts: each expected value is written out and checked against it
first, then against pyJson. Each step is also started alone at a chosen index, with the value it returns
and where it leaves the scanner written out.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFUSED = "refused"
NAN, INF = {"float": "nan"}, {"float": "inf"}


def encoded(value: object) -> object:
    """A value as it crosses from node as JSON: non-finite floats and integers past 2**53 tagged."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53 - 1:
        return {"int": str(value)}
    if isinstance(value, list):
        return [encoded(item) for item in value]
    if isinstance(value, dict):
        return {key: encoded(item) for key, item in value.items()}
    return value


# (text, what json.loads returns, or REFUSED where it raises)
WHOLE = [
    ("", REFUSED),
    (" ", REFUSED),
    ("0", 0),
    ("-0", 0),
    ("01", REFUSED),  # a leading zero: the 0 is read, the 1 is left over
    ("1.", REFUSED),
    (".5", REFUSED),
    ("1.5e3", 1500.0),
    ("1E-2", 0.01),
    ("-", REFUSED),
    ("9007199254740993", 9007199254740993),  # past 2**53: kept exact
    ("1" * 4300, int("1" * 4300)),
    ("1" * 4301, REFUSED),  # int()'s digit limit
    ("NaN", float("nan")),
    ("-Infinity", float("-inf")),
    ("nul", REFUSED),
    ("true", True),
    ("truex", REFUSED),
    (" [1] \n", [1]),
    ("[]", []),
    ("[", REFUSED),
    ("[1,]", REFUSED),
    ("[1 2]", REFUSED),
    ("[[[]]]", [[[]]]),
    ("{}", {}),
    ("{", REFUSED),
    ('{"a":1,}', REFUSED),
    ('{"a" 1}', REFUSED),
    ("{a:1}", REFUSED),
    ('{"a": 1, "a": 2}', {"a": 2}),  # the last of a repeated key
    ('{ "a" : [ null , false ] }', {"a": [None, False]}),
    ('"', REFUSED),
    ('""', ""),
    ('"\\', REFUSED),
    ('"\\"', REFUSED),
    ('"\\/\\b\\f\\n\\r\\t\\"\\\\"', '/\b\f\n\r\t"\\'),
    ('"\\u00e9"', "é"),
    ('"\\u00E9"', "é"),
    ('"\\u00e"', REFUSED),
    ('"\\x41"', REFUSED),
    ('"a\nb"', REFUSED),  # a control character inside a string
    ('"a\x7fb"', "a\x7fb"),
]


@pytest.mark.parametrize(("text", "expected"), WHOLE)
def test_the_expected_values_are_pythons(text, expected):
    if expected is REFUSED:
        with pytest.raises(ValueError):
            json.loads(text)
    else:
        assert encoded(json.loads(text)) == encoded(expected)


# encoded() again, for what node writes
ENCODED_JS = """
const { python } = require("./docs/assets/checker.js");
const encoded = (v) => {
  if (typeof v === "bigint") return { int: String(v) };
  if (typeof v === "number" && !Number.isFinite(v)) return { float: Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf" };
  if (Array.isArray(v)) return v.map(encoded);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encoded(x)]));
  return v;
};
"""

NODE_WHOLE = (
    ENCODED_JS
    + """
const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = texts.map((text) => {
  const read = python.pyJson(text);
  return read === undefined ? "refused" : encoded(read.value);
});
process.stdout.write(JSON.stringify(out));
"""
)


def run_node(node: str, program: str, payload: object, stack_kb: int | None = None) -> object:
    stack = [f"--stack-size={stack_kb}"] if stack_kb else []
    done = subprocess.run(
        [node, *stack, "-e", program],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_py_json_reads_as_json_loads_does(node):
    got = run_node(node, NODE_WHOLE, [text for text, _ in WHOLE])
    want = [REFUSED if expected is REFUSED else encoded(expected) for _, expected in WHOLE]
    assert dict(zip([t for t, _ in WHOLE], got, strict=True)) == dict(
        zip([t for t, _ in WHOLE], want, strict=True)
    )


def test_py_json_gives_up_past_its_nesting_limit(node):
    # 901 arrays deep: the innermost is read at depth 900, the limit; one more is refused
    got = run_node(node, NODE_WHOLE, ["[" * 901 + "]" * 901, "[" * 902 + "]" * 902])
    assert [isinstance(got[0], list), got[1]] == [True, REFUSED]


def test_py_json_counts_the_nesting_without_recursing_and_not_inside_strings(node):
    """100,000 brackets deep is refused before the recursive scanner runs (a small stack is enough);
    brackets inside a string, escaped quotes included, are text, not nesting."""
    deep = "[" * 100_000 + "]" * 100_000
    in_string = '["' + "[" * 2000 + '\\"' + "{" * 2000 + '"]'
    got = run_node(node, NODE_WHOLE, [deep, in_string], stack_kb=64)
    assert got == [REFUSED, ["[" * 2000 + '"' + "{" * 2000]]


NODE_STEPS = (
    ENCODED_JS
    + """
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(([text, step, at, args]) => {
  const scanner = new python.JsonScanner(text);
  scanner.at = at;
  try {
    const returned = scanner[step](...args);
    return [returned === undefined ? null : encoded(returned), scanner.at];
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return ["refused", scanner.at];
  }
});
process.stdout.write(JSON.stringify(out));
"""
)

# (text, step, where it starts, its arguments, what it returns, where it leaves the scanner): a refusal
# leaves the scanner where it stopped reading
STEPS = [
    ("", "skipSpace", 0, [], None, 0),
    ("x", "skipSpace", 0, [], None, 0),
    (" \t\r\nx", "skipSpace", 0, [], None, 4),
    ("\x0b", "skipSpace", 0, [], None, 0),  # a vertical tab is no JSON blank
    ("a  ", "skipSpace", 1, [], None, 3),
    ('""', "scanString", 0, [], "", 2),
    ('x"ab"y', "scanString", 1, [], "ab", 5),
    ('"ab', "scanString", 0, [], REFUSED, 3),
    ('"\\u0041\\n"', "scanString", 0, [], "A\n", 10),
    ('"\\q"', "scanString", 0, [], REFUSED, 1),
    ("0", "matchNumber", 0, [], 0, 1),
    ("12,", "matchNumber", 0, [], 12, 2),
    ("-1.5e+2]", "matchNumber", 0, [], -150, 7),
    ("1e", "matchNumber", 0, [], 1, 1),  # an exponent without digits is not read
    ("-", "matchNumber", 0, [], REFUSED, 0),
    ("+1", "matchNumber", 0, [], REFUSED, 0),
    ("[]", "jsonArray", 0, [0], [], 2),
    ("[ 1 , 2 ]x", "jsonArray", 0, [0], [1, 2], 9),
    ("[1", "jsonArray", 0, [0], REFUSED, 2),
    ("[1,", "jsonArray", 0, [0], REFUSED, 3),
    ("{}", "jsonObject", 0, [0], {}, 2),
    ('{"a":{}}', "jsonObject", 0, [0], {"a": {}}, 8),
    ('{"a"}', "jsonObject", 0, [0], REFUSED, 4),
    ("{,}", "jsonObject", 0, [0], REFUSED, 1),
    ("  null", "scanOnce", 0, [0], None, 6),
    ("1", "scanOnce", 0, [900], 1, 1),  # at the limit: read
    ("1", "scanOnce", 0, [901], REFUSED, 0),  # past it: refused before reading
    ("[]", "scanOnce", 0, [900], [], 2),  # an empty array reads no value inside
    ("[1]", "scanOnce", 0, [899], [1], 3),
    ("[1]", "scanOnce", 0, [900], REFUSED, 1),  # its item would be past the limit
    ("Infinityx", "scanOnce", 0, [0], INF, 8),
    ("x", "scanOnce", 0, [0], REFUSED, 0),
]


def test_every_scanner_step_has_a_case():
    text = (ROOT / "docs" / "assets" / "checker.js").read_text(encoding="utf-8")
    start = text.index("\n  class JsonScanner {\n")
    body = text[start : text.index("\n  }\n", start)]
    methods = [m for m in re.findall(r"^    ([A-Za-z]\w*)\([^)]*\) \{$", body, re.M) if m != "constructor"]
    assert methods == [
        "fail",
        "skipSpace",
        "scanOnce",
        "jsonObject",
        "jsonArray",
        "matchNumber",
        "scanString",
    ]
    assert sorted({case[1] for case in STEPS}) == sorted(set(methods) - {"fail"})


def test_py_json_steps_at_their_boundaries(node):
    got = run_node(node, NODE_STEPS, [[text, step, at, args] for text, step, at, args, _, _ in STEPS])
    want = [[expected, left] for _, _, _, _, expected, left in STEPS]
    keys = [f"{step}({text!r} from {at}, {args})" for text, step, at, args, _, _ in STEPS]
    assert dict(zip(keys, got, strict=True)) == dict(zip(keys, want, strict=True))
