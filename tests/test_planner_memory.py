"""The planner's arithmetic against SGLang's formulas, with golden values worked out by hand from the configs.

Every expected number below is written from the model's config.json fields (as kb/models records them) and
SGLang 0.5.23's formulas, not by calling the code under test:
  MLA:     (kv_lora_rank + qk_rope_head_dim) × layers × bytes
  MHA/GQA: max(1, kv_heads // tp) × (head_dim + v_head_dim) × layers × bytes
  default --mem-fraction-static: round((MiB − reserve) / MiB, 3), reserve = max(512 + chunk × 1.5
      + tp / 8 × 1024 + max_bs × 2, 10240) MiB (arg_groups/memory_hook.py)
  pool (GiB): (free − weights) − free × (1 − fraction) [− the multimodal 100 MiB]; tokens = bytes // cell
tests/test_planner_oracle.py holds the same functions to the engine's own results over the whole KB.
"""

from __future__ import annotations

import dataclasses

import pytest

from handbook.calc import memory
from handbook.calc.launch import (
    ModelPath,
    RuleFlag,
    launch_command,
    launch_flags,
    model_path,
    rule_flags,
    rule_max_running_requests,
    suggested_command,
)
from handbook.kb.loader import load_kb

KB = load_kb()
BF16, FP8, FP8_E5M2 = KB.dtypes["bf16"], KB.dtypes["fp8"], KB.dtypes["fp8_e5m2"]
GIB, MIB = 2**30, 2**20


def default_fraction(mib: int, chunk: int, max_bs: int, tp: int) -> float:
    """memory_hook.py's default, written out for the tests."""
    reserve = max(512 + chunk * 1.5 + tp / 8 * 1024 + max_bs * 2, 10 * 1024)
    return round((mib - reserve) / mib, 3)


# model → (BF16 bytes/token for the whole model, per GPU at TP 8, layers counted) or the missing fields.
KV_GOLDEN: dict[str, tuple[int, int, int] | list[str]] = {
    # (512 + 64) × 61 × 2; the latent is whole on every GPU
    "deepseek-v3": (70_272, 70_272, 61),
    # its config.json has the layers and the rope width, and no kv_lora_rank (its pool is not MLA's)
    "deepseek-v4-pro": ["kv_lora_rank"],
    "deepseek-v4.1-flash": ["num_hidden_layers", "kv_lora_rank", "qk_rope_head_dim"],
    # (512 + 64) × 78 × 2
    "glm-5.3": (89_856, 89_856, 78),
    "glm-5": (89_856, 89_856, 78),
    # 18 full-attention layers: 8 × (64 + 64) × 18 × 2; TP 8 → 1 head: 1 × 128 × 18 × 2
    "gpt-oss-120b": (36_864, 4_608, 18),
    # the 24 MLA layers are known; the latent's dimensions are not
    "kimi-k3.1-pro": ["kv_lora_rank", "qk_rope_head_dim"],
    # 8 × (128 + 128) × 32 × 2; TP 8 → 1 × 256 × 32 × 2
    "llama-3.1-8b": (131_072, 16_384, 32),
    # 8 × (128 + 128) × 80 × 2; TP 8 → 1 × 256 × 80 × 2
    "llama-3.3-70b": (327_680, 40_960, 80),
    # 4 × (128 + 128) × 60 × 2; TP 8 → 1 × 256 × 60 × 2
    "minimax-m3": (122_880, 30_720, 60),
    # 15 full-attention layers of 60: 2 × (256 + 256) × 15 × 2; TP 8 → max(1, 2 // 8) = 1 head
    "qwen3.5-397b-a17b": (30_720, 15_360, 15),
    # 12 full-attention layers of 48: 2 × 512 × 12 × 2; TP 8 → 1 × 512 × 12 × 2
    "qwen3.8-flash-next": (24_576, 12_288, 12),
}

# model → {weights dtype: bytes} = total_b × 10^9 × bits / 8 (NVFP4 4.5 bits, MXFP4 4.25, MXFP8 8.25);
# where no total is published, {dtype: parameters from the architecture formula × bits / 8} (params.py; the
# counts themselves are checked in tests/test_planner_params.py)
WEIGHTS_GOLDEN: dict[str, dict[str, float] | None] = {
    "deepseek-v3": {"bf16": 671_026_419_200 * 2, "fp8": 671_026_419_200},
    "deepseek-v4-pro": {"fp4": 800e9, "fp8": 1600e9},
    "deepseek-v4.1-flash": {"fp8": 552e9},
    "glm-5.3": {"fp8": 743e9, "nvfp4": 417.9375e9, "w4a8": 371.5e9, "mxfp4": 394.71875e9},
    "glm-5": {"bf16": 743_911_218_432 * 2},  # no published total: its MLA + MoE + DSA formula
    # MXFP4 experts + BF16 rest (handbook.calc.params): 114,661,785,600 × 4.25 / 8 + 2,167,371,072 × 2
    "gpt-oss-120b": {"mxfp4": 60_914_073_600 + 4_334_742_144},
    "kimi-k3.1-pro": {"mxfp4": 1487.5e9},
    "llama-3.1-8b": {"bf16": 8_030_261_248 * 2},
    "llama-3.3-70b": {"bf16": 70_553_706_496 * 2},
    "minimax-m3": {"mxfp8": 440.34375e9, "bf16": 854e9, "nvfp4": 240.1875e9},
    "qwen3.5-397b-a17b": {"bf16": 794e9, "fp8": 397e9, "nvfp4": 223.3125e9, "mxfp4": 210.90625e9},
    "qwen3.8-flash-next": {"nvfp4": 99e9, "fp8": 176e9, "mxfp4": 93.5e9, "bf16": 352e9},
}


def test_the_golden_tables_cover_every_model_of_the_kb():
    assert set(KV_GOLDEN) == set(KB.models)
    assert set(WEIGHTS_GOLDEN) == set(KB.models)


@pytest.mark.parametrize("model_id", sorted(KV_GOLDEN))
def test_kv_cell_matches_sglang_for_every_model(model_id):
    model, golden = KB.models[model_id], KV_GOLDEN[model_id]
    if isinstance(golden, list):
        for dtype in (BF16, FP8):
            with pytest.raises(memory.NotPublished) as caught:
                memory.kv_cell(model, dtype)
            assert caught.value.missing == golden
            assert str(caught.value) == f"{model_id}: not in this KB: {', '.join(golden)}"
        return
    whole, per_gpu_tp8, layers = golden
    bf16 = memory.kv_cell(model, BF16)
    assert (bf16.bytes_per_token, bf16.per_rank_bytes, bf16.layers_counted) == (whole, whole, layers)
    assert memory.kv_cell(model, BF16, attn_tp=8).per_rank_bytes == per_gpu_tp8
    # one byte per element: exactly half, for both FP8 formats
    assert memory.kv_cell(model, FP8).bytes_per_token == whole // 2
    assert memory.kv_cell(model, FP8_E5M2, attn_tp=8).per_rank_bytes == per_gpu_tp8 // 2


@pytest.mark.parametrize("model_id", sorted(WEIGHTS_GOLDEN))
def test_weight_bytes_for_every_published_precision(model_id):
    model, golden = KB.models[model_id], WEIGHTS_GOLDEN[model_id]
    if golden is None:
        with pytest.raises(memory.NotPublished) as caught:
            memory.weight_bytes(model, BF16)
        assert caught.value.missing == ["params.total_b"]
        return
    if model.params.total_b is None:  # no published total: the architecture formula, any dtype
        for dtype_id, expected in golden.items():
            w = memory.weights(model, KB.dtypes[dtype_id])
            assert (w.total_bytes, w.basis) == (expected, "formula")
        return
    assert {p.dtype for p in model.precisions} == set(golden)
    for dtype_id, expected in golden.items():
        assert memory.weight_bytes(model, KB.dtypes[dtype_id]) == pytest.approx(expected, rel=1e-15)


def test_hybrid_models_say_where_the_other_layers_live():
    oss = memory.kv_cell(KB.models["gpt-oss-120b"], BF16)
    assert oss.elsewhere == {"sliding_attention": 18}
    assert oss.swa_bytes_per_token == 8 * (64 + 64) * 18 * 2  # the SWA pool's rows, same heads and dims
    qwen = memory.kv_cell(KB.models["qwen3.5-397b-a17b"], BF16)
    assert qwen.elsewhere == {"linear_attention": 45}
    assert qwen.swa_bytes_per_token == 0
    assert memory.kv_cell(KB.models["glm-5.3"], BF16).sparse_indexer  # index_topk 2048: DSA indexer
    assert memory.kv_cell(KB.models["glm-5"], BF16).sparse_indexer  # its config.json has one too
    assert not memory.kv_cell(KB.models["llama-3.1-8b"], BF16).sparse_indexer


def test_kv_heads_are_replicated_once_tp_exceeds_them():
    llama = KB.models["llama-3.3-70b"]
    assert memory.kv_cell(llama, BF16, attn_tp=8).replicated is False
    assert memory.kv_cell(llama, BF16, attn_tp=16).replicated is True
    assert memory.kv_cell(llama, BF16, attn_tp=16).per_rank_bytes == 1 * 256 * 80 * 2
    with pytest.raises(ValueError, match="fp4 is not a KV-cache dtype"):
        memory.kv_cell(llama, KB.dtypes["fp4"])


def test_weight_share_over_tp_and_ep():
    assert memory.weight_share(743e9, 8) == 92.875e9
    assert memory.weight_share(743e9, 8, ep=8) == 92.875e9  # EP moves experts; each is still held once
    with pytest.raises(ValueError, match=r"ep must divide tp \(8\), got 3"):
        memory.weight_share(743e9, 8, ep=3)
    with pytest.raises(ValueError, match="tp must be at least 1, got 0"):
        memory.weight_share(743e9, 0)


def test_kv_pool_tokens_floor_cap_and_page():
    assert memory.kv_pool_tokens(20_600_000_000.0, 15_360) == 1_341_145  # ⌊20.6e9 / 15,360⌋
    assert memory.kv_pool_tokens(20_600_000_000.0, 15_360, page_size=64) == 1_341_120
    assert memory.kv_pool_tokens(20_600_000_000.0, 15_360, 64, max_total_tokens=1_000_001) == 1_000_000
    assert memory.kv_pool_tokens(-5.0, 15_360) == 0


def test_plan_llama_on_one_h100_is_the_engines_default_plan():
    p = memory.plan(KB.models["llama-3.1-8b"], KB.hardware["h100"], BF16, BF16, tp=1)
    # 81,559 MiB reported: chunk 8192, decode graph 256 at TP 1 → reserve max(13,440, 10,240)
    assert p.mem_fraction_static == p.mem_fraction_default == default_fraction(81_559, 8192, 256, 1) == 0.835
    assert (p.device_mib, p.free_bytes) == (81_559, 81_559 * MIB)
    assert (p.attention_backend, p.page_size) == ("fa3", 1)
    weights = 8_030_261_248 * 2
    assert (p.weights_basis, p.weights_per_gpu) == ("formula", weights)
    pre = 81_559 / 1024
    rest = (pre - weights / GIB) - pre * (1 - 0.835)
    assert p.kv_budget_bytes == rest * GIB
    assert p.max_tokens == int(rest * GIB) // 131_072 == 422_282  # the engine logs the same (oracle)
    # max_running_requests: min(clamp(int(422,282 / 131,072 × 512), 2048, 4096), tokens // 2)
    assert p.max_running_requests == 2048
    assert (p.context, p.max_requests) == (131_072, 3)
    assert p.bounds == () and p.missing == {}
    assert p.notes == ("default-fraction", "free-assumed", "weights-formula")


def test_plan_glm53_fp8_on_eight_b200_counts_the_indexer():
    p = memory.plan(KB.models["glm-5.3"], KB.hardware["b200"], FP8, FP8, tp=8)
    # 183,359 MiB: chunk 16384, decode graph 512 → reserve 27,136 MiB
    assert p.mem_fraction_static == default_fraction(183_359, 16384, 512, 8) == 0.852
    assert (p.attention_backend, p.page_size) == ("dsa", 64)  # DSA on CUDA: 64 × index_kpool
    # FP8 on Blackwell keeps the raw rows (trtllm): (512 + 64) × 78; the indexer: (128 + 128 / 128 × 4)
    # bytes on the 21 layers that compute their own top-k (freq 4, offset 3: layers 0-2, 6, 10, …, 74)
    assert (p.kv_cell_per_gpu, p.indexer_bytes_per_token) == ((512 + 64) * 78 * 1, (128 + 4) * 21)
    pre = 183_359 / 1024
    rest = (pre - 743e9 / 8 / GIB) - pre * (1 - 0.852)
    assert p.max_tokens == int(rest * GIB) // 47_700 // 64 * 64 == 1_487_104
    assert p.max_requests == 1  # of the native 1,048,576 tokens
    assert p.notes == ("default-fraction", "free-assumed", "mla-replicated", "sparse-indexer", "page-size")
    # on Hopper the default FP8 backend (flashmla_kv) stores scaled rows: 512 + 512 / 128 × 4 + 64 × 2 bytes
    hopper = memory.plan(KB.models["glm-5.3"], KB.hardware["h200"], FP8, FP8, tp=8)
    assert hopper.kv_cell_per_gpu == (512 + 16 + 128) * 78 == 51_168
    assert "dsa-fp8-layout" in hopper.notes


def test_plan_gpt_oss_on_one_h100_pays_for_the_swa_pool():
    p = memory.plan(KB.models["gpt-oss-120b"], KB.hardware["h100"], KB.dtypes["mxfp4"], BF16, tp=1)
    pre = 81_559 / 1024
    rest = (pre - 65_248_815_744 / GIB) - pre * (1 - 0.835)  # MXFP4 experts + BF16 rest
    assert p.pool_bytes_per_token == 36_864 + 0.8 * 36_864  # full + ratio × SWA (the engine's 0.8)
    assert p.max_tokens == int(int(rest * GIB) // (36_864 + 0.8 * 36_864)) == 92_849
    assert p.swa_tokens == 74_279  # ⌊92,849 × 0.8⌋
    assert p.max_requests == 0  # 92,849 tokens: not one full 131,072-token request
    half = memory.plan(
        KB.models["gpt-oss-120b"],
        KB.hardware["h100"],
        KB.dtypes["mxfp4"],
        BF16,
        1,
        swa_full_tokens_ratio=0.5,
    )
    assert half.max_tokens == int(int(rest * GIB) // (36_864 + 36_864 // 2))


def test_aiter_scales_a_given_fraction_on_amd_above_8k():
    oss = KB.models["gpt-oss-120b"]
    p = memory.plan(oss, KB.hardware["mi300x"], KB.dtypes["mxfp4"], BF16, 8, mem_fraction_static=0.85)
    assert (p.attention_backend, p.aiter_scaled) == ("aiter", True)
    assert p.mem_fraction_static == 0.85 * 0.85  # attention_hook.py: a given value too
    assert "aiter" in p.notes
    short = memory.plan(oss, KB.hardware["mi300x"], KB.dtypes["mxfp4"], BF16, 8, context=8192)
    assert not short.aiter_scaled and short.mem_fraction_static == default_fraction(196_592, 16384, 512, 8)
    # the engine's default on MI300X (196,592 MiB reported), then × 0.85 above 8,192 tokens
    default = memory.plan(oss, KB.hardware["mi300x"], KB.dtypes["mxfp4"], BF16, 8)
    assert default.mem_fraction_static == 0.862 * 0.85
    # MLA on AMD: aiter only with 16 or 128 KV heads per rank (DeepSeek-V3: TP 1 and 8, not 2 and 4)
    v3 = KB.models["deepseek-v3"]
    backends = [
        memory.plan(v3, KB.hardware["mi300x"], BF16, BF16, tp).attention_backend for tp in (1, 2, 4, 8)
    ]
    assert backends == ["aiter", "triton", "triton", "aiter"]


def test_the_state_pool_comes_first_for_linear_attention():
    qwen = KB.models["qwen3.8-flash-next"]  # every state field published
    p = memory.plan(qwen, KB.hardware["h200"], KB.dtypes["fp8"], BF16, 8, mem_fraction_static=0.85)
    # per linear layer at TP 8: conv (48 × 128 + 2 × 16 × 128) / 8 × 3 × 2 bytes + temporal 48 / 8 × 128 × 128 × 4
    per_layer = (48 * 128 + 2 * 16 * 128) // 8 * 3 * 2 + 48 // 8 * 128 * 128 * 4
    assert p.state_bytes_per_request == per_layer * 36 == 14_432_256
    pre = 143_771 / 1024
    rest = (pre - 176e9 / 8 / GIB) - pre * (1 - 0.85) - 100 / 1024  # the multimodal 100 MiB
    slots = int((rest * 0.9 / 1.9 * GIB - 14_432_256) // 14_432_256)
    assert p.state_slots == slots
    left = rest - (slots + 1) * 14_432_256 / GIB
    # QSA adds compressed BF16 keys: 1 × 128 × 2 // 4 per full-attention layer; page 64
    cell = 1 * 512 * 12 * 2 + 1 * 128 * 2 // 4 * 12
    assert (p.kv_cell_per_gpu, p.indexer_bytes_per_token, p.page_size) == (12_288, 768, 64)
    assert p.max_tokens == int(left * GIB) // cell // 64 * 64
    assert p.max_running_requests == slots // 5  # 3 slots per request + 2 tracking slots
    assert "state-capped" in p.notes and p.bounds == ()


def test_unknown_fields_give_upper_bounds_not_plain_numbers():
    qwen = KB.models["qwen3.5-397b-a17b"]  # mamba_ssm_dtype unknown
    p = memory.plan(qwen, KB.hardware["h200"], FP8, BF16, tp=4)
    assert p.bounds == ("state-dtype",)
    assert {"max-tokens", "running", "kv-pool"} <= set(p.bounded) and "fraction" not in p.bounded
    assert p.notes[0] == "bounds"
    # the vision encoder from its config: 24 layers (no num_hidden_layers key) × 1,152², ratio 1.265625,
    # factor 0.95 × (1 − 0.1 × 0.265625)
    assert p.mem_fraction_static == default_fraction(143_771, 8192, 512, 4) * (0.95 * (1 - 0.1 * 0.265625))
    unknown = qwen.model_copy(update={"config": qwen.config.model_copy(update={"vision_config": None})})
    bound = memory.plan(unknown, KB.hardware["h200"], FP8, BF16, tp=4)
    assert bound.bounds == ("vision-config", "state-dtype") and "fraction" in bound.bounded
    # the largest possible default: × 0.95 × 1.05 for the vision encoder
    assert bound.mem_fraction_static == default_fraction(143_771, 8192, 512, 4) * (0.95 * 1.05)
    b300 = memory.plan(KB.models["llama-3.1-8b"], KB.hardware["b300"], BF16, BF16, tp=1)
    assert b300.bounds == ("reported-memory",) and b300.device_mib == 275 * 1024
    assert {"gpu", "free", "fraction", "static", "max-tokens"} <= set(b300.bounded)
    # given both the free memory and the fraction, the reported memory no longer matters
    given = memory.plan(
        KB.models["llama-3.1-8b"], KB.hardware["b300"], BF16, BF16, 1, mem_fraction_static=0.8, free_gib=250
    )
    assert given.bounds == () and given.bounded == ()


def test_plan_records_what_is_not_published_instead_of_guessing():
    llama = memory.plan(KB.models["llama-3.3-70b"], KB.hardware["h200"], BF16, BF16, tp=8)
    assert llama.missing == {}
    assert llama.bounds == ()  # its config's architecture is known: the engine's overrides are too
    assert llama.kv_cell_per_gpu == 40_960
    # no stated context: the engine's derived one, max_position_embeddings (llama3 scaling: no factor)
    assert llama.context == 131_072
    ascend = memory.plan(KB.models["qwen3.5-397b-a17b"], KB.hardware["ascend"], FP8, BF16, tp=4)
    assert ascend.missing == {"memory": ("memory_gb",)}
    assert (ascend.free_bytes, ascend.kv_budget_bytes, ascend.max_tokens) == (None, None, None)
    minimax = memory.plan(KB.models["minimax-m3"], KB.hardware["b200"], KB.dtypes["mxfp8"], BF16, tp=8)
    # its layers and heads are known now; its class is not (a text-tower copy): the tokens are a bound
    assert minimax.missing == {} and "architecture" in minimax.bounds and "max-tokens" in minimax.bounded
    assert minimax.weights_per_gpu == pytest.approx(440.34375e9 / 8, rel=1e-15)
    glm5_config = KB.models["glm-5"].config.model_copy(update={"architectures": None})  # no formula
    glm5 = memory.plan(
        KB.models["glm-5"].model_copy(update={"config": glm5_config}), KB.hardware["h200"], BF16, BF16, tp=8
    )
    assert glm5.missing == {"weights": ("params.total_b",)}
    assert (glm5.weights_per_gpu, glm5.max_tokens, glm5.max_requests) == (None, None, None)


def test_plan_when_the_weights_do_not_fit():
    p = memory.plan(KB.models["qwen3.5-397b-a17b"], KB.hardware["h200"], BF16, BF16, tp=4)
    assert p.weights_per_gpu == 198.5e9
    assert p.kv_budget_bytes < 0 and p.refused
    assert (p.max_tokens, p.max_requests, p.fits, p.weights_fit) == (0, 0, False, False)
    assert p.shortfall_bytes == -p.kv_budget_bytes


def test_plan_notes_layouts_sglang_refuses_and_long_contexts():
    llama = memory.plan(KB.models["llama-3.3-70b"], KB.hardware["h100"], BF16, BF16, tp=3)
    assert {"heads-indivisible", "kv-heads-indivisible"} <= set(llama.notes)  # 64 % 3, 8 % 3
    qwen = memory.plan(KB.models["qwen3.5-397b-a17b"], KB.hardware["b300"], FP8, BF16, 4, context=1_010_000)
    assert "context-over-native" in qwen.notes
    assert memory.layout_problems(KB.models["qwen3.5-397b-a17b"], 64) == ["heads-indivisible"]  # 32 heads


def test_gpus_per_node_come_from_the_kb():
    oss, mxfp4 = KB.models["gpt-oss-120b"], KB.dtypes["mxfp4"]
    assert KB.hardware["h200"].gpus_per_node == 8
    assert "multi-node" not in memory.plan(oss, KB.hardware["h200"], mxfp4, BF16, 8).notes
    assert "multi-node" in memory.plan(oss, KB.hardware["h200"], mxfp4, BF16, 16).notes
    assert KB.hardware["b300"].gpus_per_node is None  # not in this KB: said so, whatever the TP
    assert "multi-node-unknown" in memory.plan(oss, KB.hardware["b300"], mxfp4, BF16, 2).notes
    assert "multi-node-unknown" not in memory.plan(oss, KB.hardware["b300"], mxfp4, BF16, 1).notes


def test_reported_memory_never_exceeds_the_vendor_figure_read_as_gib():
    """The bound the planner uses where a card's reported memory is unknown holds for every card whose
    reported memory is published, and above the lower bounds the logs give for B300 (265.55 GiB free at
    SGLang's start) and a 288 GB-class AMD card (287.18 GiB)."""
    both = [h for h in KB.hardware.values() if h.memory_mib_reported and h.memory_gb]
    assert {h.id for h in both} == {"h100", "h200", "b200", "mi300x"}
    for hw in both:
        assert hw.memory_mib_reported <= hw.memory_gb * 1024
    assert KB.hardware["b300"].memory_gb * 1024 >= 265.55 * 1024
    assert KB.hardware["mi355x"].memory_gb * 1024 >= 287.18 * 1024


def test_plan_cap_and_page_size():
    oss, mxfp4 = KB.models["gpt-oss-120b"], KB.dtypes["mxfp4"]
    p = memory.plan(oss, KB.hardware["h200"], mxfp4, BF16, 4, page_size=64, max_total_tokens=1_000_001)
    assert p.max_tokens == 1_000_000 and p.page_size_given
    assert "capped" in p.notes
    uncapped = memory.plan(oss, KB.hardware["h200"], mxfp4, BF16, 4, page_size=64)
    assert uncapped.max_tokens % 64 == 0 and "capped" not in uncapped.notes


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mem_fraction_static": 1.0}, "mem_fraction_static must be in (0, 1), got 1.0"),
        ({"swa_full_tokens_ratio": 0.0}, "swa_full_tokens_ratio must be in (0, 1], got 0.0"),
        ({"max_total_tokens": 0}, "max_total_tokens must be at least 1, got 0"),
        ({"page_size": 0}, "page_size must be at least 1, got 0"),
        ({"context": 0}, "context must be at least 1, got 0"),
        ({"ep": 3}, "ep must divide tp (4), got 3"),
        ({"free_gib": 0}, "free memory must be positive, got 0"),
        ({"max_running_requests": 0}, "max_running_requests must be at least 1, got 0"),
    ],
)
def test_plan_rejects_impossible_inputs(kwargs, message):
    with pytest.raises(ValueError) as caught:
        memory.plan(KB.models["qwen3.5-397b-a17b"], KB.hardware["h200"], FP8, BF16, 4, **kwargs)
    assert str(caught.value) == message


def test_smallest_tp_reproduces_the_hardware_table_and_honours_headroom():
    qwen = KB.models["qwen3.5-397b-a17b"]
    # MI325X: with the vision encoder's real size (factor 0.95 × 0.973) and aiter's × 0.85 at the native
    # 262,144 tokens, the engine's default budget no longer holds a quarter (a half) of the weights
    drift = {("bf16", "mi325x"): 8, ("fp8", "mi325x"): 4}
    for precision in qwen.precisions:
        for hw_id, stated in precision.stated_tp.items():
            tp = memory.smallest_tp(qwen, KB.hardware[hw_id], KB.dtypes[precision.dtype], BF16)
            assert tp == drift.get((precision.dtype, hw_id), stated)
    glm = KB.models["glm-5.3"]
    # weights only: 743 GB / 8 fits; one 1,048,576-token request needs TP 16 (cell 92,628 B with the indexer)
    assert memory.smallest_tp(glm, KB.hardware["b200"], FP8, BF16) == 8
    assert memory.smallest_tp(glm, KB.hardware["b200"], FP8, BF16, min_kv_tokens=1_048_576) == 16
    with pytest.raises(memory.NotPublished):
        memory.smallest_tp(glm, KB.hardware["ascend"], FP8, BF16)


@pytest.mark.parametrize(
    ("model_id", "hw_id", "dtype_id", "expected"),
    [
        # 85.5 GB × 0.835 − 65.2 GB leaves 92,849 tokens on one H100, short of one 131,072-token request
        ("gpt-oss-120b", "h100", "mxfp4", memory.AutoTp(tp=2, basis="headroom")),
        ("deepseek-v4-pro", "h200", "fp4", memory.AutoTp(tp=8, basis="weights-only")),
        ("llama-3.3-70b", "h200", "bf16", memory.AutoTp(tp=2, basis="headroom")),  # 141 GB of BF16 weights
        # 743,911,218,432 × 2 bytes: 186 GB a GPU at TP 8 (more than 141), 93 GB at TP 16
        ("glm-5", "h200", "bf16", memory.AutoTp(tp=16, basis="headroom")),
        ("glm-5.3", "h100", "fp8", memory.AutoTp(tp=64, basis="none-fits")),
    ],
)
def test_auto_tp(model_id, hw_id, dtype_id, expected):
    model = KB.models[model_id]
    assert memory.auto_tp(model, KB.hardware[hw_id], KB.dtypes[dtype_id], BF16) == expected


def test_auto_tp_without_a_weights_figure_is_unknown():
    config = KB.models["glm-5"].config.model_copy(update={"architectures": None})  # no formula, no total
    model = KB.models["glm-5"].model_copy(update={"config": config})
    assert memory.auto_tp(model, KB.hardware["h200"], BF16, BF16) == memory.AutoTp(tp=1, basis="unknown")


def test_tp_table_keeps_its_shape_for_chapter_06():
    cells = memory.tp_table(KB.models["qwen3.5-397b-a17b"], KB.dtypes, KB.hardware)
    assert [(c.dtype, c.hardware, c.tp) for c in cells][:3] == [
        ("bf16", "h100", 16),
        ("bf16", "h200", 8),
        ("bf16", "b200", 8),
    ]
    # the source's table, but MI325X, where the engine's default budget refuses its TP (see above)
    assert [(c.dtype, c.hardware) for c in cells if not c.agrees] == [("bf16", "mi325x"), ("fp8", "mi325x")]
    # the vision encoder is known now: a budget is an upper bound (a TP a lower one) only on the cards
    # whose reported memory is not in this KB
    assert all(c.at_least == (KB.hardware[c.hardware].memory_mib_reported is None) for c in cells)
    h100 = cells[0]
    pre = 81_559 / 1024
    # the vision encoder from its config: 24 layers × 1,152², factor 0.95 × (1 − 0.1 × 0.265625)
    fraction = default_fraction(81_559, 8192, 512, 16) * (0.95 * (1 - 0.1 * 0.265625))
    budget = (pre - 794e9 / 16 / GIB) - pre * (1 - fraction) - 100 / 1024
    assert (h100.weights_per_gpu, h100.kv_budget_per_gpu) == (794e9 / 16, budget * GIB)


def test_model_path_comes_from_the_kb_only():
    qwen, kimi, llama = KB.models["qwen3.5-397b-a17b"], KB.models["kimi-k3.1-pro"], KB.models["llama-3.3-70b"]
    assert model_path(KB, qwen, "fp8") == ModelPath("Qwen/Qwen3.5-397B-A17B-FP8", "checkpoint")
    assert model_path(KB, qwen, "bf16") == ModelPath("Qwen/Qwen3.5-397B-A17B", "checkpoint")  # the cookbook's
    # no checkpoint in the KB: the model's commands, whose precision is not stated
    assert model_path(KB, kimi, "mxfp4") == ModelPath("moonshotai/Kimi-K3.1-Pro", "recipe-unstated-precision")
    glm = KB.models["glm-5.3"]
    assert model_path(KB, glm, "w4a8") == ModelPath(None, None)  # no W4A8 checkpoint and no W4A8 command
    assert model_path(KB, llama, "bf16") == ModelPath(None, None)


def test_model_path_prefers_a_command_in_the_same_precision():
    recipes = {
        rid: r.model_copy(update={"precision": "mxfp4"}) if rid == "kimi-k3.1-pro-tp8-low-latency" else r
        for rid, r in KB.recipes.items()
    }
    kb = dataclasses.replace(KB, recipes=recipes)
    assert kb.recipes["kimi-k3.1-pro-tp8-low-latency"].flag_names()[0] == "--model-path"
    assert model_path(kb, kb.models["kimi-k3.1-pro"], "mxfp4") == ModelPath(
        "moonshotai/Kimi-K3.1-Pro", "recipe"
    )


def test_launch_command_sets_exactly_what_the_plan_assumed():
    oss = KB.models["gpt-oss-120b"]
    p = memory.plan(
        oss,
        KB.hardware["h100"],
        KB.dtypes["mxfp4"],
        FP8,
        2,
        mem_fraction_static=0.85,
        context=65_536,
        swa_full_tokens_ratio=0.5,
    )
    assert launch_command(p, oss, FP8, "openai/gpt-oss-120b") == (
        "python -m sglang.launch_server \\\n"
        "  --model-path openai/gpt-oss-120b \\\n"
        "  --tp-size 2 \\\n"
        "  --mem-fraction-static 0.85 \\\n"
        "  --kv-cache-dtype fp8_e4m3 \\\n"
        "  --context-length 65536 \\\n"
        "  --swa-full-tokens-ratio 0.5"
    )
    llama = KB.models["llama-3.3-70b"]
    p = memory.plan(
        llama,
        KB.hardware["h200"],
        BF16,
        BF16,
        8,
        page_size=16,
        max_total_tokens=500_000,
        max_running_requests=64,
    )
    # the engine's own --mem-fraction-static and page size are left to it: set only what was given
    assert launch_flags(p, llama, BF16, None) == [
        ("--model-path", "<model>"),
        ("--tp-size", "8"),
        ("--kv-cache-dtype", "bf16"),
        # the context is the engine's own derived one (131,072): nothing to set
        ("--page-size", "16"),
        ("--max-total-tokens", "500000"),
        ("--max-running-requests", "64"),
    ]
    qwen = KB.models["qwen3.8-flash-next"]
    p = memory.plan(qwen, KB.hardware["b300"], FP8, BF16, 4, ep=4)
    assert ("--ep-size", "4") in launch_flags(p, qwen, BF16, "Qwen/Qwen3.8-Flash-Next-FP8")


def test_the_kbs_checker_rules_add_their_flags():
    minimax, qwen = KB.models["minimax-m3"], KB.models["qwen3.5-397b-a17b"]
    assert rule_flags(KB, minimax) == [
        RuleFlag("--reasoning-parser", "auto", "always", "minimax-reasoning-parser-auto")
    ]
    # the value is the one the handbook's own single-GPU Qwen3.5 command sets
    assert rule_flags(KB, qwen) == [
        RuleFlag("--max-running-requests", "64", "single-gpu", "qwen35-single-gpu-mamba-cap")
    ]
    assert rule_max_running_requests(rule_flags(KB, qwen), 1) == 64
    assert rule_max_running_requests(rule_flags(KB, qwen), 4) is None
    assert rule_flags(KB, KB.models["llama-3.3-70b"]) == []
    mxfp4 = KB.dtypes["mxfp4"]
    one = memory.plan(qwen, KB.hardware["mi355x"], mxfp4, BF16, 1, max_running_requests=64)
    assert suggested_command(KB, one).endswith("  --kv-cache-dtype bf16 \\\n  --max-running-requests 64")
    assert one.max_running_requests <= 64
    four = memory.plan(qwen, KB.hardware["mi355x"], mxfp4, BF16, 4)
    assert "--max-running-requests" not in suggested_command(KB, four)
    eight = memory.plan(minimax, KB.hardware["b200"], KB.dtypes["mxfp8"], BF16, 8)
    assert suggested_command(KB, eight).splitlines()[1:] == [
        "  --model-path MiniMaxAI/MiniMax-M3-MXFP8 \\",
        "  --tp-size 8 \\",
        "  --kv-cache-dtype bf16 \\",
        "  --reasoning-parser auto",
    ]


def test_every_suggested_command_passes_the_command_checker():
    checker = pytest.importorskip("handbook.checker")
    from handbook.calc.planner_data import kv_dtypes, weight_dtypes
    from handbook.engine import load_snapshot

    snapshot = load_snapshot()
    checked = 0
    for model in KB.models.values():
        for hw in KB.hardware.values():
            for weights in weight_dtypes(KB, model):
                for kv in kv_dtypes(KB):
                    auto = memory.auto_tp(model, hw, KB.dtypes[weights], KB.dtypes[kv])
                    for tp in sorted({auto.tp, 1}):  # the automatic choice, and one GPU (rules of its own)
                        running = rule_max_running_requests(rule_flags(KB, model), tp)
                        p = memory.plan(
                            model, hw, KB.dtypes[weights], KB.dtypes[kv], tp, max_running_requests=running
                        )
                        text = suggested_command(KB, p)
                        findings = checker.check_command(text, snapshot, KB, model=model.id)
                        assert checker.exit_status(findings) == 0, (text, [f.message.en for f in findings])
                        assert {f.code for f in findings} <= {"value.placeholder"}
                        checked += 1
    assert checked >= sum(len(weight_dtypes(KB, m)) for m in KB.models.values()) * len(KB.hardware) * 3
