"""The planner's data: the part of the KB that docs/assets/planner.js computes from, as canonical JSON.

Only raw facts go in (config fields, parameter counts, dtype widths, accelerator memory, checkpoints); the
browser derives every figure with the same formulas as ``handbook.calc.memory``. The text depends on the
KB alone (no dates, no language), so both language builds write the same bytes, build after build.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from handbook.calc import launch, memory, params, sizing
from handbook.calc.launch import model_path, rule_flags
from handbook.core.files import write_text
from handbook.core.formatting import json_safe
from handbook.kb.loader import KB
from handbook.kb.schema import Dtype, Model

SCHEMA_VERSION = 3
# Where the build writes it, under the site root: both language builds share assets/, beside planner.js.
PLANNER_DATA_PATH = "assets/planner-data.json"

CONFIG_FIELDS = (
    "architectures",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "v_head_dim",
    "hidden_size",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "full_attention_interval",
    "index_topk",
    "index_head_dim",
    "index_topk_freq",
    "index_skip_topk_offset",
    "compress_ratios",
    "sliding_window",
    *sizing.LINEAR_FIELDS,
    "mamba_ssm_dtype",
    "indexer_n_heads",
    "indexer_kv_heads",
    "indexer_head_dim",
    "indexer_compress_ratio",
    "vocab_size",
    "intermediate_size",
    "moe_intermediate_size",
    "first_k_dense_replace",
    "q_lora_rank",
    "tie_word_embeddings",
)


# The tables docs/assets/planner.js computes with, sent under "tables" by their Python names so that none is
# typed in JavaScript: the wheel's constants and the architecture sets of calc/sizing.py, the fields the
# parameter formulas need (calc/params.py), the plan's codes in their order (calc/memory.py) and the
# command's model placeholder (calc/launch.py). tests/test_js_structure.py holds planner.js to this list.
TABLES: dict[str, object] = {
    "AITER_CONTEXT_THRESHOLD": sizing.AITER_CONTEXT_THRESHOLD,
    "AITER_FRACTION_SCALE": sizing.AITER_FRACTION_SCALE,
    "MAMBA_REQUEST_RATIO": sizing.MAMBA_REQUEST_RATIO,
    "MAMBA_TRACKING_SLOTS": sizing.MAMBA_TRACKING_SLOTS,
    "DSA_QUANT_BLOCK": sizing.DSA_QUANT_BLOCK,
    "DSA_SCALE_BYTES": sizing.DSA_SCALE_BYTES,
    "AITER_MLA_HEADS": sizing.AITER_MLA_HEADS,
    "TRTLLM_PAGE_SIZE": sizing.TRTLLM_PAGE_SIZE,
    "FA4_PAGE_SIZE": sizing.FA4_PAGE_SIZE,
    "DSA_PAGE_SIZE": sizing.DSA_PAGE_SIZE,
    "QSA_PAGE_SIZE": sizing.QSA_PAGE_SIZE,
    "QSA_BACKENDS": sizing.QSA_BACKENDS,
    "ATTENTION_BACKENDS": sizing.ATTENTION_BACKENDS,
    "DSA_SCALED_KV": sizing.DSA_SCALED_KV,
    "MEM_FRACTION_TIERS": sizing.MEM_FRACTION_TIERS,
    "SMALL_TP": sizing.SMALL_TP,
    "RESERVE_BASE_MIB": sizing.RESERVE_BASE_MIB,
    "RESERVE_MIN_TOKENS": sizing.RESERVE_MIN_TOKENS,
    "RESERVE_MIB_PER_TOKEN": sizing.RESERVE_MIB_PER_TOKEN,
    "RESERVE_RANKS": sizing.RESERVE_RANKS,
    "RESERVE_MIB_PER_RANKS": sizing.RESERVE_MIB_PER_RANKS,
    "RESERVE_MIB_PER_GRAPH_BATCH": sizing.RESERVE_MIB_PER_GRAPH_BATCH,
    "RESERVE_FLOOR_ABOVE_MIB": sizing.RESERVE_FLOOR_ABOVE_MIB,
    "RESERVE_FLOOR_MIB": sizing.RESERVE_FLOOR_MIB,
    "FRACTION_DIGITS": sizing.FRACTION_DIGITS,
    "VLM_SENSITIVITY": sizing.VLM_SENSITIVITY,
    "VLM_FACTOR_MIN": sizing.VLM_FACTOR_MIN,
    "VIT_BASELINE_LAYERS": sizing.VIT_BASELINE_LAYERS,
    "VIT_BASELINE_HIDDEN": sizing.VIT_BASELINE_HIDDEN,
    "VIT_DEFAULT_LAYERS": sizing.VIT_DEFAULT_LAYERS,
    "REQUESTS_PER_CONTEXT": sizing.REQUESTS_PER_CONTEXT,
    "MAX_REQUESTS_MIN": sizing.MAX_REQUESTS_MIN,
    "MAX_REQUESTS_MAX": sizing.MAX_REQUESTS_MAX,
    "DTYPE_BYTES": sizing.DTYPE_BYTES,
    "PLATFORMS": sizing.PLATFORMS,
    "DSA_ARCHITECTURES": sizing.DSA_ARCHITECTURES,
    "DEEPSEEK_FAMILY": sizing.DEEPSEEK_FAMILY,
    "QWEN3_5_FAMILY": sizing.QWEN3_5_FAMILY,
    "QWEN4_EXP": sizing.QWEN4_EXP,
    "GPT_OSS": sizing.GPT_OSS,
    "VLM_BASE": sizing.VLM_BASE,
    "VLM_FACTOR_MAX": sizing.VLM_FACTOR_MAX,
    "LINEAR_FIELDS": sizing.LINEAR_FIELDS,
    "DSV4_ARCHITECTURES": sizing.DSV4_ARCHITECTURES,
    "DSV4_BACKEND": sizing.DSV4_BACKEND,
    "DSV4_PAGE_SIZE": sizing.DSV4_PAGE_SIZE,
    "DSV4_SWA_FULL_TOKENS_RATIO": sizing.DSV4_SWA_FULL_TOKENS_RATIO,
    "DSV4_MAX_RUNNING_REQUESTS": sizing.DSV4_MAX_RUNNING_REQUESTS,
    "DSV4_KV_CACHE_DTYPES": sizing.DSV4_KV_CACHE_DTYPES,
    "DSV4_KV_SPELLINGS": sizing.DSV4_KV_SPELLINGS,
    "DSV4_KV_LAYOUTS": sizing.DSV4_KV_LAYOUTS,
    "DSV4_C4_RATIO": sizing.DSV4_C4_RATIO,
    "DSV4_C128_RATIO": sizing.DSV4_C128_RATIO,
    "DSV4_RATIOS": sizing.DSV4_RATIOS,
    "DSV4_C4_RING": sizing.DSV4_C4_RING,
    "DSV4_C128_RING": sizing.DSV4_C128_RING,
    "DSV4_STATE_DTYPES": sizing.DSV4_STATE_DTYPES,
    "STATE_DTYPE_LARGEST": sizing.STATE_DTYPE_LARGEST,
    "STATE_DTYPE_SMALLEST": sizing.STATE_DTYPE_SMALLEST,
    "NOTE_CODES": memory.NOTE_CODES,
    "BOUND_CODES": memory.BOUND_CODES,
    "UNPROVEN_BOUNDS": memory.UNPROVEN_BOUNDS,
    "LOOSE_ABOVE_PERCENT": memory.LOOSE_ABOVE_PERCENT,
    "PLACEHOLDER": launch.PLACEHOLDER,
}


def table_json(value: object) -> object:
    """A table as JSON: a set as its sorted list, a tuple as a list, a key of several parts (PLATFORMS'
    vendor and architecture) joined with "/" as planner.js looks it up."""
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple):
        return [table_json(v) for v in value]
    if isinstance(value, dict):
        return {"/".join(k) if isinstance(k, tuple) else k: table_json(v) for k, v in value.items()}
    return value


def weight_dtypes(kb: KB, model: Model) -> list[str]:
    """The weight precisions the planner offers: the model's published ones, else every weights dtype."""
    if model.precisions:
        return [p.dtype for p in model.precisions]
    return [d.id for d in kb.dtypes.values() if "weights" in d.use]


def _param_count(model: Model) -> dict[str, Any] | None:
    count = params.param_count(model)
    return None if count is None else dataclasses.asdict(count)


def _mixed_weights(model: Model, dtype: Dtype) -> dict[str, Any] | None:
    found = memory.mixed_weights(model, dtype)
    if found is None:
        return None
    return {"total_bytes": found.total_bytes, "formula": found.formula, "params": found.params}


def _model(kb: KB, model: Model) -> dict[str, Any]:
    config: dict[str, Any] = {name: getattr(model.config, name) for name in CONFIG_FIELDS}
    config["layer_types_count"] = dict(sorted(model.config.layer_types_count.items()))
    vision = model.config.vision_config
    config["vision_config"] = vision.model_dump() if vision else None
    paths = {}
    for dtype_id in weight_dtypes(kb, model):
        found = model_path(kb, model, dtype_id)
        paths[dtype_id] = {"path": found.path, "basis": found.basis}
    return {
        "id": model.id,
        "name": model.name,
        "kv_formula": model.attention.kv_formula,
        "config": config,
        "params_total_b": model.params.total_b,
        # the architecture formula's count where no total is published (handbook.calc.params), or None
        "param_count": _param_count(model),
        "experts": (
            {"routed": model.experts.routed, "shared": model.experts.shared}
            if model.experts is not None
            else None
        ),
        "moe": model.experts is not None,
        # the engine's architecture rules, decided here (handbook.calc.sizing): the browser only reads them
        "multimodal": sizing.is_multimodal(model),
        "hybrid_swa": sizing.is_hybrid_swa(model),
        "vision_shape": sizing.vision_shape(model),
        "state_dtype": sizing.state_dtype(model),
        "dsa_indexer_layers": sizing.dsa_indexer_layers(model),
        # stated, or derived from config.json as the engine derives it (memory.native_context)
        "context_native": memory.native_context(model),
        "checkpoint_bytes": {
            d: memory.checkpoint_bytes(model, kb.dtypes[d]) for d in weight_dtypes(kb, model)
        },
        # a mixed-precision checkpoint's weights, from the architecture and its quantization config
        # (memory.mixed_weights), by precision: computed here, read as they are by the browser
        "mixed_weights": {d: _mixed_weights(model, kb.dtypes[d]) for d in weight_dtypes(kb, model)},
        "weights_dtypes": weight_dtypes(kb, model),
        "model_paths": paths,
        "rule_flags": [{"flag": r.flag, "value": r.value, "when": r.when} for r in rule_flags(kb, model)],
    }


def kv_dtypes(kb: KB) -> list[str]:
    return [d.id for d in kb.dtypes.values() if "kv" in d.use]


def common_context(kb: KB) -> int | None:
    """The longest context every model that publishes one serves natively: the shortest native context in
    the KB (None when no model publishes one)."""
    natives = [n for n in (memory.native_context(m) for m in kb.models.values()) if n]
    return min(natives) if natives else None


def opening_context(kb: KB, model: Model) -> int:
    """The context a model opens with on the planner: its native context, but no more than the context
    every model serves (``common_context``), so that a first look is a context a deployment commonly runs
    rather than a maximum that can take several nodes; the model's maximum is one click away. A model that
    publishes no context opens with ``memory.DEFAULT_CONTEXT``, as the planner has always done."""
    native = memory.native_context(model)
    if native is None:
        return memory.DEFAULT_CONTEXT
    common = common_context(kb)
    return native if common is None else min(native, common)


def default_choice(kb: KB) -> tuple[str, str]:
    """The plan the page opens with: the first model and accelerator (KB order) whose automatic TP leaves
    room for one request of its opening context with no figure an upper bound, so the first view shows
    every figure."""
    kv = kb.dtypes[kv_dtypes(kb)[0]]
    for model in kb.models.values():
        weights = kb.dtypes[weight_dtypes(kb, model)[0]]
        context = opening_context(kb, model)
        for hw in kb.hardware.values():
            auto = memory.auto_tp(model, hw, weights, kv, context=context)
            plan = memory.plan(model, hw, weights, kv, auto.tp, context=context)
            if auto.basis == "headroom" and not plan.bounds:
                return model.id, hw.id
    return next(iter(kb.models)), next(iter(kb.hardware))


def planner_data(kb: KB) -> dict[str, Any]:
    model_id, hw_id = default_choice(kb)
    engine = sizing.engine_defaults()
    return {
        "schema_version": SCHEMA_VERSION,
        "engine": {"name": kb.handbook.engine, "version": kb.handbook.engine_version},
        "defaults": {
            "model": model_id,
            "hardware": hw_id,
            "kv_dtype": kv_dtypes(kb)[0],
            "context_when_unpublished": memory.DEFAULT_CONTEXT,
            # the longest context every model that publishes one serves: the planner opens no model above it
            "context_common": common_context(kb),
        },
        # the engine's own defaults, read from its snapshot (handbook.calc.sizing.engine_defaults)
        "engine_defaults": dataclasses.asdict(engine),
        "tp_choices": list(memory.TP_CHOICES),
        "tables": {name: table_json(value) for name, value in TABLES.items()},
        "dtypes": [
            {
                "id": d.id,
                "name": d.name,
                "bits": d.bits,
                "weights": "weights" in d.use,
                "kv": "kv" in d.use,
                "engine_kv_value": d.engine_kv_value,
            }
            for d in kb.dtypes.values()
        ],
        "hardware": [
            {
                "id": h.id,
                "name": h.name,
                "vendor": h.vendor,
                "architecture": h.architecture,
                "memory_gb": h.memory_gb,
                "memory_mib_reported": h.memory_mib_reported,
                "gpus_per_node": h.gpus_per_node,
            }
            for h in kb.hardware.values()
        ],
        "models": [_model(kb, m) for m in kb.models.values()],
    }


def planner_json(kb: KB) -> str:
    """Canonical text: sorted keys, two-space indent, UTF-8 as is, one final newline."""
    return json_safe(json.dumps(planner_data(kb), ensure_ascii=False, indent=2, sort_keys=True)) + "\n"


def write_planner_data(kb: KB, site_dir: Path) -> Path:
    """Write the export under one built site root; returns the file written."""
    target = Path(site_dir) / PLANNER_DATA_PATH
    write_text(target, planner_json(kb), root=Path(site_dir), folders=True, durable=False)
    return target
