"""One truth, two runtimes: the browser's checker (docs/assets/checker.js, run by node over the export the
build writes) gives exactly what the Python package gives. (The configurator has no second runtime: the
build computes its answers and the page renders them; tests/test_configurator.py checks them.)

Compared in full: every finding (severity, code, line, subject, link, rule, message in both languages) of
every command on the site, of the checker tests' own inputs and of seeded variants of them (typos, wrong
choices, abbreviations, dropped values, shuffled order, wrappers…). The case counts are printed
(``pytest -s``). Node is needed; without it these tests skip, unless HANDBOOK_REQUIRE_NODE=1 (as in CI),
where a missing node is a failure.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import doctor_cases
from exhaustive import sized

from handbook.calc.planner_data import planner_data
from handbook.checker import check_command
from handbook.checker.check import entry_points
from handbook.checker.corrections import corrected_commands
from handbook.checker.export import checker_data
from handbook.checker.shell import ShellSyntaxError, parse_script
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb
from handbook.site.configurator import finding_json

JS = Path(__file__).parent / "js"
KB = load_kb()
SNAPSHOT = load_snapshot()
# Seeded variants of the commands: 2,000 in the suite, 12,000 under `nox -s exhaustive`. The commands alone
# reach every finding code and all 46 rules; of the 12,000 variants only two add a code (deploy.role at the
# 101st, deploy.absent at the 917th), so the first 2,000 find everything the 12,000 find.
VARIANTS = sized(2_000, 12_000)
# The finding codes the checker's docstring promises (rule.* aside): the corpus must reach every one.
CODES = {
    "shell.syntax", "shell.orphan-flags", "shell.unseen-program", "shell.too-deep", "shell.invisible",
    "shell.no-program", "module.unknown", "module.deprecated", "flag.unknown",
    "flag.wrong-program", "flag.abbreviation", "flag.ambiguous", "flag.deprecated", "flag.repeated",
    "flag.takes-no-value", "value.missing", "value.type", "value.choice", "value.placeholder",
    "args.required", "args.unexpected", "env.unknown", "env.type", "env.deprecated", "env.legacy-prefix",
    "env.foreign",
}  # fmt: skip


def run_node(node: str, script: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    done = subprocess.run(
        [node, str(JS / script)], input=json.dumps(payload), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def python_check(text: str) -> dict[str, Any]:
    """What `python -m handbook check` decides for ``text``: the findings, and whether it read anything."""
    found = check_command(text, SNAPSHOT, KB)
    findings = [finding_json(f) for f in found]
    corrected = [[c.line, c.text] for c in corrected_commands(text, found, SNAPSHOT)]
    try:
        script = parse_script(text, *entry_points(SNAPSHOT))
        understood = bool(script.invocations or script.assignments or script.orphans or script.unseen)
    except ShellSyntaxError:
        understood = True
    return {"findings": findings, "understood": understood, "corrected": corrected}


def differences(cases: list[str], js: list[dict[str, Any]]) -> list[str]:
    out = []
    for text, got in zip(cases, js, strict=True):
        expected = python_check(text)
        if got != expected:
            out.append(f"{text!r}\n  python: {expected}\n  js:     {got}")
    return out


# ------------------------------------------------------------------------------------------ the checker
def test_every_command_on_the_site_gets_the_same_findings_in_both_runtimes(node):
    cases = doctor_cases.site_commands(KB)
    assert len(cases) >= 60
    js = run_node(node, "run_checker.js", {"data": checker_data(SNAPSHOT, KB), "cases": cases})
    assert differences(cases, js) == []
    print(f"\nchecker parity: {len(cases)} commands of the site, 0 differences")


def test_generated_variants_get_the_same_findings_in_both_runtimes(node):
    """The commands and VARIANTS seeded variants of them (2,000; the full 12,000 run in `nox -s
    exhaustive`)."""
    bases = doctor_cases.site_commands(KB) + doctor_cases.test_inputs() + doctor_cases.edge_cases()
    bases += doctor_cases.corpus_commands()
    cases = bases + list(doctor_cases.Variants(SNAPSHOT).many(bases, VARIANTS))
    js = run_node(node, "run_checker.js", {"data": checker_data(SNAPSHOT, KB), "cases": cases})
    assert "crash" not in {key for result in js for key in result}
    found = differences(cases, js)
    assert found[:5] == [], f"{len(found)} of {len(cases)} cases differ"
    codes = Counter(f["code"] for result in js for f in result["findings"])
    assert CODES - set(codes) == set(), "the corpus must reach every kind of finding"
    rules = {code for code in codes if code.startswith("rule.")}
    assert len(rules) >= 30
    print(f"\nchecker parity: {len(cases)} cases ({len(bases)} commands, {VARIANTS} variants), 0 differences")


def sizing_cases() -> list[str]:
    """Every checkpoint the KB lists at TP 1–16, with and without the flags the planner reads."""
    server = "python -m sglang.launch_server --model-path "
    cases = []
    for model in KB.models.values():
        for precision in model.precisions:
            if not precision.checkpoint:
                continue
            for tp in (1, 2, 4, 8, 16):
                path = f"{server}{precision.checkpoint} --tp-size {tp}"
                cases += [
                    path,
                    f"{path} --mem-fraction-static 0.93 --context-length 131072 --kv-cache-dtype fp8_e4m3",
                    f"{path} --ep-size {tp} --attn-dp-size 2 --max-total-tokens 4096",
                ]
    cases += [
        f"{server}Qwen/Qwen3.5-397B-A17B-FP8 --tp 8 --dp 8 --enable-dp-attention",
        f"{server}Qwen/Qwen3.5-397B-A17B-FP8 --pp-size 2",
        f"{server}Qwen/Qwen3.5-397B-A17B-FP8 --tp-size 99999999999999999999",
        f"{server}Qwen/Qwen3.5-397B-A17B-FP8 --tp-size 3 --ep-size 2",
        f"{server}Qwen/Qwen3.5-397B-A17B-FP8 --mem-fraction-static 1.5",
        f"{server}Qwen/Qwen3.5-397B-A17B-FP8 --kv-cache-dtype fp4_e2m1",
        # the planner's DeepSeek-V4 command spells BF16 KV bfloat16
        f"{server}deepseek-ai/DeepSeek-V4-Pro --tp-size 8 --kv-cache-dtype bfloat16",
        f"{server}${{M}} --tp-size 8",
        f"{server}m --tp-size 2",
    ]
    return cases


def test_sizing_on_every_accelerator_gives_the_same_verdicts_in_both_runtimes(node):
    """check --gpu (sizing.py over handbook.calc.memory) and the doctor page (checker.js over planner.js)."""
    cases = sizing_cases()
    payload = {"data": checker_data(SNAPSHOT, KB), "cases": cases, "planner": planner_data(KB)}
    codes: Counter[str] = Counter()
    for gpu in KB.hardware:
        js = run_node(node, "run_checker.js", {**payload, "gpu": gpu})
        bad = []
        for text, got in zip(cases, js, strict=True):
            found = check_command(text, SNAPSHOT, KB, gpu=gpu)
            corrected = [[c.line, c.text] for c in corrected_commands(text, found, SNAPSHOT)]
            want = {"findings": [finding_json(f) for f in found], "understood": True, "corrected": corrected}
            codes.update(f["code"] for f in want["findings"] if f["code"].startswith("sizing."))
            if got != want:
                bad.append((gpu, text))
        assert bad[:3] == [], f"{len(bad)} of {len(cases)} cases differ on {gpu}"
    assert {"sizing.weights", "sizing.kv", "sizing.plan", "sizing.fraction", "sizing.unsized"} <= set(codes)
    print(f"\nsizing parity: {len(cases)} commands × {len(KB.hardware)} accelerators, 0 differences")


def test_the_checker_export_is_deterministic_and_plain_json():
    first = json.dumps(checker_data(SNAPSHOT, KB), sort_keys=True)
    assert first == json.dumps(checker_data(SNAPSHOT, KB), sort_keys=True)
    assert json.loads(first)["version"] == SNAPSHOT.sglang_version
