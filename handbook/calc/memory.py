"""SGLang's memory arithmetic as code: KV cell size, weights, KV pool, concurrency, TP needed.

The KV cell size follows SGLang's model runner:
  MLA:     (kv_lora_rank + qk_rope_head_dim) × layers × dtype_bytes
  MHA/GQA: kv_heads_per_attention_tp_rank × (head_dim + v_head_dim) × layers × dtype_bytes
Hybrid models count only the layers that keep a per-token KV in the paged pool; linear-attention state and
sliding-window KV are held in separate pools and are reported as such, not guessed.
Memory sizes are decimal (GB = 10^9 bytes), as accelerator memory is quoted; KiB/MiB/GiB are binary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from handbook.kb.schema import KV_FIELDS, Dtype, Hardware, Model

GB = 10**9
KIB, MIB, GIB = 2**10, 2**20, 2**30
TP_CHOICES = (1, 2, 4, 8, 16, 32, 64)


class NotPublished(ValueError):
    """A figure needs a field that no source gives; ``missing`` names the fields."""

    def __init__(self, model: Model, missing: list[str]):
        self.model = model
        self.missing = missing
        super().__init__(f"{model.id}: not published: {', '.join(missing)}")


@dataclass(frozen=True)
class KvCell:
    """Bytes of KV the paged pool holds per token, for the whole model (all attention-TP ranks together)."""

    model: str
    formula: str
    bytes_per_token: int
    layers_counted: int
    layers_total: int
    elsewhere: dict[str, int] = field(default_factory=dict)  # layer kind → count, state held outside the pool
    per_rank_bytes: int = 0  # on one attention-TP rank
    replicated: bool = False  # KV heads fewer than attention TP ranks: SGLang replicates them


def kv_layers(model: Model) -> tuple[int, dict[str, int]]:
    """Layers whose KV lives in the paged pool, and the layers whose state lives elsewhere."""
    c = model.config
    counts = dict(c.layer_types_count)
    if "full_attention" in counts:
        elsewhere = {k: v for k, v in counts.items() if k != "full_attention"}
        return counts["full_attention"], elsewhere
    if c.full_attention_interval and c.num_hidden_layers:
        full = c.num_hidden_layers // c.full_attention_interval
        return full, {"linear_attention": c.num_hidden_layers - full}
    if c.num_hidden_layers is None:
        raise NotPublished(model, ["num_hidden_layers"])
    return c.num_hidden_layers, {}


def kv_cell(model: Model, kv_dtype: Dtype, attn_tp: int = 1) -> KvCell:
    """SGLang's KV cell size. Raises ``NotPublished`` when a field the formula needs is unknown."""
    formula = model.attention.kv_formula
    c = model.config
    missing = [name for name in KV_FIELDS[formula] if getattr(c, name) is None]
    if missing:
        raise NotPublished(model, missing)
    if "kv" not in kv_dtype.use:
        raise ValueError(f"{kv_dtype.id} is not a KV-cache dtype")
    layers, elsewhere = kv_layers(model)
    dtype_bytes = kv_dtype.bits / 8
    if formula == "mla":
        per_rank = (c.kv_lora_rank + c.qk_rope_head_dim) * layers * dtype_bytes
        # the latent is not split by heads: every attention-TP rank holds the same per-token entry
        total, replicated = per_rank, attn_tp > 1
    else:
        heads = c.num_key_value_heads
        head_bytes = (c.head_dim + (c.v_head_dim or c.head_dim)) * layers * dtype_bytes
        heads_per_rank = max(1, heads // attn_tp)
        per_rank = heads_per_rank * head_bytes
        total, replicated = heads * head_bytes, attn_tp > heads
    return KvCell(
        model.id,
        formula,
        int(total),
        layers,
        c.num_hidden_layers or layers,
        elsewhere,
        int(per_rank),
        replicated,
    )


def kv_bytes(model: Model, kv_dtype: Dtype, tokens: int) -> int:
    return kv_cell(model, kv_dtype).bytes_per_token * tokens


def weight_bytes(model: Model, dtype: Dtype) -> float:
    """Parameters × storage bits (block scales included where the dtype's bits count them)."""
    if model.params.total_b is None:
        raise NotPublished(model, ["params.total_b"])
    return model.params.total_b * 1e9 * dtype.bits / 8


def memory_bytes(hw: Hardware) -> float:
    if hw.memory_gb is None:
        raise ValueError(f"{hw.id}: memory not published")
    return hw.memory_gb * GB


@dataclass(frozen=True)
class Plan:
    """One GPU of a TP group: how its memory splits, and what the KV pool holds."""

    model: str
    hardware: str
    tp: int
    mem_fraction_static: float
    gpu_bytes: float
    weights_per_gpu: float
    kv_pool_bytes: float  # may be negative: the weights do not fit
    kv_cell_per_gpu: int
    max_tokens: int
    rest_bytes: float  # outside mem_fraction_static: activations and CUDA graph buffers
    context: int
    max_requests: int

    @property
    def fits(self) -> bool:
        return self.max_tokens > 0


def plan(
    model: Model,
    hw: Hardware,
    weights: Dtype,
    kv: Dtype,
    tp: int,
    mem_fraction_static: float = 0.85,
    context: int | None = None,
    page_size: int = 1,
) -> Plan:
    """SGLang's KV-pool sizing: (total × mem_fraction_static − weights) / cell size, floored to the page size.

    Weights are taken as split evenly over the TP group (TP and EP both shard them); the KV cell is the
    per-rank one (GQA heads divided by TP, MLA latent replicated).
    """
    if not 0 < mem_fraction_static < 1:
        raise ValueError(f"mem_fraction_static must be in (0, 1), got {mem_fraction_static}")
    if tp < 1:
        raise ValueError(f"tp must be at least 1, got {tp}")
    gpu = memory_bytes(hw)
    per_gpu_weights = weight_bytes(model, weights) / tp
    cell = kv_cell(model, kv, attn_tp=tp)
    pool = gpu * mem_fraction_static - per_gpu_weights
    tokens = max(0, math.floor(pool / cell.per_rank_bytes)) if pool > 0 else 0
    tokens -= tokens % page_size
    ctx = context or (model.context.native if model.context else 0)
    requests = tokens // ctx if ctx else 0
    return Plan(
        model.id,
        hw.id,
        tp,
        mem_fraction_static,
        gpu,
        per_gpu_weights,
        pool,
        cell.per_rank_bytes,
        tokens,
        gpu * (1 - mem_fraction_static),
        ctx,
        requests,
    )


def smallest_tp(model: Model, hw: Hardware, weights: Dtype, mem_fraction_static: float = 0.85) -> int | None:
    """The smallest power-of-two TP whose per-GPU weight share fits inside mem_fraction_static."""
    total = weight_bytes(model, weights)
    budget = memory_bytes(hw) * mem_fraction_static
    for tp in TP_CHOICES:
        if total / tp < budget:
            return tp
    return None


# The --mem-fraction-static the handbook's own recipes use; tables that size TP assume it.
TABLE_MEM_FRACTION = 0.85


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
