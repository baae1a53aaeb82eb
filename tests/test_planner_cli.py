"""``python -m handbook plan``: the same figures as the planner, clear errors for unknown ids and impossible plans."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from handbook.cli import main
from handbook.core.paths import REPO_ROOT

MODEL_IDS = (
    "deepseek-v3, deepseek-v4-pro, deepseek-v4.1-flash, glm-5.3, glm-5, gpt-oss-120b, kimi-k3.1-pro, "
    "llama-3.1-8b, llama-3.3-70b, minimax-m3, qwen3.5-397b-a17b, qwen3.8-flash-next"
)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["plan", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_english_plan_prints_every_figure_and_the_command(capsys):
    status, out, err = run(capsys, "--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1", "--lang", "en")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == (
        "Llama-3.1-8B-Instruct · NVIDIA H100 × 1 (TP 1) · weights BF16 · KV BF16 · "
        "--mem-fraction-static 0.835 · context 131,072"
    )
    # 81,559 MiB reported; the engine's default fraction for it at TP 1 is 0.835 (memory_hook.py);
    # 8,030,261,248 parameters × 2 bytes of weights; the pool as the engine sizes it (the oracle's 422,282)
    for line in [
        "GPU memory (as the device reports it): 79.6 GiB (81,559 MiB as reported; vendor: 80 GB)",
        "Free before loading: 79.6 GiB",
        "--mem-fraction-static (as the pool is sized): 0.835: the engine's default for this GPU at TP 1",
        "Static budget (weights + pools): 66.5 GiB",
        "Weights: whole model: 15 GiB (8,030,261,248 parameters, from the architecture fields)",
        "Left after the weights, per GPU: 51.5 GiB",
        "Linear-attention state pool per GPU: —",
        "KV per token: whole model: 131,072 B (128 KiB)",
        "Page size (tokens): 1 (the engine's, for fa3)",
        "Maximum tokens (KV pool capacity): 422,282",
        "SWA pool tokens: —",
        "Full-length requests at once (131,072 tokens): 3",
        "SGLang's max_running_requests: 2,048",
    ]:
        assert line in lines
    command = "\n".join(lines[lines.index("Suggested launch command:") + 1 :][:4])
    assert command == (
        "python -m sglang.launch_server \\\n"
        "  --model-path meta-llama/Llama-3.1-8B-Instruct \\\n"
        "  --tp-size 1 \\\n"
        "  --kv-cache-dtype bf16"
    )
    assert lines[-1] == (
        "Computed with SGLang 0.5.23's own sizing rules from the device-reported memory; "
        "the startup log's max_total_num_tokens is the final word."
    )


def test_a_chinese_locale_makes_chinese_the_default_and_unknown_fields_say_upper_bound_or_not_published(
    capsys, monkeypatch
):
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    status, out, _ = run(capsys, "--model", "llama-3.3-70b", "--gpu", "h200", "--tp", "8")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == (
        "Llama-3.3-70B · NVIDIA H200 × 8（TP 8）· 权重 BF16 · KV BF16 · --mem-fraction-static 0.897 · 上下文 131,072"
    )
    assert "权重：全模型：131 GiB（70,553,706,496 个参数，按架构字段计算）" in lines
    # the architecture is in the KB (its config.json): the tokens are the engine's, no bound
    assert "最大 token 数（KV 池容量）：2,870,816" in lines
    # the context derived as the engine derives it (max_position_embeddings): 2,870,816 // 131,072 = 21
    assert "同时容纳的满长请求（131,072 token）：21" in lines
    assert "每 token KV：每卡：40,960 B (40 KiB)" in lines
    assert "  --model-path <model> \\" in lines
    assert "源稿未给出 BF16 的 checkpoint：请把 <model> 换成实际路径。" in lines
    status, out, _ = run(capsys, "--model", "glm-5", "--gpu", "ascend", "--tp", "8")
    assert "最大 token 数（KV 池容量）：本 KB 没有（memory_gb）" in out.splitlines()


def test_names_and_case_are_accepted_for_ids(capsys):
    status, out, _ = run(capsys, "--model", "Llama-3.3-70B", "--gpu", "H200", "--tp", "8", "--lang", "en")
    assert status == 0
    assert out.startswith("Llama-3.3-70B · NVIDIA H200 × 8 (TP 8)")


def test_without_tp_the_smallest_that_fits_is_chosen_and_said(capsys):
    status, out, _ = run(capsys, "--model", "gpt-oss-120b", "--gpu", "h100", "--lang", "en")
    assert status == 0
    assert out.splitlines()[1] == (
        "Auto: TP 2 is the smallest power of two that holds the weights and, on each GPU, "
        "a KV pool for one 131,072-token request."
    )


def test_unknown_ids_suggest_the_closest(capsys):
    status, out, err = run(capsys, "--model", "qwen3.5-397b", "--gpu", "h200", "--lang", "en")
    assert (status, out) == (2, "")
    assert (
        err
        == f"✖ unknown model 'qwen3.5-397b' (did you mean 'qwen3.5-397b-a17b'?). Choose one of: {MODEL_IDS}\n"
    )
    status, _, err = run(capsys, "--model", "glm-5.3", "--gpu", "h20", "--lang", "zh")
    assert status == 2
    assert err.startswith("✖ 未知的加速卡 “h20”（是否指 “h200”？）。可选：a100, ascend, b200,")


def test_a_dtype_the_model_does_not_have_is_refused(capsys):
    status, _, err = run(
        capsys, "--model", "gpt-oss-120b", "--gpu", "h100", "--weights-dtype", "bf16", "--lang", "en"
    )
    assert status == 2
    assert err == "✖ unknown weights dtype 'bf16'. Choose one of: mxfp4\n"
    status, _, err = run(
        capsys, "--model", "gpt-oss-120b", "--gpu", "h100", "--kv-dtype", "fp4", "--lang", "en"
    )
    assert err == "✖ unknown KV dtype 'fp4' (did you mean 'fp8'?). Choose one of: bf16, fp8, fp8_e5m2\n"


def test_out_of_range_values_name_the_flag(capsys):
    status, _, err = run(
        capsys, "--model", "gpt-oss-120b", "--gpu", "h100", "--mem-fraction-static", "1.5", "--lang", "en"
    )
    assert (status, err) == (2, "✖ --mem-fraction-static must be greater than 0 and less than 1, got 1.5\n")
    status, _, err = run(
        capsys, "--model", "gpt-oss-120b", "--gpu", "h100", "--tp", "4", "--ep", "3", "--lang", "zh"
    )
    assert (status, err) == (2, "✖ --ep 须整除 --tp（4），收到 3\n")


def test_weights_that_do_not_fit_say_by_how_much(capsys):
    status, out, err = run(
        capsys,
        "--model",
        "qwen3.5-397b-a17b",
        "--gpu",
        "h200",
        "--weights-dtype",
        "bf16",
        "--tp",
        "4",
        "--mem-fraction-static",
        "0.85",
        "--lang",
        "en",
    )
    assert status == 1
    assert (
        "Maximum tokens (KV pool capacity): ≤ 0 (upper bound: the recurrent state's dtype (mamba_ssm_dtype) is not in this KB)"
        in out.splitlines()
    )
    # 794 GB / 4 = 184.9 GiB per GPU + the multimodal 0.1 GiB against 143,771 MiB × 0.85 = 119.3 GiB
    assert err == (
        "✖ The weights do not fit: each GPU needs 185 GiB, but --mem-fraction-static 0.85 gives 119 GiB, "
        "65.6 GiB short. The smallest TP that fits is 8.\n"
    )


def test_runs_as_a_module():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "handbook",
            "plan",
            "--model",
            "glm-5.3",
            "--gpu",
            "b200",
            "--tp",
            "8",
            "--kv-dtype",
            "fp8",
            "--weights-dtype",
            "fp8",
            "--lang",
            "en",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # (183,359 MiB × 0.852 − 743 GB / 8) // (44,928 + 2,772 indexer bytes), in pages of 64
    assert "Maximum tokens (KV pool capacity): 1,487,104" in done.stdout.splitlines()


# ------------------------------------------------------------------------------------------ held out
GOLDEN = json.loads((REPO_ROOT / "tests" / "golden" / "sizing-0.5.23.json").read_text(encoding="utf-8"))
LOGS = json.loads((REPO_ROOT / "tests" / "golden" / "held-out-logs.json").read_text(encoding="utf-8"))


def figure(out: str, label: str) -> int:
    """The number a figure line prints (``label: 1,234``)."""
    line = next(line for line in out.splitlines() if line.startswith(label + ": "))
    return int(line.removeprefix(label + ": ").replace(",", ""))


@pytest.mark.slow
@pytest.mark.parametrize(
    "record",
    [
        r
        for r in GOLDEN["records"]
        if r["status"] == "exact"
        and r["inputs"]["variant"] == "engine-default"
        # the KB's models (the golden also holds public configs the KB does not ship)
        and (REPO_ROOT / "kb" / "models" / f"{r['inputs']['model']}.yaml").is_file()
    ],
    ids=lambda r: f"{r['inputs']['model']}:{r['inputs']['hw']}:tp{r['inputs']['tp']}:{r['inputs']['kv']}",
)
def test_a_new_user_running_the_cli_gets_the_engines_own_sizing(record, capsys):
    """Held out: the CLI with only the model, the GPU, TP and the KV dtype (everything else its defaults)
    against what SGLang's own code computed for the same card (tests/golden, nox -s engine-sizing)."""
    case, engine = record["inputs"], record["engine"]
    args = ["--model", case["model"], "--gpu", case["hw"], "--tp", str(case["tp"]), "--kv-dtype", case["kv"]]
    status, out, err = run(capsys, *args, "--lang", "en")
    assert (status, err) == (0, "")
    tokens = figure(out, "Maximum tokens (KV pool capacity)")
    assert tokens == pytest.approx(engine["max_total_num_tokens"], rel=0.01)
    assert figure(out, "SGLang's max_running_requests") == engine["max_running_requests"]


@pytest.mark.parametrize("log", LOGS, ids=lambda log: log["id"])
def test_public_startup_logs_agree_within_two_percent(log, capsys):
    """Held out: a startup log's own card memory and flags through the CLI, against the token count the log
    prints. The weights are the planner's (the architecture formula), not the log's."""
    status, out, err = run(
        capsys,
        "--model",
        log["model"],
        "--gpu",
        log["hw"],
        "--tp",
        str(log["tp"]),
        "--kv-dtype",
        log["kv"],
        "--context",
        str(log["context"]),
        "--mem-fraction-static",
        str(log["mem_fraction_static"]),
        "--free-gib",
        str(log["free_before_load_gib"]),
        "--lang",
        "en",
    )
    assert (status, err) == (0, "")
    tokens = figure(out, "Maximum tokens (KV pool capacity)")
    assert tokens == pytest.approx(log["logged_max_total_num_tokens"], rel=0.02)
