"""SGLang's memory arithmetic as code: KV cell size, weights, the KV pool, concurrency, the TP that fits.

Every formula follows SGLang 0.5.23 (the wheel's source, ``sglang/srt/…``; line numbers below are of that
release) and every input comes from the KB. ``handbook/calc/sizing.py`` holds what the engine decides before
it sizes the pool (backend, page size, default fraction, indexers, state pool); this module puts it together.
A figure that needs a field no source gives raises ``NotPublished`` (strict functions) or is recorded as
missing (``plan``), or, where the rest is known, is computed as an upper bound and says why (``Plan.bounds``)
and how loose it can be: the engine's figure at the unknown inputs' other extremes (``Plan.tokens_lower``),
or which bounds have no provable other extreme (``Plan.unproven``).

The KV cell size (bytes per token, per GPU) is ``DefaultPoolConfigurator._compute_cell_size``
(model_executor/pool_configurator.py:340-535):
  MLA:     (kv_lora_rank + qk_rope_head_dim) × layers × dtype_bytes                         (:379-388)
  MHA/GQA: kv_heads_per_attention_tp_rank × (head_dim + v_head_dim) × layers × dtype_bytes  (:492-498)
with kv_heads_per_attention_tp_rank = max(1, kv_heads // attn_tp) (configs/model_config.py:1700-1711) and
v_head_dim = head_dim when the config has none (configs/model_config.py:1352-1355). DSA models add the
indexer's cache and, with FP8 on Hopper, store scaled rows (sizing.dsa_row, sizing.dsa_indexer_bytes); Qwen's
QSA adds its compressed keys (sizing.qsa_indexer_bytes). Layers: hybrid linear-attention models count only
their full-attention layers (pool_configurator.py:230-236); sliding-window models get a second pool
(``HybridSWAPoolConfigurator``, pool_configurator.py:656-920): each full-pool token also costs
--swa-full-tokens-ratio × the SWA layers' bytes.

The budget (mem_cache/kv_cache_configurator.py:_profile_available_bytes:2990-3060), in GiB as the engine
computes it: rest = (free before loading − weights) − free before loading × (1 − mem_fraction_static)
− the multimodal reservation; a hybrid linear-attention model's state pool is then taken out of it
(_handle_max_mamba_cache:3229-3409); tokens = int(rest × 2^30) // cell, floored to the page
(pool_configurator.py:637-647, 907-916), capped by --max-total-tokens (kv_cache_configurator.py:3090-3117).
"Free before loading" is what the engine measures before the weights load (distributed/bootstrap.py:
measure_pre_model_load_memory:193-223); the planner takes the device-reported memory (the hardware's
memory_mib_reported) unless told the free memory, so the real pool is a little smaller (CUDA context, NCCL).

Not modelled: decode context parallelism, DP attention (attention TP = tp / dp), speculative-decoding draft
layers (pool_configurator.py:256-338), HiCache, --disable-radix-cache.

Memory sizes are binary (KiB/MiB/GiB, as SGLang logs them); the vendor's nominal memory is decimal GB.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Literal

from handbook.calc import params, sizing
from handbook.calc.sizing import GIB, MIB
from handbook.kb.schema import SAFETENSORS_BYTES, Dtype, Hardware, Model

TP_CHOICES = (1, 2, 4, 8, 16, 32, 64)
# The planner's context length when the KB publishes no native context for a model (a choice of the
# planner's, shown as such; chapter 02's examples use 8K).
DEFAULT_CONTEXT = 8192


class NotPublished(ValueError):
    """A figure needs a field this KB does not have; ``missing`` names the fields."""

    def __init__(self, subject: object, missing: list[str]):
        self.subject = getattr(subject, "id", subject)
        self.missing = list(missing)
        super().__init__(f"{self.subject}: not in this KB: {', '.join(self.missing)}")


# ------------------------------------------------------------------------------------------- layers
@dataclass(frozen=True, kw_only=True)
class LayerSplit:
    """Layers by where their per-token or per-request state lives."""

    full: int  # per-token KV in the paged pool
    sliding: int  # per-token KV in the SWA pool
    linear: int  # a constant-size recurrent state per request, in its own pool
    total: int | None  # all layers, when published


def layer_split(model: Model) -> LayerSplit:
    """How many layers keep per-token KV in the main pool; raises ``NotPublished`` when that is unknown.

    ``layer_types_count`` (config.json's ``layer_types``) decides; else ``full_attention_interval`` (one
    full-attention layer every N, as SGLang's hybrid configs derive ``full_attention_layer_ids``); else
    every layer is a full-attention layer.
    """
    c = model.config
    counts = dict(c.layer_types_count)
    if "full_attention" in counts:
        sliding = counts.get("sliding_attention", 0)
        full = counts["full_attention"]
        if sliding and sizing.is_hybrid_swa(model) is False:
            # not a hybrid-SWA architecture: its sliding layers keep every token in the one full pool
            # (configs/model_config.py:is_hybrid_swa_model:2651-2698; e.g. Gemma-2, Gemma-3)
            full, sliding = full + sliding, 0
        return LayerSplit(
            full=full,
            sliding=sliding,
            linear=counts.get("linear_attention", 0),
            total=c.num_hidden_layers,
        )
    if c.num_hidden_layers is None:
        raise NotPublished(model, ["num_hidden_layers"])
    if c.full_attention_interval:
        full = c.num_hidden_layers // c.full_attention_interval
        return LayerSplit(full=full, sliding=0, linear=c.num_hidden_layers - full, total=c.num_hidden_layers)
    return LayerSplit(full=c.num_hidden_layers, sliding=0, linear=0, total=c.num_hidden_layers)


def _kv_missing(model: Model) -> list[str]:
    """The config fields the model's KV formula needs and the KB lacks, in the formula's order."""
    c = model.config
    layers_known = "full_attention" in c.layer_types_count or c.num_hidden_layers is not None
    needed = ["num_hidden_layers"] if not layers_known else []
    if model.attention.kv_formula == "mla":
        needed += [n for n in ("kv_lora_rank", "qk_rope_head_dim") if getattr(c, n) is None]
    else:
        needed += [n for n in ("num_key_value_heads", "head_dim") if getattr(c, n) is None]
    return needed


def element_bytes(kv_dtype: Dtype) -> int:
    """Bytes per KV element (``torch._utils._element_size`` of the cache dtype)."""
    if "kv" not in kv_dtype.use:
        raise ValueError(f"{kv_dtype.id} is not a KV-cache dtype")
    if kv_dtype.bits % 8:
        raise ValueError(f"{kv_dtype.id}: {kv_dtype.bits} bits is not a whole number of bytes")
    return int(kv_dtype.bits) // 8


# ------------------------------------------------------------------------------------------- KV cell
@dataclass(frozen=True, kw_only=True)
class KvCell:
    """Bytes of attention KV per token: for the whole model, and on one attention-TP rank (the pool's row).

    The raw formula, the same on every accelerator; the engine's layout on a given one (DSA's scaled rows,
    the indexers) is ``plan``'s."""

    model: str
    formula: str
    bytes_per_token: int  # full-attention layers, all ranks together
    layers_counted: int
    layers_total: int
    elsewhere: dict[str, int] = field(default_factory=dict)  # layer kind → count, state held outside the pool
    per_rank_bytes: int = 0  # full-attention layers on one attention-TP rank
    replicated: bool = False  # every rank holds the same entry (MLA latent, or fewer KV heads than ranks)
    swa_bytes_per_token: int = 0  # sliding-window layers, all ranks together (their own pool)
    swa_per_rank_bytes: int = 0
    sparse_indexer: bool = False  # a DSA top-k indexer keeps its own per-token cache as well


def kv_cell(model: Model, kv_dtype: Dtype, attn_tp: int = 1) -> KvCell:
    """SGLang's KV cell size. Raises ``NotPublished`` when a field the formula needs is unknown."""
    if attn_tp < 1:
        raise ValueError(f"attention TP must be at least 1, got {attn_tp}")
    missing = _kv_missing(model)
    if missing:
        raise NotPublished(model, missing)
    size = element_bytes(kv_dtype)
    layers = layer_split(model)
    c = model.config
    kinds = (("sliding_attention", layers.sliding), ("linear_attention", layers.linear))
    elsewhere = {kind: n for kind, n in kinds if n}
    if model.attention.kv_formula == "mla":
        if layers.sliding:  # an MLA SWA pool sizes by swa_kv_lora_rank, which the KB does not hold
            raise NotPublished(model, ["swa_kv_lora_rank", "swa_qk_rope_head_dim"])
        row = (c.kv_lora_rank + c.qk_rope_head_dim) * size
        # the latent is not split by heads: every attention-TP rank holds the same per-token entry
        return KvCell(
            model=model.id,
            formula="mla",
            bytes_per_token=row * layers.full,
            layers_counted=layers.full,
            layers_total=layers.total or layers.full,
            elsewhere=elsewhere,
            per_rank_bytes=row * layers.full,
            replicated=attn_tp > 1,
            sparse_indexer=c.index_topk is not None,
        )
    heads = c.num_key_value_heads
    head_row = (c.head_dim + (c.v_head_dim or c.head_dim)) * size
    heads_per_rank = max(1, heads // attn_tp)
    # SWA layers fall back to the model's heads and head_dim when config.json has no swa_* fields
    # (configs/model_config.py:1357-1365, 1713-1724), as for every SWA model in the KB.
    return KvCell(
        model=model.id,
        formula="gqa",
        bytes_per_token=heads * head_row * layers.full,
        layers_counted=layers.full,
        layers_total=layers.total or layers.full,
        elsewhere=elsewhere,
        per_rank_bytes=heads_per_rank * head_row * layers.full,
        replicated=attn_tp > heads,
        swa_bytes_per_token=heads * head_row * layers.sliding,
        swa_per_rank_bytes=heads_per_rank * head_row * layers.sliding,
        sparse_indexer=c.index_topk is not None,
    )


# ------------------------------------------------------------------------------------------- weights
@dataclass(frozen=True, kw_only=True)
class Weights:
    total_bytes: float
    basis: Literal["published", "formula", "checkpoint", "mixed"]
    formula: str | None  # the parameter count's sum, when it is computed (mixed: the bytes' sum)
    params: int | None  # the parameter count, when it is computed


def checkpoint_bytes(model: Model, dtype: Dtype) -> int | None:
    """What the checkpoint of this precision holds, where the KB has its files' figures: its tensor
    inventory (elements × bytes per safetensors dtype; a mixed-precision checkpoint's unquantized modules
    count at their own width), else its safetensors index's total size."""
    for precision in model.precisions:
        if precision.dtype != dtype.id:
            continue
        if precision.tensor_elements:
            return int(sum(n * SAFETENSORS_BYTES[k] for k, n in precision.tensor_elements.items()))
        return precision.checkpoint_bytes
    return None


# The width of what a mixed-precision checkpoint leaves unquantized, as the engine holds it: bfloat16, the
# dtype the engine sets for an MXFP4 checkpoint (arg_groups/model_overrides/gpt_oss.py:56-63), the only
# split method (params.SPLIT_METHODS).
UNQUANTIZED_DTYPE = "bfloat16"


def mixed_weights(model: Model, dtype: Dtype) -> Weights | None:
    """A mixed-precision checkpoint's bytes from the architecture and its quantization config: the elements
    the config quantizes at the precision's bits (block scales included), the rest at the engine's
    unquantized width (``UNQUANTIZED_DTYPE``). None: not this precision's quantization, or no split.

    The layout the engine allocates (MXFP4 on Hopper: layers/quantization/mxfp4.py:444-633, packed uint8
    with one uint8 scale per 32 elements, bfloat16 biases; tests/golden/params.json's engine_quantized).
    Not counted: what the MoE backend re-lays out after loading (on Hopper the triton_kernels path pads
    each scale row from 90 to 92 bytes and widens the expert biases to float32, mxfp4.py:220-227,
    1045-1053; FlashInfer's MXFP4 path on Blackwell and aiter's on CDNA pad hidden and intermediate,
    layers/moe/fused_moe_triton/layer.py:452-457, mxfp4.py:476-531)."""
    quantization = model.config.quantization_config
    precision = next((p for p in model.precisions if p.dtype == dtype.id), None)
    # the KB's method ids spell the engine's quant_method with hyphens (kb/dtypes.yaml quantizations)
    method = precision.quantization if precision is not None else None
    if quantization is None or method is None or method.replace("-", "_") != quantization.quant_method:
        return None
    count = params.param_count(model)
    if count is None or count.quantized is None:
        return None
    width = sizing.DTYPE_BYTES[UNQUANTIZED_DTYPE]
    total = count.quantized * dtype.bits / 8 + count.unquantized * width
    bits = f"{dtype.bits:g}"
    formula = f"{count.quantized:,} × {bits}/8 + {count.unquantized:,} × {width}"
    return Weights(total_bytes=total, basis="mixed", formula=formula, params=count.total)


def weights(model: Model, dtype: Dtype) -> Weights:
    """The checkpoint's own bytes where the KB has them (``checkpoint_bytes``), else a mixed-precision
    checkpoint's from the architecture and its quantization config (``mixed_weights``), else parameters ×
    storage bits (block scales included where the dtype's bits count them), the parameter count being the
    published one, else the architecture formula (handbook.calc.params)."""
    held = checkpoint_bytes(model, dtype)
    if held is not None:
        return Weights(total_bytes=float(held), basis="checkpoint", formula=None, params=None)
    mixed = mixed_weights(model, dtype)
    if mixed is not None:
        return mixed
    if model.params.total_b is not None:
        return Weights(
            total_bytes=model.params.total_b * 1e9 * dtype.bits / 8,
            basis="published",
            formula=None,
            params=None,
        )
    count = params.param_count(model)
    if count is None:
        raise NotPublished(model, ["params.total_b"])
    return Weights(
        total_bytes=count.total * dtype.bits / 8, basis="formula", formula=count.formula, params=count.total
    )


def weight_bytes(model: Model, dtype: Dtype) -> float:
    return weights(model, dtype).total_bytes


def weight_share(total_bytes: float, tp: int, ep: int = 1) -> float:
    """One GPU's share of the weights in a TP group, with or without EP.

    TP shards attention and dense layers over ``tp`` GPUs; EP (``ep`` dividing ``tp``) places whole experts
    on ``ep`` groups and TP-shards each expert over the remaining ``tp / ep`` (moe_tp × moe_ep = tp), so
    every parameter is still held once per TP group: the share is ``total / tp`` either way. The KB gives
    no split of dense versus expert parameters, so layouts that replicate part of the model (DP attention)
    are not modelled.
    """
    if tp < 1:
        raise ValueError(f"tp must be at least 1, got {tp}")
    if ep < 1 or ep > tp or tp % ep:
        raise ValueError(f"ep must divide tp ({tp}), got {ep}")
    return total_bytes / tp


# ------------------------------------------------------------------------------------------- memory
@dataclass(frozen=True, kw_only=True)
class DeviceMemory:
    mib: float  # what the engine's capacity query returns (MiB)
    basis: Literal["reported", "nominal-bound"]  # nominal-bound: the vendor's GB read as GiB, an upper bound


def device_memory(hw: Hardware) -> DeviceMemory:
    """The device-reported memory; where only the vendor's figure is known, that figure read as GiB, which is
    at least what every card in the KB with both figures reports (tests/test_planner_memory.py checks it)."""
    if hw.memory_mib_reported is not None:
        return DeviceMemory(mib=hw.memory_mib_reported, basis="reported")
    if hw.memory_gb is not None:
        return DeviceMemory(mib=hw.memory_gb * 1024, basis="nominal-bound")
    raise NotPublished(hw, ["memory_gb"])


def kv_pool_tokens(
    pool_bytes: float,
    bytes_per_token: float,
    page_size: int = 1,
    max_total_tokens: int | None = None,
) -> int:
    """Tokens the KV pool holds: ``pool // cell``, floored to pages, capped by --max-total-tokens.

    pool_configurator.py:637-647 (DefaultPoolConfigurator.calculate_pool_sizes) and :907-916 (hybrid SWA);
    the cap is ``_apply_token_constraints`` (kv_cache_configurator.py:3090-3117), after which the
    configurator re-aligns to the page size. A pool with no room left holds 0 tokens.
    """
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    if bytes_per_token <= 0:
        raise ValueError(f"bytes per token must be positive, got {bytes_per_token}")
    tokens = int(pool_bytes // bytes_per_token) if pool_bytes > 0 else 0
    tokens = tokens // page_size * page_size
    if max_total_tokens is not None:
        tokens = min(tokens, max_total_tokens)
    return tokens // page_size * page_size


# ------------------------------------------------------------------------------------------- layout
def layout_problems(model: Model, tp: int) -> list[str]:
    """Why SGLang would refuse this attention TP for the model (note codes; empty: it accepts it).

    Attention layers assert ``num_heads % attn_tp == 0`` (models/deepseek_v2.py:2057, models/llama.py:183)
    and, for per-head KV, that TP and the KV heads divide one another (models/llama.py:189-193).
    """
    c = model.config
    problems = []
    if c.num_attention_heads is not None and c.num_attention_heads % tp:
        problems.append("heads-indivisible")
    heads = c.num_key_value_heads
    gqa = model.attention.kv_formula == "gqa" and heads is not None
    if gqa and ((heads >= tp and heads % tp) or (heads < tp and tp % heads)):
        problems.append("kv-heads-indivisible")
    return problems


def has_linear_attention(model: Model) -> bool:
    """Whether some layers keep a recurrent state instead of per-token KV (as ``layer_split`` counts)."""
    counts = model.config.layer_types_count
    if "full_attention" in counts:
        return "linear_attention" in counts
    return "linear_attention" in counts or (model.config.full_attention_interval or 1) > 1


def has_sliding_window(model: Model) -> bool:
    """Whether the engine gives the model's sliding-window layers a pool of their own (as ``layer_split``
    counts them; unknown architecture: assumed, the larger pool, with the architecture bound). DeepSeek-V4
    keeps a window on every layer in its SWA pool."""
    if sizing.is_dsv4(model):
        return True
    return "sliding_attention" in model.config.layer_types_count and sizing.is_hybrid_swa(model) is not False


def default_swa_ratio(model: Model, platform: str | None) -> float:
    """The --swa-full-tokens-ratio the engine resolves when none is given: DeepSeek-V4's override on the
    platforms the planner models (plan_engine), else the engine's fallback."""
    if sizing.is_dsv4(model) and platform is not None:
        return sizing.DSV4_SWA_FULL_TOKENS_RATIO
    return sizing.engine_defaults().swa_full_tokens_ratio


def native_context(model: Model) -> int | None:
    """The model's own context: the KB's stated native context, else the one the engine derives from
    config.json (max_position_embeddings and rope_scaling, ``sizing.derived_context``)."""
    if model.context:
        return model.context.native
    return sizing.derived_context(model)


def resolve_context(model: Model, context: int | None) -> int:
    """The context a plan uses: the one asked for, else the model's native one (stated, or derived as the
    engine derives it), else ``DEFAULT_CONTEXT``."""
    if context is not None:
        if context < 1:
            raise ValueError(f"context must be at least 1, got {context}")
        return context
    native = native_context(model)
    return native if native is not None else DEFAULT_CONTEXT


# ------------------------------------------------------------------------------------------- plan
# What a plan can note; handbook/render/planner.py (NOTE_KEYS) and docs/assets/planner.js word each.
NOTE_CODES = (
    "bounds",  # some figures are upper bounds (why: Plan.bounds)
    "default-fraction",  # the engine's default --mem-fraction-static for this GPU and TP
    "vlm-fraction",  # the default is lowered for a multimodal model's vision encoder
    "aiter",  # aiter on AMD above 8,192 tokens: the fraction × 0.85, given or not
    "free-assumed",  # free memory before loading = the device-reported memory
    "memory-bound",  # the device-reported memory is not published: the vendor's GB read as GiB
    "weights-formula",  # the parameter count follows from the architecture fields
    "weights-mixed",  # quantized and unquantized parts, from the architecture and the quantization config
    "ple-offload",  # Qwen4-Exp on CUDA keeps its n-gram embedding off the GPU by default
    "kv-heads-replicated",  # attention TP > KV heads: each GPU keeps one KV head
    "mla-replicated",  # the MLA latent is held whole on every attention-TP rank
    "swa-pool",  # sliding-window layers: a second pool, ratio × full tokens
    "linear-state",  # linear-attention layers: a recurrent-state pool taken from the budget first
    "state-capped",  # max_running_requests capped by the state pool
    "multimodal-reserve",  # the multimodal reservation taken from the budget
    "sparse-indexer",  # DSA indexer cache per token, counted
    "dsa-fp8-layout",  # FP8 KV on a DSA model on Hopper: scales and a BF16 rope per row, counted
    "qsa-indexer",  # Qwen's compressed QSA keys, counted
    "dsv4-pool",  # DeepSeek-V4's compressed pool: ratio-4/128 layers, the C4 indexer, the window, the state
    "page-size",  # the engine sets the page size for this backend
    "heads-indivisible",  # TP does not divide the attention heads: SGLang asserts it does
    "kv-heads-indivisible",  # TP and the KV heads do not divide one another: SGLang asserts one does
    "kv-dtype-refused",  # the model's hook refuses this KV dtype in any spelling (DeepSeek-V4: fp8_e5m2)
    "context-over-native",  # longer than the model's native context
    "capped",  # --max-total-tokens is below what the memory would hold
    "multi-node",  # the TP group is larger than one server of this accelerator
    "multi-node-unknown",  # GPUs per server are not published for this accelerator
)
# Why a figure is an upper bound; handbook/render/planner.py (BOUND_KEYS) and planner.js word each.
BOUND_CODES = (
    "reported-memory",  # the device-reported memory is not published
    "vision-config",  # the vision encoder's size (the default fraction's multimodal factor) is not published
    "kv-heads",  # the KV heads (AMD's MLA backend, hence aiter's × 0.85) are not published
    "architecture",  # the architecture (the engine's per-model overrides) is not published
    "platform",  # the engine's backend choices on this accelerator are not modelled
    "indexer",  # the DSA indexer's width or schedule is not published
    "state-dtype",  # the recurrent state's dtype is not published
    "state-shape",  # the recurrent state's shape is not published
)
# A bound that can lie more than this many percent above the engine's figure (max_tokens / tokens_lower − 1)
# says why and what would make it exact; an integer, so that the edge is decided in integers.
LOOSE_ABOVE_PERCENT = 5
# The bounds with no other extreme the engine's code gives: the device-reported memory (nothing in the engine
# or in the vendors' figures puts it above any floor: the KB's cards happen to report more than their nominal
# decimal GB, which no source promises), the architecture (any of the engine's per-model overrides could
# apply, memory_hook.py's and attention_hook.py's included), a platform the planner does not model, and a
# state of unknown shape (it can be as large as the budget: the engine then refuses to start,
# kv_cache_configurator.py:_handle_max_mamba_cache:3229-3409).
UNPROVEN_BOUNDS = ("reported-memory", "architecture", "platform", "state-shape")


@dataclass(frozen=True, kw_only=True)
class Plan:
    """One GPU of a TP group: how its memory splits, and what the KV pool holds.

    A figure whose inputs are not published is None, and ``missing`` says which fields it needs:
    ``memory`` (the accelerator), ``weights`` (parameter count), ``kv`` (the model's config). A figure
    computed from an upper bound is named in ``bounded`` (``bounds`` says why).
    """

    model: str
    hardware: str
    weights_dtype: str
    kv_dtype: str
    tp: int
    ep: int
    context: int
    context_native: int | None
    platform: str | None
    attention_backend: str | None
    page_size: int
    page_size_given: bool
    mem_fraction_given: float | None  # --mem-fraction-static as given; None: the engine's default
    mem_fraction_default: float | None  # the engine's default for this GPU and TP (multimodal factor in)
    aiter_scaled: bool  # × 0.85 for aiter above 8,192 tokens
    mem_fraction_static: float | None  # what sizes the pool; None: not computable
    max_total_tokens: int | None  # --max-total-tokens, when given
    max_running_requests_given: int | None  # --max-running-requests, when given
    swa_full_tokens_ratio: float
    nominal_gb: float | None  # the vendor's figure
    device_mib: float | None  # the device-reported memory (or its bound)
    free_given: bool
    free_bytes: float | None  # free memory before loading
    static_bytes: float | None  # free × fraction: weights + reservations + pools
    rest_bytes: float | None  # free × (1 − fraction): activations and CUDA graph buffers
    mm_reserve_bytes: float  # the multimodal reservation (0 for text models)
    weights_bytes: float | None  # the whole model
    weights_basis: str | None  # "published" | "formula" | "checkpoint" | "mixed"
    weights_formula: str | None
    weights_params: int | None  # the formula's parameter count, when it is computed
    weights_per_gpu: float | None
    kv_budget_bytes: float | None  # static − weights − reservation; ≤ 0: the weights do not fit
    state_bytes_per_request: int | None  # one request's state on one GPU (dtype unknown: the smallest)
    state_slots: int | None  # max_mamba_cache_size
    state_pool_bytes: float | None
    kv_pool_bytes: float | None  # what the token pool gets (after the state pool)
    kv_bytes_per_token: int | None  # the model's attention KV, all ranks (the raw formula)
    kv_cell_per_gpu: int | None  # one GPU's attention rows per token, in the engine's layout
    indexer_bytes_per_token: int | None  # one GPU's DSA/QSA indexer cache per token (0 without one)
    swa_cell_per_gpu: int | None  # one GPU, sliding-window layers (0 without any)
    pool_bytes_per_token: float | None  # what one token of max_tokens costs one GPU, all of it
    max_tokens: int | None
    swa_tokens: int | None  # tokens of the SWA pool, when the model has one
    max_requests: int | None  # requests of ``context`` tokens the pool holds at once
    max_running_requests: int | None  # the engine's max_running_requests
    refused: bool  # SGLang refuses to start (nothing left after the weights or the state pool)
    bounds: tuple[str, ...]  # BOUND_CODES that apply
    bounded: tuple[str, ...]  # the figures (planner figure keys) computed from a bound
    # How loose the bound on max_tokens can be (plan_looseness): the engine's fewest tokens with each unknown
    # input at its other extreme, max_tokens / that − 1, the codes whose extreme lowered it, the codes with no
    # provable other extreme (then both are None) and the KB fields that would make the figure exact.
    tokens_lower: int | None
    looseness: float | None
    loose: tuple[str, ...]
    unproven: tuple[str, ...]
    exact_fields: tuple[str, ...]
    missing: dict[str, tuple[str, ...]]
    notes: tuple[str, ...]

    @property
    def looser_than_stated(self) -> bool | None:
        """The token bound can lie more than LOOSE_ABOVE_PERCENT above the engine's figure (None: unknown)."""
        if self.tokens_lower is None or self.max_tokens is None:
            return None
        return self.max_tokens * 100 > self.tokens_lower * (100 + LOOSE_ABOVE_PERCENT)

    @property
    def weights_fit(self) -> bool | None:
        return None if self.kv_budget_bytes is None else self.kv_budget_bytes > 0

    @property
    def fits(self) -> bool | None:
        """The server would start: the KV pool holds at least one page (None: not computable)."""
        return None if self.max_tokens is None else self.max_tokens > 0

    @property
    def shortfall_bytes(self) -> float | None:
        """By how much one GPU's weight share exceeds its static budget (0 when it fits)."""
        return None if self.kv_budget_bytes is None else max(0.0, -self.kv_budget_bytes)


# ------------------------------------------------------------------------------------------- plan's steps
# plan() runs these steps in this order, each deciding one part of the engine's sizing from the ones before
# it; docs/assets/planner.js runs the same steps under the same names (camelCase). A step returns its
# figures with the notes and bounds it raised (NOTE_CODES, BOUND_CODES) and, where a field is not in this
# KB, what is missing (None when nothing is).
@dataclass(frozen=True, kw_only=True)
class PlanInputs:
    """What plan() was asked, checked, with the ratio and the context resolved."""

    model: Model
    hw: Hardware
    weights_dtype: Dtype
    kv: Dtype
    kv_size: int  # bytes per KV element
    tp: int
    ep: int
    context: int  # the one asked for, else the model's native one, else DEFAULT_CONTEXT
    context_native: int | None
    mem_fraction_static: float | None  # as given
    page_size: int | None  # as given
    max_total_tokens: int | None
    max_running_requests: int | None  # as given
    swa_full_tokens_ratio: float  # as given, else the engine's
    free_gib: float | None
    engine: sizing.EngineDefaults
    swa_full_tokens_ratio_given: bool = False  # a model override sets its own ratio only where none is given


def plan_inputs(
    model: Model,
    hw: Hardware,
    weights_dtype: Dtype,
    kv: Dtype,
    tp: int,
    *,
    mem_fraction_static: float | None = None,
    context: int | None = None,
    page_size: int | None = None,
    max_total_tokens: int | None = None,
    ep: int = 1,
    swa_full_tokens_ratio: float | None = None,
    free_gib: float | None = None,
    max_running_requests: int | None = None,
) -> PlanInputs:
    """Step 1: the inputs, or ``ValueError`` for an impossible one.

    ``mem_fraction_static`` None: the engine's default for this GPU and TP. ``page_size`` None: the engine's
    for the backend it resolves. ``free_gib``: free memory before loading as SGLang logs it ("Load weight
    begin. avail mem=… GB", GiB); None: the device-reported memory. ``context`` defaults to the model's
    native context, else ``DEFAULT_CONTEXT``. Raises ``ValueError`` for impossible inputs.
    """
    engine = sizing.engine_defaults()
    ratio = engine.swa_full_tokens_ratio if swa_full_tokens_ratio is None else swa_full_tokens_ratio
    if mem_fraction_static is not None and not 0 < mem_fraction_static < 1:
        raise ValueError(f"mem_fraction_static must be in (0, 1), got {mem_fraction_static}")
    if not 0 < ratio <= 1:
        raise ValueError(f"swa_full_tokens_ratio must be in (0, 1], got {ratio}")
    if max_total_tokens is not None and max_total_tokens < 1:
        raise ValueError(f"max_total_tokens must be at least 1, got {max_total_tokens}")
    if max_running_requests is not None and max_running_requests < 1:
        raise ValueError(f"max_running_requests must be at least 1, got {max_running_requests}")
    if page_size is not None and page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    if free_gib is not None and free_gib <= 0:
        raise ValueError(f"free memory must be positive, got {free_gib}")
    if "weights" not in weights_dtype.use:
        raise ValueError(f"{weights_dtype.id} is not a weights dtype")
    kv_size = element_bytes(kv)  # validates the KV dtype
    weight_share(0.0, tp, ep)  # validates tp and ep
    native = native_context(model)
    return PlanInputs(
        model=model,
        hw=hw,
        weights_dtype=weights_dtype,
        kv=kv,
        kv_size=kv_size,
        tp=tp,
        ep=ep,
        context=resolve_context(model, context),
        context_native=native,
        mem_fraction_static=mem_fraction_static,
        page_size=page_size,
        max_total_tokens=max_total_tokens,
        max_running_requests=max_running_requests,
        swa_full_tokens_ratio=ratio,
        free_gib=free_gib,
        engine=engine,
        swa_full_tokens_ratio_given=swa_full_tokens_ratio is not None,
    )


@dataclass(frozen=True, kw_only=True)
class PlanStep:
    notes: tuple[str, ...] = ()
    bounds: tuple[str, ...] = ()
    missing: tuple[str, ...] | None = None  # the fields not in this KB that the step's figures need


@dataclass(frozen=True, kw_only=True)
class EngineChoice(PlanStep):
    platform: sizing.Platform | None
    backend: sizing.Backend
    page_size: int  # the given one, else the backend's
    # what a model override sets where the user gave none (None: the option as asked)
    swa_full_tokens_ratio: float | None = None
    max_running_requests: int | None = None


def plan_engine(asked: PlanInputs) -> EngineChoice:
    """Step 2: what the engine resolves before sizing anything: platform, attention backend, page size, and
    DeepSeek-V4's own defaults (SWA ratio 0.1, max_running_requests 256: see sizing's DeepSeek-V4 section)."""
    platform = sizing.platform_of(asked.hw)
    chosen = sizing.backend(asked.model, platform, asked.tp, asked.kv)
    page = chosen.page_size if asked.page_size is None else asked.page_size
    notes = ("page-size",) if asked.page_size is None and page > 1 else ()
    ratio = running = None
    if sizing.is_dsv4(asked.model) and platform is not None:
        # its override sets the page size whatever --page-size says (model_overrides/deepseek_v4.py:52-63)
        page, notes = chosen.page_size, ("page-size",)
        if not asked.swa_full_tokens_ratio_given:
            ratio = sizing.DSV4_SWA_FULL_TOKENS_RATIO
        if asked.max_running_requests is None:
            running = sizing.DSV4_MAX_RUNNING_REQUESTS
    return EngineChoice(
        platform=platform,
        backend=chosen,
        page_size=page,
        notes=notes,
        bounds=tuple(chosen.unknown),
        swa_full_tokens_ratio=ratio,
        max_running_requests=running,
    )


def swa_ratio(asked: PlanInputs, engine: EngineChoice) -> float:
    """--swa-full-tokens-ratio as the engine resolves it: as given, else the model's override, else the
    engine's fallback."""
    override = engine.swa_full_tokens_ratio
    return asked.swa_full_tokens_ratio if override is None else override


def running_given(asked: PlanInputs, engine: EngineChoice) -> int | None:
    """--max-running-requests as the engine resolves it before sizing: as given, else the model's override."""
    return asked.max_running_requests if engine.max_running_requests is None else engine.max_running_requests


@dataclass(frozen=True, kw_only=True)
class Device(PlanStep):
    device: DeviceMemory | None


def plan_device(asked: PlanInputs) -> Device:
    """Step 3: the accelerator's memory, or the fields that would give it."""
    try:
        return Device(device=device_memory(asked.hw))
    except NotPublished as exc:
        return Device(device=None, missing=tuple(exc.missing))


@dataclass(frozen=True, kw_only=True)
class Fraction(PlanStep):
    default: float | None  # the engine's default for this GPU and TP (multimodal factor in)
    fraction: float | None  # what sizes the pool (aiter's × 0.85 in); None: not computable
    aiter_scaled: bool
    bounded: bool  # the fraction is an upper bound


def plan_fraction(asked: PlanInputs, engine: EngineChoice, device: Device) -> Fraction:
    """Step 4: --mem-fraction-static: given, or the engine's default for this GPU and TP; × 0.85 for aiter
    above 8,192 tokens (attention_hook.py:handle_attention_backend_compatibility:244-268, a given fraction too
    unless SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION is set, off by default)."""
    given, mem, chosen = asked.mem_fraction_static, device.device, engine.backend
    notes: list[str] = []
    bounds: list[str] = []
    bounded = False
    default = None
    if mem is not None:
        default = sizing.default_mem_fraction(mem.mib, asked.tp)
        if sizing.is_multimodal(asked.model):
            vision = sizing.vision_shape(asked.model)
            default = sizing.vlm_fraction(default, *(vision or (None, None)))
            if given is None:
                notes.append("vlm-fraction")
                if vision is None:
                    bounds.append("vision-config")
                    bounded = True
        if mem.basis == "nominal-bound" and (asked.free_gib is None or given is None):
            notes.append("memory-bound")
            bounds.append("reported-memory")
            bounded = bounded or given is None
    fraction = given if given is not None else default
    if given is None and default is not None:
        notes.append("default-fraction")
    long_context = asked.context > sizing.AITER_CONTEXT_THRESHOLD
    aiter = chosen.attention == sizing.ATTENTION_BACKENDS["rocm"] and long_context
    if aiter and fraction is not None:
        if "architecture" in chosen.unknown:
            # a per-model override could choose another backend: the unscaled fraction is the bound
            aiter, bounded = False, True
        elif not (given is not None and asked.engine.aiter_honors_explicit_fraction):
            fraction = fraction * sizing.AITER_FRACTION_SCALE
            notes.append("aiter")
        else:
            aiter = False
    if "kv-heads" in chosen.unknown and long_context:
        bounded = True  # aiter or triton: the larger fraction (no × 0.85) is the bound
    return Fraction(
        default=default,
        fraction=fraction,
        aiter_scaled=aiter and fraction is not None,
        bounded=bounded,
        notes=tuple(notes),
        bounds=tuple(bounds),
    )


@dataclass(frozen=True, kw_only=True)
class FreeMemory(PlanStep):
    free: float | None  # bytes free before loading
    static: float | None  # free × fraction: weights + reservations + pools
    rest: float | None  # free × (1 − fraction): activations and CUDA graph buffers
    mm_reserve: float  # the multimodal reservation (0 for text models)


def plan_free_memory(asked: PlanInputs, device: Device, fraction: Fraction) -> FreeMemory:
    """Step 5: free memory before loading (given, else the device-reported memory) and its split."""
    notes: list[str] = []
    free = None
    if asked.free_gib is not None:
        free = asked.free_gib * GIB
    elif device.device is not None:
        free = device.device.mib * MIB
        notes.append("free-assumed")
    static = rest = None
    if free is not None and fraction.fraction is not None:
        static, rest = free * fraction.fraction, free * (1 - fraction.fraction)
    multimodal = sizing.is_multimodal(asked.model)
    mm_reserve = asked.engine.vlm_cache_mib * MIB if multimodal else 0.0
    if multimodal:
        notes.append("multimodal-reserve")
    return FreeMemory(free=free, static=static, rest=rest, mm_reserve=mm_reserve, notes=tuple(notes))


@dataclass(frozen=True, kw_only=True)
class WeightsPerGpu(PlanStep):
    weights: Weights | None  # the whole model
    per_gpu: float | None


def plan_weights(asked: PlanInputs) -> WeightsPerGpu:
    """Step 6: the weights, and one GPU's share of them."""
    notes = []
    if sizing.architecture(asked.model) in sizing.QWEN4_EXP and asked.hw.vendor == "nvidia":
        notes.append("ple-offload")  # arg_groups/model_overrides/qwen4_exp.py:42-48
    try:
        w = weights(asked.model, asked.weights_dtype)
    except NotPublished as exc:
        return WeightsPerGpu(weights=None, per_gpu=None, missing=tuple(exc.missing), notes=tuple(notes))
    if w.basis in ("formula", "mixed"):
        notes.append(f"weights-{w.basis}")
    return WeightsPerGpu(
        weights=w, per_gpu=weight_share(w.total_bytes, asked.tp, asked.ep), notes=tuple(notes)
    )


@dataclass(frozen=True, kw_only=True)
class CellPerGpu(PlanStep):
    kv_bytes_per_token: int | None  # the model's attention KV, all ranks (the raw formula)
    rows: int | None  # one GPU's attention rows per token, in the engine's layout
    indexer: int | None  # one GPU's DSA/QSA indexer cache per token (0 without one)
    swa: int | None  # one GPU, sliding-window layers (0 without any)
    per_token: float | None  # what one token of the full pool costs one GPU, all of it
    fixed: int = 0  # taken from the KV budget before the tokens (DeepSeek-V4's per-slot compress state)


def dsv4_cell_per_gpu(asked: PlanInputs, engine: EngineChoice) -> CellPerGpu:
    """DeepSeek-V4's own pool (sizing.dsv4_cell): the compressed KV and the C4 indexer per full-pool token,
    ratio × one SWA slot on top, and the ratio-128 compress state taken first for max_running_requests + 1
    request slots. The latent is one KV head, whole on every rank."""
    model = asked.model
    cell = sizing.dsv4_cell(model, engine.page_size, swa_ratio(asked, engine))
    if cell is None:
        fields = ("compress_ratios", "num_hidden_layers", "head_dim", "index_head_dim")
        missing = tuple(f for f in fields if getattr(model.config, f) is None)
        none = dict.fromkeys(("kv_bytes_per_token", "rows", "indexer", "swa", "per_token"))
        # all published: ratios 1 and 2 own storage by kv_source_layer_ids (collect_sources_by_ratio:94-116)
        return CellPerGpu(**none, missing=missing or ("kv_source_layer_ids",))
    # per worker (no DP attention): as given, else the hook's 256 (plan_engine)
    fixed = sizing.dsv4_state_bytes(model, running_given(asked, engine))
    return CellPerGpu(
        kv_bytes_per_token=cell.kv,
        rows=cell.kv,
        indexer=cell.indexer,
        swa=cell.swa,
        per_token=cell.per_token,
        fixed=fixed,
        notes=("dsv4-pool",),
    )


def plan_cell(asked: PlanInputs, engine: EngineChoice) -> CellPerGpu:
    """Step 7: one token's bytes on one GPU: attention rows in the engine's layout, the indexers, the SWA
    share (hybrid SWA: each full-pool token also pays ratio × the SWA layers, pool_configurator.py:
    786-803); DeepSeek-V4's own pool (dsv4_cell_per_gpu)."""
    model, tp = asked.model, asked.tp
    if sizing.is_dsv4(model) and engine.platform is not None:
        return dsv4_cell_per_gpu(asked, engine)
    try:
        cell = kv_cell(model, asked.kv, attn_tp=tp)
    except NotPublished as exc:
        none = dict.fromkeys(("kv_bytes_per_token", "rows", "indexer", "swa", "per_token"))
        return CellPerGpu(**none, missing=tuple(exc.missing))
    notes: list[str] = []
    bounds: list[str] = []
    rows, indexer, swa = cell.per_rank_bytes, 0, cell.swa_per_rank_bytes
    if cell.formula == "mla" and tp > 1:
        notes.append("mla-replicated")
    if cell.formula == "gqa" and tp > model.config.num_key_value_heads:
        notes.append("kv-heads-replicated")
    if swa:
        notes.append("swa-pool")
    if sizing.is_dsa(model):
        rows = sizing.dsa_row(model, engine.backend.dsa_raw_layout, asked.kv_size) * cell.layers_counted
        if not engine.backend.dsa_raw_layout:
            notes.append("dsa-fp8-layout")
        found, note = sizing.dsa_indexer_bytes(model), "sparse-indexer"
    elif sizing.is_qsa(model):
        found, note = sizing.qsa_indexer_bytes(model, cell.layers_counted), "qsa-indexer"
    else:
        found, note = 0, None
    if found is None:
        bounds.append("indexer")
    elif note is not None:
        indexer = found
        notes.append(note)
    ratio = swa_ratio(asked, engine)
    return CellPerGpu(
        kv_bytes_per_token=cell.bytes_per_token,
        rows=rows,
        indexer=indexer,
        swa=swa,
        per_token=rows + indexer + ratio * swa if swa else rows + indexer,
        notes=tuple(notes),
        bounds=tuple(bounds),
    )


@dataclass(frozen=True, kw_only=True)
class StatePerRequest(PlanStep):
    linear: bool  # some layers keep a recurrent state (its own pool)
    per_request: int | None  # one request's state on one GPU (dtype unknown: the largest)
    smallest: int | None  # dtype unknown: the smallest state (None when the dtype is known)


def plan_state(asked: PlanInputs) -> StatePerRequest:
    """Step 8: one request's recurrent state on one GPU, for linear-attention layers. An unknown dtype
    bounds both sides: the float32 state (the engine's default, configs/mamba_utils.py:47-107) is the
    largest, a 2-byte one the smallest."""
    model, tp = asked.model, asked.tp
    if not has_linear_attention(model):
        return StatePerRequest(linear=False, per_request=None, smallest=None)
    notes = ("linear-state",)
    if not all(getattr(model.config, n) is not None for n in sizing.LINEAR_FIELDS):
        return StatePerRequest(
            linear=True, per_request=None, smallest=None, notes=notes, bounds=("state-shape",)
        )
    layers = layer_split(model).linear
    ssm = sizing.state_dtype(model)
    if ssm is not None:
        per_request = sizing.state_bytes_per_request(model, layers, tp, ssm)
        return StatePerRequest(linear=True, per_request=per_request, smallest=None, notes=notes)
    return StatePerRequest(
        linear=True,
        per_request=sizing.state_bytes_per_request(model, layers, tp, sizing.STATE_DTYPE_LARGEST),
        smallest=sizing.state_bytes_per_request(model, layers, tp, sizing.STATE_DTYPE_SMALLEST),
        notes=notes,
        bounds=("state-dtype",),
    )


@dataclass(frozen=True, kw_only=True)
class Budget(PlanStep):
    budget: float | None  # static − weights − reservation; ≤ 0: the weights do not fit
    slots: int | None  # max_mamba_cache_size
    state_pool: float | None
    kv_pool: float | None  # what the token pool gets (after the state pool)
    kv_pool_gib: float | None  # the same, as the engine computes it (GiB, may be ≤ 0)
    refused: bool  # nothing left after the weights or the state pool: SGLang refuses to start


def plan_budget(
    asked: PlanInputs, fraction: Fraction, free: FreeMemory, share: WeightsPerGpu, state: StatePerRequest
) -> Budget:
    """Step 9: the budget after the weights, in GiB and in the engine's order of operations, then the state
    pool of linear-attention layers taken from it first; what is left is the KV pool."""
    if free.free is None or fraction.fraction is None or share.per_gpu is None:
        return Budget(budget=None, slots=None, state_pool=None, kv_pool=None, kv_pool_gib=None, refused=False)
    pre = free.free / GIB
    after = pre - share.per_gpu / GIB
    rest_gib = after - pre * (1 - fraction.fraction) - free.mm_reserve / GIB
    budget = rest_gib * GIB
    slots = state_pool = None
    if state.linear and rest_gib > 0:
        r = asked.engine.mamba_full_memory_ratio
        part = rest_gib * r / (1 + r)
        if state.per_request is None:
            # K ≥ 1 needs two slots within the share: the token pool keeps less than half of it more
            rest_gib = rest_gib - part / 2
        elif state.smallest is not None:
            # slots (K + 1) × state lie within one state of the share: the token pool keeps less than
            # the largest state more; the smallest state gives the most slots
            slots = sizing.state_slots(rest_gib, state.smallest, r)
            state_pool = part * GIB
            rest_gib = rest_gib - part + state.per_request / GIB
        else:
            slots = sizing.state_slots(rest_gib, state.per_request, r)
            state_pool = (slots + 1) * state.per_request
            rest_gib = rest_gib - state_pool / GIB
    refused = rest_gib <= 0 or (slots is not None and slots <= 0)
    return Budget(
        budget=budget,
        slots=slots,
        state_pool=state_pool,
        kv_pool=max(0.0, rest_gib * GIB) if not refused else 0.0,
        kv_pool_gib=rest_gib,
        refused=refused,
    )


@dataclass(frozen=True, kw_only=True)
class Requests(PlanStep):
    max_tokens: int | None
    swa_tokens: int | None  # tokens of the SWA pool, when the model has one
    max_requests: int | None  # requests of the context the pool holds at once
    max_running_requests: int | None  # the engine's max_running_requests


def plan_requests(asked: PlanInputs, engine: EngineChoice, cell: CellPerGpu, budget: Budget) -> Requests:
    """Step 10: the tokens the KV pool holds (floored to the page, capped by --max-total-tokens), the SWA
    pool's tokens (align_page_size(int(full × ratio)), pool_configurator.py:879-881), the requests."""
    if budget.kv_pool_gib is None or cell.per_token is None:
        return Requests(max_tokens=None, swa_tokens=None, max_requests=None, max_running_requests=None)
    ctx, page, given = asked.context, engine.page_size, running_given(asked, engine)
    notes = []
    if budget.refused:
        tokens = 0
    else:
        # what the request-slot pools leave (DeepSeek-V4: pool_configurator.py:calculate_pool_sizes:1638-1701)
        available = max(int(budget.kv_pool_gib * GIB) - cell.fixed, 0)
        tokens = kv_pool_tokens(available, cell.per_token, page, asked.max_total_tokens)
        if tokens < kv_pool_tokens(available, cell.per_token, page):
            notes.append("capped")
    swa_tokens = None
    if cell.swa:
        swa_tokens = math.floor(tokens * swa_ratio(asked, engine))
        swa_tokens -= swa_tokens % page
    running = sizing.max_running_requests(tokens, ctx, given, budget.slots) if tokens else 0
    if running < sizing.max_running_requests(tokens, ctx, given, None):
        notes.append("state-capped")
    return Requests(
        max_tokens=tokens,
        swa_tokens=swa_tokens,
        max_requests=tokens // ctx,
        max_running_requests=running,
        notes=tuple(notes),
    )


def plan_placement(asked: PlanInputs) -> tuple[str, ...]:
    """Step 11: the notes on where the plan runs: layouts SGLang refuses, a context beyond the model's,
    a TP group larger than one server."""
    tp, per_node = asked.tp, asked.hw.gpus_per_node
    notes = layout_problems(asked.model, tp)
    if sizing.refuses_kv_dtype(asked.model, asked.kv):
        notes.append("kv-dtype-refused")
    if asked.context_native is not None and asked.context > asked.context_native:
        notes.append("context-over-native")
    if per_node is None:
        if tp > 1:
            notes.append("multi-node-unknown")
    elif tp > per_node:
        notes.append("multi-node")
    return tuple(notes)


def plan_bounded(asked: PlanInputs, fraction: Fraction, bounds: tuple[str, ...]) -> tuple[str, ...]:
    """Step 12: the figures (planner figure keys) a bound reaches, each once, in the order found."""
    bounded: list[str] = []
    if "reported-memory" in bounds:
        bounded.append("gpu")
        if asked.free_gib is None:
            bounded.append("free")
    if fraction.bounded and fraction.fraction is not None:
        bounded.append("fraction")
    if "free" in bounded or "fraction" in bounded:
        bounded += ["static", "rest", "budget", "state", "kv-pool"]
    if {"state-dtype", "state-shape"} & set(bounds):
        bounded += ["state", "kv-pool"]
    if bounds:
        bounded += ["max-tokens", "swa-tokens", "requests", "running"]
    if "platform" in bounds or "architecture" in bounds:
        bounded.append("page")
    return tuple(dict.fromkeys(bounded))


@dataclass(frozen=True, kw_only=True)
class Looseness(PlanStep):
    tokens_lower: (
        int | None
    )  # the engine's fewest tokens over the unknown inputs' extremes; None: not provable
    looseness: float | None  # max_tokens / tokens_lower − 1; None: no bound, not provable, or tokens_lower 0
    loose: tuple[str, ...]  # the bound codes whose other extreme was taken
    unproven: tuple[str, ...]  # the bound codes with no provable other extreme
    exact_fields: tuple[str, ...]  # the KB fields whose values would make the bounded figures exact


NO_LOOSENESS = Looseness(tokens_lower=None, looseness=None, loose=(), unproven=(), exact_fields=())


def exact_fields(asked: PlanInputs, bounds: tuple[str, ...]) -> tuple[str, ...]:
    """The KB fields each bound lacks, in BOUND_CODES order ("platform": none, the planner does not model
    the accelerator's engine path)."""
    c, hw = asked.model.config, asked.hw
    fields: list[str] = []
    for code in BOUND_CODES:
        if code not in bounds:
            continue
        if code == "reported-memory":
            fields.append(f"hardware.{hw.id}.memory_mib_reported")
        elif code == "vision-config":
            fields.append("config.vision_config")
        elif code == "kv-heads":
            fields.append("config.num_key_value_heads")
        elif code == "architecture":
            fields.append("config.architectures")
        elif code == "indexer":
            names = (
                ("index_head_dim", "index_topk_freq", "index_skip_topk_offset")
                if sizing.is_dsa(asked.model)
                else ("indexer_kv_heads", "indexer_head_dim", "indexer_compress_ratio")
            )
            fields += [f"config.{n}" for n in names if getattr(c, n) is None]
        elif code == "state-dtype":
            fields.append("config.mamba_ssm_dtype")
        elif code == "state-shape":
            fields += [f"config.{n}" for n in sizing.LINEAR_FIELDS if getattr(c, n) is None]
    return tuple(dict.fromkeys(fields))


def lowest_indexer(asked: PlanInputs) -> int | None:
    """A DSA indexer's cache at its largest when only its schedule is unknown: every layer computes its own
    top-k (configs/model_config.py:dsa_layer_skips_topk:488-522 can only skip layers; index_topk_freq 1, the
    engine's default when config.json has none, :510-512, skips none). None: its width is unknown too, or the
    indexer is QSA's, whose width has no bound."""
    c = asked.model.config
    if not sizing.is_dsa(asked.model) or c.num_hidden_layers is None:
        return None
    return sizing.dsa_indexer_bytes(asked.model, layers=c.num_hidden_layers)


def plan_looseness(
    asked: PlanInputs,
    engine: EngineChoice,
    device: Device,
    fraction: Fraction,
    free: FreeMemory,
    share: WeightsPerGpu,
    cell: CellPerGpu,
    state: StatePerRequest,
    requests: Requests,
) -> Looseness:
    """Step 13: how loose the bound on the tokens can be. The same plan with each unknown input at the other
    extreme the engine's code gives, steps 5, 9 and 10 run again on it:

    - vision-config: the encoder factor at its smallest, × 0.95 × 0.8 (memory_hook.py:
      adjust_mem_fraction_for_vlm:438, 458-459; the bound took × 0.95 × 1.05);
    - kv-heads: aiter's × 0.85 above 8,192 tokens (attention_hook.py:244-268; the bound took triton's
      unscaled fraction), unless a given fraction is honoured;
    - indexer: a DSA indexer on every layer (``lowest_indexer``; the bound counted none);
    - state-dtype: the fewer tokens of a float32 and a 2-byte state, the only dtypes the engine accepts
      (configs/mamba_utils.py:mamba2_state_dtype:61-66);
    - UNPROVEN_BOUNDS, and an indexer whose width is unknown: no other extreme, looseness unknown.
    """
    steps = (engine, device, fraction, free, share, cell, state)
    bounds = tuple(code for code in BOUND_CODES if any(code in step.bounds for step in steps))
    if not bounds:
        return NO_LOOSENESS
    fields = exact_fields(asked, bounds)
    indexer = lowest_indexer(asked) if "indexer" in bounds else None
    unproven = [code for code in bounds if code in UNPROVEN_BOUNDS]
    if "indexer" in bounds and indexer is None:
        unproven.append("indexer")
    if unproven or requests.max_tokens is None:
        unproven_codes = tuple(code for code in BOUND_CODES if code in unproven)
        return Looseness(
            tokens_lower=None, looseness=None, loose=(), unproven=unproven_codes, exact_fields=fields
        )
    loose: list[str] = []
    low = fraction.fraction
    if "vision-config" in bounds and device.device is not None:
        low = sizing.default_mem_fraction(device.device.mib, asked.tp) * (
            sizing.VLM_BASE * sizing.VLM_FACTOR_MIN
        )
        if fraction.aiter_scaled:
            low = low * sizing.AITER_FRACTION_SCALE
        loose.append("vision-config")
    honoured = asked.mem_fraction_static is not None and asked.engine.aiter_honors_explicit_fraction
    if "kv-heads" in bounds and asked.context > sizing.AITER_CONTEXT_THRESHOLD and not honoured:
        low = low * sizing.AITER_FRACTION_SCALE
        loose.append("kv-heads")
    low_fraction = dataclasses.replace(fraction, fraction=low)
    low_free = plan_free_memory(asked, device, low_fraction)
    low_cell = cell
    if indexer is not None:
        low_cell = dataclasses.replace(
            cell, indexer=indexer, per_token=cell.per_token - cell.indexer + indexer
        )
        loose.append("indexer")
    states = [state]
    if "state-dtype" in bounds:
        states = [
            dataclasses.replace(state, per_request=per_request, smallest=None)
            for per_request in (state.per_request, state.smallest)
        ]
        loose.append("state-dtype")
    lowest = min(
        plan_requests(
            asked, engine, low_cell, plan_budget(asked, low_fraction, low_free, share, s)
        ).max_tokens
        for s in states
    )
    upper = requests.max_tokens
    # a lower extreme of 0 tokens (the engine would refuse to start there) leaves no ratio to state
    ratio = upper / lowest - 1 if lowest > 0 else (0.0 if upper == 0 else None)
    return Looseness(
        tokens_lower=lowest, looseness=ratio, loose=tuple(loose), unproven=(), exact_fields=fields
    )


def plan(model: Model, hw: Hardware, weights_dtype: Dtype, kv: Dtype, tp: int, **options: Any) -> Plan:
    """SGLang's KV-pool sizing for one GPU of a TP group (see the module's docstring for the sources), step by
    step. ``options``: the keywords of ``plan_inputs``, which says what each means and checks them."""
    asked = plan_inputs(model, hw, weights_dtype, kv, tp, **options)
    engine = plan_engine(asked)
    device = plan_device(asked)
    fraction = plan_fraction(asked, engine, device)
    free = plan_free_memory(asked, device, fraction)
    share = plan_weights(asked)
    cell = plan_cell(asked, engine)
    state = plan_state(asked)
    budget = plan_budget(asked, fraction, free, share, state)
    requests = plan_requests(asked, engine, cell, budget)
    looseness = plan_looseness(asked, engine, device, fraction, free, share, cell, state, requests)
    return assemble_plan(
        asked, engine, device, fraction, free, share, cell, state, budget, requests, looseness
    )


def assemble_plan(
    asked: PlanInputs,
    engine: EngineChoice,
    device: Device,
    fraction: Fraction,
    free: FreeMemory,
    share: WeightsPerGpu,
    cell: CellPerGpu,
    state: StatePerRequest,
    budget: Budget,
    requests: Requests,
    looseness: Looseness,
) -> Plan:
    """The steps' figures as one Plan, with their notes, the placement notes, and what a bound reaches."""
    steps = (engine, device, fraction, free, share, cell, state, budget, requests)
    bounds = tuple(code for step in steps for code in step.bounds)
    notes = [code for step in steps for code in step.notes] + list(plan_placement(asked))
    if bounds:
        notes.append("bounds")
    missing = {key: step.missing for key, step in (("memory", device), ("weights", share), ("kv", cell))}
    w = share.weights
    return Plan(
        model=asked.model.id,
        hardware=asked.hw.id,
        weights_dtype=asked.weights_dtype.id,
        kv_dtype=asked.kv.id,
        tp=asked.tp,
        ep=asked.ep,
        context=asked.context,
        context_native=asked.context_native,
        platform=engine.platform,
        attention_backend=engine.backend.attention,
        page_size=engine.page_size,
        page_size_given=asked.page_size is not None,
        mem_fraction_given=asked.mem_fraction_static,
        mem_fraction_default=fraction.default,
        aiter_scaled=fraction.aiter_scaled,
        mem_fraction_static=fraction.fraction,
        max_total_tokens=asked.max_total_tokens,
        max_running_requests_given=asked.max_running_requests,
        swa_full_tokens_ratio=swa_ratio(asked, engine),
        nominal_gb=asked.hw.memory_gb,
        device_mib=device.device.mib if device.device else None,
        free_given=asked.free_gib is not None,
        free_bytes=free.free,
        static_bytes=free.static,
        rest_bytes=free.rest,
        mm_reserve_bytes=free.mm_reserve,
        weights_bytes=w.total_bytes if w else None,
        weights_basis=w.basis if w else None,
        weights_formula=w.formula if w else None,
        weights_params=w.params if w else None,
        weights_per_gpu=share.per_gpu,
        kv_budget_bytes=budget.budget,
        state_bytes_per_request=state.smallest if state.smallest is not None else state.per_request,
        state_slots=budget.slots,
        state_pool_bytes=budget.state_pool,
        kv_pool_bytes=budget.kv_pool,
        kv_bytes_per_token=cell.kv_bytes_per_token,
        kv_cell_per_gpu=cell.rows,
        indexer_bytes_per_token=cell.indexer,
        swa_cell_per_gpu=cell.swa,
        pool_bytes_per_token=cell.per_token,
        max_tokens=requests.max_tokens,
        swa_tokens=requests.swa_tokens,
        max_requests=requests.max_requests,
        max_running_requests=requests.max_running_requests,
        refused=budget.refused,
        bounds=tuple(code for code in BOUND_CODES if code in bounds),
        bounded=plan_bounded(asked, fraction, bounds),
        tokens_lower=looseness.tokens_lower,
        looseness=looseness.looseness,
        loose=looseness.loose,
        unproven=looseness.unproven,
        exact_fields=looseness.exact_fields,
        missing={key: value for key, value in missing.items() if value is not None},
        notes=tuple(code for code in NOTE_CODES if code in notes),
    )


def smallest_tp(
    model: Model,
    hw: Hardware,
    weights_dtype: Dtype,
    kv: Dtype,
    *,
    mem_fraction_static: float | None = None,
    min_kv_tokens: int = 0,
    context: int | None = None,
    swa_full_tokens_ratio: float | None = None,
    free_gib: float | None = None,
) -> int | None:
    """The smallest power-of-two TP whose plan starts, with KV headroom.

    ``min_kv_tokens`` is the stated headroom: each GPU's KV pool must also hold that many tokens. 0 asks only
    that the weights fit the static budget. TPs that SGLang refuses for the model's heads
    (``layout_problems``) are skipped. None: no TP up to 64 does. Raises ``NotPublished`` when the weights
    or the memory are unknown (or, with headroom, the KV).
    """
    weights(model, weights_dtype)
    if free_gib is None:
        device_memory(hw)
    for tp in TP_CHOICES:
        if layout_problems(model, tp):
            continue
        p = plan(
            model,
            hw,
            weights_dtype,
            kv,
            tp,
            mem_fraction_static=mem_fraction_static,
            context=context,
            swa_full_tokens_ratio=swa_full_tokens_ratio,
            free_gib=free_gib,
        )
        if not p.weights_fit:
            continue
        if not min_kv_tokens:
            return tp
        if p.max_tokens is None:
            raise NotPublished(model, list(p.missing.get("kv", ())))
        if p.max_tokens >= min_kv_tokens:
            return tp
    return None


@dataclass(frozen=True, kw_only=True)
class AutoTp:
    tp: int
    # headroom: the smallest TP whose KV pool holds one request of the context;
    # weights-only: the KV cell is not published, so only the weights were fitted;
    # none-fits: no TP up to 64 does, so the largest TP SGLang accepts is shown;
    # unknown: the weights or the memory are not published, so TP 1 is shown.
    basis: str


def auto_tp(
    model: Model,
    hw: Hardware,
    weights_dtype: Dtype,
    kv: Dtype,
    *,
    mem_fraction_static: float | None = None,
    context: int | None = None,
    swa_full_tokens_ratio: float | None = None,
    free_gib: float | None = None,
) -> AutoTp:
    """The TP the planner suggests when none is chosen: room for the weights and one full-length request."""
    ctx = resolve_context(model, context)
    try:
        weights(model, weights_dtype)
        if free_gib is None:
            device_memory(hw)
    except NotPublished:
        return AutoTp(tp=1, basis="unknown")
    try:
        kv_cell(model, kv)
        headroom, basis = ctx, "headroom"
    except NotPublished:
        headroom, basis = 0, "weights-only"
    tp = smallest_tp(
        model,
        hw,
        weights_dtype,
        kv,
        mem_fraction_static=mem_fraction_static,
        min_kv_tokens=headroom,
        context=ctx,
        swa_full_tokens_ratio=swa_full_tokens_ratio,
        free_gib=free_gib,
    )
    if tp is None:
        return AutoTp(tp=max(t for t in TP_CHOICES if not layout_problems(model, t)), basis="none-fits")
    return AutoTp(tp=tp, basis=basis)


@dataclass(frozen=True, kw_only=True)
class TpCell:
    dtype: str
    hardware: str
    tp: int | None  # smallest power-of-two TP whose weights fit; None: no TP up to 64 does, or memory unknown
    stated_tp: int | None
    weights_per_gpu: float | None
    kv_budget_per_gpu: float | None  # what the engine's budget leaves after the weights on each GPU
    kv_pool_per_gpu: float | None  # the KV pool the planner shows for this TP (its "KV pool per GPU")
    at_least: bool  # the budget is an upper bound (memory or fraction unknown), so the TP is a lower bound

    @property
    def agrees(self) -> bool:
        if self.stated_tp is None:
            return True
        return self.stated_tp >= self.tp if self.at_least and self.tp else self.stated_tp == self.tp


def tp_table(
    model: Model, dtypes: dict[str, Dtype], hardware: dict[str, Hardware], kv: Dtype | None = None
) -> list[TpCell]:
    """Precision × accelerator → smallest TP whose weights fit the engine's own budget (its default
    --mem-fraction-static for that GPU and TP, the device-reported memory), for every precision with a
    stated hardware table. ``kv`` (default: the first KV dtype) only matters to DSA models' page size."""
    kv = kv or next(d for d in dtypes.values() if "kv" in d.use)
    cells = []
    for precision in model.precisions:
        if not precision.stated_tp:
            continue
        dtype = dtypes[precision.dtype]
        for hw_id, stated in precision.stated_tp.items():
            hw = hardware[hw_id]
            try:
                tp = smallest_tp(model, hw, dtype, kv)
            except NotPublished:
                tp = None
            p = plan(model, hw, dtype, kv, tp) if tp else None
            cells.append(
                TpCell(
                    dtype=precision.dtype,
                    hardware=hw_id,
                    tp=tp,
                    stated_tp=stated,
                    weights_per_gpu=p.weights_per_gpu if p else None,
                    kv_budget_per_gpu=p.kv_budget_bytes if p else None,
                    kv_pool_per_gpu=p.kv_pool_bytes if p else None,
                    at_least=bool(p and "budget" in p.bounded),
                )
            )
    return cells
