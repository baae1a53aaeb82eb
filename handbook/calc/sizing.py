"""What SGLang 0.5.23 decides before it sizes the KV pool, as plain arithmetic: the platform's attention
backend and page size, the default --mem-fraction-static, aiter's ×0.85, the multimodal reservation, the DSA
and QSA indexers, the linear-attention state pool and max_running_requests.

Every rule cites the 0.5.23 wheel (``sglang/srt/…``, file:function:lines). ``handbook/oracles/sizing.py``
runs the wheel's own code for every KB model × accelerator × TP × KV dtype and writes
tests/golden/sizing-0.5.23.json; tests/test_planner_oracle.py holds ``handbook.calc.memory.plan`` to it.
The engine defaults these rules use (ratios, environment defaults) are read from the engine snapshot
(kb/engine/sglang-0.5.23.json), never typed here; docs/assets/planner.js receives them in the planner's
data and repeats every function below.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Literal

from handbook.engine.snapshot import EngineSnapshot, load_snapshot
from handbook.kb.schema import Dtype, Hardware, Model

GIB = 1 << 30
MIB = 1 << 20

# --------------------------------------------------------------------------------------- engine defaults


@dataclass(frozen=True, kw_only=True)
class EngineDefaults:
    """The engine defaults the sizing uses, each read from the snapshot (option fallback or env default)."""

    swa_full_tokens_ratio: float  # --swa-full-tokens-ratio fallback (arg_groups/fields/schedule.py:150-161)
    mamba_full_memory_ratio: (
        float  # --mamba-full-memory-ratio fallback (arg_groups/fields/schedule.py:220-227)
    )
    vlm_cache_mib: int  # SGLANG_VLM_CACHE_SIZE_MB (environ.py:1598): the multimodal reservation
    mamba_conv_dtype: str  # SGLANG_MAMBA_CONV_DTYPE (environ.py:1628): the conv state's dtype
    use_aiter: bool  # SGLANG_USE_AITER (environ.py:949): DSA page size on ROCm
    aiter_honors_explicit_fraction: bool  # SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION (environ.py:1071)
    dsv4_kv_layout: str  # SGLANG_DSV4_KV_LAYOUT (environ.py:1754): DeepSeek-V4's paged KV layout
    dsv4_compress_state_dtype: str  # SGLANG_DSV4_COMPRESS_STATE_DTYPE (environ.py:1832)


# Where each default comes from in the snapshot: (kind, name). Tests tie every field to its entry.
DEFAULT_SOURCES: dict[str, tuple[Literal["option", "env"], str]] = {
    "swa_full_tokens_ratio": ("option", "--swa-full-tokens-ratio"),
    "mamba_full_memory_ratio": ("option", "--mamba-full-memory-ratio"),
    "vlm_cache_mib": ("env", "SGLANG_VLM_CACHE_SIZE_MB"),
    "mamba_conv_dtype": ("env", "SGLANG_MAMBA_CONV_DTYPE"),
    "use_aiter": ("env", "SGLANG_USE_AITER"),
    "aiter_honors_explicit_fraction": ("env", "SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION"),
    "dsv4_kv_layout": ("env", "SGLANG_DSV4_KV_LAYOUT"),
    "dsv4_compress_state_dtype": ("env", "SGLANG_DSV4_COMPRESS_STATE_DTYPE"),
}


def defaults_from(snapshot: EngineSnapshot) -> EngineDefaults:
    values = {}
    for name, (kind, key) in DEFAULT_SOURCES.items():
        if kind == "option":
            field = snapshot.option("launch_server", key).engine_field
            if field is None or field.fallback is None:
                raise ValueError(f"{key}: the snapshot has no fallback for it")
            values[name] = field.fallback
        else:
            values[name] = snapshot.env_var(key).default
    return EngineDefaults(**values)


@functools.cache
def engine_defaults() -> EngineDefaults:
    """The pinned engine's defaults (kb/engine/sglang-<engine_version>.json)."""
    return defaults_from(load_snapshot())


# Constants of the wheel's code, not options: each with its file and line.
AITER_CONTEXT_THRESHOLD = 8192  # attention_hook.py:handle_attention_backend_compatibility:244-245
AITER_FRACTION_SCALE = 0.85  # attention_hook.py:265-268
MAMBA_REQUEST_RATIO = 3  # kv_cache_configurator.py:MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO:227
MAMBA_TRACKING_SLOTS = (
    2  # mem_cache/allocation_sizing.py:get_mamba_tracking_slots:11-19 (extra buffer, overlap)
)
DSA_QUANT_BLOCK = 128  # mem_cache/memory_pool.py:DSATokenToKVPool.quant_block_size:5279-5282
DSA_SCALE_BYTES = 4  # one fp32 scale per DSA_QUANT_BLOCK (model_executor/pool_configurator.py:569)
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
# model_executor/pool_configurator.py:_get_dsv4_compress_state_dtype_sizes:136-145
DSV4_STATE_DTYPES = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16"}

# ---------------------------------------------------------------------------------------------- platform
Platform = Literal["hopper", "blackwell", "cdna"]

# The accelerators whose engine path the planner models, by vendor and architecture (kb/hardware): Hopper is
# SM90, Blackwell and Blackwell Ultra are SM100/SM103 (is_sm100), CDNA 3/4 run ROCm (is_hip).
PLATFORMS: dict[tuple[str, str], Platform] = {
    ("nvidia", "Hopper"): "hopper",
    ("nvidia", "Blackwell"): "blackwell",
    ("nvidia", "Blackwell Ultra"): "blackwell",
    ("amd", "CDNA 3"): "cdna",
    ("amd", "CDNA 4"): "cdna",
}


def platform_of(hw: Hardware) -> Platform | None:
    """None: an accelerator whose backend choices the planner does not model (its figures are bounds)."""
    return PLATFORMS.get((hw.vendor, hw.architecture or ""))


# ---------------------------------------------------------------------------------------------- model traits
# configs/model_config.py:is_deepseek_dsa:191-212 (with index_topk set)
DSA_ARCHITECTURES = frozenset(
    {
        "DeepseekV3ForCausalLM",
        "DeepseekV32ForCausalLM",
        "MistralLarge3ForCausalLM",
        "PixtralForConditionalGeneration",
        "GlmMoeDsaForCausalLM",
        "Glm5NextForConditionalGeneration",
        "LongcatFlashForCausalLM",
        "Dots3NoteForCausalLM",
        "HYV4ForCausalLM",
    }
)
# arg_groups/model_overrides/deepseek_v2.py:_deepseek_family_overrides:37-50 (trtllm_mla on SM100 for MLA)
DEEPSEEK_FAMILY = DSA_ARCHITECTURES | {"KimiK25ForConditionalGeneration"}
# arg_groups/model_overrides/qwen3_5.py:_qwen3_5_hybrid_overrides:17-49 (triton, page 1 on SM100)
QWEN3_5_FAMILY = frozenset(
    {
        "Qwen3NextForCausalLM",
        "Qwen3_5MoeForConditionalGeneration",
        "Qwen3_5ForConditionalGeneration",
    }
)
# arg_groups/model_overrides/qwen4_exp.py:_qwen4_exp_overrides:20-97 (page 64 with the QSA indexer)
QWEN4_EXP = frozenset({"Qwen4ExpForConditionalGeneration"})
# configs/model_config.py:is_deepseek_v4:395-400 names the draft classes too; the served model is this one,
# the class the override (arg_groups/model_overrides/deepseek_v4.py:18) and the hook are registered for
DSV4_ARCHITECTURES = frozenset({"DeepseekV4ForCausalLM"})
# arg_groups/model_overrides/gpt_oss.py:_gpt_oss_overrides:24-45 (fa3 on SM90, trtllm_mha on SM100, aiter)
GPT_OSS = frozenset({"GptOssForCausalLM"})
# configs/model_config.py:multimodal_model_archs:2391-2473, every architecture the engine treats as
# multimodal (the default fraction's encoder factor and the SGLANG_VLM_CACHE_SIZE_MB reservation follow);
# the engine-sizing oracle records the wheel's own list and tests/test_planner_oracle.py compares.
MULTIMODAL = frozenset(
    {
        "CLIPModel",
        "Cohere2VisionForConditionalGeneration",
        "Cosmos3EdgeForConditionalGeneration",
        "DeepseekVL2ForCausalLM",
        "Ernie4_5_VLMoeForConditionalGeneration",
        "MiniMaxM3SparseForConditionalGeneration",
        "Gemma3ForConditionalGeneration",
        "Gemma3nForConditionalGeneration",
        "Gemma4ForConditionalGeneration",
        "EmbeddingGemma2Model",
        "Gemma4UnifiedForConditionalGeneration",
        "DiffusionGemmaForBlockDiffusion",
        "Glm4vForConditionalGeneration",
        "Glm4vMoeForConditionalGeneration",
        "Glm5NextForConditionalGeneration",
        "GlmOcrForConditionalGeneration",
        "GlmAsrForConditionalGeneration",
        "GlmImageForConditionalGeneration",
        "Grok1VForCausalLM",
        "Grok1AForCausalLM",
        "LlavaLlamaForCausalLM",
        "Llama4ForConditionalGeneration",
        "LlavaMistralForCausalLM",
        "LlavaQwenForCausalLM",
        "LlavaForConditionalGeneration",
        "LlavaVidForCausalLM",
        "Lfm2VlForConditionalGeneration",
        "LightOnOCRForConditionalGeneration",
        "MiMoV2ForCausalLM",
        "MiMoV2ASRForCausalLM",
        "MiniCPMO",
        "MiniCPMV",
        "Mistral3ForConditionalGeneration",
        "MultiModalityCausalLM",
        "MllamaForConditionalGeneration",
        "MossVLForConditionalGeneration",
        "NemotronH_Nano_VL_V2",
        "NemotronH_Nano_Omni_Reasoning_V3",
        "NemotronH_Omni_Reasoning_V3",
        "MuseGlimmerForConditionalGeneration",
        "MuseSparkForConditionalGeneration",
        "PixtralForConditionalGeneration",
        "Qwen2AudioForConditionalGeneration",
        "Qwen2VLForConditionalGeneration",
        "Qwen2_5_VLForConditionalGeneration",
        "Qwen3VLForConditionalGeneration",
        "Qwen3VLMoeForConditionalGeneration",
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForConditionalGeneration",
        "Qwen4ExpForConditionalGeneration",
        "InternS2PreviewForConditionalGeneration",
        "InternS2MobiusForConditionalGeneration",
        "Qwen3ASRForConditionalGeneration",
        "Qwen3OmniMoeForConditionalGeneration",
        "KimiVLForConditionalGeneration",
        "LocateAnythingForConditionalGeneration",
        "InternVLChatModel",
        "InternS1ForConditionalGeneration",
        "InternS1ProForConditionalGeneration",
        "Phi4MMForCausalLM",
        "VoxtralForConditionalGeneration",
        "WhisperForConditionalGeneration",
        "Step3VLForConditionalGeneration",
        "POINTSV15ChatModel",
        "DotsVLMForCausalLM",
        "Dots3NoteForCausalLM",
        "DotsOCRForCausalLM",
        "Sarashina2VisionForCausalLM",
        "NVILAForConditionalGeneration",
        "NVILALiteForConditionalGeneration",
        "DeepseekOCRForCausalLM",
        "UnlimitedOCRForCausalLM",
        "JetVLMForConditionalGeneration",
        "PaddleOCRVLForConditionalGeneration",
        "MiDashengLMModel",
        "StepVLForConditionalGeneration",
        "Step3p7ForConditionalGeneration",
        "KimiK25ForConditionalGeneration",
        "BailingMMNativeForConditionalGeneration",
        "BailingMM2NativeForConditionalGeneration",
        "BailingMoeV3VLForConditionalGeneration",
    }
)
# configs/model_config.py:is_hybrid_swa_model:2651-2698: the architectures whose sliding-window layers get
# their own pool (HybridSWAPoolConfigurator); any other model's sliding layers share the one full pool, e.g.
# Gemma-2/3 (whose override also sets disable_hybrid_swa_memory, model_overrides/gemma2_gemma3.py:26).
# Two exceptions there: BeamForCausalLM only with sliding layers, LagunaForCausalLM only with a window.
HYBRID_SWA = frozenset(
    {
        "BeamForCausalLM",
        "Llama4ForConditionalGeneration",
        "DeepseekV4ForCausalLM",
        "DeepseekV4ForCausalLMNextN",
        "DeepseekV4ForCausalLMDSpark",
        "GptOssForCausalLM",
        "GraniteSWAForCausalLM",
        "GraniteMoeSWAForCausalLM",
        "IQuestQ1ForCausalLM",
        "IQuestQ1MTP",
        "MiMoV2ForCausalLM",
        "MiMoV2FlashForCausalLM",
        "MiMoV2MTP",
        "Step3p5ForCausalLM",
        "Step3p5MTP",
        "Step3p7ForConditionalGeneration",
        "Gemma4ForCausalLM",
        "Gemma4ForConditionalGeneration",
        "EmbeddingGemma2Model",
        "Gemma4UnifiedForConditionalGeneration",
        "DiffusionGemmaForBlockDiffusion",
        "LagunaForCausalLM",
        "MellumForCausalLM",
        "MuseGlimmerForCausalLM",
        "MuseGlimmerForConditionalGeneration",
        "InklingForConditionalGeneration",
        "InklingForConditionalGenerationMTP",
        "UnlimitedOCRForCausalLM",
    }
)


def architecture(model: Model) -> str | None:
    return model.config.architectures[0] if model.config.architectures else None


def is_dsa(model: Model) -> bool:
    """A DSA model: an MLA model with a top-k indexer (index_topk), in a DSA architecture where known."""
    arch = architecture(model)
    return (
        model.attention.kv_formula == "mla"
        and model.config.index_topk is not None
        and (arch is None or arch in DSA_ARCHITECTURES)
    )


def is_dsv4(model: Model) -> bool:
    """DeepSeek-V4's compressed attention: the architecture the engine gives its own pool
    (pool_configurator.py:create_memory_pool_configurator:1715-1725, is_deepseek_v4 and hybrid SWA) and
    whose override sets the dsv4 backend (arg_groups/model_overrides/deepseek_v4.py:18)."""
    return architecture(model) in DSV4_ARCHITECTURES


def is_qsa(model: Model) -> bool:
    """Qwen compressed QSA: indexer_n_heads set (layers/attention/qsa/config.py:parse_qsa_profile:78-88)."""
    return model.config.indexer_n_heads is not None


# configs/model_config.py:690-704: multimodal architectures the engine serves text-only unless
# --enable-multimodal is given (so no encoder reservation, no vision fraction by default)
MULTIMODAL_OFF_BY_DEFAULT = frozenset(
    {
        "Gemma3ForConditionalGeneration",
        "Llama4ForConditionalGeneration",
        "Step3VLForConditionalGeneration",
        "InklingForConditionalGeneration",
    }
)


def is_multimodal(model: Model) -> bool | None:
    """Whether the engine serves the model as multimodal by default: configs/model_config.py:
    is_multimodal_model:2522-2529 (any of the config's architectures), less the architectures it serves
    text-only unless asked (:690-704, on the first architecture)."""
    archs = model.config.architectures
    if not archs:
        return None
    return any(a in MULTIMODAL for a in archs) and archs[0] not in MULTIMODAL_OFF_BY_DEFAULT


def is_hybrid_swa(model: Model) -> bool | None:
    """Whether the sliding-window layers get their own pool (configs/model_config.py:is_hybrid_swa_model:
    2651-2698, then _derive_hybrid_model:1213-1218); None: the architecture is not in the KB."""
    c = model.config
    archs = c.architectures
    if archs and any(a in HYBRID_SWA for a in archs):
        if "BeamForCausalLM" in archs:
            return "sliding_attention" in c.layer_types_count
        # Laguna only with a window (:2686-2692)
        return not ("LagunaForCausalLM" in archs and not c.sliding_window)
    if c.is_hybrid_swa:  # the config's own opt-in (:2695)
        return True
    return None if not archs else False


def derived_context(model: Model) -> int | None:
    """The context the engine derives from config.json when none is given (utils/hf_transformers/common.py:
    get_context_length:677-696, used by configs/model_config.py:_derive_context_length:1291-1326):
    max_position_embeddings × rope_scaling.factor, the factor taken as 1 when rope_scaling names
    original_max_position_embeddings or is of type llama3. None: max_position_embeddings is not in the KB."""
    c = model.config
    if c.max_position_embeddings is None:
        return None
    factor = 1.0
    rope = c.rope_scaling
    if rope is not None and rope.factor is not None:
        factor = rope.factor
        if rope.original_max_position_embeddings is not None or rope.rope_type == "llama3":
            factor = 1.0
    return int(factor * c.max_position_embeddings)


# ---------------------------------------------------------------------------------------------- backend, page
@dataclass(frozen=True, kw_only=True)
class Backend:
    attention: str | None  # the resolved attention backend; None when not modelled
    page_size: int  # the engine's page size (1 where not modelled: then tokens are an upper bound)
    dsa_raw_layout: bool  # DSA only: the MLA rows keep the raw layout (False: scales + BF16 rope)
    unknown: tuple[str, ...]  # reason codes when a choice depends on something the KB lacks


# aiter's MLA kernels take 16 or 128 heads per rank (arg_groups/model_override_base.py:339-344)
AITER_MLA_HEADS = (16, 128)
# Page sizes the backends force (function docstring below): trtllm_mla and trtllm_mha 64, fa4 128; DSA 64
# × index_kpool (deepseek_v2.py:148-172); the QSA override's 64 (qwen4_exp.py:_qwen4_exp_overrides:20-97)
TRTLLM_PAGE_SIZE = 64
FA4_PAGE_SIZE = 128
DSA_PAGE_SIZE = 64
QSA_PAGE_SIZE = 64
# The attention backend each branch of ``backend`` resolves, by the engine's names:
# arg_groups/model_override_base.py:get_default_attn_backend:277-352 (ROCm aiter, MLA on ROCm triton
# unless aiter takes its heads, Hopper fa3, SM100 MLA flashinfer, SM100 trtllm_mha) and the model overrides
# cited on the architecture sets above (DeepSeek trtllm_mla, Qwen3.5 triton; fa4 where v_head_dim differs)
ATTENTION_BACKENDS: dict[str, str] = {
    "rocm": "aiter",
    "rocm_mla_other": "triton",
    "hopper": "fa3",
    "sm100_mla": "flashinfer",
    "sm100_deepseek_mla": "trtllm_mla",
    "sm100_qwen3_5": "triton",
    "sm100_fa4": "fa4",
    "sm100": "trtllm_mha",
}
DSV4_BACKEND = "dsv4"
DSV4_PAGE_SIZE = 256
DSA_SCALED_KV = "fp8_e4m3"  # the --kv-cache-dtype whose DSA rows Hopper scales (flashmla_kv, below)
# The QSA override's attention backend on each platform (qwen4_exp.py:_qwen4_exp_overrides:20-97)
QSA_BACKENDS: dict[str, str] = {"hopper": "fa3", "blackwell": "triton", "cdna": "aiter"}


def backend(model: Model, platform: Platform | None, tp: int, kv: Dtype) -> Backend:
    """The attention backend and page size SGLang resolves (no --attention-backend, --page-size given).

    Defaults: arg_groups/model_override_base.py:get_default_attn_backend:277-352; model overrides as cited on
    the architecture sets above; page sizes: overrides.py:_mla_backend_page_constraints:1144-1201 (64 for
    trtllm_mha/trtllm_mla), _fa4_page_constraint:1274-1298 (128), _page_size_default:1341-1364 (1);
    DSA: deepseek_v2.py:148-172 (64 × index_kpool on CUDA; 1 on ROCm without aiter's preshuffle kernel).
    """
    arch = architecture(model)
    unknown: list[str] = []
    if platform is None:
        return Backend(attention=None, page_size=1, dsa_raw_layout=True, unknown=("platform",))
    if arch is None:
        unknown.append("architecture")
    mla = model.attention.kv_formula == "mla"
    if is_dsa(model):
        # DSA backends: overrides.py:_dsa_split_backend_resolution:600-743. ROCm: triton/triton (raw rows);
        # FP8 (e4m3) KV: trtllm on SM100 (raw), flashmla_kv on Hopper (scaled); BF16: trtllm decode on SM100.
        fp8_e4m3 = kv.engine_kv_value == DSA_SCALED_KV
        raw = platform != "hopper" or not fp8_e4m3
        # 64 × index_kpool (1: configs/model_config.py:get_dsa_index_kpool:530-531); ROCm: 1 without aiter
        page = DSA_PAGE_SIZE if platform != "cdna" or engine_defaults().use_aiter else 1
        return Backend(attention="dsa", page_size=page, dsa_raw_layout=raw, unknown=tuple(unknown))

    def made(attention: str, page_size: int = 1) -> Backend:  # every backend below keeps DSA's raw rows
        return Backend(attention=attention, page_size=page_size, dsa_raw_layout=True, unknown=tuple(unknown))

    if is_dsv4(model):
        # model_overrides/deepseek_v4.py:_deepseek_v4_overrides:18-63: the dsv4 backend, page 256 (CUDA, ROCm)
        return made(DSV4_BACKEND, DSV4_PAGE_SIZE)
    if arch in QWEN4_EXP and is_qsa(model):
        return made(QSA_BACKENDS[platform], QSA_PAGE_SIZE)
    if platform == "cdna":
        if not mla:
            return made(ATTENTION_BACKENDS["rocm"])
        heads = model.config.num_key_value_heads
        if heads is None:
            return Backend(attention=None, page_size=1, dsa_raw_layout=True, unknown=(*unknown, "kv-heads"))
        per_rank = max(1, heads // tp)  # configs/model_config.py:get_num_kv_heads:1700-1711
        aiter = per_rank in AITER_MLA_HEADS
        return made(ATTENTION_BACKENDS["rocm" if aiter else "rocm_mla_other"])
    if platform == "hopper":
        return made(ATTENTION_BACKENDS["hopper"])
    # Blackwell (SM100)
    if mla:
        if arch in DEEPSEEK_FAMILY:
            return made(ATTENTION_BACKENDS["sm100_deepseek_mla"], TRTLLM_PAGE_SIZE)
        return made(ATTENTION_BACKENDS["sm100_mla"])
    if arch in QWEN3_5_FAMILY:
        return made(ATTENTION_BACKENDS["sm100_qwen3_5"])
    c = model.config
    if arch not in GPT_OSS and c.v_head_dim is not None and c.v_head_dim != c.head_dim:
        return made(ATTENTION_BACKENDS["sm100_fa4"], FA4_PAGE_SIZE)
    return made(ATTENTION_BACKENDS["sm100"], TRTLLM_PAGE_SIZE)


# ---------------------------------------------------------------------------------------------- fraction
def py_round(x: float, digits: int) -> float:
    """Python's round(x, digits): half to even on the float's exact value (what the engine's round does)."""
    return float(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN))


# memory_hook.py:handle_gpu_memory_settings:89-170: below each device size in MiB (None: any larger), the
# chunked prefill size and the decode graph's largest batch below SMALL_TP ranks and from SMALL_TP on (the
# wheel's 60-90 and 90-160 GiB tiers, :131-162, have the same values)
MEM_FRACTION_TIERS = (
    (20 * 1024, 2048, 8, 8),
    (35 * 1024, 4096, 48, 160),
    (60 * 1024, 4096, 32, 160),
    (160 * 1024, 8192, 256, 512),
    (None, 16384, 512, 512),
)
SMALL_TP = 4  # memory_hook.py:114 (cfg.tp_size < 4)
# The reserve in MiB (memory_hook.py:305-315, reserve_for_graph_mb:368)
RESERVE_BASE_MIB = 512  # :309
RESERVE_MIN_TOKENS = 2048  # :305, max(chunked_prefill_size, 2048)
RESERVE_MIB_PER_TOKEN = 1.5  # :310
RESERVE_RANKS, RESERVE_MIB_PER_RANKS = 8, 1024  # :312, tp × pp / 8 × 1024
RESERVE_MIB_PER_GRAPH_BATCH = 2  # :368, max_bs × 2
RESERVE_FLOOR_ABOVE_MIB, RESERVE_FLOOR_MIB = 60 * 1024, 10 * 1024  # :314-315
FRACTION_DIGITS = 3  # :325, round(…, 3)


def default_mem_fraction(gpu_mib: float, tp: int) -> float:
    """--mem-fraction-static when none is given: arg_groups/memory_hook.py:handle_gpu_memory_settings.

    Tiers by the device-reported memory (:89-170): chunked prefill and the decode graph's largest batch;
    reserve (:281-316) = 512 + max(chunk, 2048) × 1.5 + tp × pp / 8 × 1024 + max_bs × 2
    (reserve_for_graph_mb:357-399, decode graph only: the prefill graph is off by default), at least 10 GiB
    above 60 GiB; fraction = round((memory − reserve) / memory, 3) (:324-328). MiB throughout.
    """
    _, chunk, small_tp_bs, large_tp_bs = next(t for t in MEM_FRACTION_TIERS if t[0] is None or gpu_mib < t[0])
    max_bs = small_tp_bs if tp < SMALL_TP else large_tp_bs
    reserved = RESERVE_BASE_MIB
    reserved += max(chunk, RESERVE_MIN_TOKENS) * RESERVE_MIB_PER_TOKEN
    reserved += tp * 1 / RESERVE_RANKS * RESERVE_MIB_PER_RANKS
    reserved += max_bs * RESERVE_MIB_PER_GRAPH_BATCH
    if gpu_mib > RESERVE_FLOOR_ABOVE_MIB:
        reserved = max(reserved, RESERVE_FLOOR_MIB)
    return py_round((gpu_mib - reserved) / gpu_mib, FRACTION_DIGITS)


# adjust_mem_fraction_for_vlm (memory_hook.py:417-462): × 0.95 × clamp(1 − 0.1 × (ratio − 1), 0.8, 1.05),
# ratio: the encoder's layers × hidden² over ViT-L/14's 24 × 1024² (:444-445)
VLM_BASE = 0.95  # :438
VLM_SENSITIVITY = 0.1  # :457
VLM_FACTOR_MIN, VLM_FACTOR_MAX = 0.8, 1.05  # :459
VIT_BASELINE_LAYERS, VIT_BASELINE_HIDDEN = 24, 1024  # :444-445


# What memory_hook.py:439 takes when the vision config has no num_hidden_layers
VIT_DEFAULT_LAYERS = 24


def vision_shape(model: Model) -> tuple[int, int] | None:
    """The vision encoder's (hidden size, layers) as the engine reads them, 24 layers where the config has
    no num_hidden_layers; None: the KB does not hold the model's vision_config."""
    vision = model.config.vision_config
    if vision is None:
        return None
    return (vision.hidden_size, vision.num_hidden_layers or VIT_DEFAULT_LAYERS)


# A recurrent state's dtype where config.json has none and the file is not known to lack it: the engine's
# default, float32 (configs/mamba_utils.py:mamba2_state_dtype:47-107), is the largest; a 2-byte one the
# smallest it accepts. Each bounds one side of the state pool.
STATE_DTYPE_LARGEST, STATE_DTYPE_SMALLEST = "float32", "bfloat16"


def state_dtype(model: Model) -> str | None:
    """The recurrent state's dtype the engine uses: the config's, or its default float32 where the whole
    config.json was read and has none (configs/mamba_utils.py:mamba2_state_dtype:47-107); None: unknown."""
    c = model.config
    if c.mamba_ssm_dtype is not None:
        return c.mamba_ssm_dtype
    return STATE_DTYPE_LARGEST if "mamba_ssm_dtype" in c.absent else None  # the engine's default


def vlm_fraction(fraction: float, hidden_size: int | None, layers: int | None) -> float:
    """The multimodal adjustment of the default fraction; ``hidden_size`` None: its largest (a bound)."""
    if hidden_size is None:
        return fraction * (VLM_BASE * VLM_FACTOR_MAX)
    # getattr(vision_config, "num_hidden_layers", 24)
    vit_layers = layers if layers is not None else VIT_DEFAULT_LAYERS
    ratio = vit_layers * hidden_size**2 / (VIT_BASELINE_LAYERS * VIT_BASELINE_HIDDEN**2)
    dynamic = max(VLM_FACTOR_MIN, min(VLM_FACTOR_MAX, 1.0 - VLM_SENSITIVITY * (ratio - 1.0)))
    return fraction * (VLM_BASE * dynamic)


# ---------------------------------------------------------------------------------------------- cells
def dsa_indexer_layers(model: Model) -> int | None:
    """Layers that compute their own top-k and keep an indexer cache (configs/model_config.py:
    dsa_layer_skips_topk:488-522, with index_skip_topk_offset, or without it where the config.json has no
    such key; index_topk_freq 1 where it has none; shared layers get no rows,
    kv_cache_configurator.py:_should_elide_dsa_index_k:131-148). None: the schedule is not published."""
    c = model.config
    freq = 1 if c.index_topk_freq is None and "index_topk_freq" in c.absent else c.index_topk_freq
    offset_known = c.index_skip_topk_offset is not None or "index_skip_topk_offset" in c.absent
    if c.num_hidden_layers is None or freq is None or not offset_known:
        return None
    offset = c.index_skip_topk_offset
    if offset is None:  # model_config.py:522: max(layer_id - 1, 0) % freq
        return sum(1 for i in range(c.num_hidden_layers) if max(i - 1, 0) % freq == 0)
    return sum(1 for i in range(c.num_hidden_layers) if max(i - offset + 1, 0) % freq == 0)


def dsa_indexer_bytes(model: Model, layers: int | None = None) -> int | None:
    """pool_configurator.py:_compute_dsa_indexer_cell_size:560-635: FP8 keys + one fp32 scale per 128, in a
    uint8 buffer, per indexer layer (index_kpool 1). ``layers``: that many indexer layers instead of the
    model's schedule (the planner's lower extreme: all of them)."""
    layers = dsa_indexer_layers(model) if layers is None else layers
    dim = model.config.index_head_dim
    if layers is None or dim is None:
        return None
    return (dim + dim // DSA_QUANT_BLOCK * DSA_SCALE_BYTES) * layers


def dsa_row(model: Model, raw: bool, kv_bytes: int) -> int:
    """One layer's MLA row of a DSA model (kv_cache_configurator.py:calculate_mla_kv_cache_dim:3412-3475):
    raw (kv_lora_rank + qk_rope_head_dim) × element bytes, or with FP8 e4m3 on the scaled layout:
    kv_lora_rank + kv_lora_rank / 128 × 4 + qk_rope_head_dim × 2 (a BF16 rope) bytes."""
    c = model.config
    if raw:
        return (c.kv_lora_rank + c.qk_rope_head_dim) * kv_bytes
    return c.kv_lora_rank + c.kv_lora_rank // DSA_QUANT_BLOCK * DSA_SCALE_BYTES + c.qk_rope_head_dim * 2


def qsa_indexer_bytes(model: Model, full_layers: int) -> int | None:
    """mem_cache/qsa_kv_pool.py:QSATokenToKVPool.qsa_bytes_per_token:58-73: compressed BF16 keys
    (--qsa-indexer-dtype auto), kv_heads × head_dim × 2 // compress_ratio per full-attention layer."""
    c = model.config
    if c.indexer_kv_heads is None or c.indexer_head_dim is None or c.indexer_compress_ratio is None:
        return None
    return c.indexer_kv_heads * c.indexer_head_dim * 2 // c.indexer_compress_ratio * full_layers


# ---------------------------------------------------------------------------------------------- state pool
LINEAR_FIELDS = (
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
)


def state_bytes_per_request(model: Model, linear_layers: int, tp: int, ssm_dtype: str) -> int:
    """One request's recurrent state on one GPU (configs/qwen3_next.py:mamba2_cache_params:287-313,
    configs/mamba_utils.py:Mamba2StateShape.create:194-243,
    BaseLinearStateParams.mamba_cache_per_req:115-125): per linear layer, the conv state
    (conv_dim / tp × (kernel − 1), SGLANG_MAMBA_CONV_DTYPE) and the temporal state (value heads / tp × value
    dim × key dim, mamba_ssm_dtype); key heads padded up to TP when TP does not divide them
    (mamba_utils.py:extra_groups_for_head_shards:29-38)."""
    c = model.config
    groups = c.linear_num_key_heads
    if groups % tp:
        groups += tp - groups
    conv_dim = c.linear_num_value_heads * c.linear_value_head_dim + 2 * groups * c.linear_key_head_dim
    conv = conv_dim // tp * (c.linear_conv_kernel_dim - 1) * DTYPE_BYTES[engine_defaults().mamba_conv_dtype]
    temporal = c.linear_num_value_heads // tp * c.linear_value_head_dim * c.linear_key_head_dim
    return (conv + temporal * DTYPE_BYTES[ssm_dtype]) * linear_layers


def state_slots(rest_gib: float, per_request: int, ratio: float) -> int:
    """max_mamba_cache_size: kv_cache_configurator.py:_handle_max_mamba_cache:3345-3386 (no spec decoding):
    the state takes ratio / (1 + ratio) of what remains, one slot per request, one padding slot."""
    budget = rest_gib * ratio / (1 + ratio)
    budget_bytes = budget * GIB
    return int((budget_bytes - per_request) // per_request)


# ---------------------------------------------------------------------------------------------- requests
# kv_cache_configurator.py:resolve_max_num_reqs:3123-3124: tokens / context × 512, clamped to [2048, 4096]
REQUESTS_PER_CONTEXT = 512
MAX_REQUESTS_MIN, MAX_REQUESTS_MAX = 2048, 4096


def max_running_requests(tokens: int, context: int, given: int | None, slots: int | None) -> int:
    """kv_cache_configurator.py:resolve_max_num_reqs:3119-3172: tokens / context × 512 clamped to
    [2048, 4096] (or the given value), at most half the tokens; a hybrid model's at most its state slots ÷ 5
    (_calculate_mamba_ratio:3062-3088: 3 + 2 tracking slots with the extra-buffer strategy and overlap)."""
    estimated = int(tokens / context * REQUESTS_PER_CONTEXT)
    estimated = max(min(estimated, MAX_REQUESTS_MAX), MAX_REQUESTS_MIN)
    requests = min(max(1, given) if given is not None else estimated, tokens // 2)
    if slots is not None:
        requests = min(requests, slots // (MAMBA_REQUEST_RATIO + MAMBA_TRACKING_SLOTS))
    return requests


# ---------------------------------------------------------------------------------------------- DeepSeek-V4
# DeepSeek-V4's pool (model_executor/pool_configurator.py:DSV4PoolConfigurator:1067-1713), with no
# --swa-full-tokens-ratio, --max-running-requests, speculative decoding, HiSparse, PP or unified-KV switch
# given: the override sets the SWA ratio 0.1 (model_overrides/deepseek_v4.py:45-50; it counts as the
# operator's, so the SWA pool is sized by ratio, not by the request cap: pool_configurator.py:1049-1055,
# 1131-1135, 1328-1332) and the hook max_running_requests 256 (arg_groups/deepseek_v4_hook.py:138-146).
# The attention backend is flashmla for DeepSeek-V4 on every platform (deepseek_v4_hook.py:
# _default_dsv4_attention_backend:45-59: flashmla_mega only for model_type deepseek_v41), so every KV row
# is paged in SGLANG_DSV4_KV_LAYOUT's layout.
DSV4_SWA_FULL_TOKENS_RATIO = 0.1
# arg_groups/overrides.py:_deepseek_v4_kv_cache_dtype:892-913: the --kv-cache-dtype values DeepSeek-V4 accepts
# ("auto" becomes fp8_e4m3); any other, bf16 included, fails its assertion and launch_server stops. The pool
# does not depend on it: the V4 layout is the same bytes either way (_get_paged_kv_bytes_per_token:1353-1370).
DSV4_KV_CACHE_DTYPES = ("auto", "fp8_e4m3", "bfloat16")
# the spelling of the same dtype that the hook accepts (mem_cache/kv_cache_dtype.py:74 reads bf16 and bfloat16
# alike): the planner's command writes it for DeepSeek-V4
DSV4_KV_SPELLINGS = {"bf16": "bfloat16"}
DSV4_MAX_RUNNING_REQUESTS = 256
# kernels/ops/attention/dsv4/kv_layout.py:KVLayout: (bytes per token = data + scales, the page stride's
# alignment); v4: 448 FP8 nope + 64 BF16 rope + 8 scale bytes, pages padded to 576 B (page_bytes:103-105)
DSV4_KV_LAYOUTS = {"v4": (584, 576)}
# The two compression ratios of DeepSeek-V4's layers that own compressed storage without kv_source_layer_ids
# (collect_sources_by_ratio:94-116); 0: the sliding window only. Ratio 4 keeps the C4 indexer and a compress
# state priced per SWA slot; ratio 128 a compress state sized by request slot. Ratios 1 and 2 (DeepSeek-V4.1)
# follow kv_source_layer_ids, which the KB does not hold.
DSV4_C4_RATIO, DSV4_C128_RATIO = 4, 128
DSV4_RATIOS = (DSV4_C4_RATIO, DSV4_C128_RATIO)
# their compress-state rings without speculative decoding (mem_cache/deepseek_v4_memory_pool.py:
# get_compress_state_ring_size:60-79): 8 rows and 128 rows a request
DSV4_C4_RING, DSV4_C128_RING = 8, 128


@dataclass(frozen=True, kw_only=True)
class Dsv4Cell:
    """One GPU's bytes for DeepSeek-V4's pool; the latent is one 512-wide KV head, whole on every rank."""

    kv: float  # compressed KV per full-pool token (ratio-4 and ratio-128 layers)
    indexer: float  # the C4 indexer's keys per full-pool token
    per_token: float  # what one full-pool token costs: the above, plus ratio × one SWA slot
    swa: float  # one SWA slot: the window's row on every layer, the C4 compress state priced per slot
    c4_layers: int
    c128_layers: int


def dsv4_ratio_layers(model: Model) -> dict[int, int] | None:
    """Backbone layers by compression ratio (the first num_hidden_layers entries, the stage of a PP-1 run:
    pool_configurator.py:1116-1118); None: the ratios are not in the KB, or one the planner does not model."""
    c = model.config
    if c.compress_ratios is None or c.num_hidden_layers is None:
        return None
    stage = c.compress_ratios[: c.num_hidden_layers]
    if len(stage) < c.num_hidden_layers or any(r not in (0, *DSV4_RATIOS) for r in stage):
        return None
    return {ratio: stage.count(ratio) for ratio in DSV4_RATIOS}


def dsv4_paged_bytes(page_size: int, ratio: int = 0) -> float:
    """_get_paged_kv_bytes_per_token:1353-1370: a layer's bytes per slot in its pages (the compressed caches
    page at page_size // ratio slots)."""
    row, align = DSV4_KV_LAYOUTS[engine_defaults().dsv4_kv_layout]
    page = page_size // ratio if ratio else page_size
    return -(-page * row // align) * align / page


def dsv4_indexer_bytes(index_head_dim: int) -> int:
    """deepseek_v4_memory_pool.py:get_dsv4_indexer_bytes_per_token:53-57: FP8 keys and one fp32 scale per 128
    (the FP4 indexer is off by default, --enable-deepseek-v4-fp4-indexer)."""
    return index_head_dim + index_head_dim // DSA_QUANT_BLOCK * DSA_SCALE_BYTES


def dsv4_cell(model: Model, page_size: int, swa_ratio: float) -> Dsv4Cell | None:
    """DSV4PoolConfigurator's bytes per full-pool token (_get_bytes_per_full_token:1437-1446: ratio × one SWA
    slot + each ratio's compressed bytes × its layers, _compressed_bytes_per_full_token:1390-1404) and per SWA
    slot (_get_bytes_per_swa_token:1372-1388: the window's row on every layer, plus the C4 compress state,
    2 × 2 × (head + indexer) widths in the state dtype, ring / page of it per slot). None: not in this KB."""
    layers = dsv4_ratio_layers(model)
    c = model.config
    if layers is None or c.head_dim is None or c.index_head_dim is None:
        return None
    n4, n128 = layers[DSV4_C4_RATIO], layers[DSV4_C128_RATIO]
    state = dsv4_state_dtype_bytes()
    index = dsv4_indexer_bytes(c.index_head_dim)
    c4_state = 2 * 2 * c.head_dim * state + 2 * 2 * c.index_head_dim * state
    swa = dsv4_paged_bytes(page_size) * c.num_hidden_layers + DSV4_C4_RING / page_size * c4_state * n4
    c4_kv = 1 / DSV4_C4_RATIO * dsv4_paged_bytes(page_size, DSV4_C4_RATIO)
    c128_kv = 1 / DSV4_C128_RATIO * dsv4_paged_bytes(page_size, DSV4_C128_RATIO)
    c4 = c4_kv + 1 / DSV4_C4_RATIO * index
    owned = sum(per_layer * n for per_layer, n in ((c4, n4), (c128_kv, n128)) if n)
    return Dsv4Cell(
        kv=c4_kv * n4 + c128_kv * n128,
        indexer=1 / DSV4_C4_RATIO * index * n4,
        per_token=swa_ratio * swa + owned,
        swa=swa,
        c4_layers=n4,
        c128_layers=n128,
    )


def dsv4_state_dtype_bytes() -> int:
    """The compress state's element bytes (pool_configurator.py:
    _get_dsv4_compress_state_dtype_sizes:136-145)."""
    return DTYPE_BYTES[DSV4_STATE_DTYPES[engine_defaults().dsv4_compress_state_dtype.strip().lower()]]


def dsv4_state_bytes(model: Model, max_running_requests: int) -> int:
    """The ratio-128 compress state, sized by request slots and taken before the tokens
    (_get_c128_state_fixed_bytes:1509-1528): (slots × ring + ring + 1) rows rounded up to the ratio, each
    2 × head_dim in the state dtype, per ratio-128 layer; slots = max_running_requests + 1
    (_get_num_req_slots:1504-1507)."""
    n128 = (dsv4_ratio_layers(model) or {}).get(DSV4_C128_RATIO, 0)
    if not n128:
        return 0
    ring = DSV4_C128_RING
    rows = (max_running_requests + 1) * ring + ring + 1
    rows = -(-rows // DSV4_C128_RATIO) * DSV4_C128_RATIO
    return rows * 2 * model.config.head_dim * dsv4_state_dtype_bytes() * n128


def kv_cache_dtype_flag(model: Model, kv: Dtype) -> str | None:
    """--kv-cache-dtype's value for the KV dtype, spelled as the model's hook accepts it (DeepSeek-V4:
    bfloat16 for bf16)."""
    value = kv.engine_kv_value
    if is_dsv4(model) and value is not None:
        return DSV4_KV_SPELLINGS.get(value, value)
    return value


def refuses_kv_dtype(model: Model, kv: Dtype) -> bool:
    """Whether the engine refuses the KV dtype for the model in any spelling (DeepSeek-V4: fp8_e5m2)."""
    return is_dsv4(model) and kv_cache_dtype_flag(model, kv) not in DSV4_KV_CACHE_DTYPES
