"""The doctor on the reader's accelerator (handbook/checker/sizing.py, `check --gpu ID`): the planner's own
figures decide whether the weights fit (an error: the engine refuses to start), whether the KV pool holds one
request at the context length (a warning: the engine logs and caps it) and whether --mem-fraction-static
leaves less than the engine's default keeps; values that cannot work are flagged by the rules, saying whether
the engine refuses them or the handbook advises; findings are ordered by impact, and one cause is one
finding with one fix, shown as a corrected command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from handbook.calc import memory
from handbook.checker import check_command, exit_status
from handbook.checker.corrections import corrected_commands
from handbook.core.formatting import binary_size
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

KB = load_kb()
SNAPSHOT = load_snapshot()
QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8"


def codes(text: str, gpu: str | None = None) -> list[tuple[str, str]]:
    return [(f.severity, f.code) for f in check_command(text, SNAPSHOT, KB, gpu=gpu)]


def test_weights_that_do_not_fit_are_an_error_with_the_planner_s_figures():
    findings = check_command(f"{QWEN} --tp-size 4", SNAPSHOT, KB, gpu="h100")
    assert [(f.severity, f.code) for f in findings] == [("error", "sizing.weights")]
    model = KB.models["qwen3.5-397b-a17b"]
    plan = memory.plan(model, KB.hardware["h100"], KB.dtypes["fp8"], KB.dtypes["bf16"], 4)
    said = findings[0].message.en
    assert (
        f"the weights take {binary_size(plan.weights_per_gpu)} per GPU" in said
    )  # the planner page's figure
    assert "SGLang refuses to start" in said and "kv_cache_configurator.py" in said
    assert codes(f"{QWEN} --tp-size 4") == []  # no accelerator, no sizing


def test_a_kv_pool_smaller_than_one_request_is_a_warning():
    text = f"{QWEN} --tp-size 8 --context-length 262144 --mem-fraction-static 0.6"
    assert codes(text, "h100") == [("warning", "sizing.kv")]
    assert codes(f"{QWEN} --tp-size 8", "h100") == [("note", "sizing.plan")]


def test_a_fraction_above_the_engine_default_warns_and_one_outside_0_1_is_judged_by_the_rules():
    assert codes(f"{QWEN} --tp-size 8 --mem-fraction-static 0.93", "h200") == [
        ("warning", "sizing.fraction"),
        ("note", "sizing.plan"),
    ]
    zero = check_command(f"{QWEN} --tp-size 8 --mem-fraction-static 0", SNAPSHOT, KB, gpu="h200")
    assert [(f.severity, f.code) for f in zero] == [("error", "rule.mem-fraction-not-positive")]
    assert "sglang 0.5.23 refuses to start" in zero[0].message.en  # the engine's verdict
    whole = check_command(f"{QWEN} --tp-size 8 --mem-fraction-static 1.5", SNAPSHOT, KB)
    assert [(f.severity, f.code) for f in whole] == [("warning", "rule.mem-fraction-whole-gpu")]
    assert "the advice is this site's" in whole[0].message.en  # the handbook's, not the engine's


def test_the_planners_deepseek_v4_command_is_sized_with_bf16_spelled_bfloat16():
    """The planner's command for DeepSeek-V4-Pro writes --kv-cache-dtype bfloat16 (the V4 hook refuses bf16):
    the doctor reads it as the BF16 KV dtype and sizes it like the planner."""
    v4 = KB.models["deepseek-v4-pro"]
    plan = memory.plan(v4, KB.hardware["h200"], KB.dtypes["fp4"], KB.dtypes["bf16"], 8)
    text = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Pro --tp-size 8"
    for kv in ("bfloat16", "bf16"):
        findings = check_command(f"{text} --kv-cache-dtype {kv}", SNAPSHOT, KB, gpu="h200")
        sized = [f for f in findings if f.code == "sizing.plan"]
        assert len(sized) == 1 and f"{plan.max_tokens:,}" in sized[0].message.en


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("python -m sglang.launch_server --model-path m --tp-size 8", "not a checkpoint this knowledge base"),
        (f"{QWEN} --tp-size ${{TP}}", "a placeholder hides"),
    ],
)
def test_what_cannot_be_sized_says_why(text, why):
    findings = [f for f in check_command(text, SNAPSHOT, KB, gpu="h200") if f.code.startswith("sizing")]
    assert [(f.severity, f.code) for f in findings] == [("note", "sizing.unsized")]
    assert why in findings[0].message.en


def test_one_cause_is_one_finding_whose_fix_starts_and_what_refuses_comes_first():
    text = (
        "python3 -m sglang.launch_server --model Qwen/Qwen3.5-397B-A17B-FP8 --tp 4 --dp 4 "
        "--enable-dp-attention --mem-fraction-static 0.95 --host 0.0.0.0"
    )
    findings = check_command(text, SNAPSHOT, KB, gpu="h100")
    assert findings[0].code == "sizing.weights"  # refuses to start, before the security notes and style
    assert [f.code for f in findings if f.code == "flag.deprecated"] == [
        "flag.deprecated"
    ]  # --dp + enable: one
    assert exit_status(findings) == 2
    [fixed] = corrected_commands(text, findings, SNAPSHOT)
    assert "--attn-dp-size 4" in fixed.text and "--dp" not in fixed.text.replace("--attn-dp-size", "")
    assert "--enable-dp-attention" not in fixed.text
    again = [f for f in check_command(fixed.text, SNAPSHOT, KB) if f.severity == "error"]
    assert (
        again == []
    )  # the advice applied literally starts (it once produced --dp-size beside --attn-dp-size)


def test_the_cli_sizes_on_gpu():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "handbook",
            "check",
            "--lang",
            "en",
            "--gpu",
            "h100",
            "--",
            *f"{QWEN} --tp-size 4".split(),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout.startswith("1: error[sizing.weights]: Qwen3.5-397B-A17B FP8 (E4M3) on NVIDIA H100")
