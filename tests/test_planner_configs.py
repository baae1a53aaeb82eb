"""The planner's family rules read from a model's config fields, as SGLang 0.5.23 decides them.

Each expected figure is worked out from the engine's code cited beside it, not by calling the code under test:
which sliding-window models get a pool of their own (configs/model_config.py:is_hybrid_swa_model), the
context the engine derives from config.json (utils/hf_transformers/common.py:get_context_length), which
architectures are multimodal (configs/model_config.py:multimodal_model_archs) and what a checkpoint's
tensors weigh.
"""

from __future__ import annotations

import pytest

from handbook.calc import memory, sizing
from handbook.kb.loader import load_kb
from handbook.kb.schema import Precision, RopeScaling

KB = load_kb()
BF16, MXFP4 = KB.dtypes["bf16"], KB.dtypes["mxfp4"]
H100 = KB.hardware["h100"]


def variant(model_id: str, precisions: list[Precision] | None = None, **config):
    model = KB.models[model_id]
    update: dict = {"config": model.config.model_copy(update=config)}
    if precisions is not None:
        update["precisions"] = precisions
    return model.model_copy(update=update)


# ------------------------------------------------------------------------------------------- sliding window
# llama-3.1-8b's shape (8 KV heads × (128 + 128) × 2 bytes = 4,096 bytes per layer per token) with 16
# sliding and 16 full layers, under three architectures.
HALF = {"sliding_attention": 16, "full_attention": 16}


@pytest.mark.parametrize(
    ("arch", "pooled", "full_layers", "swa_bytes"),
    [
        # Gemma-2 is not a hybrid-SWA architecture: every layer keeps its tokens in the one pool
        ("Gemma2ForCausalLM", False, 32, 0),
        ("Gemma3ForCausalLM", False, 32, 0),
        # gpt-oss is (SWA_SINK_ARCHS): the 16 sliding layers get their own pool
        ("GptOssForCausalLM", True, 16, 16 * 4096),
        ("Llama4ForConditionalGeneration", True, 16, 16 * 4096),
    ],
)
def test_the_sliding_window_pool_follows_the_engines_architecture_rule(arch, pooled, full_layers, swa_bytes):
    model = variant("llama-3.1-8b", architectures=[arch], layer_types_count=HALF, sliding_window=4096)
    assert sizing.is_hybrid_swa(model) is pooled
    assert memory.has_sliding_window(model) is pooled
    cell = memory.kv_cell(model, BF16)
    assert (cell.layers_counted, cell.bytes_per_token, cell.swa_bytes_per_token) == (
        full_layers,
        full_layers * 4096,
        swa_bytes,
    )
    p = memory.plan(model, H100, BF16, BF16, 1)
    assert ("swa-pool" in p.notes) is pooled


def test_the_engines_own_exceptions_to_the_sliding_window_list():
    # BeamForCausalLM: a pool of its own only with sliding layers; Laguna: only with a window
    beam = variant(
        "llama-3.1-8b", architectures=["BeamForCausalLM"], layer_types_count={"full_attention": 32}
    )
    assert sizing.is_hybrid_swa(beam) is False
    laguna = variant("llama-3.1-8b", architectures=["LagunaForCausalLM"], layer_types_count=HALF)
    assert sizing.is_hybrid_swa(laguna) is False
    assert sizing.is_hybrid_swa(
        variant("llama-3.1-8b", architectures=["LlamaForCausalLM"], is_hybrid_swa=True)
    )
    # unknown architecture: the larger (separate) pool is assumed and the plan says it is a bound
    unknown = variant("llama-3.1-8b", architectures=None, layer_types_count=HALF)
    assert sizing.is_hybrid_swa(unknown) is None and memory.has_sliding_window(unknown)
    assert "architecture" in memory.plan(unknown, H100, BF16, BF16, 1).bounds


# ------------------------------------------------------------------------------------------- context
@pytest.mark.parametrize(
    ("positions", "rope", "derived"),
    [
        (131_072, None, 131_072),
        # llama3 scaling: the factor is not applied
        (
            131_072,
            RopeScaling(rope_type="llama3", factor=8.0, original_max_position_embeddings=8192),
            131_072,
        ),
        # YaRN with the original length named (DeepSeek-V3): not applied either
        (163_840, RopeScaling(rope_type="yarn", factor=40.0, original_max_position_embeddings=4096), 163_840),
        # a factor alone multiplies: int(4.0 × 32,768)
        (32_768, RopeScaling(rope_type="yarn", factor=4.0), 131_072),
        (32_768, RopeScaling(factor=2.5), 81_920),
    ],
)
def test_the_context_is_derived_like_the_engine_when_the_kb_states_none(positions, rope, derived):
    model = variant("llama-3.3-70b", max_position_embeddings=positions, rope_scaling=rope)
    assert model.context is None
    assert sizing.derived_context(model) == derived
    assert memory.resolve_context(model, None) == derived
    assert memory.plan(model, H100, BF16, BF16, 8).context == derived
    # a context asked for wins
    assert memory.resolve_context(model, 4096) == 4096


def test_without_max_position_embeddings_the_planner_keeps_its_stated_default():
    model = variant("llama-3.3-70b", max_position_embeddings=None)
    assert sizing.derived_context(model) is None
    assert memory.resolve_context(model, None) == memory.DEFAULT_CONTEXT == 8192


def test_a_derived_context_above_8192_brings_aiters_scaling_on_amd():
    # attention_hook.py:244-268: aiter above 8,192 tokens scales the fraction by 0.85
    mi300x = KB.hardware["mi300x"]
    short = variant("llama-3.3-70b", architectures=["LlamaForCausalLM"], max_position_embeddings=None)
    long = variant("llama-3.3-70b", architectures=["LlamaForCausalLM"], max_position_embeddings=131_072)
    p_short, p_long = memory.plan(short, mi300x, BF16, BF16, 1), memory.plan(long, mi300x, BF16, BF16, 1)
    assert "aiter" not in p_short.notes and "aiter" in p_long.notes
    assert p_long.mem_fraction_static == pytest.approx(p_short.mem_fraction_static * 0.85)
    assert not p_long.bounds


# ------------------------------------------------------------------------------------------- multimodal
@pytest.mark.parametrize(
    "arch",
    [
        "Qwen2_5_VLForConditionalGeneration",
        "Glm4vForConditionalGeneration",
        "KimiK25ForConditionalGeneration",
    ],
)
def test_any_multimodal_architecture_of_the_engine_gets_the_encoder_reservation(arch):
    model = variant("llama-3.1-8b", architectures=[arch])
    assert sizing.is_multimodal(model) is True
    p = memory.plan(model, H100, BF16, BF16, 1)
    assert p.mm_reserve_bytes == 100 * 2**20  # SGLANG_VLM_CACHE_SIZE_MB
    # no vision_config in the KB: the default fraction takes its largest factor, a stated bound
    assert "vision-config" in p.bounds


def test_the_engines_multimodal_list_is_whole():
    # configs/model_config.py:2391-2473 lists 80 names and splices MIMO_V2_MULTIMODAL_ARCHS (one more)
    assert len(sizing.MULTIMODAL) == 81
    assert "MiMoV2ForCausalLM" in sizing.MULTIMODAL and "LlamaForCausalLM" not in sizing.MULTIMODAL


# ------------------------------------------------------------------------------------------- weights
def test_a_mixed_precision_checkpoint_weighs_what_its_tensors_hold():
    # 2,000,000,000 BF16 elements (2 bytes) + 60,000,000,000 U8 elements (1 byte) + 1,000 F32 (4 bytes)
    held = Precision(
        dtype="mxfp4",
        checkpoint="example/mixed",
        tensor_elements={"BF16": 2_000_000_000, "U8": 60_000_000_000, "F32": 1_000},
        source="handbook",
    )
    model = variant("gpt-oss-120b", precisions=[held])
    w = memory.weights(model, MXFP4)
    assert (w.basis, w.total_bytes) == ("checkpoint", 64_000_004_000)
    # the index's total size alone serves where no inventory is known
    by_index = held.model_copy(update={"tensor_elements": {}, "checkpoint_bytes": 65_248_815_744})
    assert memory.weights(variant("gpt-oss-120b", precisions=[by_index]), MXFP4).total_bytes == 65_248_815_744
    # another dtype of the same model is still parameters × bits
    assert memory.weights(model, BF16).basis == "published"


# ------------------------------------------------------------------------------------------- read whole
def test_a_key_the_whole_config_lacks_takes_the_engines_default_exactly():
    from handbook.kb.schema import VisionConfig

    qwen = KB.models["qwen3.5-397b-a17b"]
    unknown = memory.plan(qwen, H100, BF16, BF16, 8)
    assert "state-dtype" in unknown.bounds
    # the file read whole, and it has no mamba_ssm_dtype: float32 (configs/mamba_utils.py:47-107), exact
    absent = variant("qwen3.5-397b-a17b", absent=["mamba_ssm_dtype"])
    assert sizing.state_dtype(absent) == "float32"
    exact = memory.plan(absent, H100, BF16, BF16, 8)
    assert "state-dtype" not in exact.bounds
    assert exact.state_bytes_per_request > unknown.state_bytes_per_request  # the bound took the smaller
    # a vision config without num_hidden_layers (Qwen-VL's depth): the engine's 24
    bare = variant("qwen3.5-397b-a17b", vision_config=VisionConfig(hidden_size=1024))
    assert sizing.vision_shape(bare) == (1024, 24)
    # ratio 24 × 1,024² / (24 × 1,024²) = 1 → factor 0.95 exactly
    p = memory.plan(bare, H100, BF16, BF16, 8)
    assert p.mem_fraction_default == pytest.approx(p_default(H100, 8) * 0.95)
    assert "vision-config" not in p.bounds


def p_default(hw, tp: int) -> float:
    # memory_hook.py: H100 reports 81,559 MiB; chunk 8,192, max_bs 512 at TP ≥ 4; reserve ≥ 10 GiB
    reserve = max(512 + 8192 * 1.5 + tp / 8 * 1024 + 512 * 2, 10 * 1024)
    return round((hw.memory_mib_reported - reserve) / hw.memory_mib_reported, 3)


# ------------------------------------------------------------------------------------------- extra configs
def test_the_moe_gqa_count_matches_qwen3_30b_a3b_s_published_total():
    """Qwen3-30B-A3B's model card states 30.5B parameters; its config.json (tests/fixtures/extra-configs,
    with its provenance) through the Qwen3-MoE formula: 2 × 151,936 × 2,048 + 48 × (2,048 × 32 × 128
    + 2 × 2,048 × 4 × 128 + 32 × 128 × 2,048 + 2 × 128 + 128 × 3 × 2,048 × 768 + 128 × 2,048 + 2 × 2,048)
    + 2,048."""
    from pathlib import Path

    from handbook.calc import params
    from handbook.kb.from_config import extra_models

    models = extra_models(Path(__file__).parent / "fixtures" / "extra-configs")
    count = params.param_count(models["qwen3-30b-a3b"])
    layer = 2048 * 32 * 128 + 2 * 2048 * 4 * 128 + 32 * 128 * 2048 + 2 * 128 + 128 * 3 * 2048 * 768
    layer += 128 * 2048 + 2 * 2048
    assert (count.family, count.total) == ("gqa-moe", 2 * 151_936 * 2048 + 48 * layer + 2048)
    assert round(count.total / 1e9, 1) == 30.5
    # the dense Qwen2.5-7B (7.61B on its card) by the dense formula, its q, k, v biases included
    assert round(params.param_count(models["qwen2.5-7b"]).total / 1e9, 2) == 7.62


@pytest.mark.parametrize("arch", sorted(sizing.MULTIMODAL_OFF_BY_DEFAULT))
def test_architectures_the_engine_serves_text_only_by_default_get_no_reservation(arch):
    # configs/model_config.py:690-704: Gemma-3, Llama-4, Step3-VL, Inkling without --enable-multimodal
    model = variant("llama-3.1-8b", architectures=[arch])
    assert sizing.is_multimodal(model) is False
    p = memory.plan(model, H100, BF16, BF16, 1)
    assert p.mm_reserve_bytes == 0 and "vlm-fraction" not in p.notes
