"""plan()'s steps at their boundaries: each step's decisions at 0, 1, equal, and one either side.

Every expected value is written out from the engine's formulas (handbook/calc/memory.py's module docstring
and each step's) and the KB's config fields, not by calling the step under test. The steps after the first
take what the steps before them return, so the budget and the requests are fed hand-made inputs here
whose arithmetic is exact in floating point (powers of two). tests/test_planner_memory.py checks whole
plans; tests/test_planner_oracle.py holds them to the engine; planner.js's twin steps are compared with
these names below and run on the same boundaries through node.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import subprocess
from pathlib import Path

import pytest
from js_twins import PLANNER_IN_NODE, camel

from handbook.calc import memory, planner_data, sizing
from handbook.kb.loader import load_kb

KB = load_kb()
BF16, FP8 = KB.dtypes["bf16"], KB.dtypes["fp8"]
GIB, MIB = 2**30, 2**20
ROOT = Path(__file__).resolve().parents[1]
PLANNER_JS = ROOT / "docs" / "assets" / "planner.js"
MEMORY_PY = ROOT / "handbook" / "calc" / "memory.py"


def asked(model="llama-3.1-8b", hw="h100", weights="bf16", kv="bf16", tp=1, **options) -> memory.PlanInputs:
    """plan_inputs for KB ids, or for a model or accelerator given as an object (a changed copy)."""
    model = KB.models[model] if isinstance(model, str) else model
    hw = KB.hardware[hw] if isinstance(hw, str) else hw
    return memory.plan_inputs(model, hw, KB.dtypes[weights], KB.dtypes[kv], tp, **options)


def hardware(base: str = "h200", **fields):
    return KB.hardware[base].model_copy(update=fields)


def with_config(model: str, **fields):
    m = KB.models[model]
    return m.model_copy(update={"config": m.config.model_copy(update=fields)})


def engine_choice(page_size: int = 1, attention: str | None = "fa3", unknown: tuple[str, ...] = ()):
    chosen = sizing.Backend(attention=attention, page_size=page_size, dsa_raw_layout=False, unknown=unknown)
    return memory.EngineChoice(platform="hopper", backend=chosen, page_size=page_size, bounds=unknown)


def reserve(chunk: int, tp: int, max_bs: int) -> float:
    """memory_hook.py's reserve in MiB, written out: 512 + max(chunk, 2048) × 1.5 + tp / 8 × 1024 + max_bs × 2."""
    return 512 + max(chunk, 2048) * 1.5 + tp / 8 * 1024 + max_bs * 2


# ------------------------------------------------------------------------------------------- 1 inputs
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mem_fraction_static": 0.0}, "mem_fraction_static must be in (0, 1), got 0.0"),
        ({"mem_fraction_static": 1.0}, "mem_fraction_static must be in (0, 1), got 1.0"),
        ({"swa_full_tokens_ratio": 0.0}, "swa_full_tokens_ratio must be in (0, 1], got 0.0"),
        ({"swa_full_tokens_ratio": 1.0000001}, "swa_full_tokens_ratio must be in (0, 1], got 1.0000001"),
        ({"max_total_tokens": 0}, "max_total_tokens must be at least 1, got 0"),
        ({"max_running_requests": 0}, "max_running_requests must be at least 1, got 0"),
        ({"page_size": 0}, "page_size must be at least 1, got 0"),
        ({"free_gib": 0.0}, "free memory must be positive, got 0.0"),
        ({"context": 0}, "context must be at least 1, got 0"),
        ({"tp": 0}, "tp must be at least 1, got 0"),
        ({"tp": 8, "ep": 3}, "ep must divide tp (8), got 3"),
        ({"tp": 2, "ep": 4}, "ep must divide tp (2), got 4"),
        ({"kv": "mxfp4"}, "mxfp4 is not a KV-cache dtype"),
        ({"weights": "fp8_e5m2"}, "fp8_e5m2 is not a weights dtype"),
    ],
)
def test_inputs_refuse_each_impossible_value_at_its_edge(options, message):
    with pytest.raises(ValueError) as raised:
        asked(**options)
    assert str(raised.value) == message


def test_inputs_accept_each_value_just_inside_its_edge():
    a = asked(
        tp=8,
        ep=8,
        mem_fraction_static=0.01,
        swa_full_tokens_ratio=1.0,
        max_total_tokens=1,
        max_running_requests=1,
        page_size=1,
        free_gib=0.5,
        context=1,
    )
    assert (a.tp, a.ep, a.mem_fraction_static, a.swa_full_tokens_ratio) == (8, 8, 0.01, 1.0)
    assert (a.max_total_tokens, a.max_running_requests, a.page_size, a.free_gib, a.context) == (
        1,
        1,
        1,
        0.5,
        1,
    )


def test_inputs_resolve_the_ratio_the_context_and_the_element_size():
    a = asked()
    # the engine's --swa-full-tokens-ratio fallback; Llama 3.1's context is derived from config.json
    # (max_position_embeddings 131,072, llama3 rope scaling keeps it); BF16 elements are 2 bytes
    assert (a.swa_full_tokens_ratio, a.context, a.context_native, a.kv_size) == (0.8, 131_072, 131_072, 2)
    assert (asked(kv="fp8").kv_size, asked(context=131_073).context) == (1, 131_073)
    # Kimi K3.1 Pro without its stated context: its config has no max_position_embeddings to derive one
    # from, so the planner's 8K
    kimi = asked(KB.models["kimi-k3.1-pro"].model_copy(update={"context": None}), weights="mxfp4")
    assert (kimi.context_native, kimi.context) == (None, 8192)


# ------------------------------------------------------------------------------------------- 2 engine
def test_engine_notes_a_page_size_only_when_the_engine_chose_one_above_1():
    assert plan_notes(memory.plan_engine(asked())) == ((), 1)  # fa3: page 1
    glm = asked("glm-5.3", "b200", "fp8", "fp8", 8)
    # DSA on CUDA: 64 × index_kpool (1)
    assert plan_notes(memory.plan_engine(glm)) == (("page-size",), 64)
    given = dataclasses.replace(glm, page_size=64)  # the same size, given: nothing to say
    assert plan_notes(memory.plan_engine(given)) == ((), 64)
    assert plan_notes(memory.plan_engine(dataclasses.replace(glm, page_size=1))) == ((), 1)


def plan_notes(step: memory.EngineChoice) -> tuple[tuple[str, ...], int]:
    return step.notes, step.page_size


def test_engine_passes_on_what_the_backend_choice_does_not_know():
    minimax = memory.plan_engine(asked("minimax-m3", "b200", "mxfp8", tp=8))
    assert "architecture" in minimax.bounds  # its class is not in this KB
    assert memory.plan_engine(asked()).bounds == ()
    ascend = memory.plan_engine(asked(hw="ascend"))
    assert (ascend.platform, ascend.backend.attention, ascend.bounds) == (None, None, ("platform",))


# ------------------------------------------------------------------------------------------- 3 device
def test_device_is_the_reported_memory_else_the_vendors_gb_read_as_gib_else_missing():
    reported = memory.plan_device(asked(hw=hardware(memory_mib_reported=1, memory_gb=1.0)))
    assert (reported.device.mib, reported.device.basis, reported.missing) == (1, "reported", None)
    nominal = memory.plan_device(asked(hw=hardware(memory_mib_reported=None, memory_gb=80.0)))
    assert (nominal.device.mib, nominal.device.basis) == (80 * 1024, "nominal-bound")
    unknown = memory.plan_device(asked(hw=hardware(memory_mib_reported=None, memory_gb=None)))
    assert (unknown.device, unknown.missing) == (None, ("memory_gb",))


# ------------------------------------------------------------------------------------------- 4 fraction
def fraction_on(mib: int, tp: int = 1, model="llama-3.1-8b", **options) -> memory.Fraction:
    a = asked(model, hardware(memory_mib_reported=mib), tp=tp, **options)
    engine = memory.plan_engine(a)
    return memory.plan_fraction(a, engine, memory.plan_device(a))


@pytest.mark.parametrize(
    ("mib", "tp", "expected"),
    [
        # below 160 GiB (163,840 MiB): chunk 8,192, decode graph 256 below TP 4, 512 from TP 4
        (163_839, 1, round((163_839 - reserve(8192, 1, 256)) / 163_839, 3)),
        (163_839, 3, round((163_839 - reserve(8192, 3, 256)) / 163_839, 3)),
        (163_839, 4, round((163_839 - reserve(8192, 4, 512)) / 163_839, 3)),
        # from 160 GiB: chunk 16,384, graph 512
        (163_840, 1, round((163_840 - reserve(16384, 1, 512)) / 163_840, 3)),
        # below 60 GiB (61,440 MiB): chunk 4,096, graph 32 (160 from TP 4); no 10 GiB floor up to 60 GiB
        (61_439, 1, round((61_439 - reserve(4096, 1, 32)) / 61_439, 3)),
        (61_439, 4, round((61_439 - reserve(4096, 4, 160)) / 61_439, 3)),
        (61_440, 1, round((61_440 - reserve(8192, 1, 256)) / 61_440, 3)),
        # below 20 GiB (20,480 MiB): chunk 2,048, graph 8
        (20_479, 1, round((20_479 - reserve(2048, 1, 8)) / 20_479, 3)),
        (20_480, 1, round((20_480 - reserve(4096, 1, 48)) / 20_480, 3)),
    ],
)
def test_fraction_defaults_by_the_engines_memory_tiers_either_side_of_each_edge(mib, tp, expected):
    step = fraction_on(mib, tp)
    assert (step.default, step.fraction, step.notes) == (expected, expected, ("default-fraction",))


def test_the_tier_edges_move_the_default():
    # the values the table above writes out, so a tier read on the wrong side of its edge shows
    assert [fraction_on(mib).default for mib in (163_839, 163_840, 61_439, 61_440, 20_479, 20_480)] == [
        0.918,  # (163,839 − 13,440) / 163,839
        0.84,  # (163,840 − 26,240) / 163,840
        0.889,  # (61,439 − 6,848) / 61,439
        0.781,  # (61,440 − 13,440) / 61,440
        0.818,  # (20,479 − 3,728) / 20,479
        0.664,  # (20,480 − 6,880) / 20,480
    ]


# MI300X reports 196,592 MiB: chunk 16,384 and graph 512 at TP 8
MI300X_DEFAULT = round((196_592 - reserve(16384, 8, 512)) / 196_592, 3)


@pytest.mark.parametrize(
    ("context", "given", "fraction", "scaled"),
    [
        (8192, None, MI300X_DEFAULT, False),  # not above the threshold
        (8193, None, MI300X_DEFAULT * 0.85, True),
        (8192, 0.85, 0.85, False),
        (8193, 0.85, 0.85 * 0.85, True),  # a given fraction too (the engine does not honour it by default)
        (1, None, MI300X_DEFAULT, False),
    ],
)
def test_fraction_scales_by_085_for_aiter_only_above_8192_tokens(context, given, fraction, scaled):
    a = asked("gpt-oss-120b", "mi300x", "mxfp4", tp=8, context=context, mem_fraction_static=given)
    engine = memory.plan_engine(a)
    assert engine.backend.attention == "aiter"
    step = memory.plan_fraction(a, engine, memory.plan_device(a))
    assert (step.fraction, step.aiter_scaled, "aiter" in step.notes, step.bounded) == (
        fraction,
        scaled,
        scaled,
        False,
    )


def test_fraction_keeps_a_given_value_where_the_engine_honours_it_and_scales_its_own():
    a = asked("gpt-oss-120b", "mi300x", "mxfp4", tp=8, context=8193, mem_fraction_static=0.85)
    honours = dataclasses.replace(
        a, engine=dataclasses.replace(a.engine, aiter_honors_explicit_fraction=True)
    )
    engine, device = memory.plan_engine(honours), memory.plan_device(honours)
    kept = memory.plan_fraction(honours, engine, device)
    assert (kept.fraction, kept.aiter_scaled, kept.notes) == (0.85, False, ())
    own = memory.plan_fraction(dataclasses.replace(honours, mem_fraction_static=None), engine, device)
    assert (own.fraction, own.aiter_scaled) == (MI300X_DEFAULT * 0.85, True)


@pytest.mark.parametrize(("context", "bounded"), [(8192, False), (8193, True)])
def test_fraction_an_unknown_choice_of_backend_leaves_the_unscaled_fraction_as_the_bound(context, bounded):
    a = asked("gpt-oss-120b", "mi300x", "mxfp4", tp=8, context=context)
    device = memory.plan_device(a)
    # a per-model override could choose another backend: no × 0.85, the fraction is a bound
    step = memory.plan_fraction(a, engine_choice(attention="aiter", unknown=("architecture",)), device)
    assert (step.fraction, step.aiter_scaled, step.bounded) == (MI300X_DEFAULT, False, bounded)
    # unknown KV heads: aiter or triton, the larger fraction is the bound above 8,192 tokens
    triton = memory.plan_fraction(a, engine_choice(attention="triton", unknown=("kv-heads",)), device)
    assert (triton.fraction, triton.bounded) == (MI300X_DEFAULT, bounded)


@pytest.mark.parametrize(
    ("free_gib", "given", "notes", "bounded"),
    [
        (None, None, ("memory-bound", "default-fraction"), True),
        (100.0, None, ("memory-bound", "default-fraction"), True),
        (None, 0.8, ("memory-bound",), False),
        (100.0, 0.8, (), False),  # the reported memory no longer matters
    ],
)
def test_fraction_on_the_vendors_figure_is_a_bound_unless_free_memory_and_fraction_are_given(
    free_gib, given, notes, bounded
):
    a = asked(hw="b300", free_gib=free_gib, mem_fraction_static=given)  # 275 GB, no reported figure
    step = memory.plan_fraction(a, memory.plan_engine(a), memory.plan_device(a))
    mib = 275 * 1024
    default = round((mib - reserve(16384, 1, 512)) / mib, 3)
    assert (step.notes, step.bounded, step.default) == (notes, bounded, default)
    assert step.bounds == (("reported-memory",) if notes else ())
    assert step.fraction == (given if given is not None else default)


def test_fraction_of_a_multimodal_model_is_lowered_for_its_encoder_and_bounded_when_its_size_is_unknown():
    mib = 143_771  # H200 reported, TP 4: chunk 8,192, graph 512
    default = round((mib - reserve(8192, 4, 512)) / mib, 3)
    # Qwen3.5's encoder: 24 layers of 1,152² against ViT-L/14's 24 × 1,024²: × 0.95 × (1 − 0.1 × 0.265625)
    step = fraction_on(mib, 4, "qwen3.5-397b-a17b", weights="fp8")
    assert step.fraction == default * (0.95 * (1 - 0.1 * (1152**2 / 1024**2 - 1)))
    assert (step.notes, step.bounds, step.bounded) == (("vlm-fraction", "default-fraction"), (), False)
    given = fraction_on(mib, 4, "qwen3.5-397b-a17b", weights="fp8", mem_fraction_static=0.5)
    assert (given.fraction, given.notes) == (0.5, ())
    unknown = asked(with_config("qwen3.5-397b-a17b", vision_config=None), "h200", "fp8", tp=4)
    bound = memory.plan_fraction(unknown, memory.plan_engine(unknown), memory.plan_device(unknown))
    assert bound.fraction == default * (0.95 * 1.05)  # the largest factor
    assert (bound.bounds, bound.bounded) == (("vision-config",), True)


def test_fraction_without_the_memory_is_none_unless_given():
    a = asked(hw="ascend")
    device = memory.plan_device(a)
    assert memory.plan_fraction(a, memory.plan_engine(a), device).fraction is None
    given = dataclasses.replace(a, mem_fraction_static=0.7)
    assert memory.plan_fraction(given, memory.plan_engine(given), device).fraction == 0.7


# ------------------------------------------------------------------------------------------- 5 free memory
def fraction_of(value: float | None) -> memory.Fraction:
    return memory.Fraction(default=None, fraction=value, aiter_scaled=False, bounded=False)


def test_free_memory_given_else_the_devices_and_its_split():
    a = asked(free_gib=1.0)
    step = memory.plan_free_memory(a, memory.plan_device(a), fraction_of(0.5))
    assert (step.free, step.static, step.rest, step.mm_reserve, step.notes) == (
        GIB,
        GIB / 2,
        GIB / 2,
        0.0,
        (),
    )
    one = asked(hw=hardware(memory_mib_reported=1))
    assumed = memory.plan_free_memory(one, memory.plan_device(one), fraction_of(0.25))
    assert (assumed.free, assumed.static, assumed.rest) == (MIB, MIB / 4, MIB * 3 / 4)
    assert assumed.notes == ("free-assumed",)
    none = asked(hw="ascend")
    unknown = memory.plan_free_memory(none, memory.plan_device(none), fraction_of(0.5))
    assert (unknown.free, unknown.static, unknown.rest, unknown.notes) == (None, None, None, ())
    no_fraction = memory.plan_free_memory(a, memory.plan_device(a), fraction_of(None))
    assert (no_fraction.free, no_fraction.static, no_fraction.rest) == (GIB, None, None)


def test_free_memory_reserves_100_mib_for_a_multimodal_model_only():
    a = asked("qwen3.5-397b-a17b", "h200", "fp8", tp=4)
    step = memory.plan_free_memory(a, memory.plan_device(a), fraction_of(0.5))
    assert (step.mm_reserve, step.notes) == (100 * MIB, ("free-assumed", "multimodal-reserve"))
    assert step.free == 143_771 * MIB


# ------------------------------------------------------------------------------------------- 6 weights
@pytest.mark.parametrize(("tp", "ep"), [(1, 1), (3, 1), (8, 1), (8, 8), (8, 2)])
def test_weights_per_gpu_are_the_whole_over_tp_with_or_without_ep(tp, ep):
    step = memory.plan_weights(asked(tp=tp, ep=ep))
    whole = 8_030_261_248 * 2  # Llama 3.1 8B's formula count × 2 bytes
    assert (step.weights.total_bytes, step.per_gpu, step.notes) == (whole, whole / tp, ("weights-formula",))


def test_weights_published_missing_and_offloaded():
    published = memory.plan_weights(asked("minimax-m3", "h200", "bf16", tp=8))
    assert (published.per_gpu, published.notes) == (854e9 / 8, ())  # 427B × 2 bytes over 8
    # GLM-5 without its architecture: no formula (a DSA indexer of no known class) and no published total
    missing = memory.plan_weights(asked(with_config("glm-5", architectures=None), "h200", tp=8))
    assert (missing.weights, missing.per_gpu, missing.missing) == (None, None, ("params.total_b",))
    # Qwen4-Exp keeps its n-gram embedding off the GPU on NVIDIA only
    assert "ple-offload" in memory.plan_weights(asked("qwen3.8-flash-next", "h200", "fp8", tp=8)).notes
    assert "ple-offload" not in memory.plan_weights(asked("qwen3.8-flash-next", "mi300x", "fp8", tp=8)).notes


# ------------------------------------------------------------------------------------------- 7 cell
@pytest.mark.parametrize(
    ("tp", "heads", "notes"),
    [
        (1, 8, ()),
        (4, 2, ()),
        (3, 2, ()),  # 8 // 3: the engine keeps two heads per rank (and refuses the layout, step 11)
        (8, 1, ()),  # TP equal to the KV heads: one each, nothing replicated
        (9, 1, ("kv-heads-replicated",)),
        (16, 1, ("kv-heads-replicated",)),
    ],
)
def test_cell_gqa_rows_are_the_kv_heads_per_rank_times_layers(tp, heads, notes):
    # Llama 3.1 8B: 8 KV heads of 128 (K and V), 32 layers, 2 bytes
    step = memory.plan_cell(asked(tp=tp), engine_choice())
    assert (step.kv_bytes_per_token, step.rows) == (8 * 256 * 32 * 2, heads * 256 * 32 * 2)
    assert (step.indexer, step.swa, step.per_token, step.notes) == (0, 0, heads * 256 * 32 * 2, notes)


@pytest.mark.parametrize(("tp", "notes"), [(1, ()), (2, ("mla-replicated",))])
def test_cell_mla_latent_is_whole_on_every_rank(tp, notes):
    step = memory.plan_cell(asked("deepseek-v3", "h200", tp=tp), engine_choice())
    assert (step.rows, step.per_token, step.notes) == ((512 + 64) * 61 * 2, (512 + 64) * 61 * 2, notes)


@pytest.mark.parametrize("ratio", [1.0, 0.8, 0.5, 1e-9])
def test_cell_swa_layers_cost_the_ratio_of_their_rows(ratio):
    a = asked("gpt-oss-120b", "h100", "mxfp4", swa_full_tokens_ratio=ratio)
    step = memory.plan_cell(a, engine_choice())
    # 18 full and 18 sliding layers, 8 KV heads of 64 + 64, 2 bytes
    assert (step.rows, step.swa) == (8 * 128 * 18 * 2, 8 * 128 * 18 * 2)
    assert (step.per_token, step.notes) == (36_864 + ratio * 36_864, ("swa-pool",))


def test_cell_dsa_counts_its_rows_in_the_engines_layout_and_its_indexer():
    glm = asked("glm-5.3", "b200", "fp8", "fp8", 8)
    raw = memory.plan_cell(glm, memory.plan_engine(glm))
    # raw rows (512 + 64) × 78 × 1 byte; the indexer (128 + 128 / 128 × 4) on 21 of the 78 layers
    assert (raw.rows, raw.indexer, raw.per_token) == (44_928, 132 * 21, 44_928 + 132 * 21)
    assert raw.notes == ("mla-replicated", "sparse-indexer")
    hopper = asked("glm-5.3", "h200", "fp8", "fp8", 8)
    scaled = memory.plan_cell(hopper, memory.plan_engine(hopper))
    assert scaled.rows == (512 + 512 // 128 * 4 + 64 * 2) * 78  # FP8 with scales and a BF16 rope
    assert scaled.notes == ("mla-replicated", "dsa-fp8-layout", "sparse-indexer")
    unknown = asked(with_config("glm-5.3", index_topk_freq=None), "b200", "fp8", "fp8", 8)
    bound = memory.plan_cell(unknown, memory.plan_engine(unknown))
    assert (bound.indexer, bound.per_token, bound.bounds) == (0, 44_928, ("indexer",))


def test_cell_qsa_adds_its_compressed_keys_and_a_missing_field_gives_nothing():
    qwen = asked("qwen3.8-flash-next", "h200", "fp8", tp=8)
    step = memory.plan_cell(qwen, memory.plan_engine(qwen))
    # 12 full layers, max(1, 2 // 8) head of 256 + 256, 2 bytes; keys 1 × 128 × 2 // 4 per layer
    assert (step.rows, step.indexer, step.notes) == (
        512 * 12 * 2,
        64 * 12,
        ("kv-heads-replicated", "qsa-indexer"),
    )
    missing = memory.plan_cell(asked("deepseek-v4.1-flash", "h200", "fp8", tp=8), engine_choice())
    assert missing.missing == ("num_hidden_layers", "kv_lora_rank", "qk_rope_head_dim")
    assert (missing.rows, missing.per_token, missing.kv_bytes_per_token) == (None, None, None)


# DeepSeek-V4-Pro (config.json): 61 layers, 30 compressed 4:1 and 31 compressed 128:1; one 512-wide KV head;
# a 128-wide indexer key. The V4 layout stores 584 B a token in pages padded to 576 B: a 256-token page is
# 260 × 576 B (585 B a slot), a ratio-4 page of 64 slots 65 × 576 B (585 B), a ratio-128 page of 2 slots
# 3 × 576 B (864 B a slot). The C4 indexer: 128 B of FP8 keys + 4 B scale. The float32 C4 compress state:
# 2 × 2 × (512 + 128) × 4 B a row, 8 rows a ring per 256-token SWA page.
DSV4_ROWS = 30 * 585 / 4 + 31 * 864 / 128  # 4,596.75
DSV4_INDEXER = 30 * 132 / 4  # 990
DSV4_SWA = 61 * 585 + 8 / 256 * (2 * 2 * 512 * 4 + 2 * 2 * 128 * 4) * 30  # 35,685 + 9,600


def dsv4_state(running: int) -> int:
    """The ratio-128 compress state: (slots × 128 + 129) rows rounded up to 128, 2 × 512 float32 a row, 31
    layers; slots = max_running_requests + 1."""
    rows = -(-((running + 1) * 128 + 128 + 1) // 128) * 128
    return rows * 2 * 512 * 4 * 31


@pytest.mark.parametrize("hw", ["h200", "b200", "mi355x"])
@pytest.mark.parametrize("tp", [1, 8])
def test_cell_dsv4_is_its_compressed_rows_indexer_and_window(hw, tp):
    a = asked("deepseek-v4-pro", hw, "fp4", "fp8", tp=tp)
    engine = memory.plan_engine(a)
    assert (engine.page_size, engine.backend.attention, engine.notes) == (256, "dsv4", ("page-size",))
    assert (engine.swa_full_tokens_ratio, engine.max_running_requests) == (0.1, 256)
    step = memory.plan_cell(a, engine)
    assert (step.rows, step.indexer, step.swa) == (DSV4_ROWS, DSV4_INDEXER, DSV4_SWA)
    assert (step.rows, step.indexer, step.swa) == (4596.75, 990, 45285)
    assert step.per_token == 0.1 * DSV4_SWA + DSV4_ROWS + DSV4_INDEXER == 10115.25  # the engine's figure
    assert (step.fixed, step.notes, step.missing) == (dsv4_state(256), ("dsv4-pool",), None)
    assert step.fixed == 33152 * 4096 * 31


@pytest.mark.parametrize(
    ("options", "ratio", "running"),
    [
        ({}, 0.1, 256),  # the override's ratio and the hook's requests
        ({"swa_full_tokens_ratio": 0.2}, 0.2, 256),  # a given ratio is kept
        ({"max_running_requests": 64}, 0.1, 64),  # fewer request slots: a smaller state
        ({"max_running_requests": 1}, 0.1, 1),
        ({"page_size": 64}, 0.1, 256),  # the override sets page 256 whatever --page-size says
    ],
)
def test_engine_dsv4_keeps_its_defaults_unless_given(options, ratio, running):
    a = asked("deepseek-v4-pro", "h200", "fp4", "fp8", tp=8, **options)
    engine = memory.plan_engine(a)
    assert engine.page_size == 256
    step = memory.plan_cell(a, engine)
    assert step.per_token == ratio * DSV4_SWA + DSV4_ROWS + DSV4_INDEXER
    assert step.fixed == dsv4_state(running)


def test_cell_dsv4_without_its_ratios_is_not_in_this_kb():
    a = asked(with_config("deepseek-v4-pro", compress_ratios=None), "h200", "fp4", "fp8", tp=8)
    step = memory.plan_cell(a, memory.plan_engine(a))
    assert (step.missing, step.per_token, step.fixed) == (("compress_ratios",), None, 0)
    # a ratio the planner does not model (1 and 2 follow kv_source_layer_ids): not a figure either
    ratios = [2] * 61
    b = asked(with_config("deepseek-v4-pro", compress_ratios=ratios), "h200", "fp4", "fp8", tp=8)
    step = memory.plan_cell(b, memory.plan_engine(b))
    assert (step.missing, step.per_token) == (("kv_source_layer_ids",), None)


@pytest.mark.parametrize(
    ("kv", "flag", "refused"),
    [("bf16", "bfloat16", False), ("fp8", "fp8_e4m3", False), ("fp8_e5m2", "fp8_e5m2", True)],
)
def test_placement_notes_the_kv_dtype_dsv4_refuses(kv, flag, refused):
    # the hook accepts fp8_e4m3 and bfloat16 only: BF16 is written bfloat16 for it, FP8 E5M2 has no spelling
    a = asked("deepseek-v4-pro", "h200", "fp4", kv, tp=8)
    assert sizing.kv_cache_dtype_flag(a.model, a.kv) == flag
    assert sizing.kv_cache_dtype_flag(KB.models["llama-3.1-8b"], a.kv) == a.kv.engine_kv_value
    assert ("kv-dtype-refused" in memory.plan_placement(a)) is refused
    assert "kv-dtype-refused" not in memory.plan_placement(asked(kv=kv))  # other models: no such check


# ------------------------------------------------------------------------------------------- 8 state
# Qwen3.8 Flash Next: 36 linear layers; key heads 16 × 128, value heads 48 × 128, conv kernel 4
def qwen_state(tp: int, ssm_bytes: int) -> int:
    groups = 16 if 16 % tp == 0 else tp  # fewer key heads than ranks: one group per rank
    conv = (48 * 128 + 2 * groups * 128) // tp * (4 - 1) * 2  # the BF16 conv state
    return (conv + 48 // tp * 128 * 128 * ssm_bytes) * 36


@pytest.mark.parametrize("tp", [1, 4, 8, 16, 32])
def test_state_per_request_of_a_known_shape_and_dtype(tp):
    step = memory.plan_state(asked("qwen3.8-flash-next", "h200", "fp8", tp=tp))
    assert (step.linear, step.per_request, step.smallest) == (True, qwen_state(tp, 4), None)
    assert (step.notes, step.bounds) == (("linear-state",), ())


def test_state_written_out_at_tp_8_and_32():
    assert qwen_state(8, 4) == 14_432_256  # (1,280 × 3 × 2 + 6 × 16,384 × 4) × 36
    assert qwen_state(32, 4) == 2_456_064  # 32 groups: (448 × 6 + 1 × 16,384 × 4) × 36


def test_state_of_an_unknown_dtype_bounds_both_sides_and_of_an_unknown_shape_gives_none():
    unknown = with_config("qwen3.8-flash-next", mamba_ssm_dtype=None)
    step = memory.plan_state(asked(unknown, "h200", "fp8", tp=8))
    assert (step.per_request, step.smallest, step.bounds) == (
        qwen_state(8, 4),
        qwen_state(8, 2),
        ("state-dtype",),
    )
    shapeless = memory.plan_state(
        asked(with_config("qwen3.8-flash-next", linear_conv_kernel_dim=None), "h200", "fp8")
    )
    assert (shapeless.linear, shapeless.per_request, shapeless.bounds) == (True, None, ("state-shape",))
    none = memory.plan_state(asked())
    assert (none.linear, none.per_request, none.notes) == (False, None, ())


# ------------------------------------------------------------------------------------------- 9 budget
NO_STATE = memory.StatePerRequest(linear=False, per_request=None, smallest=None)


def budget(per_gpu, mm_reserve=0.0, state=NO_STATE, free=80 * GIB, fraction=0.5, ratio=None):
    a = asked()
    if ratio is not None:
        a = dataclasses.replace(a, engine=dataclasses.replace(a.engine, mamba_full_memory_ratio=ratio))
    memory_step = memory.FreeMemory(free=free, static=None, rest=None, mm_reserve=mm_reserve)
    share = memory.WeightsPerGpu(weights=None, per_gpu=per_gpu)
    return memory.plan_budget(a, fraction_of(fraction), memory_step, share, state)


@pytest.mark.parametrize(
    ("per_gpu", "mm_reserve", "left", "refused"),
    [
        # 80 GiB free, half of it static: the weights may take up to 40 GiB
        (0, 0.0, 40 * GIB, False),
        (40 * GIB - 1, 0.0, 1.0, False),  # one byte left
        (40 * GIB, 0.0, 0.0, True),  # exactly the budget: nothing left, the engine refuses
        (40 * GIB + 1, 0.0, -1.0, True),  # one byte over
        (40 * GIB - 100 * MIB - 1, 100 * MIB, 1.0, False),  # the multimodal reservation comes off too
        (40 * GIB - 100 * MIB, 100 * MIB, 0.0, True),
    ],
)
def test_budget_is_static_minus_weights_minus_the_reservation(per_gpu, mm_reserve, left, refused):
    step = budget(per_gpu, mm_reserve)
    assert (step.budget, step.refused, step.kv_pool) == (left, refused, 0.0 if refused else left)
    assert (step.slots, step.state_pool) == (None, None)


@pytest.mark.parametrize("absent", ["free", "fraction", "per_gpu"])
def test_budget_needs_the_free_memory_the_fraction_and_the_weights(absent):
    values = {"free": 80 * GIB, "fraction": 0.5, "per_gpu": GIB} | {absent: None}
    step = budget(values["per_gpu"], free=values["free"], fraction=values["fraction"])
    assert (step.budget, step.kv_pool, step.kv_pool_gib, step.refused) == (None, None, None, False)


def linear(per_request, smallest=None):
    return memory.StatePerRequest(linear=True, per_request=per_request, smallest=smallest)


@pytest.mark.parametrize(
    ("state", "slots", "state_pool", "kv_pool", "refused"),
    [
        # 8 GiB left after the weights; ratio 1: the state's share is half of it, 4 GiB, one padding slot
        (linear(2 * GIB), 1, 2 * 2 * GIB, 4 * GIB, False),  # (4 − 2) // 2 = 1 slot, 2 states taken
        (linear(2 * GIB + 1), 0, 1 * (2 * GIB + 1), 0.0, True),  # one byte more: no slot, refused
        (linear(GIB), 3, 4 * GIB, 4 * GIB, False),  # (4 − 1) // 1 = 3
        (linear(4 * GIB), 0, 4 * GIB, 0.0, True),
        # shape unknown: K ≥ 1 needs two slots within the share, the pool keeps less than half of it more
        (linear(None), None, None, 6 * GIB, False),
        # dtype unknown: slots from the smallest state; the whole share taken, less the largest state
        (linear(2 * GIB, smallest=GIB), 3, 4 * GIB, (8 - 4 + 2) * GIB, False),
    ],
)
def test_budget_takes_the_state_pool_first(state, slots, state_pool, kv_pool, refused):
    step = budget(32 * GIB, state=state, ratio=1.0)  # 80 − 32 − 40 = 8 GiB
    assert step.budget == 8 * GIB
    assert (step.slots, step.state_pool, step.kv_pool, step.refused) == (slots, state_pool, kv_pool, refused)


def test_budget_takes_no_state_from_nothing():
    step = budget(40 * GIB, state=linear(GIB), ratio=1.0)
    assert (step.budget, step.slots, step.state_pool, step.refused) == (0.0, None, None, True)


# ------------------------------------------------------------------------------------------- 10 requests
def cell_of(per_token: float | None, swa: int = 0) -> memory.CellPerGpu:
    return memory.CellPerGpu(kv_bytes_per_token=None, rows=None, indexer=0, swa=swa, per_token=per_token)


def pool_of(gib: float | None, refused: bool = False, slots: int | None = None) -> memory.Budget:
    pool = None if gib is None else max(0.0, gib * GIB)
    return memory.Budget(
        budget=pool, slots=slots, state_pool=None, kv_pool=pool, kv_pool_gib=gib, refused=refused
    )


def requests(gib=1.0, per_token=MIB, page=1, refused=False, slots=None, swa=0, **options):
    a = asked(**({"context": 1024} | options))
    return memory.plan_requests(a, engine_choice(page), cell_of(per_token, swa), pool_of(gib, refused, slots))


def test_requests_take_the_request_slot_pools_first():
    cell = dataclasses.replace(cell_of(MIB), fixed=MIB)
    step = memory.plan_requests(asked(context=1024), engine_choice(), cell, pool_of(1.0))
    assert step.max_tokens == 1023  # 1 GiB less 1 MiB of fixed pools, 1 MiB a token
    everything = dataclasses.replace(cell_of(MIB), fixed=GIB + 1)
    assert (
        memory.plan_requests(asked(context=1024), engine_choice(), everything, pool_of(1.0)).max_tokens == 0
    )


@pytest.mark.parametrize(
    ("per_token", "page", "cap", "tokens", "notes"),
    [
        (MIB, 1, None, 1024, ()),  # 1 GiB of 1 MiB tokens
        (MIB + 1, 1, None, 1023, ()),  # one byte more a token: one token fewer
        (MIB - 1, 1, None, 1024, ()),  # 2^30 = 1,024 × (2^20 − 1) + 1,024: still 1,024
        (MIB // 2, 1, None, 2048, ()),
        (MIB, 64, None, 1024, ()),  # a whole number of pages
        (MIB, 1000, None, 1000, ()),  # floored to the page
        (MIB, 1025, None, 0, ()),  # not one page
        (MIB, 1, 1024, 1024, ()),  # the cap equal to what fits: not capped
        (MIB, 1, 1023, 1023, ("capped",)),  # one below
        (MIB, 64, 1023, 960, ("capped",)),  # then floored to the page
        (MIB, 1, 1, 1, ("capped",)),
    ],
)
def test_requests_tokens_floor_to_the_page_and_the_cap(per_token, page, cap, tokens, notes):
    step = requests(per_token=per_token, page=page, max_total_tokens=cap)
    assert (step.max_tokens, step.notes) == (tokens, notes)


@pytest.mark.parametrize(("context", "held"), [(1, 1024), (512, 2), (1023, 1), (1024, 1), (1025, 0)])
def test_requests_of_the_context_the_pool_holds_at_once(context, held):
    assert requests(context=context).max_requests == held


@pytest.mark.parametrize(
    ("given", "slots", "running", "notes"),
    [
        # 1,024 tokens of 1,024: 1 × 512 clamped to [2,048, 4,096], then at most half the tokens: 512
        (None, None, 512, ()),
        (100, None, 100, ()),
        (512, None, 512, ()),
        (513, None, 512, ()),  # a given value is held to half the tokens as well
        (1, None, 1, ()),
        # a hybrid model: at most its state slots ÷ (3 + 2)
        (None, 2565, 512, ()),  # 2,565 // 5 = 513: not the limit
        (None, 2560, 512, ()),  # 512: equal, not capped
        (None, 2559, 511, ("state-capped",)),
        (None, 4, 0, ("state-capped",)),
    ],
)
def test_requests_running_follow_the_engines_clamp_and_the_state_slots(given, slots, running, notes):
    step = requests(max_running_requests=given, slots=slots)
    assert (step.max_running_requests, step.notes) == (running, notes)


def test_requests_when_refused_are_zero_and_when_unknown_none():
    refused = requests(gib=-1.0, refused=True)
    assert (refused.max_tokens, refused.max_requests, refused.max_running_requests) == (0, 0, 0)
    assert refused.notes == ()
    for unknown in (requests(gib=None), requests(per_token=None)):
        assert (unknown.max_tokens, unknown.max_requests, unknown.max_running_requests) == (None, None, None)


@pytest.mark.parametrize(
    ("page", "ratio", "swa_tokens"), [(1, 0.8, 819), (64, 0.8, 768), (1, 1.0, 1024), (1024, 0.5, 0)]
)
def test_requests_the_swa_pool_holds_the_ratio_of_the_tokens_floored_to_the_page(page, ratio, swa_tokens):
    # 1,024 tokens: ⌊1,024 × 0.8⌋ = 819, 768 in pages of 64; ⌊1,024 × 0.5⌋ = 512 is not a page of 1,024
    step = requests(page=page, swa=1, swa_full_tokens_ratio=ratio)
    assert (step.max_tokens, step.swa_tokens) == (1024, swa_tokens)
    assert requests(page=page).swa_tokens is None  # no SWA layers


# ------------------------------------------------------------------------------------------- 11 placement
@pytest.mark.parametrize(
    ("per_node", "tp", "notes"),
    [
        (8, 1, ()),
        (8, 8, ()),  # a whole server
        (8, 16, ("multi-node",)),
        (1, 1, ()),
        (1, 2, ("multi-node",)),
        (None, 1, ()),  # one GPU needs no server size
        (None, 2, ("multi-node-unknown",)),
    ],
)
def test_placement_a_tp_group_beyond_one_server(per_node, tp, notes):
    # DeepSeek-V3: 128 heads, MLA: every TP here divides them
    assert memory.plan_placement(asked("deepseek-v3", hardware(gpus_per_node=per_node), tp=tp)) == notes


@pytest.mark.parametrize(
    ("tp", "notes"),
    [
        (4, ()),
        (8, ()),  # TP equal to the 8 KV heads
        (16, ()),  # 16 % 8 == 0: KV heads replicated, accepted
        (3, ("heads-indivisible", "kv-heads-indivisible")),  # 32 % 3, 8 % 3
        (12, ("heads-indivisible", "kv-heads-indivisible")),  # 32 % 12; 12 % 8
        (32, ()),  # 32 heads, 32 % 8 KV heads: accepted
        (64, ("heads-indivisible",)),  # 32 % 64; 64 % 8 == 0
    ],
)
def test_placement_layouts_the_engine_refuses(tp, notes):
    # Llama 3.1 8B: 32 heads, 8 KV heads; on a server of 64, so that only the layout speaks
    assert memory.plan_placement(asked(hw=hardware("h100", gpus_per_node=64), tp=tp)) == notes


@pytest.mark.parametrize(
    ("context", "notes"), [(131_071, ()), (131_072, ()), (131_073, ("context-over-native",))]
)
def test_placement_a_context_beyond_the_models_own(context, notes):
    assert memory.plan_placement(asked(context=context)) == notes


# ------------------------------------------------------------------------------------------- 12 bounded
def bounded(bounds=(), free_gib=None, fraction_bounded=False, fraction=0.5):
    f = memory.Fraction(default=None, fraction=fraction, aiter_scaled=False, bounded=fraction_bounded)
    return memory.plan_bounded(asked(free_gib=free_gib), f, tuple(bounds))


TOKENS = ("max-tokens", "swa-tokens", "requests", "running")
BUDGET = ("static", "rest", "budget", "state", "kv-pool")


@pytest.mark.parametrize(
    ("options", "figures"),
    [
        ({}, ()),
        ({"fraction_bounded": True}, ("fraction", *BUDGET)),  # no bound code, yet the fraction is one
        ({"fraction_bounded": True, "fraction": None}, ()),  # no fraction to bound
        ({"bounds": ["reported-memory"]}, ("gpu", "free", *BUDGET, *TOKENS)),
        ({"bounds": ["reported-memory"], "free_gib": 70.0}, ("gpu", *TOKENS)),
        ({"bounds": ["state-dtype"]}, ("state", "kv-pool", *TOKENS)),
        ({"bounds": ["state-shape", "state-dtype"]}, ("state", "kv-pool", *TOKENS)),
        ({"bounds": ["reported-memory", "state-dtype"]}, ("gpu", "free", *BUDGET, *TOKENS)),  # each once
        ({"bounds": ["indexer"]}, TOKENS),
        ({"bounds": ["platform"]}, (*TOKENS, "page")),
        ({"bounds": ["architecture"]}, (*TOKENS, "page")),
    ],
)
def test_bounded_figures_follow_from_the_bounds(options, figures):
    assert bounded(**options) == figures


# ------------------------------------------------------------------------------------------- the whole
def test_plan_is_its_steps_and_raises_bounds_only_with_a_bound():
    llama = memory.plan(KB.models["llama-3.1-8b"], KB.hardware["h100"], BF16, BF16, tp=1)
    assert "bounds" not in llama.notes and llama.missing == {}
    b300 = memory.plan(KB.models["llama-3.1-8b"], KB.hardware["b300"], BF16, BF16, tp=1)
    assert b300.notes[0] == "bounds" and b300.bounds == ("reported-memory",)
    ascend = memory.plan(with_config("glm-5", architectures=None), KB.hardware["ascend"], BF16, BF16, tp=8)
    # two steps short of a field each, in the steps' order
    assert list(ascend.missing.items()) == [("memory", ("memory_gb",)), ("weights", ("params.total_b",))]


# ------------------------------------------------------------------------------------------- planner.js
def python_steps() -> tuple[list[str], list[str]]:
    """memory.py's plan steps in the order they are defined, and in the order plan() calls them."""
    tree = ast.parse(MEMORY_PY.read_text(encoding="utf-8"))
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("plan_")]
    body = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "plan")
    called = [n.func.id for n in ast.walk(body) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return defined, called


def js_steps(text: str) -> tuple[list[str], list[str]]:
    defined = re.findall(r"^  function (plan[A-Z]\w*)\(", text, re.M)
    start = text.index("\n  function plan(")
    body = text[start : text.index("\n  }\n", start)]
    return defined, re.findall(r"\b(plan[A-Z]\w*|assemblePlan)\(", body)


def test_planner_js_has_the_same_steps_in_the_same_order():
    defined, called = python_steps()
    assert len(defined) == 13 and called[-1] == "assemble_plan"
    assert js_steps(PLANNER_JS.read_text(encoding="utf-8")) == (
        [camel(n) for n in defined],
        [camel(n) for n in called],
    )


def test_a_step_renamed_or_moved_in_planner_js_is_found():
    text = PLANNER_JS.read_text(encoding="utf-8")
    defined = js_steps(text.replace("function planState(", "function planRecurrentState("))[0]
    assert "planRecurrentState" in defined and "planState" not in defined
    swapped = text.replace(
        "const cell = planCell(asked, engine);\n    const state = planState(asked);",
        "const state = planState(asked);\n    const cell = planCell(asked, engine);",
    )
    assert js_steps(swapped)[1] != js_steps(text)[1]


DSV4_JS = (
    PLANNER_IN_NODE
    + """
const { data, cases } = JSON.parse(require("fs").readFileSync(0, "utf8"));
const find = (list, id) => list.find((x) => x.id === id);
const out = cases.map((c) => {
  const asked = P.steps.planInputs(data, find(data.models, "deepseek-v4-pro"), find(data.hardware, c.hw),
    find(data.dtypes, "fp4"), find(data.dtypes, c.kv), c.opts);
  const engine = P.steps.planEngine(asked);
  const cell = P.steps.planCell(asked, engine);
  return [engine.page_size, engine.swa_full_tokens_ratio, engine.max_running_requests, cell.rows, cell.indexer,
    cell.swa, cell.per_token, cell.fixed, cell.notes, P.steps.planPlacement(asked)];
});
process.stdout.write(JSON.stringify(out));
"""
)


def test_planner_js_sizes_the_dsv4_pool_the_same(node):
    cases = [
        {"hw": "h200", "kv": "fp8", "opts": {"tp": 8}},
        {"hw": "mi355x", "kv": "bf16", "opts": {"tp": 1}},
        {
            "hw": "b200",
            "kv": "fp8",
            "opts": {"tp": 4, "swa_full_tokens_ratio": 0.2, "max_running_requests": 64},
        },
        {"hw": "h200", "kv": "fp8", "opts": {"tp": 8, "page_size": 64}},
    ]
    want = []
    for c in cases:
        a = asked("deepseek-v4-pro", c["hw"], "fp4", c["kv"], **c["opts"])
        engine = memory.plan_engine(a)
        cell = memory.plan_cell(a, engine)
        want.append(
            [engine.page_size, engine.swa_full_tokens_ratio, engine.max_running_requests, cell.rows,
             cell.indexer, cell.swa, cell.per_token, cell.fixed, list(cell.notes),
             list(memory.plan_placement(a))]
        )  # fmt: skip
    done = subprocess.run(
        [node, "-e", DSV4_JS],
        input=json.dumps({"data": planner_data.planner_data(KB), "cases": cases}),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == want
    assert want[0][6] == 10115.25 and want[2][6] == 0.2 * DSV4_SWA + DSV4_ROWS + DSV4_INDEXER


# The boundaries of steps 9, 10 and 12 again, through planner.js's own steps (node)
JS_STEPS = (
    PLANNER_IN_NODE
    + """
const { data, cases } = JSON.parse(require("fs").readFileSync(0, "utf8"));
const llama = data.models.find((m) => m.id === "llama-3.1-8b");
const h100 = data.hardware.find((h) => h.id === "h100");
const bf16 = data.dtypes.find((d) => d.id === "bf16");
const out = cases.map((c) => {
  const asked = P.steps.planInputs(data, llama, h100, bf16, bf16, { tp: 1, ...c.opts });
  if (c.ratio !== undefined) asked.engine = { ...asked.engine, mamba_full_memory_ratio: c.ratio };
  const step = P.steps[c.step];
  return step(asked, ...c.args);
});
process.stdout.write(JSON.stringify(out));
"""
)


def js_case(step: str, *args, ratio=None, **opts) -> dict:
    case = {"step": step, "args": [json.loads(json.dumps(dataclasses.asdict(a))) for a in args], "opts": opts}
    return case | ({"ratio": ratio} if ratio is not None else {})


def test_planner_js_steps_decide_the_same_at_the_same_boundaries(node):
    free = memory.FreeMemory(free=80 * GIB, static=None, rest=None, mm_reserve=0.0)
    f = fraction_of(0.5)
    cases, expected = [], []
    for per_gpu, state, ratio in [
        (40 * GIB - 1, NO_STATE, None),
        (40 * GIB, NO_STATE, None),
        (40 * GIB + 1, NO_STATE, None),
        (32 * GIB, linear(2 * GIB), 1.0),
        (32 * GIB, linear(2 * GIB + 1), 1.0),
        (32 * GIB, linear(2 * GIB, smallest=GIB), 1.0),
        (32 * GIB, linear(None), 1.0),
    ]:
        share = memory.WeightsPerGpu(weights=None, per_gpu=per_gpu)
        cases.append(js_case("planBudget", f, free, share, state, ratio=ratio))
        expected.append(budget(per_gpu, state=state, ratio=ratio))
    for page, cap, slots in [
        (1, 1024, None),
        (1, 1023, None),
        (64, 1023, None),
        (1, None, 2560),
        (1, None, 2559),
    ]:
        engine = engine_choice(page)
        cases.append(
            js_case(
                "planRequests",
                engine,
                cell_of(MIB),
                pool_of(1.0, slots=slots),
                context=1024,
                max_total_tokens=cap,
            )
        )
        expected.append(requests(page=page, max_total_tokens=cap, slots=slots))
    for bounds, free_gib in [
        (["reported-memory"], None),
        (["reported-memory"], 70.0),
        (["state-dtype", "platform"], None),
    ]:
        cases.append(js_case("planBounded", f, free_gib=free_gib) | {"args": [dataclasses.asdict(f), bounds]})
        expected.append(bounded(bounds, free_gib=free_gib))
    data = planner_data.planner_data(KB)
    done = subprocess.run(
        [node, "-e", JS_STEPS],
        input=json.dumps({"data": data, "cases": cases}),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    want = [
        list(e) if isinstance(e, tuple) else json.loads(json.dumps(dataclasses.asdict(e))) for e in expected
    ]
    assert got == want


# ------------------------------------------------------------------------------------------- 13 looseness
def full_plan(model="llama-3.1-8b", hw="h100", weights="bf16", kv="bf16", tp=1, **options) -> memory.Plan:
    model = KB.models[model] if isinstance(model, str) else model
    hw = KB.hardware[hw] if isinstance(hw, str) else hw
    return memory.plan(model, hw, KB.dtypes[weights], KB.dtypes[kv], tp, **options)


def test_looseness_a_plan_without_a_bound_has_none():
    p = full_plan()
    assert p.bounds == ()
    assert (p.tokens_lower, p.looseness, p.loose, p.unproven, p.exact_fields) == (None, None, (), (), ())
    assert p.looser_than_stated is None


def test_looseness_of_an_unknown_vision_config_is_the_encoder_factor_at_its_smallest():
    """memory_hook.py:458-459 clamps the encoder factor to [0.8, 1.05]: the bound took 0.95 × 1.05, the other
    extreme is the same plan with the default × 0.95 × 0.8 given as the fraction."""
    p = full_plan("qwen3.8-flash-next", "h200", weights="fp8", kv="fp8", tp=8)
    assert p.bounds == ("vision-config",) and p.loose == ("vision-config",) and p.unproven == ()
    low = sizing.default_mem_fraction(KB.hardware["h200"].memory_mib_reported, 8) * 0.95 * 0.8
    other = full_plan("qwen3.8-flash-next", "h200", weights="fp8", kv="fp8", tp=8, mem_fraction_static=low)
    assert other.bounds == () and p.tokens_lower == other.max_tokens < p.max_tokens
    assert p.looseness == p.max_tokens / other.max_tokens - 1
    assert p.exact_fields == ("config.vision_config",)


@pytest.mark.parametrize(("context", "loose"), [(8192, ()), (8193, ("kv-heads",))])
def test_looseness_of_unknown_kv_heads_on_amd_is_aiters_085_above_8192_tokens_only(context, loose):
    model = with_config("deepseek-v3", num_key_value_heads=None)
    p = full_plan(model, "mi300x", weights="fp8", tp=8, context=context)
    assert (
        p.bounds == ("kv-heads",) and p.loose == loose and p.exact_fields == ("config.num_key_value_heads",)
    )
    if not loose:
        assert p.tokens_lower == p.max_tokens and p.looseness == 0.0
        return
    # triton (the bound, unscaled) or aiter (× 0.85): the other extreme is the scaled default given
    scaled = full_plan(model, "mi300x", weights="fp8", tp=8, context=context, mem_fraction_static=0.85)
    given = p.mem_fraction_static * 0.85
    other = full_plan(model, "mi300x", weights="fp8", tp=8, context=context, mem_fraction_static=given)
    assert (
        scaled.max_tokens != other.max_tokens
    )  # a given fraction is not scaled again: no backend to scale it
    assert p.tokens_lower == other.max_tokens < p.max_tokens


def test_looseness_of_an_unknown_indexer_schedule_is_an_indexer_on_every_layer():
    p = full_plan(with_config("glm-5.3", index_topk_freq=None), "h200", weights="fp8", tp=8)
    assert p.bounds == ("indexer",) and p.loose == ("indexer",)
    assert p.exact_fields == ("config.index_topk_freq",)
    # index_topk_freq 1 skips no layer (configs/model_config.py:dsa_layer_skips_topk:510-522): the exact plan
    every_layer = full_plan(with_config("glm-5.3", index_topk_freq=1), "h200", weights="fp8", tp=8)
    assert every_layer.bounds == () and p.tokens_lower == every_layer.max_tokens < p.max_tokens


def test_looseness_of_an_unknown_indexer_width_is_unknown():
    p = full_plan(
        with_config("glm-5.3", index_head_dim=None, index_topk_freq=None), "h200", weights="fp8", tp=8
    )
    assert p.unproven == ("indexer",) and p.tokens_lower is None and p.looseness is None
    assert p.exact_fields == ("config.index_head_dim", "config.index_topk_freq")


def test_looseness_of_an_unknown_state_dtype_is_the_worse_of_the_dtypes_the_engine_accepts():
    p = full_plan("qwen3.5-397b-a17b", "h200", tp=8)
    assert p.bounds == ("state-dtype",) and p.loose == ("state-dtype",)
    exact = [
        full_plan(with_config("qwen3.5-397b-a17b", mamba_ssm_dtype=d), "h200", tp=8).max_tokens
        for d in ("float32", "bfloat16", "float16")
    ]
    assert p.tokens_lower == min(exact) and max(exact) <= p.max_tokens
    assert p.exact_fields == ("config.mamba_ssm_dtype",)


@pytest.mark.parametrize(
    ("model", "hw", "unproven", "fields"),
    [
        ("llama-3.1-8b", "b300", ("reported-memory",), ("hardware.b300.memory_mib_reported",)),
        (with_config("llama-3.1-8b", architectures=[]), "h100", ("architecture",), ("config.architectures",)),
        ("llama-3.1-8b", hardware("h100", architecture="Ampere"), ("platform",), ()),
    ],
    ids=["reported-memory", "architecture", "platform"],
)
def test_looseness_is_unknown_where_nothing_bounds_the_input_from_the_other_side(model, hw, unproven, fields):
    p = full_plan(model, hw)
    assert p.max_tokens is not None and "max-tokens" in p.bounded
    assert (p.tokens_lower, p.looseness, p.loose, p.unproven, p.exact_fields) == (
        None,
        None,
        (),
        unproven,
        fields,
    )


def with_tokens(lower: int, upper: int, **fields) -> memory.Plan:
    base = full_plan("qwen3.5-397b-a17b", "h200", tp=8)
    return dataclasses.replace(
        base, tokens_lower=lower, max_tokens=upper, looseness=upper / lower - 1, **fields
    )


@pytest.mark.parametrize(
    ("lower", "upper", "looser"),
    [(100, 105, False), (100, 106, True), (2000, 2100, False), (2000, 2101, True), (7, 7, False)],
)
def test_looseness_of_exactly_5_percent_is_within_and_just_above_is_not(lower, upper, looser):
    assert with_tokens(lower, upper).looser_than_stated is looser


@pytest.mark.parametrize(
    ("lower", "upper", "percent"),
    [(1000, 1050, "5"), (1000, 1051, "5.1"), (3, 4, "33.4"), (5, 5, "0"), (1, 12346, "1,234,500")],
)
def test_looseness_percent_is_rounded_up_to_a_tenth(lower, upper, percent):
    from handbook.render.planner import percent_above

    assert percent_above(upper, lower) == percent


def test_looseness_is_worded_within_beyond_refused_and_unknown():
    from handbook.render.planner import looseness_text

    assert looseness_text(with_tokens(100, 105), "en") == (
        "the engine's figure lies between 100 and 105: this bound is at most 5 % above it"
    )
    # the bound's one reason was just given ("upper bound: …"): the sentence does not repeat it
    assert looseness_text(with_tokens(100, 106), "en") == (
        "the engine's figure lies between 100 and 106: this bound can be up to 6 % above it, more than 5 %; "
        "config.mamba_ssm_dtype in this KB would make it exact"
    )
    assert looseness_text(with_tokens(100, 106), "zh") == (
        "引擎的数字在 100 到 106 之间：此上限可比它高出 6%，超过 5%；本 KB 补上 config.mamba_ssm_dtype 即可算准"
    )
    # with another reason beside it, the sentence says which one it is about
    two = with_tokens(100, 106, bounds=("vision-config", "state-dtype"))
    assert looseness_text(two, "en") == (
        "the engine's figure lies between 100 and 106: this bound can be up to 6 % above it, more than 5 %, "
        "because the recurrent state's dtype (mamba_ssm_dtype) is not in this KB; "
        "config.mamba_ssm_dtype in this KB would make it exact"
    )
    assert looseness_text(two, "zh") == (
        "引擎的数字在 100 到 106 之间：此上限可比它高出 6%，超过 5%，因为本 KB 没有循环状态的 dtype（mamba_ssm_dtype）；"
        "本 KB 补上 config.mamba_ssm_dtype 即可算准"
    )
    refused = dataclasses.replace(with_tokens(1, 640), tokens_lower=0, looseness=None)
    assert looseness_text(refused, "en") == (
        "the engine's figure lies between 0 and 640: at the other extreme the engine refuses to start; "
        "config.mamba_ssm_dtype in this KB would make it exact"
    )
    assert looseness_text(dataclasses.replace(refused, max_tokens=0), "en") == ""  # refused either way
    b300 = full_plan("llama-3.1-8b", "b300")
    assert looseness_text(b300, "en") == (
        "how far above the engine's figure it lies cannot be computed: neither the engine's code nor this KB "
        "bounds it from the other side; hardware.b300.memory_mib_reported in this KB would make it exact"
    )
    assert looseness_text(full_plan(), "en") == ""
