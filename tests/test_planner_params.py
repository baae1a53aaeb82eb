"""Parameter counts from the architecture fields, where no total is published, against published totals, and
the engine defaults the planner reads from the snapshot rather than typing them."""

from __future__ import annotations

import json

import pytest

from handbook.calc import params, sizing
from handbook.engine.snapshot import load_snapshot, parse_snapshot, snapshot_path
from handbook.kb.loader import load_kb

KB = load_kb()


def test_deepseek_v3s_formula_reproduces_its_published_671b():
    """DeepSeek's README_WEIGHTS.md (copied in tenstorrent/tt-metal models/demos/deepseek_v3/reference):
    "Total parameters: 671B" for the main model (embeddings, 61 layers, the head; the MTP module apart)."""
    count = params.param_count(KB.models["deepseek-v3"])
    assert count.family == "mla-moe"
    assert count.total == 671_026_419_200
    assert count.total == pytest.approx(671e9, rel=1e-3)


def test_llamas_formula_is_the_sum_of_its_tensors():
    """Llama-3.1-8B by hand, tensor by tensor (models/llama.py): embeddings and an untied head of
    128,256 × 4,096; per layer q and o (4,096 × 32 × 128 each), k and v (4,096 × 8 × 128 each), gate, up
    and down (3 × 4,096 × 14,336) and two norms; the final norm. The name's "8B" is what it rounds to."""
    embeddings = 128_256 * 4_096
    layer = 2 * 4_096 * 32 * 128 + 2 * 4_096 * 8 * 128 + 3 * 4_096 * 14_336 + 2 * 4_096
    expected = 2 * embeddings + 32 * layer + 4_096
    count = params.param_count(KB.models["llama-3.1-8b"])
    assert (count.family, count.total) == ("dense-gqa", expected) == ("dense-gqa", 8_030_261_248)
    assert count.total == pytest.approx(8e9, rel=0.01)
    seventy = params.param_count(KB.models["llama-3.3-70b"])
    assert seventy.total == pytest.approx(70e9, rel=0.01)


def test_models_with_a_published_total_or_no_formula_are_left_alone():
    assert params.param_count(KB.models["gpt-oss-120b"]) is None  # sliding-window layers: no formula
    assert params.param_count(KB.models["glm-5.3"]) is None  # a DSA indexer: no formula
    assert params.missing_fields(KB.models["qwen3.5-397b-a17b"]) == ["params.total_b"]
    assert params.missing_fields(KB.models["glm-5"]) == ["params.total_b"]  # its config has a DSA indexer


# ------------------------------------------------------------------------------------------ engine defaults
# Each default the planner uses, tied to the snapshot's entry for it (kb/engine/sglang-0.5.23.json).
SNAPSHOT_VALUES = {
    "swa_full_tokens_ratio": 0.8,
    "mamba_full_memory_ratio": 0.9,
    "vlm_cache_mib": 100,
    "mamba_conv_dtype": "bfloat16",
    "use_aiter": False,
    "aiter_honors_explicit_fraction": False,
    "dsv4_kv_layout": "v4",
    "dsv4_compress_state_dtype": "float32",
}


def test_every_engine_default_comes_from_its_snapshot_entry():
    snapshot = load_snapshot()
    defaults = sizing.engine_defaults()
    assert set(sizing.DEFAULT_SOURCES) == set(SNAPSHOT_VALUES)
    for name, (kind, key) in sizing.DEFAULT_SOURCES.items():
        if kind == "option":
            entry = snapshot.option("launch_server", key).engine_field.fallback
        else:
            entry = snapshot.env_var(key).default
        assert getattr(defaults, name) == entry == SNAPSHOT_VALUES[name], name


def test_a_snapshot_with_other_defaults_gives_other_defaults():
    data = json.loads(snapshot_path().read_text(encoding="utf-8"))
    for option in data["parsers"]["launch_server"]["options"]:
        if option["dest"] == "swa_full_tokens_ratio":
            option["engine_field"]["fallback"] = 0.5
    assert sizing.defaults_from(parse_snapshot(data)).swa_full_tokens_ratio == 0.5
