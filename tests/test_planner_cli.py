"""``python -m handbook plan``: the same figures as the planner, clear errors for unknown ids and impossible plans."""

from __future__ import annotations

import subprocess
import sys

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
    status, out, err = run(
        capsys,
        "--model",
        "qwen3.5-397b-a17b",
        "--gpu",
        "h200",
        "--weights-dtype",
        "fp8",
        "--tp",
        "4",
        "--lang",
        "en",
    )
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == (
        "Qwen3.5-397B-A17B · NVIDIA H200 × 4 (TP 4) · weights FP8 (E4M3) · KV BF16 · "
        "--mem-fraction-static 0.85 · context 262,144"
    )
    # 141 GB × 0.85 = 119.85 GB; 397 GB / 4 = 99.25 GB (shown at 3 significant digits, half to even)
    for line in [
        "GPU memory: 141 GB",
        "Static budget (weights + KV pool): 120 GB",
        "Weights: whole model: 397 GB",
        "Weights: per GPU: 99.2 GB",
        "KV pool per GPU: 20.6 GB",
        "KV per token: whole model: 30,720 B (30 KiB)",
        "KV per token: per GPU: 15,360 B (15 KiB)",
        "Maximum tokens (KV pool capacity): 1,341,145",
        "SWA pool tokens: —",
        "Full-length requests at once (262,144 tokens): 5",
    ]:
        assert line in lines
    command = "\n".join(lines[lines.index("Suggested launch command:") + 1 :][:5])
    assert command == (
        "python -m sglang.launch_server \\\n"
        "  --model-path Qwen/Qwen3.5-397B-A17B-FP8 \\\n"
        "  --tp-size 4 \\\n"
        "  --mem-fraction-static 0.85 \\\n"
        "  --kv-cache-dtype bf16"
    )
    assert lines[-1] == (
        "Computed with SGLang 0.5.23's formulas from the vendor's nominal memory; "
        "the startup log's max_total_num_tokens is the final word."
    )


def test_chinese_is_the_default_and_unknown_fields_say_not_published(capsys):
    status, out, _ = run(capsys, "--model", "llama-3.3-70b", "--gpu", "h200", "--tp", "8")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == (
        "Llama-3.3-70B · NVIDIA H200 × 8（TP 8）· 权重 BF16 · KV BF16 · --mem-fraction-static 0.85 · 上下文 8,192"
    )
    assert "权重：全模型：未公开（params.total_b）" in lines
    assert "最大 token 数（KV 池容量）：未公开（params.total_b）" in lines
    assert "每 token KV：每卡：40,960 B (40 KiB)" in lines
    assert "  --model-path <model> \\" in lines
    assert "源稿未给出 BF16 的 checkpoint：请把 <model> 换成实际路径。" in lines


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
    status, _, err = run(capsys, "--model", "glm-5.3", "--gpu", "h20")
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
    status, _, err = run(capsys, "--model", "gpt-oss-120b", "--gpu", "h100", "--tp", "4", "--ep", "3")
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
        "--lang",
        "en",
    )
    assert status == 1
    assert "Maximum tokens (KV pool capacity): 0" in out.splitlines()
    # 794 GB / 4 = 198.5 GB per GPU against 119.85 GB: 78.65 GB short; TP 8 puts 99.25 GB on each
    assert err == (
        "✖ The weights do not fit: each GPU needs 198 GB, but --mem-fraction-static 0.85 gives 120 GB, "
        "78.7 GB short. The smallest TP that fits is 8.\n"
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
    assert "Maximum tokens (KV pool capacity): 1,395,009" in done.stdout.splitlines()
