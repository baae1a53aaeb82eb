"""Every launch recipe replayed through SGLang's start-up resolution (kb/engine/replay-sglang-<v>.json):
its inputs, its freshness, and how the site shows it. No engine is needed here: the replay itself runs
in ``nox -s engine-replay``; these tests read what it stored and rebuild its inputs from the KB.

The outcomes asserted for the three corrected commands are the ones their ``corrections:`` entries cite
from the 0.5.23 wheel (speculative_hook.py _handle_eagle_family lines 1160-1162 and 1274,
parallel_hook.py handle_data_parallelism line 326).
"""

from __future__ import annotations

import re

import pytest

from handbook.checker.replays import (
    RERUN,
    entry_for,
    freshness,
    load_replays,
    model_config,
    replay_input,
    replay_path,
    replayed_recipes,
    source_command,
)
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.recipes import check_block
from handbook.render.replays import engine_replays, replay_view


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def data(kb):
    return load_replays(kb.handbook.engine_version)


def _plain(html: str) -> str:
    import html as h

    return re.sub(r"\s+", " ", h.unescape(re.sub(r"<[^>]+>", " ", html))).strip()


# ------------------------------------------------------------------------------------------ freshness
@pytest.mark.slow
def test_every_launch_recipe_has_a_fresh_replay(kb, data):
    """A recipe (or its model, or its hardware) that changed since the replay is stale: rerun it."""
    assert data is not None, f"no {replay_path(kb.handbook.engine_version)}: run {RERUN}"
    state = freshness(kb, data)
    problems = [f"stale: {r}" for r in state.stale] + [f"never replayed: {r}" for r in state.missing]
    problems += [f"replayed but no longer a launch recipe: {r}" for r in state.extra]
    assert state.ok, "\n".join(problems) + f"\nRegenerate the replays with:\n\n    {RERUN}\n"


def test_the_replay_is_keyed_by_engine_release_and_recipe_hash(kb, data):
    assert data["engine"] == kb.handbook.engine_version
    assert data["wheel"] == f"sglang {kb.handbook.engine_version}"
    for recipe in replayed_recipes(kb):
        assert re.fullmatch(r"[0-9a-f]{16}", data["recipes"][recipe.id]["hash"])
    assert len(replayed_recipes(kb)) == 24


def test_a_changed_command_shows_as_stale(kb, data):
    recipe = kb.recipes["qwen3.8-flash-next-fp8-b300-tep4"]
    assert entry_for(recipe, kb, data)[0] == "fresh"
    changed = recipe.model_copy(update={"flags": recipe.flags[:-1]})  # one flag line dropped
    state, entry = entry_for(changed, kb, data)
    assert state == "stale" and entry is not None
    ctx = RenderContext(kb=kb, lang="en", page="06-models.md", command_status=True)
    view = replay_view(ctx, changed)
    assert view is not None and view.short == "replay out of date"
    shown = _plain(view.body)
    assert shown == (
        "The engine replay is out of date: the command, its model's fields or its hardware changed since. "
        f"Rerun: {RERUN}"
    )
    assert "AssertionError" not in shown  # the old outcome is never shown as if current


# ------------------------------------------------------------------------------------------ inputs
def test_config_json_comes_from_the_kb_only(kb):
    config, origin, missing = model_config(kb.models["qwen3.8-flash-next"])
    assert missing == ()
    assert config["architectures"] == ["Qwen4ExpForConditionalGeneration"]
    assert config["model_type"] == "qwen4_exp"
    text = config["text_config"]
    assert text["model_type"] == "qwen4_exp_text"
    assert (text["num_hidden_layers"], text["num_key_value_heads"], text["head_dim"]) == (48, 2, 256)
    assert (text["num_experts"], text["num_experts_per_tok"]) == (512, 10)  # KB experts, the class's names
    assert text["max_position_embeddings"] == 262144  # KB context.native
    # every field has a KB origin: nothing filled in
    fields = {f"text_config.{k}" for k in text if k != "model_type"} | {"architectures", "model_type"}
    assert fields == set(origin)
    assert origin["text_config.num_experts"] == "experts.routed (qwen3.8-flash-next-fp8-config-transcription)"
    assert "layer_types_count" not in text  # a KB summary, not a config.json field


def test_a_model_without_a_published_class_is_not_replayable(kb, data):
    inputs = replay_input(kb.recipes["kimi-k3.1-pro-tp8-low-latency"], kb)
    assert not inputs.replayable
    assert inputs.missing == ("architectures", "model_type")
    assert inputs.also_unknown == ("kv_lora_rank", "num_hidden_layers", "qk_rope_head_dim")
    entry = data["recipes"]["kimi-k3.1-pro-tp8-low-latency"]
    assert entry["status"] == "not-replayable" and "variants" not in entry
    ctx = RenderContext(kb=kb, lang="zh", page="06-models.md", command_status=True)
    view = replay_view(ctx, kb.recipes["kimi-k3.1-pro-tp8-low-latency"])
    assert view is not None and view.short == "未重放（本 KB 没有模型配置）"
    assert _plain(view.body) == (
        "未用引擎重放：本 KB 没有 architectures, model_type（知识库不猜）；知识库还标记 kv_lora_rank, "
        "num_hidden_layers, qk_rope_head_dim 未知"
    )


def test_the_accelerator_named_first_is_emulated(kb):
    assert replay_input(kb.recipes["qwen3.8-flash-next-fp8-b300-tep4"], kb).accelerator.capability == (10, 3)
    h200 = replay_input(kb.recipes["qwen3.5-397b-fp8-h200-tp8"], kb).accelerator
    # the device-reported memory where the KB records it (143,771 MiB for the H200), else the GB × 1024
    assert (h200.id, h200.vendor, h200.memory_mib) == (
        "h200",
        "nvidia",
        kb.hardware["h200"].memory_mib_reported,
    )
    assert kb.hardware["h200"].memory_mib_reported == 143_771
    assert replay_input(kb.recipes["gpt-oss-120b-tool-calling"], kb).accelerator is None  # names none: CPU


@pytest.mark.parametrize(
    ("recipe_id", "source_has", "source_lacks"),
    [
        ("qwen3.8-flash-next-fp8-b300-tep4", "--speculative-algorithm NEXTN --speculative-num-draft-tokens 3",
         "--speculative-eagle-topk"),
        ("deepseek-v4-pro-mi355x-pd-decode", "--tp-size 4 --ep-size 4 --moe-a2a-backend mori --attn-dp-size 8",
         "--attn-dp-size 4"),
        ("gpt-oss-120b-tp4", "--tp 4", "--tp-size"),
    ],
)  # fmt: skip
def test_the_source_command_puts_each_correction_back(kb, recipe_id, source_has, source_lacks):
    from handbook.calc.recipe_text import command_text

    recipe = kb.recipes[recipe_id]
    source = source_command(recipe, command_text(recipe))
    assert source is not None and source_has in source and source_lacks not in source


def test_a_correction_of_another_command_is_not_applied(kb):
    recipe = kb.recipes["qwen3.8-flash-next-fp8-b300-tep4"]  # its speed_bench correction is the benchmark's
    assert any("speed_bench" in c.stated for c in recipe.corrections)
    from handbook.calc.recipe_text import command_text

    assert "speed_bench" not in source_command(recipe, command_text(recipe))
    assert source_command(kb.recipes["glm-5.3-hicache"], "python -m sglang.launch_server --x 1") is None


# ------------------------------------------------------------------------------------------ outcomes
def _variant(data, recipe_id, name, where="variants"):
    return data["recipes"][recipe_id][where][name]


def test_the_three_corrected_commands_are_settled(data):
    qwen_source = _variant(data, "qwen3.8-flash-next-fp8-b300-tep4", "source")
    assert (qwen_source["accepted"], qwen_source["raised"]) == (False, "AssertionError")
    assert qwen_source["at"] == "sglang/srt/arg_groups/speculative_hook.py:1162 (_handle_eagle_family)"
    assert _variant(data, "qwen3.8-flash-next-fp8-b300-tep4", "published")["accepted"]
    # on DeepSeek-V4-Pro itself since the KB names its architecture (before, on a stand-in model)
    assert data["recipes"]["deepseek-v4-pro-mi355x-pd-decode"]["status"] == "replayed"
    assert _variant(data, "deepseek-v4-pro-mi355x-pd-decode", "source")["at"] == (
        "sglang/srt/arg_groups/parallel_hook.py:326 (handle_data_parallelism)"
    )
    assert _variant(data, "deepseek-v4-pro-mi355x-pd-decode", "published")["accepted"]
    kimi = data["recipes"]["kimi-k3.1-pro-b300-dcp8-full"]["stand_in"]
    assert (kimi["source"]["raised"], kimi["source"]["at"]) == (
        "TypeError",
        "sglang/srt/arg_groups/speculative_hook.py:1274 (_handle_eagle_family)",
    )
    assert kimi["published"]["accepted"]


def _change(result, field):
    (change,) = [c for c in result["adjusted"] if c["field"] == field]
    return change


def test_engine_adjustments_carry_their_log_line(data):
    ep = _change(_variant(data, "deepseek-v3-pd-decode", "published"), "ep_size")
    assert (ep["from"], ep["to"], ep["by"], ep["filled"]) == (1, 16, "_a2a_ep_size", False)
    assert ep["log"]["message"].startswith(
        "deepep MoE is enabled. The expert parallel size is adjusted from 1"
    )
    capped = _change(_variant(data, "qwen3.8-flash-next-fp8-b300-tep4", "published"), "max_running_requests")
    assert (capped["to"], capped["by"]) == (48, "_handle_eagle_family")
    assert capped["log"]["at"].startswith("sglang/srt/arg_groups/speculative_hook.py:")
    nextn = _change(_variant(data, "qwen3.8-flash-next-fp8-b300-tep4", "published"), "speculative_algorithm")
    assert (nextn["from"], nextn["to"], nextn["explicit"]) == ("NEXTN", "EAGLE", True)


# ------------------------------------------------------------------------------------------ the site
@pytest.mark.parametrize(
    ("lang", "line", "summary"),
    [
        ("en", "1 warning (checked against sglang 0.5.23) · startup replay: the published command accepted, "
               "8 values adjusted; the source's command refused (AssertionError)",
         "SGLang 0.5.23's startup resolution (replayed on a CPU emulating NVIDIA B300): the source's "
         "command refused (AssertionError at sglang/srt/arg_groups/speculative_hook.py:1162"),
        ("zh", "1 条警告（已对照 sglang 0.5.23 检查） · 启动重放：本站写法通过，调整 8 个值；源稿写法启动失败（AssertionError）",
         "SGLang 0.5.23 启动时的参数解析（在 CPU，模拟 NVIDIA B300 上重放）：源稿的写法启动失败，"
         "sglang/srt/arg_groups/speculative_hook.py:1162"),
    ],
)  # fmt: skip
def test_the_replay_is_folded_under_the_status_line_in_both_languages(kb, lang, line, summary):
    ctx = RenderContext(kb=kb, lang=lang, page="06-models.md", command_status=True)
    block = check_block(ctx, kb.recipes["qwen3.8-flash-next-fp8-b300-tep4"])
    assert block.startswith('<details class="cmd-check warning"><summary><span class="cmd-mark"></span>')
    folded = block[block.index("</summary>") :]
    assert _plain(block[: block.index("</summary>")]) == line  # one line: the check and the replay
    assert _plain(folded).startswith({"en": "Warning", "zh": "警告"}[lang])  # the finding, then the replay
    assert summary in _plain(folded)
    assert "max_running_requests" in _plain(folded)


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "Checked against sglang 0.5.23 · startup replay: the published command stopped partway on the CPU "
               "(AssertionError); the source's command stopped partway on the CPU (ValueError)"),
        ("zh", "已对照 sglang 0.5.23 检查 · 启动重放：本站写法在 CPU 上中途停下（AssertionError）；"
               "源稿写法在 CPU 上中途停下（ValueError）"),
    ],
)  # fmt: skip
def test_two_commands_that_stop_at_different_places_are_not_called_the_same(kb, lang, line):
    """The YaRN command: the source's stops at the context-length check (a ValueError a GPU would raise too),
    the published one gets past it and stops at a CPU platform gate; the status line tells them apart."""
    ctx = RenderContext(kb=kb, lang=lang, page="06-models.md", command_status=True)
    block = check_block(ctx, kb.recipes["qwen3.5-397b-fp8-long-context-yarn"])
    assert _plain(block[: block.index("</summary>")]) == line
    folded = _plain(block[block.index("</summary>") :])
    if lang == "en":
        assert (
            "the source's command stopped in the CPU replay (ValueError at sglang/srt/configs/model_config.py:1314"
            in folded
        )


def test_the_overview_counts_every_recipe(kb):
    ctx = RenderContext(kb=kb, lang="en", page="compatibility.md")
    table = engine_replays(ctx)
    assert len(re.findall(r'<tr id="replay-', table)) == 24
    # Llama-3.1-8B's two PD commands are replayable since the KB names its architecture, and so are
    # DeepSeek-V4-Pro's two MI355X PD commands
    assert "19 commands replayed" in _plain(table) and "5 not replayable" in _plain(table)
