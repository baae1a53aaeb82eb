"""Data are not code: a KB rule's message is literal text with ``{name}`` fields of its predicate, nothing
else. Generated templates: what the grammar accepts, Python fills exactly as str.format and as the browser's
format() (node); what it refuses never reaches either. A rule whose message carries a format spec fails
validation at its line, and the checker never fills it in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_checker_rules import broken_rules

from handbook.core.templates import fill, template_problems

FIXTURES = Path(__file__).parent / "fixtures"
FUZZ = os.environ.get("HANDBOOK_FUZZ_EXAMPLES")
PROPERTY = settings(
    max_examples=int(FUZZ or 300),
    deadline=None,
    derandomize=FUZZ is None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
FIELDS = ["values", "flag", "n"]
VALUES = {"values": "--tp-size 8", "flag": "--x", "n": 3}
PIECES = [
    "{{",
    "}}",
    "{values}",
    "{flag}",
    "{n}",
    "{",
    "}",
    "!r",
    ":>9",
    ".x",
    "[0]",
    "0",
    "a",
    "中",
    " ",
    "{x}",
]
# text from pieces that make fields, escapes and their broken forms, and from single characters
templates = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.text(alphabet="{}!:>.[]0123 rsvaluefgnx中", max_size=24),
)


@PROPERTY
@given(templates)
def test_a_template_the_grammar_accepts_is_filled_as_str_format_fills_it(template):
    if template_problems(template, FIELDS):
        with pytest.raises((ValueError, KeyError)):
            fill(template, VALUES)
        return
    assert fill(template, VALUES) == template.format(**VALUES)


@PROPERTY
@given(templates)
def test_every_refused_template_names_each_problem_once_and_quotes_at_most_a_short_field(template):
    for problem in template_problems(template, FIELDS):
        assert problem.startswith("got ")
        assert len(problem) < 260


@pytest.mark.parametrize(
    "template",
    [
        "{values:>50000000}",
        "{values!r}",
        "{values.__class__}",
        "{values[0]}",
        "{0}",
        "{}",
        "{ values}",
        "a { b",
        "a } b",
    ],
)
def test_the_forms_python_reads_and_the_browser_does_not_are_refused(template):
    assert len(template_problems(template, FIELDS)) == 1


def test_a_rule_message_with_a_format_spec_fails_validation_at_its_line(tmp_path):
    base = (FIXTURES / "kb-mini" / "rules.yaml").read_text(encoding="utf-8")
    broken = base.replace("en: runs code from the model repository", 'en: "runs {flags:>50000000}"')
    assert broken_rules(tmp_path, broken) == [
        "kb/rules.yaml:5: rules[0].message.en: got '{flags:>50000000}', expected plain {name} fields (values "
        "flags-set provides: flags) and {{ or }} for a brace; no format spec, conversion, index or position",
    ]


def test_the_checker_never_fills_a_message_the_grammar_refuses(tmp_path):
    from handbook.checker import check_command
    from handbook.checker.check import rule_params
    from handbook.engine.snapshot import load_snapshot
    from handbook.kb.loader import load_kb

    kb_dir = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb-mini", kb_dir)
    rules = kb_dir / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    rules.write_text(
        text.replace("en: runs code from the model repository", 'en: "{flags!r}"'), encoding="utf-8"
    )
    kb = load_kb(kb_dir)
    assert all(rule_params(rule) is None for rule in kb.rules.values())
    findings = check_command(
        "python -m sglang.launch_server --model-path m --trust-remote-code", load_snapshot(), kb
    )
    assert not [f for f in findings if f.code.startswith("rule.")]


def test_the_browser_fills_every_accepted_template_as_python_does(node):
    import random

    rng = random.Random(24)
    accepted = []
    while len(accepted) < 2000:
        template = "".join(rng.choice(PIECES) for _ in range(rng.randrange(9)))
        if not template_problems(template, FIELDS):
            accepted.append(template)
    script = (
        "const { format } = require(process.argv[1]);"
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(input.templates.map((t) => format(t, input.values))));"
    )
    checker = Path(__file__).resolve().parents[1] / "docs" / "assets" / "checker.js"
    done = subprocess.run(
        [node, "-e", script, str(checker)],
        input=json.dumps({"templates": accepted, "values": VALUES}),
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [fill(t, VALUES) for t in accepted]
    assert sum("{" in t for t in accepted) > 200  # braces, escaped and as fields, among them
