"""A model's parameter count from its architecture fields, where no total is published.

The count is what the checkpoint's tensors hold for serving (embeddings, attention, MLP or experts, norms,
the LM head; no multi-token-prediction layers, which SGLang loads only for speculative decoding), written
from the model code SGLang serves the architecture with. Two families are covered, each tested against a
published total (tests/test_planner_params.py); any other returns ``None`` with the fields it lacks.

Dense GQA (models/llama.py: LlamaDecoderLayer): per layer
    q, o: 2 × hidden × heads × head_dim;   k, v: 2 × hidden × kv_heads × head_dim
    gate, up, down: 3 × hidden × intermediate;   two RMSNorms: 2 × hidden
plus embeddings (vocab × hidden), the LM head (another vocab × hidden unless tied) and the final norm.

GQA + MoE (models/qwen3_moe.py: Qwen3MoeDecoderLayer, Qwen3MoeSparseMoeBlock), per layer
    the attention as above, plus q_norm and k_norm (2 × head_dim)
    routed experts of 3 × hidden × moe_intermediate each, and the router (routed × hidden, no bias)
    two RMSNorms: 2 × hidden
plus embeddings, the LM head unless tied, the final norm. Models with shared experts or dense layers are
not covered (the fields that say how many are not read here).

MLA + MoE (models/deepseek_v2.py: DeepseekV2AttentionMLA, DeepseekV2MoE, MoEGate), per layer
    q_a (hidden × q_lora) + its norm (q_lora) + q_b (q_lora × heads × (nope + rope))
    kv_a (hidden × (kv_lora + rope)) + its norm (kv_lora) + kv_b (kv_lora × heads × (nope + v))
    + o (heads × v × hidden)
    the first first_k_dense_replace layers: a dense MLP of 3 × hidden × intermediate;
    the others: (routed + shared) experts of 3 × hidden × moe_intermediate, the router (routed × hidden) and
    its score-correction bias (routed; topk_method noaux_tc)
    two RMSNorms: 2 × hidden
"""

from __future__ import annotations

from dataclasses import dataclass

from handbook.calc import sizing
from handbook.kb.schema import Model

DENSE_FIELDS = (
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "tie_word_embeddings",
)
MLA_MOE_FIELDS = (
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "moe_intermediate_size",
    "num_hidden_layers",
    "first_k_dense_replace",
    "num_attention_heads",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "tie_word_embeddings",
)


GQA_MOE_FIELDS = (
    "vocab_size",
    "hidden_size",
    "moe_intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "tie_word_embeddings",
)
# the Qwen3-MoE layout the formula is written from (q_norm/k_norm, every layer sparse, no shared expert)
GQA_MOE_ARCHITECTURES = frozenset({"Qwen3MoeForCausalLM"})


@dataclass(frozen=True, kw_only=True)
class ParamCount:
    family: str  # "dense-gqa" | "gqa-moe" | "mla-moe"
    total: int
    formula: str  # the sum as numbers, for the reader


def formula_family(model: Model) -> tuple[str, tuple[str, ...]] | None:
    """Which formula fits the model, and the fields it reads; None: no formula covers it."""
    c = model.config
    linear_or_sliding = {"linear_attention", "sliding_attention"} & set(c.layer_types_count)
    if linear_or_sliding or c.full_attention_interval or c.index_topk is not None:
        return None
    if set(c.architectures or ()) & sizing.MULTIMODAL:  # the count would leave out the vision tower
        return None
    if model.attention.kv_formula == "gqa" and model.experts is None:
        return "dense-gqa", DENSE_FIELDS
    if model.attention.kv_formula == "mla" and model.experts is not None:
        return "mla-moe", MLA_MOE_FIELDS
    archs = set(c.architectures or ())
    if model.attention.kv_formula == "gqa" and model.experts is not None and archs & GQA_MOE_ARCHITECTURES:
        return "gqa-moe", GQA_MOE_FIELDS
    return None


def missing_fields(model: Model) -> list[str]:
    """The fields the model's formula needs and the KB lacks (``["params.total_b"]``: no formula fits)."""
    family = formula_family(model)
    if family is None:
        return ["params.total_b"]
    missing = [name for name in family[1] if getattr(model.config, name) is None]
    if family[0] == "mla-moe" and (model.experts.routed is None or model.experts.shared is None):
        missing += ["experts.routed" if model.experts.routed is None else "experts.shared"]
    if family[0] == "gqa-moe" and model.experts.routed is None:
        missing += ["experts.routed"]
    return missing


def param_count(model: Model) -> ParamCount | None:
    """The formula's count; None when no formula fits or a field it reads is unknown."""
    family = formula_family(model)
    if family is None or missing_fields(model):
        return None
    c = model.config
    v, h, n = c.vocab_size, c.hidden_size, c.num_hidden_layers
    heads = 1 if c.tie_word_embeddings else 2  # embeddings, and the LM head unless tied
    if family[0] == "dense-gqa":
        q, kv, d, inter = c.num_attention_heads, c.num_key_value_heads, c.head_dim, c.intermediate_size
        layer = h * q * d + 2 * h * kv * d + q * d * h + 3 * h * inter + 2 * h
        total = heads * v * h + n * layer + h
        text = (
            f"{heads} × {v} × {h} + {n} × ({h} × {q} × {d} + 2 × {h} × {kv} × {d} + {q} × {d} × {h}"
            f" + 3 × {h} × {inter} + 2 × {h}) + {h}"
        )
        return ParamCount(family="dense-gqa", total=total, formula=text)
    if family[0] == "gqa-moe":
        q, kv, d, moe = c.num_attention_heads, c.num_key_value_heads, c.head_dim, c.moe_intermediate_size
        routed = model.experts.routed
        layer = h * q * d + 2 * h * kv * d + q * d * h + 2 * d + routed * 3 * h * moe + routed * h + 2 * h
        total = heads * v * h + n * layer + h
        text = (
            f"{heads} × {v} × {h} + {n} × ({h} × {q} × {d} + 2 × {h} × {kv} × {d} + {q} × {d} × {h} + 2 × {d}"
            f" + {routed} × 3 × {h} × {moe} + {routed} × {h} + 2 × {h}) + {h}"
        )
        return ParamCount(family="gqa-moe", total=total, formula=text)
    q_lora, kv_lora = c.q_lora_rank, c.kv_lora_rank
    nope, rope, vdim, nh = c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim, c.num_attention_heads
    routed, shared = model.experts.routed, model.experts.shared
    dense, inter, moe = c.first_k_dense_replace, c.intermediate_size, c.moe_intermediate_size
    attention = (
        h * q_lora
        + q_lora
        + q_lora * nh * (nope + rope)
        + h * (kv_lora + rope)
        + kv_lora
        + kv_lora * nh * (nope + vdim)
        + nh * vdim * h
    )
    experts = (routed + shared) * 3 * h * moe + routed * h + routed
    total = heads * v * h + h + dense * (attention + 3 * h * inter + 2 * h)
    total += (n - dense) * (attention + experts + 2 * h)
    text = (
        f"{heads} × {v} × {h} + {h} + {dense} × (A + 3 × {h} × {inter} + 2 × {h})"
        f" + {n - dense} × (A + ({routed} + {shared}) × 3 × {h} × {moe} + {routed} × {h} + {routed}"
        f" + 2 × {h}),"
        f" A = {h} × {q_lora} + {q_lora} + {q_lora} × {nh} × ({nope} + {rope}) + {h} × ({kv_lora} + {rope})"
        f" + {kv_lora} + {kv_lora} × {nh} × ({nope} + {vdim}) + {nh} × {vdim} × {h}"
    )
    return ParamCount(family="mla-moe", total=total, formula=text)
