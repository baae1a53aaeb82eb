"""The KB's rules (kb/rules.yaml) on real commands: each fires on its case and stays quiet on the fixed
command; severity follows the engine; a broken rule fails validation at its file and line."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from handbook.checker import check_command
from handbook.engine import load_snapshot
from handbook.kb.loader import KBInvalid, load_kb

S = "python -m sglang.launch_server --model-path m"
R = "python -m sglang_router.launch_router"
SPEC = "--speculative-algorithm"
FIXTURES = Path(__file__).parent / "fixtures"

# rule id -> (a command that breaks it, the same command put right)
CASES = {
    "hicache-excludes-disable-radix-cache": (
        f"{S} --enable-hierarchical-cache --disable-radix-cache", f"{S} --enable-hierarchical-cache"),
    "hicache-on-pd-decode": (
        f"{S} --disaggregation-mode decode --enable-hierarchical-cache",
        f"{S} --disaggregation-mode decode --enable-hierarchical-cache --disaggregation-decode-enable-radix-cache"),
    "unified-linker-excludes-hicache": (
        f"{S} --enable-unified-cache-external-linker --enable-hierarchical-cache",
        f"{S} --enable-unified-cache-external-linker"),
    "a2a-ep-size-follows-tp": (
        f"{S} --tp-size 8 --ep-size 4 --moe-a2a-backend deepep", f"{S} --tp-size 8 --moe-a2a-backend deepep"),
    "pplx-needs-attn-dp": (
        f"{S} --tp-size 8 --moe-a2a-backend pplx", f"{S} --tp-size 8 --moe-a2a-backend pplx --attn-dp-size 2"),
    "pplx-low-latency-only": (
        f"{S} --tp-size 8 --attn-dp-size 2 --moe-a2a-backend pplx --deepep-mode normal",
        f"{S} --tp-size 8 --attn-dp-size 2 --moe-a2a-backend pplx --deepep-mode low_latency"),
    "flashinfer-a2a-needs-full-attn-dp": (
        f"{S} --tp-size 4 --moe-a2a-backend flashinfer", f"{S} --tp-size 4 --attn-dp-size 4 --moe-a2a-backend flashinfer"),
    "deepep-normal-disables-cuda-graph": (
        f"{S} --moe-a2a-backend deepep --deepep-mode normal", f"{S} --moe-a2a-backend deepep --deepep-mode low_latency"),
    "mem-fraction-not-positive": (f"{S} --mem-fraction-static 0", f"{S} --mem-fraction-static 0.8"),
    "mem-fraction-whole-gpu": (f"{S} --mem-fraction-static 1.5", f"{S} --mem-fraction-static 0.95"),
    "context-over-max-total-tokens": (
        f"{S} --context-length 131072 --max-total-tokens 65536", f"{S} --context-length 65536 --max-total-tokens 65536"),
    "dp-replicas-exclude-attn-dp": (
        f"{S} --tp-size 2 --dp-size 2 --attn-dp-size 2",
        f"{S} --tp-size 2 --dp-size 2 --enable-dp-attention"),  # the deprecated spelling of attn-dp 2
    "tp-divisible-by-attn-dp": (f"{S} --tp-size 4 --attn-dp-size 8", f"{S} --tp-size 8 --attn-dp-size 4"),
    "attn-dp-divides-chunked-prefill": (
        f"{S} --tp-size 4 --attn-dp-size 4 --chunked-prefill-size 8192", f"{S} --tp-size 4 --attn-dp-size 4"),
    "attn-dp-scales-conservativeness": (
        f"{S} --tp-size 4 --attn-dp-size 4 --schedule-conservativeness 1.0", f"{S} --schedule-conservativeness 1.0"),
    "nodes-divide-tp-pp": (f"{S} --tp-size 4 --nnodes 3", f"{S} --tp-size 4 --nnodes 2"),
    "dp-replicas-single-node": (f"{S} --tp-size 2 --dp-size 2 --nnodes 2", f"{S} --tp-size 2 --dp-size 2"),
    "dp-size-prefer-router": (f"{S} --dp-size 2", f"{S} --dp-size 1"),
    "pp-disables-overlap": (f"{S} --pp-size 2", f"{S} --pp-size 1"),
    "dcp-excludes-prefill-cp": (f"{S} --tp-size 2 --dcp-size 2 --enable-prefill-cp", f"{S} --enable-prefill-cp"),
    "priority-scheduling-policy": (
        f"{S} --schedule-policy priority --enable-priority-scheduling", f"{S} --enable-priority-scheduling"),
    "chunked-prefill-page-multiple": (
        f"{S} --chunked-prefill-size 1000 --page-size 16", f"{S} --chunked-prefill-size 1024 --page-size 16"),
    "aiter-page-size-16": (f"{S} --attention-backend aiter", f"{S} --attention-backend aiter --page-size 16"),
    "tokenspeed-mla-renamed": (f"{S} --attention-backend tokenspeed_mla", f"{S} --attention-backend cutedsl_mla"),
    "compressed-backend-renamed": (f"{S} --attention-backend compressed", f"{S} --attention-backend dsv4"),
    "tool-call-parser-renamed": (f"{S} --tool-call-parser glm45", f"{S} --tool-call-parser glm47"),
    "cuda-ipc-env-deprecated": (f"SGLANG_USE_CUDA_IPC_TRANSPORT=1 {S}", f"{S} --mm-feature-transport cuda_ipc"),
    "spec-max-running-requests-48": (
        f"{S} {SPEC} eagle --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
        f"{S} {SPEC} eagle --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
        "--max-running-requests 64"),
    "eagle-topk-or-draft-needs-steps": (
        f"{S} --max-running-requests 8 {SPEC} NEXTN --speculative-num-draft-tokens 3",
        f"{S} --max-running-requests 8 {SPEC} NEXTN"),
    "eagle-steps-need-topk": (
        f"{S} --max-running-requests 8 {SPEC} EAGLE --speculative-num-steps 3",
        f"{S} --max-running-requests 8 {SPEC} EAGLE --speculative-num-steps 3 --speculative-eagle-topk 4"),
    "eagle-draft-tokens-adjusted": (
        f"{S} --max-running-requests 8 {SPEC} EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 "
        "--speculative-num-draft-tokens 3",
        f"{S} --max-running-requests 8 {SPEC} EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 "
        "--speculative-num-draft-tokens 4"),
    "standalone-excludes-attn-dp": (
        f"{S} --max-running-requests 8 {SPEC} STANDALONE --tp-size 2 --attn-dp-size 2",
        f"{S} --max-running-requests 8 {SPEC} STANDALONE --tp-size 2"),
    "qwen35-single-gpu-mamba-cap": (
        "python -m sglang.launch_server --model-path /models/Qwen3.5-397B-A17B-FP8",
        "python -m sglang.launch_server --model-path /models/Qwen3.5-397B-A17B-FP8 --max-running-requests 64"),
    "qwen38-running-requests-floor": (
        "python -m sglang.launch_server --model-path Qwen/Qwen3.8-Flash-Next-FP8 --max-running-requests 128",
        "python -m sglang.launch_server --model-path Qwen/Qwen3.8-Flash-Next-FP8 --max-running-requests 256"),
    "minimax-reasoning-parser-auto": (  # auto resolves to minimax-m3 for this model: both are right
        "python -m sglang.launch_server --model-path MiniMaxAI/MiniMax-M3 --reasoning-parser qwen3",
        "python -m sglang.launch_server --model-path MiniMaxAI/MiniMax-M3 --reasoning-parser minimax-m3"),
    "parser-auto-architecture-fallback": (
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Pro --tool-call-parser auto",
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Pro --tool-call-parser deepseekv4"),
    "fp8-block-moe-tp-split": (
        "python -m sglang.launch_server --model-path Qwen/Qwen3.8-Flash-Next-FP8 --tp-size 4",
        "python -m sglang.launch_server --model-path Qwen/Qwen3.8-Flash-Next-FP8 --tp-size 4 --ep-size 4"),
    "mamba-no-buffer-page-size": (
        f"{S} --mamba-radix-cache-strategy no_buffer --page-size 64",
        f"{S} --mamba-radix-cache-strategy extra_buffer --page-size 64"),
    "cuda-graph-bs-clamped-to-req-pool": (
        f"{S} --max-running-requests 64 --cuda-graph-max-bs-decode 256",
        f"{S} --max-running-requests 64 --cuda-graph-max-bs-decode 64"),
    "watchdog-times-forward-batches": (f"{S} --watchdog-timeout 1200", S),
    "trust-remote-code": (f"{S} --trust-remote-code", S),
    "public-host-without-api-key": (f"{S} --host 0.0.0.0", f"{S} --host 0.0.0.0 --api-key secret"),
    "router-public-host": (f"{R} --pd-disaggregation", f"{R} --pd-disaggregation --host 127.0.0.1"),
    "media-urls-any-domain": (
        f"{S} --host 10.0.0.5 --api-key k", f"{S} --host 10.0.0.5 --api-key k --allowed-media-domains example.com"),
    "docker-shm-size": (f"docker run --gpus all img {S}", f"docker run --gpus all --shm-size 32g img {S}"),
    "docker-pd-memlock": (
        f"docker run --shm-size 32g img {S} --disaggregation-mode prefill",
        f"docker run --shm-size 32g --privileged img {S} --disaggregation-mode prefill"),
}  # fmt: skip


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot()


def rule_codes(text, snapshot, kb):
    return {f.code for f in check_command(text, snapshot, kb) if f.code.startswith("rule.")}


def test_every_rule_has_a_case(kb):
    assert sorted(CASES) == sorted(kb.rules)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fires_and_stays_quiet(kb, snapshot, rule):
    broken, fixed = CASES[rule]
    assert f"rule.{rule}" in rule_codes(broken, snapshot, kb)
    assert f"rule.{rule}" not in rule_codes(fixed, snapshot, kb)


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
    (finding,) = [f for f in check_command(CASES[rule][0], snapshot, kb) if f.rule == rule]
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
