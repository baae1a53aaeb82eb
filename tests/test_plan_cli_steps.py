"""``python -m handbook plan``'s steps at their boundaries: resolving the ids, computing the plan, and each
block of lines the command prints.

tests/test_planner_cli.py runs the whole command and reads its output; these call one step at a time with
the arguments parsed as the command parses them. The plan's own figures are tests/test_plan_steps.py's
concern: here a step's choice (a default taken or not, a line printed or not, which refusal) is checked,
with the lines written out as the message catalogue words them. The failures are fed plans changed by
hand where no KB entry reaches the boundary (a state pool with no slot, a pool of no token or of one).
"""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from handbook.calc import memory
from handbook.cli import plan as plan_cli
from handbook.cli.choices import BadInput
from handbook.kb.loader import load_kb
from handbook.render.planner import note_values

KB = load_kb()
BASIS = (
    "Computed with SGLang 0.5.23's own sizing rules from the device-reported memory; the startup log's "
    "max_total_num_tokens is the final word."
)
LLAMA_SOURCE_PATH = (
    "The source names no BF16 checkpoint; this uses meta-llama/Llama-3.1-8B-Instruct from the source's "
    "commands, whose precision it does not state."
)


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    plan_cli.configure(parser, "en")
    return parser.parse_args([*argv, "--lang", "en"])


def chosen_and_computed(*argv: str) -> tuple[plan_cli.Chosen, plan_cli.Computed]:
    args = parsed(*argv)
    chosen = plan_cli.resolve_inputs(args, KB)
    return chosen, plan_cli.compute_plan(args, KB, chosen)


def ids(chosen: plan_cli.Chosen) -> tuple[str, str, str, str]:
    return chosen.model.id, chosen.hw.id, chosen.weights.id, chosen.kv.id


# ------------------------------------------------------------------------------------------- 1 inputs
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # no dtype given: the model's first weights dtype, the KB's first KV dtype
        (("--model", "llama-3.1-8b", "--gpu", "h100"), ("llama-3.1-8b", "h100", "bf16", "bf16")),
        (("--model", "gpt-oss-120b", "--gpu", "h100"), ("gpt-oss-120b", "h100", "mxfp4", "bf16")),
        (("--model", "deepseek-v3", "--gpu", "h200"), ("deepseek-v3", "h200", "fp8", "bf16")),
        # names and any case stand for ids
        (("--model", "Llama-3.3-70B", "--gpu", "H200"), ("llama-3.3-70b", "h200", "bf16", "bf16")),
        (
            ("--model", "llama-3.1-8b", "--gpu", "h100", "--kv-dtype", "fp8_e5m2"),
            ("llama-3.1-8b", "h100", "bf16", "fp8_e5m2"),
        ),
    ],
)
def test_inputs_take_the_defaults_only_where_none_is_given(argv, expected):
    assert ids(plan_cli.resolve_inputs(parsed(*argv), KB)) == expected


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("--model", "llama-3.1-8", "--gpu", "h100"),
            "unknown model 'llama-3.1-8' (did you mean 'llama-3.1-8b'?). Choose one of: deepseek-v3,",
        ),
        (
            ("--model", "llama-3.1-8b", "--gpu", "h2000"),
            "unknown accelerator 'h2000' (did you mean 'h200'?).",
        ),
        (
            ("--model", "gpt-oss-120b", "--gpu", "h100", "--weights-dtype", "bf16"),
            "unknown weights dtype 'bf16'. Choose one of: mxfp4",
        ),
        (
            ("--model", "llama-3.1-8b", "--gpu", "h100", "--kv-dtype", "fp4"),
            "unknown KV dtype 'fp4' (did you mean 'fp8'?). Choose one of: bf16, fp8, fp8_e5m2",
        ),
    ],
)
def test_inputs_refuse_an_unknown_id_naming_what_it_is(argv, message):
    with pytest.raises(BadInput) as refused:
        plan_cli.resolve_inputs(parsed(*argv), KB)
    assert str(refused.value).startswith(message)


# ------------------------------------------------------------------------------------------- 2 compute
def test_a_given_tp_is_planned_as_given_and_no_tp_is_chosen():
    _, computed = chosen_and_computed("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "2")
    assert (computed.plan.tp, computed.auto) == (2, None)


@pytest.mark.parametrize(
    ("gpu", "auto"),
    [
        ("h100", memory.AutoTp(tp=1, basis="headroom")),
        # the ascend entry publishes no memory: TP 1 is shown, and said to be a guess
        ("ascend", memory.AutoTp(tp=1, basis="unknown")),
    ],
)
def test_without_tp_the_suggested_one_is_planned_and_kept(gpu, auto):
    _, computed = chosen_and_computed("--model", "llama-3.1-8b", "--gpu", gpu)
    assert (computed.auto, computed.plan.tp) == (auto, 1)


@pytest.mark.parametrize(
    ("argv", "context"),
    [
        ((), 131_072),  # the model's max_position_embeddings
        (("--context", "1"), 1),
        (("--context", "131072"), 131_072),
    ],
)
def test_the_context_is_the_models_unless_given(argv, context):
    _, computed = chosen_and_computed("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1", *argv)
    assert (computed.context, computed.plan.context) == (context, context)


def test_the_options_kept_for_a_smaller_tp_are_the_commands():
    argv = ("--mem-fraction-static", "0.5", "--swa-full-tokens-ratio", "0.25", "--free-gib", "70")
    _, computed = chosen_and_computed("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1", *argv)
    assert computed.options == {"mem_fraction_static": 0.5, "swa_full_tokens_ratio": 0.25, "free_gib": 70.0}


def test_a_value_the_plan_refuses_is_bad_input():
    # the range check before this step names the flag; the step itself still refuses, in the plan's words
    with pytest.raises(BadInput) as refused:
        chosen_and_computed("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "8", "--ep", "3")
    assert str(refused.value) == "ep must divide tp (8), got 3"


def test_an_engine_default_that_leaves_nothing_is_bad_input_and_a_given_fraction_is_not():
    argv = ("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1024")
    with pytest.raises(BadInput) as refused:
        chosen_and_computed(*argv)
    assert str(refused.value).startswith(
        "--tp: got 1024, for which the engine's default --mem-fraction-static on NVIDIA H100 is -"
    )
    _, computed = chosen_and_computed(*argv, "--mem-fraction-static", "0.5")
    assert (computed.plan.tp, computed.plan.mem_fraction_static) == (1024, 0.5)


# ------------------------------------------------------------------------------------------- 3 figures
def figure_lines(*argv: str) -> list[str]:
    chosen, computed = chosen_and_computed(*argv)
    values = note_values(computed.plan, chosen.model, chosen.hw, "en")
    return plan_cli.figure_lines(chosen, computed, values, "en")


def test_figures_follow_the_heading_after_a_blank_line_when_tp_is_given():
    lines = figure_lines("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1")
    assert lines[:2] == [
        "Llama-3.1-8B-Instruct · NVIDIA H100 × 1 (TP 1) · weights BF16 · KV BF16 · "
        "--mem-fraction-static 0.835 · context 131,072",
        "",
    ]
    assert len(lines) == 2 + 17  # one line per figure of the page
    assert (
        lines[2] == "GPU memory (as the device reports it): 79.6 GiB (81,559 MiB as reported; vendor: 80 GB)"
    )


def test_a_chosen_tp_is_said_between_the_heading_and_the_figures():
    lines = figure_lines("--model", "llama-3.1-8b", "--gpu", "h100")
    assert lines[1:3] == [
        "Auto: TP 1 is the smallest power of two that holds the weights and, on each GPU, "
        "a KV pool for one 131,072-token request.",
        "",
    ]
    assert len(lines) == 3 + 17


@pytest.mark.parametrize(
    ("argv", "heading"),
    [
        (
            ("--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--ep", "8"),
            "DeepSeek-V3 · NVIDIA H200 × 8 (TP 8, EP 8) · weights FP8 (E4M3) · KV BF16 · "
            "--mem-fraction-static 0.897 · context 163,840",
        ),
        (
            ("--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--ep", "1"),
            "DeepSeek-V3 · NVIDIA H200 × 8 (TP 8) · weights FP8 (E4M3) · KV BF16 · "
            "--mem-fraction-static 0.897 · context 163,840",
        ),
        # no published memory: no engine default, a dash in its place
        (
            ("--model", "llama-3.1-8b", "--gpu", "ascend", "--tp", "1"),
            "Llama-3.1-8B-Instruct · Huawei Ascend × 1 (TP 1) · weights BF16 · KV BF16 · "
            "--mem-fraction-static — · context 131,072",
        ),
    ],
)
def test_the_heading_names_ep_only_above_one_and_a_dash_for_an_unknown_fraction(argv, heading):
    assert figure_lines(*argv)[0] == heading


# ------------------------------------------------------------------------------------------- 4 notes
def test_no_notes_print_nothing_not_even_the_heading():
    chosen, computed = chosen_and_computed("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1")
    plan = dataclasses.replace(computed.plan, notes=())
    assert plan_cli.note_lines(plan, note_values(plan, chosen.model, chosen.hw, "en"), "en") == []


def test_one_note_is_one_item_under_the_heading():
    chosen, computed = chosen_and_computed("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1")
    plan = dataclasses.replace(computed.plan, notes=("default-fraction",))
    assert plan_cli.note_lines(plan, note_values(plan, chosen.model, chosen.hw, "en"), "en") == [
        "",
        "Notes:",
        "  - --mem-fraction-static is the engine's default for this GPU at TP 1, 0.835 (tiered by the "
        "device-reported memory, arg_groups/memory_hook.py); set your own above.",
    ]


def test_the_notes_keep_the_plans_order():
    chosen, computed = chosen_and_computed("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1")
    plan = dataclasses.replace(computed.plan, notes=("free-assumed", "default-fraction"))
    lines = plan_cli.note_lines(plan, note_values(plan, chosen.model, chosen.hw, "en"), "en")
    assert [line[:30] for line in lines] == [
        "",
        "Notes:",
        "  - Free memory before loading",
        "  - --mem-fraction-static is t",
    ]


# ------------------------------------------------------------------------------------------- 5 command
def command_lines(*argv: str) -> list[str]:
    chosen, computed = chosen_and_computed(*argv)
    return plan_cli.command_lines(KB, chosen, computed.plan, "en")


def test_a_checkpoints_own_path_needs_no_line_about_it():
    assert command_lines("--model", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--ep", "8") == [
        "",
        "Suggested launch command:",
        "python -m sglang.launch_server \\\n"
        "  --model-path deepseek-ai/DeepSeek-V3 \\\n"
        "  --tp-size 8 \\\n"
        "  --ep-size 8 \\\n"
        "  --kv-cache-dtype bf16",
        "",
        BASIS,
    ]


@pytest.mark.parametrize(
    ("argv", "path", "said"),
    [
        # the source's path, whose precision it does not state
        (
            ("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1"),
            "meta-llama/Llama-3.1-8B-Instruct",
            LLAMA_SOURCE_PATH,
        ),
        # no path at all: a placeholder to replace
        (
            ("--model", "deepseek-v4.1-flash", "--gpu", "h200", "--tp", "8"),
            "<model>",
            "The source names no FP8 (E4M3) checkpoint: replace <model> with the real path.",
        ),
    ],
)
def test_a_path_that_is_not_the_checkpoints_says_where_it_comes_from(argv, path, said):
    lines = command_lines(*argv)
    assert f"  --model-path {path} \\" in lines[2].splitlines()
    assert lines[3:] == [said, "", BASIS]


def test_an_aiter_scaled_fraction_is_said_after_the_command():
    lines = command_lines("--model", "llama-3.1-8b", "--gpu", "mi300x", "--tp", "1")
    assert lines[3:] == [
        LLAMA_SOURCE_PATH,
        "SGLang multiplies this command's --mem-fraction-static (the engine's default where it sets none) by "
        "0.85 (aiter, context above 8,192); the figures above already do.",
        "",
        BASIS,
    ]


# ------------------------------------------------------------------------------------------- 6 failures
LLAMA_H100 = ("--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "1")
NO_ROOM = (
    "After the weights, the KV pool cannot hold one page ({page} tokens); SGLang refuses to start with "
    "“Not enough memory”."
)
NO_STATE = (
    "After the weights there is no room for the linear-attention state pool (not one request's slot); "
    "SGLang refuses to start."
)


def failures(argv: tuple[str, ...], **changed: object) -> list[str]:
    chosen, computed = chosen_and_computed(*argv)
    computed = dataclasses.replace(computed, plan=dataclasses.replace(computed.plan, **changed))
    return plan_cli.failure_messages(chosen, computed, "en")


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        ({}, []),
        ({"max_tokens": None}, []),  # not known to fit is no failure
        ({"max_tokens": 1}, []),
        ({"max_tokens": 0}, [NO_ROOM.format(page=1)]),
        ({"max_tokens": 0, "page_size": 64}, [NO_ROOM.format(page=64)]),
        ({"max_tokens": 0, "refused": True, "state_slots": 0}, [NO_STATE]),
        ({"max_tokens": 0, "refused": True, "state_slots": -1}, [NO_STATE]),
        ({"max_tokens": 0, "refused": True, "state_slots": 1}, [NO_ROOM.format(page=1)]),
        ({"max_tokens": 0, "refused": True, "state_slots": None}, [NO_ROOM.format(page=1)]),
        ({"max_tokens": 0, "refused": False, "state_slots": 0}, [NO_ROOM.format(page=1)]),
    ],
)
def test_a_pool_without_room_is_said_once_state_before_pages(changed, expected):
    assert failures(LLAMA_H100, **changed) == expected


def test_weights_that_do_not_fit_name_the_smallest_tp_that_does():
    argv = ("--model", "qwen3.8-flash-next", "--gpu", "h100", "--tp", "1", "--mem-fraction-static", "0.2")
    assert failures(argv) == [
        "The weights do not fit: each GPU needs 92.2 GiB, but --mem-fraction-static 0.2 gives 15.9 GiB, "
        "76.4 GiB short.",
        "The smallest TP that fits is 8.",
    ]


def test_weights_that_fit_at_no_tp_say_only_that_they_do_not_fit():
    # 745 GiB of weights against 5% of 80 GB: no TP up to 64 holds them
    argv = ("--model", "deepseek-v4-pro", "--gpu", "a100", "--tp", "1", "--mem-fraction-static", "0.05")
    assert failures(argv) == [
        "The weights do not fit: each GPU needs 745 GiB, but --mem-fraction-static 0.05 gives 4 GiB, 741 GiB short."
    ]


def test_weights_that_do_not_fit_come_before_a_pool_without_room():
    argv = ("--model", "qwen3.8-flash-next", "--gpu", "h100", "--tp", "1", "--mem-fraction-static", "0.2")
    assert len(failures(argv, max_tokens=0, refused=True, state_slots=0)) == 2
