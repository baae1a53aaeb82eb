"""``python -m handbook new rule``: a skeleton added to kb/rules.yaml's ``rules`` list that lists its
predicate's parameters, refuses to validate until filled in, validates (examples and quotes included) once
filled in, and exact refusals for bad input with nothing written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_scaffold import MINI, UNFILLED, line_of, new, problems

from handbook.core.text import PLACEHOLDER
from handbook.kb.loader import load_kb
from handbook.validation.registry import run_checks

S = "python -m sglang.launch_server --model-path m"


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    return root


# What a contributor writes for each placeholder of a requires-value skeleton, by the key of its line.
FILLS = {
    "flag": "--attention-backend",
    "values": "[aiter]",
    "other": "--page-size",
    "allowed": "[16]",
    "zh": "--attention-backend {value} 需要 --page-size 16（现为 {other_value}）",
    "en: ": "--attention-backend {value} needs --page-size 16 (here {other_value})",
    "explained_at": "08-production.md#security",
    "does": "nothing",
    "established": "reading",
    "example": f"{S} --attention-backend aiter --page-size 15",
    "quotes": '{value: aiter, other_value: "15"}',
    "holds": f"{S} --attention-backend aiter --page-size 16",
}


def filled(text: str) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        value = line.split("  # ", 1)[0]
        if PLACEHOLDER in value and not line.lstrip().startswith("#"):
            indent = value[: len(value) - len(value.lstrip())]
            key = value.strip().split(":", 1)[0]
            fill = FILLS["en: "] if key == "en" else FILLS[key]
            line = f"{indent}{key}: {fill}\n"
        elif line.lstrip().startswith("# advice: warning"):  # the engine does nothing: advice
            line = line.split("# advice", 1)[0] + "advice: warning\n"
        out.append(line)
    return "".join(out)


def test_a_rule_skeleton_asks_for_what_its_predicate_needs_and_validates_once_filled(kb, capsys):
    path = kb / "rules.yaml"
    before = path.read_text(encoding="utf-8")
    assert new(kb, "rule", "aiter-page", "--predicate", "requires-value", "--source", "handbook") == 0
    after = path.read_text(encoding="utf-8")
    assert after.startswith(before)  # added after the last rule, the rest as it was
    added = after[len(before) :]
    first = before.count("\n") + 1
    at = {key: first + line_of(added, key) - 1 for key in ("flag:", "zh:", "example:", "quotes:", "holds:")}
    assert added.splitlines()[:8] == [
        "  - id: aiter-page",
        "    predicate: requires-value  # Fires when ``flag`` has one of ``values`` and ``other`` has none of "
        "``allowed``.",
        "    params:",
        f"      flag: {PLACEHOLDER}  # a flag, e.g. --tp-size",
        f"      values: [{PLACEHOLDER}]",
        f"      other: {PLACEHOLDER}  # a flag, e.g. --tp-size",
        f"      allowed: [{PLACEHOLDER}]",
        "      # when: {--flag: [value]}  # only when each flag's value is one of these",
    ]
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "✔ added to kb/rules.yaml",
        "Fill in (12):",
        f"  kb/rules.yaml:{at['flag:']}: flag: {PLACEHOLDER}",
    ]
    assert out[-3:] == [
        f"  kb/rules.yaml:{at['quotes:']}: quotes: {{value: {PLACEHOLDER}, other_value: {PLACEHOLDER}}}",
        f"  kb/rules.yaml:{at['holds:']}: holds: {PLACEHOLDER}",
        "Then check it: python -m handbook validate",
    ]
    found = problems(kb)
    assert f"kb/rules.yaml:{at['flag:']}: rules[1].params.flag: {UNFILLED}" in found
    assert f"kb/rules.yaml:{at['zh:']}: rules[1].message.zh: {UNFILLED}" in found
    assert f"kb/rules.yaml:{at['example:']}: rules[1].example: {UNFILLED}" in found
    assert f"kb/rules.yaml:{at['quotes:']}: rules[1].quotes.value: {UNFILLED}" in found
    assert f"kb/rules.yaml:{at['holds:']}: rules[1].holds: {UNFILLED}" in found
    assert (
        len(found) == 13
    )  # four params, two message texts, the link, two engine fields, two quotes, two examples
    path.write_text(before + filled(added), encoding="utf-8")
    loaded = load_kb(kb)
    assert [str(p) for p in run_checks(loaded)] == []  # its example breaks it, quoting 15; holds keeps it
    rule = loaded.rules["aiter-page"]
    assert (rule.predicate, rule.params, rule.severity) == (
        "requires-value",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "allowed": [16]},
        "warning",  # the engine does nothing: the advice's severity
    )


def test_a_rule_goes_before_the_next_section_and_its_comment(kb, capsys):
    path = kb / "rules.yaml"
    head = path.read_text(encoding="utf-8")
    rest = "# What the engine resolves.\nresolved_defaults: []\n"
    path.write_text(head + "\n" + rest, encoding="utf-8")
    assert new(kb, "rule", "no-values", "--predicate", "flags-set", "--program", "launch_router") == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith(head + "  - id: no-values\n    program: launch_router\n    predicate: flags-set")
    assert text.endswith("\n\n" + rest)
    added = text[len(head) : -len(rest) - 1]
    assert "    message:  # may quote {flags}\n" in added
    assert f"    source: {PLACEHOLDER}  # the id of a file in kb/sources/ that states these facts\n" in added


def test_choices_and_optional_parameters_are_shown(kb):
    assert new(kb, "rule", "rescaled", "--predicate", "attn-dp-rescales") == 0
    added = (kb / "rules.yaml").read_text(encoding="utf-8").split("- id: rescaled\n", 1)[1]
    assert added.splitlines()[2:5] == [
        f"      flag: {PLACEHOLDER}  # a flag, e.g. --tp-size",
        f"      operation: {PLACEHOLDER}  # one of: divide-by-attn-dp, multiply",
        "      # factor: 1.0  # optional",
    ]
    assert f"    quotes: {{value: {PLACEHOLDER}, attn_dp: {PLACEHOLDER}, adjusted: {PLACEHOLDER}}}" in added


def test_an_unknown_predicate_and_source_are_refused_with_suggestions(kb, capsys):
    before = (kb / "rules.yaml").read_bytes()
    assert new(kb, "rule", "x", "--predicate", "flags-sett", "--source", "handbok") == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(
        "✖ --predicate: got 'flags-sett', expected one of: a2a-attn-dp-differs-from-tp, "
    )
    assert err[0].endswith(", value-in (did you mean 'flags-set'?)")
    assert err[1:] == [
        "✖ --source: got 'handbok', expected one of the source ids in kb/sources/ (did you mean 'handbook'?)",
        "Nothing was written.",
    ]
    assert (kb / "rules.yaml").read_bytes() == before


def test_an_existing_rule_is_refused(kb, capsys):
    before = (kb / "rules.yaml").read_bytes()
    assert new(kb, "rule", "tp-needs-model", "--predicate", "flags-set") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ kb/rules.yaml: got rule id 'tp-needs-model', which exists already; expected a new id (or edit that "
        "rule); nothing was written.",
    ]
    assert (kb / "rules.yaml").read_bytes() == before


def test_a_bad_rule_id_is_refused(kb, capsys):
    assert new(kb, "rule", "Tp_Needs", "--predicate", "flags-set") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ id: got 'Tp_Needs', expected lowercase letters, digits, '.', '_' and '-', starting with a letter or "
        "digit, at most 80 characters (^[a-z0-9][a-z0-9._-]*$); nothing was written.",
    ]


def test_a_rule_needs_a_predicate(kb, capsys):
    with pytest.raises(SystemExit) as exited:
        new(kb, "rule", "x")
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ python -m handbook new rule: the following arguments are required: --predicate "
        "(--help lists the options)",
    ]


def test_a_rules_file_without_its_list_is_refused(kb, capsys):
    path = kb / "rules.yaml"
    path.write_text("rules: []\n", encoding="utf-8")
    assert new(kb, "rule", "x", "--predicate", "flags-set") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ kb/rules.yaml: could not add to its `rules:` list as the file is laid out; add the rule by hand; "
        "nothing was written.",
    ]
    assert path.read_text(encoding="utf-8") == "rules: []\n"
