"""The configurator's answers (handbook.calc.configure + handbook.site.configurator), with the numbers worked
out by hand from the KB's configs, and ``python -m handbook configure``."""

from __future__ import annotations

import gzip
import json

import pytest

from handbook.calc import memory
from handbook.calc.configure import DIST_PORT, PD_PORTS, PLAN_FLAGS, ROUTER_LINES, checkpoint
from handbook.calc.recipe_text import command_text
from handbook.checker.export import checker_data
from handbook.cli import main
from handbook.core.paths import DOCS_DIR
from handbook.engine.snapshot import load_snapshot
from handbook.kb.common import flags_in
from handbook.kb.loader import load_kb
from handbook.site.configurator import Configurator, canonical_json, plan_figures

KB = load_kb()
SNAPSHOT = load_snapshot()
GIB = 1 << 30


@pytest.fixture(scope="module")
def configurator():
    return Configurator(KB, SNAPSHOT)


def choice(model, gpu, precision, goal, nodes=1, pd=False):
    return {"model": model, "gpu": gpu, "precision": precision, "goal": goal, "nodes": nodes, "pd": pd}


def texts(result):
    return [command["text"] for command in result["commands"]]


# ------------------------------------------------------------------------------------------ the handbook's own
def test_a_matching_recipe_is_shown_as_published(configurator):
    result = configurator.configure(choice("gpt-oss-120b", "h100", "mxfp4", "balanced"))
    assert result["status"] == "recipe"
    assert texts(result) == ["python -m sglang.launch_server \\\n  --model-path openai/gpt-oss-120b"]
    (command,) = result["commands"]
    assert command["recipe"] == "gpt-oss-120b-single-gpu"
    assert command["link"] == "06-models.md#gpt-oss-120b"
    assert command["lines"] == []  # shown verbatim: no per-flag composition
    assert result["headline"]["en"].startswith("This is the handbook's own command (Single GPU")
    assert result["notes"] == []  # the composer's caveats are not hung on the handbook's command


def test_a_pd_deployment_gives_its_three_commands_with_their_corrections(configurator):
    result = configurator.configure(choice("deepseek-v4-pro", "mi355x", "fp4", "balanced", pd=True))
    assert result["status"] == "recipe"
    ids = [
        "deepseek-v4-pro-mi355x-pd-prefill",
        "deepseek-v4-pro-mi355x-pd-decode",
        "deepseek-v4-pro-mi355x-pd-router",
    ]
    assert [c["recipe"] for c in result["commands"]] == ids
    assert texts(result) == [command_text(KB.recipes[i]) for i in ids]
    decode = result["commands"][1]
    assert decode["corrections"] == [
        {"stated": c.stated, "published": c.published, "why": {"zh": c.why.zh, "en": c.why.en}}
        for c in KB.recipes[ids[1]].corrections
    ]
    assert decode["corrections"] and "--attn-dp-size" in decode["corrections"][0]["published"]


def test_a_goal_on_a_recipe_replaces_its_values_and_says_so(configurator):
    result = configurator.configure(choice("qwen3.5-397b-a17b", "h200", "fp8", "high-throughput"))
    assert (
        result["status"] == "composed" and result["title"]["en"] == "H200 × 8, FP8, throughput first (text)"
    )
    assert texts(result) == [
        "python -m sglang.launch_server \\\n"
        "  --model-path Qwen/Qwen3.5-397B-A17B-FP8 \\\n"
        "  --tp-size 8 \\\n"
        "  --mem-fraction-static 0.9 \\\n"
        "  --reasoning-parser qwen3 \\\n"
        "  --tool-call-parser qwen3_coder \\\n"
        "  --enable-symm-mem \\\n"
        "  --max-running-requests 1024 \\\n"
        "  --chunked-prefill-size 16384"
    ]
    assert result["notes"][0]["en"] == (
        "“High-Throughput” replaces the handbook command's --mem-fraction-static 0.85 with --mem-fraction-static 0.9"
    )
    # the plan is the planner's for what the command says: TP 8, the goal's 0.9 and 1,024 requests
    plan = result["commands"][0]["plan"]
    assert plan["key"] == "qwen3.5-397b-a17b|h200|fp8|8||0.9||||1024"
    same = memory.plan(
        KB.models["qwen3.5-397b-a17b"], KB.hardware["h200"], KB.dtypes["fp8"], KB.dtypes["bf16"], 8,
        mem_fraction_static=0.9, max_running_requests=1024,
    )  # fmt: skip
    assert plan["figures"] == plan_figures(KB, same)
    assert plan["figures"]["fraction"]["en"] == "0.9: given"


# ------------------------------------------------------------------------------------------ composed from the KB
def test_a_composed_command_has_the_planners_tp_the_parsers_and_the_goals_flags(configurator):
    result = configurator.configure(choice("qwen3.5-397b-a17b", "h100", "fp8", "low-latency"))
    assert result["status"] == "composed" and result["title"] is None
    # H100 reports 81,559 MiB (79.6 GiB). TP 4 puts 397e9 / 4 bytes = 92.4 GiB of FP8 weights on each GPU, more
    # than the whole GPU; TP 8, 46.2 GiB, leaves a pool for one 262,144-token request: TP 8. The engine's own
    # --mem-fraction-static is left to it (none is written); the goal's --max-running-requests sizes the plan,
    # so it stands where the planner's command puts it.
    assert 397e9 / 4 > 81_559 * 2**20 > 397e9 / 8
    assert texts(result) == [
        "python -m sglang.launch_server \\\n"
        "  --model-path Qwen/Qwen3.5-397B-A17B-FP8 \\\n"
        "  --tp-size 8 \\\n"
        "  --kv-cache-dtype bf16 \\\n"
        "  --max-running-requests 8 \\\n"
        "  --reasoning-parser qwen3 \\\n"
        "  --tool-call-parser qwen3_coder \\\n"
        "  --chunked-prefill-size 4096"
    ]
    lines = {line["text"]: line for line in result["commands"][0]["lines"]}
    assert lines["--tp-size 8"]["link"] == "04-parameters.md#tp-size"
    assert "262,144-token request" in lines["--tp-size 8"]["why"]["en"]
    assert lines["--max-running-requests 8"]["why"]["en"].startswith("chapter 07, “Low-latency chat”")
    assert (
        lines["--model-path Qwen/Qwen3.5-397B-A17B-FP8"]["why"]["zh"] == "知识库中 FP8 (E4M3) 的 checkpoint"
    )
    figures = result["commands"][0]["plan"]["figures"]
    assert figures["weights-gpu"] == "46.2 GiB" and figures["running"] == "≤ 8"
    assert result["headline"]["en"].startswith("Composed by this site from the knowledge base, not a command")
    assert result["commands"][0]["findings"] == []


def test_the_plan_under_a_command_is_the_engines_pool_sizing_worked_by_hand(configurator):
    """gpt-oss-120b (MXFP4) on one H100 with chapter 07's low-latency flags, every step as SGLang 0.5.23
    sizes it (handbook/calc/memory.py cites the wheel's lines)."""
    result = configurator.configure(choice("gpt-oss-120b", "h100", "mxfp4", "low-latency"))
    assert texts(result) == [
        "python -m sglang.launch_server \\\n  --model-path openai/gpt-oss-120b \\\n"
        "  --max-running-requests 8 \\\n  --chunked-prefill-size 4096"
    ]
    mib = 81_559  # what the H100 reports (kb/hardware/h100.yaml)
    # the default fraction for 60-160 GiB at TP 1: chunk 8192, decode graph up to 256; MiB
    reserve = 512 + 8192 * 1.5 + 1 / 8 * 1024 + 256 * 2
    assert reserve == 13_440
    fraction = round((mib - reserve) / mib, 3)
    assert fraction == 0.835
    weights = 117e9 * 4.25 / 8  # 117B parameters at 4 + 8/32 bits
    free = mib / 1024  # GiB
    rest = free - weights / GIB - free * (1 - fraction)
    # 18 full and 18 sliding layers, 8 KV heads × (64 + 64) × 2 bytes each; the SWA pool costs 0.8 × its row
    row = 8 * (64 + 64) * 2 * 18
    tokens = int(int(rest * GIB) // (row + 0.8 * row))
    assert tokens == 139_455
    figures = result["commands"][0]["plan"]["figures"]
    assert figures["fraction"]["en"] == "0.835: the engine's default for this GPU at TP 1"
    assert figures["weights-gpu"] == f"{weights / GIB:.3g} GiB" == "57.9 GiB"
    assert figures["kv-pool"] == f"{rest:.3g} GiB" == "8.62 GiB"
    assert figures["rest"] == f"{free * (1 - fraction):.3g} GiB" == "13.1 GiB"
    assert figures["max-tokens"] == "139,455"
    assert figures["requests"] == str(tokens // 131_072) == "1"
    assert figures["running"] == "8"  # the goal's --max-running-requests, below half the tokens
    assert "state" not in figures  # no linear-attention layers


@pytest.mark.parametrize(
    ("picked", "why"),
    [
        (
            choice("glm-5.3", "h100", "fp8", "balanced"),
            "The KB names no FP8 (E4M3) checkpoint for GLM-5.3 (nor does any of the handbook's commands in that "
            "precision)",
        ),
        (
            choice("qwen3.5-397b-a17b", "gb200", "fp8", "balanced"),
            "The KB has no memory figure for NVIDIA GB200 (memory_gb), so nothing can be planned",
        ),
        (
            choice("qwen3.5-397b-a17b", "h200", "fp8", "long-context-rag"),
            "“Long context / RAG” sets --context-length 1000000, beyond Qwen3.5-397B-A17B's native 262,144 tokens, "
            "and the KB gives no way to extend the context for this combination (see the model's section)",
        ),
        (
            choice("qwen3.5-397b-a17b", "a100", "fp8", "balanced", nodes=2),
            "The KB does not say how many GPUs one NVIDIA A100 80GB node holds, so a multi-node command's TP cannot "
            "be set",
        ),
        (
            choice("qwen3.5-397b-a17b", "b300", "fp8", "balanced", nodes=2, pd=False),
            "The KB does not say how many GPUs one NVIDIA B300 node holds, so a multi-node command's TP cannot "
            "be set",
        ),
    ],
    ids=["no-checkpoint", "no-memory", "context", "node-size", "node-size-b300"],
)
def test_what_the_kb_cannot_support_is_refused_with_the_reason(configurator, picked, why):
    result = configurator.configure(picked)
    assert result["status"] == "refused" and result["commands"] == []
    assert [w["en"] for w in result["why"]] == [why]
    assert all(w["zh"] and w["zh"] != w["en"] for w in result["why"])


def test_a_composed_command_the_checker_rejects_is_refused_with_the_checkers_words(configurator):
    result = configurator.configure(
        choice("deepseek-v4-pro", "h200", "fp8", "multi-turn-agent", nodes=2, pd=True)
    )
    assert result["status"] == "refused" and result["commands"] == []
    (why,) = result["why"]
    assert why["en"].startswith(
        "The composed command fails the checker (Decode server): A PD decode server turns"
    )
    assert "radix cache" in why["en"]


def test_pd_commands_compose_one_command_per_role_with_the_chapter_05_flags(configurator):
    # DeepSeek-V4-Pro in FP8 needs TP 16 on H200 (1,600e9 / 8 bytes is more than 141 GB): two nodes each
    result = configurator.configure(choice("deepseek-v4-pro", "h200", "fp8", "balanced", nodes=2, pd=True))
    assert [c["role"] for c in result["commands"]] == ["prefill", "decode", "router"]
    prefill, decode, router = texts(result)
    assert prefill.endswith(
        "--disaggregation-mode prefill \\\n  --disaggregation-ib-device <ib-device> \\\n"
        "  --host <prefill-ip> \\\n  --port 30000"
    )
    assert decode.endswith("--host <decode-ip> \\\n  --port 30001")
    assert router == "python -m sglang_router.launch_router \\\n  " + " \\\n  ".join(ROUTER_LINES)


def test_multi_node_spans_the_nodes_gpus_where_the_kb_gives_gpus_per_node(configurator):
    assert KB.hardware["h100"].gpus_per_node == 8
    result = configurator.configure(choice("qwen3.5-397b-a17b", "h100", "fp8", "balanced", nodes=2))
    (text,) = texts(result)
    assert "--tp-size 16" in text
    assert text.endswith("--nnodes 2 \\\n  --node-rank <node-rank> \\\n  --dist-init-addr <master-ip>:5000")
    assert "The planner fits it on 1 node(s) (TP 8)" in result["notes"][0]["en"]
    # DeepSeek-V4-Pro in FP8: 1,600e9 bytes of weights; TP 16 puts 93.1 GiB on each H100, more than its
    # 79.6 GiB; TP 32 puts 46.6 GiB, within the engine's default fraction there (0.78 × 79.6 GiB)
    assert 1600e9 / 16 > 81_559 * 2**20 and 1600e9 / 32 < 0.78 * 81_559 * 2**20
    one = configurator.configure(choice("deepseek-v4-pro", "h100", "fp8", "balanced"))
    assert [w["en"] for w in one["why"]] == [
        "It needs TP 32 (32 GPUs), and one NVIDIA H100 node holds 8: choose 4 nodes"
    ]
    four = configurator.configure(choice("deepseek-v4-pro", "h100", "fp8", "balanced", nodes=4))
    assert four["status"] == "composed" and "--tp-size 32" in texts(four)[0]


def test_pd_spans_nodes_per_role_where_the_kb_has_a_pd_recipe_and_gpus_per_node(configurator):
    result = configurator.configure(choice("deepseek-v4-pro", "h100", "fp8", "balanced", nodes=4, pd=True))
    assert result["status"] == "composed"
    prefill, decode, router = texts(result)
    for role, text, master in (
        ("prefill", prefill, "<prefill-master-ip>"),
        ("decode", decode, "<decode-master-ip>"),
    ):
        assert "--tp-size 32" in text and "--nnodes 4" in text and f"--dist-init-addr {master}:5000" in text
        assert f"--disaggregation-mode {role}" in text
    assert router.startswith("python -m sglang_router.launch_router")
    # the page offers PD only for models with a PD recipe
    offered = {c["model"] for c in configurator.choices() if c["pd"]}
    assert offered == {r.model for r in KB.recipes.values() if r.deployment and r.role == "prefill"} & {
        m["id"] for m in configurator.data["models"]
    }


def test_the_planner_inputs_the_kb_sets_are_those_the_configurator_reads():
    """The planner also takes --max-total-tokens and --swa-full-tokens-ratio; no command or scenario of the
    KB sets them, so the configurator's plans need not read them (PLAN_FLAGS)."""
    planner_inputs = {"--max-total-tokens", "--swa-full-tokens-ratio", *PLAN_FLAGS}
    lines = [str(line) for r in KB.recipes.values() for line in r.flags]
    lines += [line for s in KB.tuning.scenarios for line in s.flags]
    used = {flag for flag, _ in flags_in(lines)} & planner_inputs
    assert used <= set(PLAN_FLAGS) and "--max-running-requests" in used


# ------------------------------------------------------------------------------------------ the KB's values
def test_the_checkpoint_of_an_unstated_precision_is_taken_only_when_it_cannot_be_another():
    # gpt-oss-120b lists MXFP4 alone; the handbook's commands run openai/gpt-oss-120b without a precision
    assert checkpoint(KB, KB.models["gpt-oss-120b"], "mxfp4") == (
        "openai/gpt-oss-120b",
        "unstated",
        "gpt-oss-120b-single-gpu",
    )
    # GLM-5.3 lists three precisions without a checkpoint: which one zai-org/GLM-5.3 is would be a guess
    assert checkpoint(KB, KB.models["glm-5.3"], "fp8") == (None, None, None)
    assert checkpoint(KB, KB.models["glm-5.3"], "mxfp4")[:2] == (
        "amd/GLM-5.3-Quark-MXFP4-AttnFP8",
        "checkpoint",
    )


def test_the_multi_node_and_pd_values_are_those_of_chapter_05s_commands():
    router = [flag for flag, _ in flags_in(KB.recipes["pd-router-local"].flags)]
    assert router == [flag for line in ROUTER_LINES for flag, _ in flags_in([line])]
    lines = [str(line) for line in KB.recipes["pd-router-local"].flags]
    assert f"--prefill http://127.0.0.1:{PD_PORTS['prefill']}" in lines
    assert f"--decode http://127.0.0.1:{PD_PORTS['decode']}" in lines
    assert (
        f"--dist-init-addr ${{prefill_master_ip}}:{DIST_PORT}" in KB.recipes["deepseek-v3-pd-prefill"].flags
    )


def test_the_page_opens_on_one_of_the_handbooks_own_commands(configurator):
    default = configurator.export()["default_choice"]
    assert configurator.configure(default)["status"] == "recipe"


# ------------------------------------------------------------------------------------------ the command line
def test_the_command_line_prints_the_pages_commands_and_reasons(capsys):
    args = ["configure", "--model", "qwen3.5-397b-a17b", "--gpu", "h100", "--precision", "fp8"]
    assert main([*args, "--goal", "low-latency", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "  --tp-size 8 \\\n  --kv-cache-dtype bf16 \\\n  --max-running-requests 8 \\\n" in out
    assert "  --max-running-requests 8: chapter 07, “Low-latency chat”: Small batches lower ITL" in out
    assert "Checked against sglang 0.5.23: no problems" in out
    assert main([*args, "--goal", "low-latency", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = Configurator(KB, SNAPSHOT).configure(choice("qwen3.5-397b-a17b", "h100", "fp8", "low-latency"))
    assert printed == expected


def test_the_command_line_refuses_with_exit_1_and_rejects_bad_input_with_exit_2(capsys):
    base = ["configure", "--gpu", "h100", "--goal", "balanced"]
    assert main([*base, "--model", "glm-5.3", "--precision", "fp8", "--lang", "en"]) == 1
    assert "✖ The KB names no FP8 (E4M3) checkpoint for GLM-5.3" in capsys.readouterr().out
    assert main([*base, "--model", "qwen3.5-397b", "--precision", "fp8", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'qwen3.5-397b' (did you mean 'qwen3.5-397b-a17b'?)" in err
    assert main([*base, "--model", "gpt-oss-120b", "--precision", "mxfp4", "--pd", "--lang", "en"]) == 2
    assert "the KB has no PD-disaggregation command for gpt-oss-120b (it has them for: deepseek-v4-pro)" in (
        capsys.readouterr().err
    )


def test_what_the_pages_load_of_their_own_stays_small(configurator):
    """The pages' own scripts, style and data at gzip size: inside the 250 kB page budget, which the theme's
    CSS and JS (about 75 kB) and the page's HTML (about 12 kB) share (nox -s bench measures the whole page in
    chromium). The configurator's data is most of it: every plan a combination asks for, its rows worded as
    the planner words them (about 68 kB); the checker's, about 48 kB, since it reads commands as deployments,
    sizes them on an accelerator and knows each stored release's entry points and spellings (checker.js
    about 29 kB of the scripts). The doctor page adds planner.js (about 17 kB) and, once an accelerator is
    picked, the planner's data."""

    def gz(data: bytes) -> int:
        return len(gzip.compress(data, compresslevel=6, mtime=0))

    assets = DOCS_DIR / "assets"
    own = sum(
        gz((assets / name).read_bytes())
        for name in ("checker.js", "numbers.js", "configure.js", "doctor.js", "doctor.css")
    )
    data = gz(canonical_json(checker_data(SNAPSHOT, KB)).encode()) + gz(
        canonical_json(configurator.export()).encode()
    )
    assert own < 50_000 and data < 125_000, (own, data)
