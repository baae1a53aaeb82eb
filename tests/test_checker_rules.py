"""The KB's rules (kb/rules.yaml) on real commands: each breaks on its own example, quoting exactly the values
the rule lists, and holds on its passing example; severity follows the engine; a broken rule, or one without
its examples, fails validation at its file and line."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from handbook.checker import check_command
from handbook.core.templates import fill
from handbook.core.text import LANGS, Text
from handbook.engine import load_snapshot
from handbook.kb.loader import KBInvalid, load_kb

S = "python -m sglang.launch_server --model-path m"
R = "python -m sglang_router.launch_router"
SPEC = "--speculative-algorithm"
FIXTURES = Path(__file__).parent / "fixtures"

RULES = sorted(load_kb().rules)  # each rule's examples live with it in kb/rules.yaml

# Other commands that break a rule, beside its example: each reaches an edge the example does not.
MORE_BREAKS = {
    "spec-max-running-requests-48": (  # the engine upper-cases the algorithm before comparing it
        f"{S} {SPEC} eagle --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
        {"algorithm": "EAGLE"},
    ),
    "router-public-host": (f"{R} --pd-disaggregation", {"host": "0.0.0.0"}),  # the router's default host
    "media-urls-any-domain": (  # a private address is not loopback, and an API key does not restrict media
        f"{S} --host 10.0.0.5 --api-key k",
        {"host": "10.0.0.5"},
    ),
}


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot()


def rule_codes(text, snapshot, kb):
    return {f.code for f in check_command(text, snapshot, kb) if f.code.startswith("rule.")}


def said(rule, values):
    """The rule's message as the checker words it, with ``values`` in its fields."""
    return Text.of(*(fill(rule.message[lang], values).rstrip("。.") for lang in LANGS))


@pytest.mark.parametrize("rule", RULES)
def test_rule_example_breaks_it_and_quotes_its_values(kb, snapshot, rule):
    entry = kb.rules[rule]
    (finding,) = [f for f in check_command(entry.example, snapshot, kb) if f.rule == rule]
    assert finding.said == said(entry, entry.quotes)


@pytest.mark.parametrize("rule", RULES)
def test_rule_holds_on_its_passing_example(kb, snapshot, rule):
    assert f"rule.{rule}" not in rule_codes(kb.rules[rule].holds, snapshot, kb)


@pytest.mark.parametrize("rule", sorted(MORE_BREAKS))
def test_rule_breaks_beyond_its_example(kb, snapshot, rule):
    command, values = MORE_BREAKS[rule]
    (finding,) = [f for f in check_command(command, snapshot, kb) if f.rule == rule]
    assert finding.said == said(kb.rules[rule], values)


def test_a_quoted_number_is_written_as_given(kb, snapshot):
    # --mem-fraction-static 0 parses to the float 0.0; the message quotes 0, as the command wrote it
    rule = kb.rules["mem-fraction-not-positive"]
    (finding,) = [f for f in check_command(rule.example, snapshot, kb) if f.rule == rule.id]
    assert finding.said == Text.of(
        "--mem-fraction-static 0 不是正数：权重与 KV 池没有任何预算",
        "--mem-fraction-static 0 is not positive, which leaves no budget for the weights and the KV pool",
    )


@pytest.mark.parametrize(
    ("rule", "severity"),
    [
        ("hicache-excludes-disable-radix-cache", "error"),  # the engine raises
        ("a2a-ep-size-follows-tp", "warning"),  # the engine adjusts
        ("trust-remote-code", "note"),  # security advice that predicts no failure: a note
        ("docker-shm-size", "warning"),  # advice that predicts a failure: a warning
        ("aiter-page-size-16", "note"),  # the source's advice, as a note
    ],
)
def test_severity_follows_the_engine(kb, snapshot, rule, severity):
    (finding,) = [f for f in check_command(kb.rules[rule].example, snapshot, kb) if f.rule == rule]
    assert finding.severity == severity


def test_exact_messages_of_each_engine_behaviour(kb, snapshot):
    text = (
        f"{S} \\\n  --tp-size 8 \\\n  --ep-size 4 --moe-a2a-backend deepep \\\n"
        "  --enable-hierarchical-cache --disable-radix-cache \\\n  --attention-backend aiter"
    )
    findings = [f for f in check_command(text, snapshot, kb) if f.rule]
    # by impact: what refuses to start, then what will misbehave, then advice
    assert [(f.line, f.severity, f.code, f.message.en, f.link) for f in findings] == [
        (4, "error", "rule.hicache-excludes-disable-radix-cache",
         "HiCache (--enable-hierarchical-cache) extends RadixCache and cannot be combined with "
         "--disable-radix-cache. sglang 0.5.23 refuses to start: ValueError in kv_cache_hook.py "
         "handle_cache_compatibility.",
         "04-parameters.md#disable-radix-cache"),
        (2, "warning", "rule.a2a-ep-size-follows-tp",  # the first line that gives one of the rule's flags
         "--moe-a2a-backend deepep makes expert parallelism span the whole TP group, but --ep-size 4 differs from "
         "--tp-size 8. sglang 0.5.23 sets ep_size to tp_size and discards the --ep-size given (an INFO log line "
         "only) (overrides.py _a2a_ep_size).",
         "05-parallelism.md#ep-constraint"),
        (5, "note", "rule.aiter-page-size-16",
         "The source pairs --attention-backend aiter with --page-size 16 (given: —; when it is left out the "
         "engine uses 1). sglang 0.5.23 does not check this; the advice is the source's, adopted here.",
         "04-parameters.md#page-size"),
    ]  # fmt: skip
    assert findings[0].message.zh == (
        "HiCache（--enable-hierarchical-cache）扩展的是 RadixCache，不能与 --disable-radix-cache 同时使用。"
        "sglang 0.5.23 启动时会报错：kv_cache_hook.py handle_cache_compatibility 抛出 ValueError。"
    )


def test_placeholders_keep_rules_quiet(kb, snapshot):
    # an unknown --attn-dp-size cannot break tp % attn_dp; an unknown host is not known to be public
    assert rule_codes(f"{S} --tp-size 4 --attn-dp-size ${{N}} --host ${{IP}}", snapshot, kb) == set()


def test_fragments_judge_only_rules_whose_flags_they_write(kb, snapshot):
    # flags without their command: a flag the fragment does not write is unknown, not at its parser default
    assert rule_codes("--attn-dp-size 8", snapshot, kb) == set()  # --tp-size unwritten, not 1
    assert rule_codes("--moe-a2a-backend pplx", snapshot, kb) == set()  # --attn-dp-size unwritten
    assert rule_codes("--speculative-algorithm EAGLE", snapshot, kb) == set()  # no "use 48" without the limit
    # a fragment that writes every flag a rule reads is judged like a command
    assert "rule.tp-divisible-by-attn-dp" in rule_codes("--tp-size 4 --attn-dp-size 8", snapshot, kb)
    assert "rule.priority-scheduling-policy" in rule_codes(
        "--schedule-policy priority --enable-priority-scheduling", snapshot, kb
    )
    # the deprecated spelling of attention DP counts as writing --attn-dp-size
    assert "rule.tp-divisible-by-attn-dp" in rule_codes(
        "--tp-size 4 --dp-size 8 --enable-dp-attention", snapshot, kb
    )
    # the same flags in a whole command are judged with the parser's defaults, as the engine reads them
    assert "rule.tp-divisible-by-attn-dp" in rule_codes(f"{S} --attn-dp-size 8", snapshot, kb)


def test_recipe_model_is_used_for_model_rules(kb, snapshot):
    text = f"{S} --reasoning-parser qwen3"
    assert "rule.minimax-reasoning-parser-auto" not in rule_codes(text, snapshot, kb)
    findings = check_command(text, snapshot, kb, model="minimax-m3")
    assert "rule.minimax-reasoning-parser-auto" in {f.code for f in findings}


def broken_rules(tmp_path: Path, text: str) -> list[str]:
    root = Path(tempfile.mkdtemp(dir=tmp_path)) / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    (root / "rules.yaml").write_text(text, encoding="utf-8")
    try:
        kb = load_kb(root)
    except KBInvalid as caught:  # the schema's part of a rule
        return [str(p) for p in caught.problems]
    from handbook.validation.registry import run_checks

    return [str(p) for p in run_checks(kb)]  # the predicate's part: handbook.validation.rules


def test_wrong_predicate_name_fails_validation_at_its_line(tmp_path):
    text = (FIXTURES / "checker" / "rules-wrong-predicate.yaml").read_text(encoding="utf-8")
    (problem,) = broken_rules(tmp_path, text)
    assert problem.startswith(
        "kb/rules.yaml:4: rules[0].predicate: got 'flags-sett', expected one of the predicates: a2a-attn-dp-differs"
    )


def test_wrong_parameter_and_message_fail_validation(tmp_path):
    base = (FIXTURES / "kb-mini" / "rules.yaml").read_text(encoding="utf-8")
    assert broken_rules(
        tmp_path, base.replace("flags: [--trust-remote-code]", "flag: --trust-remote-code")
    ) == [
        "kb/rules.yaml:4: rules[0].params.flags: Field required (predicate flags-set)",
    ]
    assert broken_rules(
        tmp_path, base.replace("en: runs code from the model repository", 'en: "runs {code}"')
    ) == [
        "kb/rules.yaml:5: rules[0].message.en: got {code}, expected only values flags-set provides: flags",
    ]
    adjusting = base.replace(
        "engine: {does: nothing, established: reading}\n    advice: warning",
        "engine: {does: adjusts, established: reading, at: {file: sglang/srt/a.py, function: f, line: 1},"
        " adjustment: {zh: '改为 {value}', en: 'sets it to {value}'}}",
    )
    assert broken_rules(tmp_path, adjusting) == [
        "kb/rules.yaml:7: rules[0].engine.adjustment.en: got {value}, expected words without fields (the "
        "adjustment is shown beside prose, where no command fills them; put the values in the message)",
        "kb/rules.yaml:7: rules[0].engine.adjustment.zh: got {value}, expected words without fields (the "
        "adjustment is shown beside prose, where no command fills them; put the values in the message)",
    ]
    assert broken_rules(tmp_path, base.replace("    advice: warning\n", "")) == [
        "kb/rules.yaml:2: rules[0].advice: got nothing, expected warning or note: the engine nothing about this",
    ]


def test_rule_flags_are_checked_against_the_engine(tmp_path):
    from handbook.validation.registry import run_checks

    root = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    rules = root / "rules.yaml"
    rules.write_text(
        rules.read_text().replace("[--trust-remote-code]", "[--trust-remote-cod]"), encoding="utf-8"
    )
    problems = [str(p) for p in run_checks(load_kb(root))]
    assert problems == [
        "kb/rules.yaml:4: rules[0].params: got flag '--trust-remote-cod', expected a launch_server "
        "option of sglang 0.5.23"
    ]


MINI = (FIXTURES / "kb-mini" / "rules.yaml").read_text(encoding="utf-8")
EXAMPLE = "    example: python -m sglang.launch_server --model-path m --trust-remote-code\n"
HOLDS = "    holds: python -m sglang.launch_server --model-path m\n"


def test_a_rule_without_its_examples_fails_validation(tmp_path):
    assert broken_rules(tmp_path, MINI.replace(EXAMPLE, "").replace(HOLDS, "")) == [
        "kb/rules.yaml:2: rules[0].example: got nothing, expected a value (this field is required)",
        "kb/rules.yaml:2: rules[0].holds: got nothing, expected a value (this field is required)",
    ]
    assert broken_rules(tmp_path, MINI.replace(HOLDS, "")) == [
        "kb/rules.yaml:2: rules[0].holds: got nothing, expected a value (this field is required)",
    ]


def test_examples_that_do_not_show_the_rule_fail_validation(tmp_path):
    swapped = MINI.replace(EXAMPLE, EXAMPLE.replace("example", "holds")).replace(
        HOLDS, HOLDS.replace("holds", "example")
    )
    assert broken_rules(tmp_path, swapped) == [
        "kb/rules.yaml:9: rules[0].holds: got a command that breaks tp-needs-model, expected one that keeps it",
        "kb/rules.yaml:10: rules[0].example: got a command that does not break tp-needs-model, expected one that does",
    ]


def test_quotes_must_be_the_values_the_message_shows(tmp_path):
    quoting = MINI.replace(
        "en: runs code from the model repository}", "en: 'runs code from the model repository ({flags})'}"
    )
    assert broken_rules(tmp_path, quoting) == [
        "kb/rules.yaml:2: rules[0].quotes: got nothing, expected the values the message quotes for the example: "
        "{flags}",
    ]
    assert broken_rules(
        tmp_path, quoting.replace(HOLDS, "    quotes: {flags: --trust-remote-cod}\n" + HOLDS)
    ) == [
        "kb/rules.yaml:10: rules[0].quotes: got {flags: '--trust-remote-cod'}, expected the values the checker quotes "
        "for the example: runs code from the model repository (--trust-remote-code)",
    ]
    assert broken_rules(
        tmp_path, MINI.replace(HOLDS, "    quotes: {flags: --trust-remote-code}\n" + HOLDS)
    ) == [
        "kb/rules.yaml:10: rules[0].quotes: got {flags}, expected the values the message quotes for the example: "
        "nothing",
    ]
    fixed = quoting.replace(HOLDS, "    quotes: {flags: --trust-remote-code}\n" + HOLDS)
    assert broken_rules(tmp_path, fixed) == []
