"""Every kind of finding the checker reports, with its exact code, line and message (against the real
0.5.23 snapshot). Rules are tested in test_checker_rules.py; here no KB is passed, so none apply."""

from __future__ import annotations

import pytest

from handbook.checker import check_command, exit_status
from handbook.engine import load_snapshot

SERVER = "python -m sglang.launch_server --model-path m"


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot()


def only(text, snapshot):
    (finding,) = check_command(text, snapshot)
    return finding.severity, finding.code, finding.line, finding.message.en


CASES = {
    "unknown flag, closest spelling": (
        f"{SERVER} --tp-sise 2",
        ("error", "flag.unknown", 1, "--tp-sise is not an option of python -m sglang.launch_server (sglang 0.5.23); "
         "the closest is --tp-size"),
    ),
    "a flag of another program": (
        f"{SERVER} --dataset-name random",
        ("error", "flag.wrong-program", 1, "--dataset-name is not an option of python -m sglang.launch_server; "
         "it belongs to python -m sglang.benchmark.serving"),
    ),
    "abbreviation through prefix matching": (
        f"{SERVER} --attn-d 1",
        ("warning", "flag.abbreviation", 1, "--attn-d is not an option of python -m sglang.launch_server, only an "
         "abbreviation of --attn-dp-size (argparse prefix matching); any new option starting with --attn-d breaks "
         "it: write --attn-dp-size"),
    ),
    "abbreviation that matched one option in every stored release": (
        f"{SERVER} --tp 2",
        ("note", "flag.abbreviation", 1, "--tp is an abbreviation of --tp-size (argparse prefix matching): in each "
         "of the 14 stored releases (0.5.10–0.5.23) it matches --tp-size alone, so it works; writing --tp-size in "
         "full is safer"),
    ),
    "ambiguous abbreviation": (
        f"{SERVER} --pp 2",
        ("error", "flag.ambiguous", 1, "--pp is a prefix of several options (--pp-size, --pp-max-micro-batch-size, "
         "--pp-async-batch-depth); argparse exits with 'ambiguous option': spell the option out"),
    ),
    "deprecated flag": (
        f"{SERVER} --enable-flashinfer-allreduce-fusion",
        ("warning", "flag.deprecated", 1, "--enable-flashinfer-allreduce-fusion is deprecated in sglang 0.5.23; "
         "use --flashinfer-allreduce-fusion-backend=auto"),
    ),
    "repeated flag": (
        f"{SERVER} --tp-size 2 \\\n  --tp-size 4",
        ("warning", "flag.repeated", 2, "--tp-size is given twice (--tp-size on line 1, and here); argparse keeps "
         "only the last value"),
    ),
    "a switch given a value with =": (
        f"{SERVER} --enable-metrics=true",
        ("error", "flag.takes-no-value", 1, "--enable-metrics is a switch and takes no value; argparse fails with "
         "\"ignored explicit argument 'true'\""),
    ),
    "a switch followed by a value": (
        f"{SERVER} --enable-metrics true",
        ("error", "flag.takes-no-value", 1, "--enable-metrics is a switch and takes no value; argparse rejects the "
         "following true as an unrecognized argument"),
    ),
    "missing value": (
        f"{SERVER} --tp-size",
        ("error", "value.missing", 1, "--tp-size needs one argument (argparse: expected one argument)"),
    ),
    "value outside the choices": (
        "python -m sglang.benchmark.serving --dataset-name speed_bench",
        ("error", "value.choice", 1, "--dataset-name does not accept speed_bench (choices: agentic-trace, sharegpt, "
         "custom, openai, random, random-ids, generated-shared-prefix, mmmu, image, mooncake, longbench_v2, "
         "speed-bench); did you mean speed-bench?"),
    ),
    "the router's own parser list": (
        "python -m sglang_router.launch_router --tool-call-parser qwen3_coder",
        ("error", "value.choice", 1, "--tool-call-parser does not accept qwen3_coder (choices: deepseek, glm45_moe, "
         "glm47_moe, json, kimik2, llama, minimax_m2, mistral, passthrough, pythonic, qwen, qwen_coder, step3); "
         "did you mean qwen_coder?"),
    ),
    "not an int": (f"{SERVER} --tp-size two", ("error", "value.type", 1, "--tp-size got two, expected an integer")),
    "not a float": (
        f"{SERVER} --mem-fraction-static 0.8x",
        ("error", "value.type", 1, "--mem-fraction-static got 0.8x, expected a number"),
    ),
    "not JSON for a json-typed option": (
        f"{SERVER} --preferred-sampling-params '{{\"a\":'",
        ("error", "value.type", 1, "--preferred-sampling-params got '{\"a\":', expected valid JSON"),
    ),
    "IEC suffix with decimals": (
        f"{SERVER} --context-length 1.5Ki",
        ("error", "value.type", 1, "--context-length got 1.5Ki, expected an IEC value without decimals (1Ki) or an "
         "SI value (1.5k)"),
    ),
    "missing required option": (
        "python -m sglang.launch_server --tp-size 2",
        ("error", "args.required", 1, "--model-path is required (argparse: the following arguments are required)"),
    ),
    "stray positional": (
        f"{SERVER} extra",
        ("error", "args.unexpected", 1, "python -m sglang.launch_server takes no positional arguments; argparse "
         "rejects extra as an unrecognized argument"),
    ),
    "placeholders are noted, not judged": (
        "python -m sglang.launch_server --model-path ${M} --tp-size <tp>",
        ("note", "value.placeholder", 1, "Placeholders, not type-checked: --model-path ${M}, --tp-size <tp>"),
    ),
    "deprecated module": (
        "python -m sglang.bench_serving --dataset-name random",
        ("note", "module.deprecated", 1, "python -m sglang.bench_serving is deprecated in sglang 0.5.23; use "
         "python -m sglang.benchmark.serving"),  # an alias that still runs the same parser: a note
    ),
    "unknown sglang module": (
        "python -m sglang.launch_sever --model-path m",
        ("warning", "module.unknown", 1, "python -m sglang.launch_sever is not a module this checker knows "
         "(sglang.bench_serving, sglang.benchmark.serving, sglang.launch_server, sglang_router.launch_router); "
         "its flags were not checked; did you mean sglang.launch_server?"),
    ),
    "flags cut off from their command": (
        f"{SERVER}  # no continuation\n  --tp-size 2",
        ("error", "shell.orphan-flags", 2, "this line starts with the flag --tp-size but the previous command has "
         "ended (no trailing \\ on the line before, or a comment cut it off); the shell runs it as a new command"),
    ),
    "unterminated quote": (
        f"{SERVER} --served-model-name 'x",
        ("error", "shell.syntax", 1, "shell syntax error: unterminated single quote"),
    ),
    "unknown SGLANG_ variable": (
        "export SGLANG_USE_AITR=1",
        ("warning", "env.unknown", 1, "SGLANG_USE_AITR is not in sglang 0.5.23's variable registry (environ.py); "
         "the engine does not read it; did you mean SGLANG_USE_AITER?"),
    ),
    # Before comparing without the shared SGLANG_ prefix, this suggested SGLANG_PORT.
    "unknown SGLANG_ variable like no registered one": (
        "export SGLANG_FOO_BAR=1",
        ("warning", "env.unknown", 1, "SGLANG_FOO_BAR is not in sglang 0.5.23's variable registry (environ.py); "
         "the engine does not read it"),
    ),
    "bool variable with a wrong value": (
        f"SGLANG_USE_AITER=maybe {SERVER}",
        ("warning", "env.type", 1, "SGLANG_USE_AITER=maybe is not a valid value (expected true/1/yes/y or "
         "false/0/no/n): sglang 0.5.23 warns 'Invalid value' and uses the default false"),
    ),
    "int variable with a wrong value": (
        "export SGLANG_TIMEOUT_KEEP_ALIVE=soon",
        ("warning", "env.type", 1, "SGLANG_TIMEOUT_KEEP_ALIVE=soon is not a valid value (expected an integer): "
         "sglang 0.5.23 warns 'Invalid value' and uses the default 5"),
    ),
    "deprecated variable with its replacement": (
        "export SGLANG_AITER_MLA_DCP_DECODE_BACKEND=x",
        ("warning", "env.deprecated", 1, "the environment variable SGLANG_AITER_MLA_DCP_DECODE_BACKEND is "
         "deprecated in sglang 0.5.23; use SGLANG_AITER_MLA_DECODE_BACKEND (read through EnvStrWithAlias when "
         "SGLANG_AITER_MLA_DECODE_BACKEND is unset)"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_finding_kind(snapshot, case):
    text, expected = CASES[case]
    assert only(text, snapshot) == expected


def test_legacy_prefix_is_rewritten_then_checked(snapshot):
    findings = check_command("export SGL_USE_AITER=maybe", snapshot)
    assert [(f.code, f.message.en) for f in findings] == [
        ("env.legacy-prefix", "SGL_USE_AITER uses the legacy prefix SGL_: sglang 0.5.23 rewrites it to "
         "SGLANG_USE_AITER at import, with a warning; write SGLANG_USE_AITER"),
        ("env.type", "SGLANG_USE_AITER=maybe is not a valid value (expected true/1/yes/y or false/0/no/n): "
         "sglang 0.5.23 warns 'Invalid value' and uses the default false"),
    ]  # fmt: skip


def test_messages_in_chinese(snapshot):
    findings = check_command(f"{SERVER} --attn-d 1 --attention-backend fa5", snapshot)
    assert [f.message.zh for f in findings] == [  # errors before warnings
        "--attention-backend 不接受 fa5（可选：triton, torch_native, flex_attention, dsa, nsa, qsa, dsv4, compressed, "
        "fa3, fa4, flashinfer, llada2_cfg_flashinfer, flashmla, trtllm_mla, cutedsl_mla, tokenspeed_mla, trtllm_mha, "
        "hpc_ops, minicpm_flashattn, minicpm_flashinfer, aiter, wave, intel_amx, ascend, intel_xpu）；是不是 fa4？",
        "--attn-d 不是 python -m sglang.launch_server 的参数名，只是 --attn-dp-size 的前缀缩写（argparse 前缀匹配）；"
        "今后新增以 --attn-d 开头的参数就会让它失效，请写 --attn-dp-size",
    ]


def test_the_same_switch_twice_is_repeated(snapshot):
    (finding,) = check_command(f"{SERVER} --enable-tf32-matmul --no-enable-tf32-matmul", snapshot)
    assert (finding.code, finding.subject) == ("flag.repeated", "--no-enable-tf32-matmul")


def test_clean_commands_of_every_entry_point(snapshot):
    clean = [
        "python -m sglang.launch_server --model-path m --tp-size 2 --context-length 128k --enable-metrics",
        "sglang serve --model-path m --tensor-parallel-size 2 --no-enable-tf32-matmul",
        "python -m sglang_router.launch_router --pd-disaggregation --prefill http://a:30000 8998 --decode http://b:1",
        "python -m sglang.benchmark.serving --backend sglang --dataset-name random --random-input-len 8000",
        "--speculative-algorithm EAGLE --speculative-num-steps 3 --chunked-prefill-size -1",
        "git clone https://github.com/sgl-project/sglang.git && cd sglang && pip install -e python",
    ]
    for text in clean:
        assert check_command(text, snapshot) == [], text


def test_order_and_exit_status(snapshot):
    findings = check_command(
        f"{SERVER} --attn-d 1 \\\n  --attention-backend fa5 \\\n  --host ${{IP}}", snapshot
    )
    # by impact: what refuses to start, then what will misbehave, then the rest; by line within each
    assert [(f.line, f.severity) for f in findings] == [(2, "error"), (1, "warning"), (3, "note")]
    assert exit_status(findings) == 2
    assert exit_status([f for f in findings if f.severity != "error"]) == 1
    assert exit_status([f for f in findings if f.severity == "note"]) == 0
