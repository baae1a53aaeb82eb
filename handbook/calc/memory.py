"""SGLang's memory arithmetic as code: KV cell size, weights, KV pool, concurrency, the TP that fits.

Every formula follows SGLang 0.5.23 (the wheel's source, ``sglang/srt/…``; line numbers below are of that
release) and every input comes from the KB. A figure that needs a field no source gives raises
``NotPublished`` (strict functions) or is recorded as missing (``plan``), never guessed.

The KV cell size (bytes per token, per GPU) is ``DefaultPoolConfigurator._compute_cell_size``
(model_executor/pool_configurator.py:340-535):
  MLA:     (kv_lora_rank + qk_rope_head_dim) × layers × dtype_bytes                         (:379-388)
  MHA/GQA: kv_heads_per_attention_tp_rank × (head_dim + v_head_dim) × layers × dtype_bytes  (:492-498)
with kv_heads_per_attention_tp_rank = max(1, kv_heads // attn_tp) (configs/model_config.py:1700-1711) and
v_head_dim = head_dim when the config has none (configs/model_config.py:1352-1355).
Layers: hybrid linear-attention models count only their full-attention layers (pool_configurator.py:230-236);
the linear layers' recurrent state lives in a separate per-request pool taken from the same budget first
(mem_cache/kv_cache_configurator.py:3039-3040, 3229). Sliding-window models get a second pool
(``HybridSWAPoolConfigurator``, pool_configurator.py:656-920): each full-pool token also costs
--swa-full-tokens-ratio (default 0.8, arg_groups/fields/schedule.py:150-161) × the SWA layers' bytes.

The KV pool (mem_cache/kv_cache_configurator.py:2990-3060, pool_configurator.py:637-647):
  tokens = (free memory before loading × mem_fraction_static − resident weights) / cell size,
capped by --max-total-tokens (kv_cache_configurator.py:3090-3117) and floored to --page-size.
Here "free memory before loading" is the accelerator's nominal memory: the real server starts from a little
less (CUDA context, other processes), so its log's max_total_num_tokens is the final word.

Where the engine differs from the toolchain note (shared/notes/toolchain.md):
- the note's ``available_after_weights − total × (1 − mem_fraction_static)``: the engine's "total" is the
  memory free *before* loading (``pre_model_load_memory``, kv_cache_configurator.py:3007), not the card's
  total; ``gpu × mem_fraction_static − weights`` is the same budget with the nominal memory for it;
- the note has one cell size; hybrid sliding-window models pay ratio × their SWA layers per token too
  (pool_configurator.py:786-803), which ``plan`` includes;
- DSA models (index_topk in the config) add an indexer cache to the cell (pool_configurator.py:399-409;
  index_head_dim, which the KB does not hold) and, with FP8 KV on most backends, store per-128 scales and a
  BF16 rope in each row (mem_cache/kv_cache_configurator.py:3412-3475): ``plan`` notes both, computes neither;
- hybrid linear-attention models take their state pool, multimodal models a feature reservation, out of the
  budget before the KV pool (kv_cache_configurator.py:3034-3040): noted, not computed (no KB fields);
- not modelled: decode context parallelism (KV heads split over tp // dcp, configs/model_config.py:1700-1711),
  DP attention (attention TP = tp / dp), speculative-decoding draft layers (pool_configurator.py:256-338).

Memory sizes are decimal (GB = 10^9 bytes), as accelerator memory is quoted; KiB/MiB/GiB are binary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from handbook.core.units import GB
from handbook.kb.schema import Dtype, Hardware, Model

TP_CHOICES = (1, 2, 4, 8, 16, 32, 64)

# The --mem-fraction-static the handbook's own recipes use; tables that size TP assume it, and the planner
# starts from it (SGLang itself derives a default from the GPU's memory: arg_groups/memory_hook.py:47-68).
TABLE_MEM_FRACTION = 0.85
DEFAULT_MEM_FRACTION = TABLE_MEM_FRACTION
# --swa-full-tokens-ratio when not given (arg_groups/fields/schedule.py:150-161: fallback=0.8).
SWA_FULL_TOKENS_RATIO = 0.8
# The planner's context length when the KB publishes no native context for a model (a choice of the
# planner's, shown as such; chapter 02's examples use 8K).
DEFAULT_CONTEXT = 8192


class NotPublished(ValueError):
    """A figure needs a field that no source gives; ``missing`` names the fields."""

    def __init__(self, subject: object, missing: list[str]):
        self.subject = getattr(subject, "id", subject)
        self.missing = list(missing)
        super().__init__(f"{self.subject}: not published: {', '.join(self.missing)}")


# ------------------------------------------------------------------------------------------- layers
@dataclass(frozen=True)
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
        return LayerSplit(
            counts["full_attention"],
            counts.get("sliding_attention", 0),
            counts.get("linear_attention", 0),
            c.num_hidden_layers,
        )
    if c.num_hidden_layers is None:
        raise NotPublished(model, ["num_hidden_layers"])
    if c.full_attention_interval:
        full = c.num_hidden_layers // c.full_attention_interval
        return LayerSplit(full, 0, c.num_hidden_layers - full, c.num_hidden_layers)
    return LayerSplit(c.num_hidden_layers, 0, 0, c.num_hidden_layers)


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
@dataclass(frozen=True)
class KvCell:
    """Bytes of KV per token: for the whole model, and on one attention-TP rank (what the pool sizes by)."""

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
    sparse_indexer: bool = False  # a DSA top-k indexer keeps its own per-token cache, size not published


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
            model.id,
            "mla",
            row * layers.full,
            layers.full,
            layers.total or layers.full,
            elsewhere,
            row * layers.full,
            attn_tp > 1,
            sparse_indexer=c.index_topk is not None,
        )
    heads = c.num_key_value_heads
    head_row = (c.head_dim + (c.v_head_dim or c.head_dim)) * size
    heads_per_rank = max(1, heads // attn_tp)
    # SWA layers fall back to the model's heads and head_dim when config.json has no swa_* fields
    # (configs/model_config.py:1357-1365, 1713-1724), as for every SWA model in the KB.
    return KvCell(
        model.id,
        "gqa",
        heads * head_row * layers.full,
        layers.full,
        layers.total or layers.full,
        elsewhere,
        heads_per_rank * head_row * layers.full,
        attn_tp > heads,
        heads * head_row * layers.sliding,
        heads_per_rank * head_row * layers.sliding,
        c.index_topk is not None,
    )


def kv_bytes(model: Model, kv_dtype: Dtype, tokens: int) -> int:
    return kv_cell(model, kv_dtype).bytes_per_token * tokens


# ------------------------------------------------------------------------------------------- weights
def weight_bytes(model: Model, dtype: Dtype) -> float:
    """Parameters × storage bits (block scales included where the dtype's bits count them)."""
    if model.params.total_b is None:
        raise NotPublished(model, ["params.total_b"])
    return model.params.total_b * 1e9 * dtype.bits / 8


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


def memory_bytes(hw: Hardware) -> float:
    if hw.memory_gb is None:
        raise NotPublished(hw, ["memory_gb"])
    return hw.memory_gb * GB


# ------------------------------------------------------------------------------------------- KV pool
def kv_pool_tokens(
    pool_bytes: float,
    bytes_per_token: float,
    page_size: int = 1,
    max_total_tokens: int | None = None,
) -> int:
    """Tokens the KV pool holds: ``floor(pool / cell)``, capped by --max-total-tokens, floored to pages.

    pool_configurator.py:637-647 (DefaultPoolConfigurator.calculate_pool_sizes) and :907-916 (hybrid SWA);
    the cap is ``_apply_token_constraints`` (kv_cache_configurator.py:3090-3117), after which the
    configurator re-aligns to the page size. A pool with no room left holds 0 tokens (SGLang then refuses
    to start: "Not enough memory", pool_configurator.py:94-99).
    """
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    if bytes_per_token <= 0:
        raise ValueError(f"bytes per token must be positive, got {bytes_per_token}")
    tokens = max(0, math.floor(pool_bytes / bytes_per_token)) if pool_bytes > 0 else 0
    if max_total_tokens is not None:
        tokens = min(tokens, max_total_tokens)
    return tokens - tokens % page_size


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


def resolve_context(model: Model, context: int | None) -> int:
    """The context a plan uses: the one asked for, else the model's native one, else ``DEFAULT_CONTEXT``."""
    if context is not None:
        if context < 1:
            raise ValueError(f"context must be at least 1, got {context}")
        return context
    return model.context.native if model.context else DEFAULT_CONTEXT


# ------------------------------------------------------------------------------------------- plan
# What a plan can note; handbook/render/planner.py (NOTE_KEYS) and docs/assets/planner.js word each.
NOTE_CODES = (
    "kv-heads-replicated",  # attention TP > KV heads: each GPU keeps one KV head
    "mla-replicated",  # the MLA latent is held whole on every attention-TP rank
    "swa-pool",  # sliding-window layers: a second pool, ratio × full tokens
    "linear-state",  # linear-attention layers: a recurrent-state pool taken from the budget first
    "sparse-indexer",  # DSA indexer cache per token: size not published
    "dsa-fp8-layout",  # FP8 KV on a DSA model: some backends store scales and a BF16 rope
    "heads-indivisible",  # TP does not divide the attention heads: SGLang asserts it does
    "kv-heads-indivisible",  # TP and the KV heads do not divide one another: SGLang asserts one does
    "context-over-native",  # longer than the model's native context
    "capped",  # --max-total-tokens is below what the memory would hold
)


@dataclass(frozen=True)
class Plan:
    """One GPU of a TP group: how its memory splits, and what the KV pool holds.

    A figure whose inputs are not published is None, and ``missing`` says which fields it needs:
    ``memory`` (the accelerator), ``weights`` (parameter count), ``kv`` (the model's config).
    """

    model: str
    hardware: str
    weights_dtype: str
    kv_dtype: str
    tp: int
    ep: int
    mem_fraction_static: float
    page_size: int
    max_total_tokens: int | None  # --max-total-tokens, when given
    swa_full_tokens_ratio: float
    context: int
    context_native: int | None
    gpu_bytes: float | None
    static_bytes: float | None  # gpu × mem_fraction_static: weights + KV pool
    rest_bytes: float | None  # gpu × (1 − mem_fraction_static): activations and CUDA graph buffers
    weights_bytes: float | None  # the whole model
    weights_per_gpu: float | None
    kv_pool_bytes: float | None  # static − weights per GPU; negative when the weights do not fit
    kv_bytes_per_token: int | None  # the whole model, full-attention layers
    kv_cell_per_gpu: int | None  # one GPU, full-attention layers
    swa_cell_per_gpu: int | None  # one GPU, sliding-window layers (0 without any)
    pool_bytes_per_token: float | None  # what one token of max_tokens costs one GPU, SWA share included
    max_tokens: int | None
    swa_tokens: int | None  # tokens of the SWA pool, when the model has one
    max_requests: int | None  # requests of ``context`` tokens the pool holds at once
    missing: dict[str, tuple[str, ...]]
    notes: tuple[str, ...]

    @property
    def weights_fit(self) -> bool | None:
        return None if self.kv_pool_bytes is None else self.kv_pool_bytes > 0

    @property
    def fits(self) -> bool | None:
        """The server would start: the KV pool holds at least one page (None: not computable)."""
        return None if self.max_tokens is None else self.max_tokens > 0

    @property
    def shortfall_bytes(self) -> float | None:
        """By how much one GPU's weight share exceeds the static budget (0 when it fits)."""
        return None if self.kv_pool_bytes is None else max(0.0, -self.kv_pool_bytes)


def plan(
    model: Model,
    hw: Hardware,
    weights: Dtype,
    kv: Dtype,
    tp: int,
    mem_fraction_static: float = DEFAULT_MEM_FRACTION,
    context: int | None = None,
    page_size: int = 1,
    max_total_tokens: int | None = None,
    ep: int = 1,
    swa_full_tokens_ratio: float = SWA_FULL_TOKENS_RATIO,
) -> Plan:
    """SGLang's KV-pool sizing for one GPU of a TP group (see the module's docstring for the sources).

    ``context`` defaults to the model's native context, else ``DEFAULT_CONTEXT``. Raises ``ValueError``
    for impossible inputs; unpublished inputs leave their figures None and are listed in ``missing``.
    """
    if not 0 < mem_fraction_static < 1:
        raise ValueError(f"mem_fraction_static must be in (0, 1), got {mem_fraction_static}")
    if not 0 < swa_full_tokens_ratio <= 1:
        raise ValueError(f"swa_full_tokens_ratio must be in (0, 1], got {swa_full_tokens_ratio}")
    if max_total_tokens is not None and max_total_tokens < 1:
        raise ValueError(f"max_total_tokens must be at least 1, got {max_total_tokens}")
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    if "weights" not in weights.use:
        raise ValueError(f"{weights.id} is not a weights dtype")
    kv_size = element_bytes(kv)  # validates the KV dtype
    weight_share(0.0, tp, ep)  # validates tp and ep
    native = model.context.native if model.context else None
    ctx = resolve_context(model, context)
    missing: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []

    gpu = static = rest = None
    try:
        gpu = memory_bytes(hw)
        static, rest = gpu * mem_fraction_static, gpu * (1 - mem_fraction_static)
    except NotPublished as exc:
        missing["memory"] = tuple(exc.missing)
    total = per_gpu = None
    try:
        total = weight_bytes(model, weights)
        per_gpu = weight_share(total, tp, ep)
    except NotPublished as exc:
        missing["weights"] = tuple(exc.missing)
    cell = None
    try:
        cell = kv_cell(model, kv, attn_tp=tp)
    except NotPublished as exc:
        missing["kv"] = tuple(exc.missing)

    c = model.config
    if cell is not None:
        if cell.formula == "mla" and tp > 1:
            notes.append("mla-replicated")
        if cell.formula == "gqa" and tp > c.num_key_value_heads:
            notes.append("kv-heads-replicated")
        if cell.swa_per_rank_bytes:
            notes.append("swa-pool")
    if has_linear_attention(model):
        notes.append("linear-state")
    if c.index_topk is not None:
        notes.append("sparse-indexer")
        if model.attention.kv_formula == "mla" and kv_size == 1:
            notes.append("dsa-fp8-layout")
    notes += layout_problems(model, tp)
    if native is not None and ctx > native:
        notes.append("context-over-native")

    pool = per_token = tokens = swa_tokens = requests = None
    if static is not None and per_gpu is not None:
        pool = static - per_gpu
    if cell is not None:
        # hybrid SWA: each full-pool token also pays ratio × the SWA layers (pool_configurator.py:786-803)
        per_token = (
            cell.per_rank_bytes + swa_full_tokens_ratio * cell.swa_per_rank_bytes
            if cell.swa_per_rank_bytes
            else cell.per_rank_bytes
        )
    if pool is not None and per_token is not None:
        uncapped = kv_pool_tokens(pool, per_token, page_size)
        tokens = kv_pool_tokens(pool, per_token, page_size, max_total_tokens)
        if tokens < uncapped:
            notes.append("capped")
        if cell.swa_per_rank_bytes:
            # swa_tokens = align_page_size(int(full_tokens × ratio)) (pool_configurator.py:879-881)
            swa_tokens = math.floor(tokens * swa_full_tokens_ratio)
            swa_tokens -= swa_tokens % page_size
        requests = tokens // ctx
    return Plan(
        model.id,
        hw.id,
        weights.id,
        kv.id,
        tp,
        ep,
        mem_fraction_static,
        page_size,
        max_total_tokens,
        swa_full_tokens_ratio,
        ctx,
        native,
        gpu,
        static,
        rest,
        total,
        per_gpu,
        pool,
        cell.bytes_per_token if cell else None,
        cell.per_rank_bytes if cell else None,
        cell.swa_per_rank_bytes if cell else None,
        per_token,
        tokens,
        swa_tokens,
        requests,
        missing,
        tuple(code for code in NOTE_CODES if code in notes),
    )


def smallest_tp(
    model: Model,
    hw: Hardware,
    weights: Dtype,
    mem_fraction_static: float = DEFAULT_MEM_FRACTION,
    kv: Dtype | None = None,
    min_kv_tokens: int = 0,
    swa_full_tokens_ratio: float = SWA_FULL_TOKENS_RATIO,
) -> int | None:
    """The smallest power-of-two TP whose weight share fits inside mem_fraction_static, with KV headroom.

    ``min_kv_tokens`` is the stated headroom: the KV pool of each GPU must also hold that many tokens (with
    ``kv``, sized as ``plan`` sizes it). 0 asks only that the weights fit. TPs that SGLang refuses for the
    model's heads (``layout_problems``) are skipped. None: no TP up to 64 does. Raises ``NotPublished``
    when an input it needs is unknown.
    """
    total = weight_bytes(model, weights)
    budget = memory_bytes(hw) * mem_fraction_static
    if min_kv_tokens and kv is None:
        raise ValueError("a KV headroom in tokens needs the KV dtype")
    for tp in TP_CHOICES:
        if layout_problems(model, tp):
            continue
        pool = budget - total / tp
        if pool <= 0:
            continue
        if not min_kv_tokens:
            return tp
        cell = kv_cell(model, kv, attn_tp=tp)
        per_token = (
            cell.per_rank_bytes + swa_full_tokens_ratio * cell.swa_per_rank_bytes
            if cell.swa_per_rank_bytes
            else cell.per_rank_bytes
        )
        if kv_pool_tokens(pool, per_token) >= min_kv_tokens:
            return tp
    return None


@dataclass(frozen=True)
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
    weights: Dtype,
    kv: Dtype,
    mem_fraction_static: float = DEFAULT_MEM_FRACTION,
    context: int | None = None,
    swa_full_tokens_ratio: float = SWA_FULL_TOKENS_RATIO,
) -> AutoTp:
    """The TP the planner suggests when none is chosen: room for the weights and one full-length request."""
    ctx = resolve_context(model, context)
    try:
        weight_bytes(model, weights)
        memory_bytes(hw)
    except NotPublished:
        return AutoTp(1, "unknown")
    try:
        kv_cell(model, kv)
        headroom, basis = ctx, "headroom"
    except NotPublished:
        headroom, basis = 0, "weights-only"
    tp = smallest_tp(model, hw, weights, mem_fraction_static, kv, headroom, swa_full_tokens_ratio)
    if tp is None:
        return AutoTp(max(t for t in TP_CHOICES if not layout_problems(model, t)), "none-fits")
    return AutoTp(tp, basis)


@dataclass(frozen=True)
class TpCell:
    dtype: str
    hardware: str
    tp: int | None  # smallest power-of-two TP that fits; None: no TP up to 64 does, or memory unknown
    stated_tp: int | None
    weights_per_gpu: float | None
    kv_budget_per_gpu: float | None  # what mem_fraction_static leaves for the KV pool on each GPU

    @property
    def agrees(self) -> bool:
        return self.stated_tp is None or self.stated_tp == self.tp


def tp_table(
    model: Model,
    dtypes: dict[str, Dtype],
    hardware: dict[str, Hardware],
    mem_fraction_static: float = TABLE_MEM_FRACTION,
) -> list[TpCell]:
    """Precision × accelerator → smallest TP, for every precision with a stated hardware table."""
    cells = []
    for precision in model.precisions:
        if not precision.stated_tp:
            continue
        dtype = dtypes[precision.dtype]
        for hw_id, stated in precision.stated_tp.items():
            hw = hardware[hw_id]
            tp = smallest_tp(model, hw, dtype, mem_fraction_static) if hw.memory_gb else None
            share = weight_bytes(model, dtype) / tp if tp else None
            budget = memory_bytes(hw) * mem_fraction_static - share if share is not None else None
            cells.append(TpCell(precision.dtype, hw_id, tp, stated, share, budget))
    return cells
