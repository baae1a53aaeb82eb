"""A model's parameter count from its architecture fields, where no total is published.

The count is what SGLang holds resident for serving (embeddings, attention, MLP or experts, norms, the LM
head; no multi-token-prediction layers, which it loads only for speculative decoding), written from the
model code SGLang serves the architecture with; it is the checkpoint's own count but where the engine pads
a tensor (Qwen2.5-VL's vision MLP). Each family is tested for exact equality against the engine's own
model class built on the meta device, and against transformers' where the engine's cannot be built from
the KB (tests/golden/params.json, handbook/oracles/params.py); any model no family covers returns ``None``
with the fields it lacks.

Attention A (GQA; models/llama.py: LlamaAttention), per layer
    q, o: 2 × hidden × heads × head_dim;   k, v: 2 × hidden × kv_heads × head_dim
    + the q, k, v biases ((heads + 2 × kv_heads) × head_dim) where the model code has them
      (models/qwen2.py: Qwen2Attention, qkv_proj bias=True)
    + q_norm and k_norm (2 × head_dim) where the model code has them

Dense GQA (models/llama.py: LlamaDecoderLayer; models/qwen2.py: Qwen2DecoderLayer), per layer
    A + gate, up, down: 3 × hidden × intermediate;   two RMSNorms: 2 × hidden
plus embeddings (vocab × hidden), the LM head (another vocab × hidden unless tied) and the final norm.

GQA + MoE (models/qwen3_moe.py: Qwen3MoeDecoderLayer, Qwen3MoeSparseMoeBlock), per layer
    A with q_norm and k_norm
    routed experts of 3 × hidden × moe_intermediate each, and the router (routed × hidden, no bias)
    two RMSNorms: 2 × hidden
plus embeddings, the LM head unless tied, the final norm. Models with shared experts or dense layers are
not covered (the fields that say how many are not read here).

Mixtral MoE (models/mixtral.py: MixtralAttention, MixtralMoE), per layer
    A without biases or q/k norms
    routed experts of 3 × hidden × intermediate each (Mixtral's experts are intermediate_size wide) and the
    router (ReplicatedLinear routed × hidden, bias=False)
    two RMSNorms: 2 × hidden
plus embeddings, the LM head unless tied, the final norm.

Qwen3-Next, hybrid linear attention + MoE (models/qwen3_next.py; configs/qwen3_next.py: layer i is full
attention when (i + 1) % full_attention_interval == 0, so layers // interval of them, the rest linear):
    linear layers (Qwen3GatedDeltaNet), with key = lin_k_heads × lin_k_dim, value = lin_v_heads × lin_v_dim:
        in_proj_qkvz hidden × (2 key + 2 value), in_proj_ba hidden × 2 lin_v_heads,
        conv1d (2 key + value) × conv_kernel, dt_bias and A_log (2 × lin_v_heads), the gated norm
        (lin_v_dim), out_proj value × hidden
    full-attention layers: A with q_norm and k_norm, the query projection twice as wide where
        attn_output_gate (the engine's default, true, when the file has no key: qwen3_next.py:649)
    every layer sparse ("all layers are sparse", Qwen3HybridLinearDecoderLayer): routed experts of
        3 × hidden × moe_intermediate, the router (routed × hidden), the shared expert
        (3 × hidden × shared_expert_intermediate) and its gate (hidden × 1) (models/qwen2_moe.py:
        Qwen2MoeSparseMoeBlock), and two norms (2 × hidden)
plus embeddings, the LM head unless tied, the final norm.

Gemma-3 with its vision tower (models/gemma3_mm.py: Gemma3ForConditionalGeneration builds the tower and
the projector whether or not multimodal serving is on), the language model (models/gemma3_causal.py):
    per layer A with q_norm and k_norm + 3 × hidden × intermediate + four RMSNorms (4 × hidden)
    plus embeddings, the LM head unless tied, the final norm
the SigLIP tower (models/siglip.py), from vision_config (hidden V, intermediate I, patch P, image S,
channels C): the patch embedding C × P × P × V + V, the position embedding (S // P)² × V, per layer q, k,
v, o with biases 4 × (V × V + V), fc1 and fc2 with biases 2 × V × I + I + V, two LayerNorms 4 × V; the
post-LayerNorm 2 × V; the projector (Gemma3MultiModalProjector) V × hidden + its norm V.

Qwen2.5-VL (models/qwen2_5_vl.py): the language model is dense GQA with q, k, v biases (as Qwen2); the
vision tower, from vision_config (hidden V, intermediate I, depth, patch P, temporal patch T, in_chans C,
spatial_merge_size M, out_hidden_size O): the patch embedding C × T × P × P × V (bias=False); per block
two RMSNorms 2 × V, qkv V × 3V + 3V, proj V × V + V, gate, up and down with biases 3 × V × I' + 2 I' + V,
where I' is I rounded up to a multiple of 8 (qwen2_5_vl.py:382: the engine holds the MLP that wide, the
checkpoint's 3,420 columns loaded into 3,424); the patch merger: its RMSNorm V, V M² × V M² + V M²,
V M² × O + O. The count is the engine's resident one, not the checkpoint's.

MLA + MoE (models/deepseek_v2.py: DeepseekV2AttentionMLA, DeepseekV2MoE, MoEGate), per layer
    q_a (hidden × q_lora) + its norm (q_lora) + q_b (q_lora × heads × (nope + rope))
    kv_a (hidden × (kv_lora + rope)) + its norm (kv_lora) + kv_b (kv_lora × heads × (nope + v))
    + o (heads × v × hidden)
    the first first_k_dense_replace layers: a dense MLP of 3 × hidden × intermediate;
    the others: (routed + shared) experts of 3 × hidden × moe_intermediate, the router (routed × hidden) and
    its score-correction bias (routed; topk_method noaux_tc)
    two RMSNorms: 2 × hidden

MLA + MoE + DSA indexer (models/glm4_moe.py: GlmMoeDsaForCausalLM is DeepseekV2ForCausalLM): the MLA + MoE
count above, plus on each layer that computes its own top-k (models/deepseek_v2.py:2103-2143;
calc/sizing.dsa_indexer_layers) the indexer (layers/attention/dsa/dsa_indexer.py:344-385): wq_b q_lora ×
index_heads × index_dim, wk hidden × index_dim, weights_proj hidden × index_heads, and k_norm, a LayerNorm
with weight and bias (2 × index_dim; an RMSNorm only where config.json sets index_k_norm_type "rms", which
the KB records for no model, so a model setting it is not covered).

gpt-oss (models/gpt_oss.py: GptOssForCausalLM:755-775, GptOssModel:643-682, GptOssDecoderLayer:520-591),
per layer
    attention (GptOssAttention:368-440): A with the q, k, v biases (attention_bias, the config class's
    default true: transformers gpt_oss/configuration_gpt_oss.py:76), o_proj's bias (hidden) and the sinks
    (one per head, :429)
    the router (GptOssSparseMoeBlock:257-263, TinyGemmLinear bias=True): routed × hidden + routed
    routed experts (:241-253, with_bias=True): gate_up 2 × intermediate × hidden and down hidden ×
    intermediate, i.e. 3 × hidden × intermediate each, and their biases 2 × intermediate + hidden
    two RMSNorms: 2 × hidden (:579, :589)
plus embeddings, the LM head (untied, :768) and the final norm (:682).
The quantization config splits it (``ParamCount.quantized``): the engine's MXFP4 method quantizes only the
fused-MoE layers (layers/quantization/mxfp4.py:356-381: a linear layer gets UnquantizedLinearMethod or no
method), and within them only the experts' weight matrices: w13 and w2 are packed uint8 with one uint8
E8M0 scale per 32 elements, the biases bfloat16 (mxfp4.py:444-633, create_weights). Everything else, the
modules the config lists as unquantized (attention, router, embeddings, LM head) and the norms, sinks and
expert biases it does not name, is held in the engine's dtype, bfloat16 for an MXFP4 checkpoint
(arg_groups/model_overrides/gpt_oss.py:56-63).
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
HYBRID_GDN_MOE_FIELDS = (
    "vocab_size",
    "hidden_size",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "num_hidden_layers",
    "full_attention_interval",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
    "tie_word_embeddings",
)
SIGLIP_FIELDS = (
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "patch_size",
    "image_size",
    "num_channels",
)
QWEN_VL_VISION_FIELDS = (
    "hidden_size",
    "intermediate_size",
    "depth",
    "patch_size",
    "temporal_patch_size",
    "in_chans",
    "spatial_merge_size",
    "out_hidden_size",
)
# the Qwen3-MoE layout the formula is written from (q_norm/k_norm, every layer sparse, no shared expert)
GQA_MOE_ARCHITECTURES = frozenset({"Qwen3MoeForCausalLM"})
# dense models whose attention carries q, k, v biases (models/qwen2.py: Qwen2Attention)
QKV_BIAS_ARCHITECTURES = frozenset({"Qwen2ForCausalLM", "Qwen2_5_VLForConditionalGeneration"})
# families known by the class the config names: (family, language fields, vision fields)
ARCHITECTURE_FAMILIES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "MixtralForCausalLM": ("mixtral-moe", DENSE_FIELDS, ()),
    "Qwen3NextForCausalLM": ("hybrid-gdn-moe", HYBRID_GDN_MOE_FIELDS, ()),
    "Gemma3ForConditionalGeneration": ("gemma3-siglip", DENSE_FIELDS, SIGLIP_FIELDS),
    "Qwen2_5_VLForConditionalGeneration": ("qwen2.5-vl", DENSE_FIELDS, QWEN_VL_VISION_FIELDS),
    "GlmMoeDsaForCausalLM": ("mla-moe-dsa", MLA_MOE_FIELDS + ("index_n_heads", "index_head_dim"), ()),
    "GptOssForCausalLM": ("gpt-oss", DENSE_FIELDS, ()),
}
# the quantization methods whose quantized tensors a family's formula can name: family → methods
SPLIT_METHODS = {"gpt-oss": frozenset({"mxfp4"})}
# families that read the routed expert count (experts.routed)
EXPERT_FAMILIES = frozenset({"gqa-moe", "mixtral-moe", "hybrid-gdn-moe", "gpt-oss"})


@dataclass(frozen=True, kw_only=True)
class ParamCount:
    # "dense-gqa" | "gqa-moe" | "mla-moe" | "mla-moe-dsa" | "mixtral-moe" | "hybrid-gdn-moe" | "gemma3-siglip"
    # | "qwen2.5-vl" | "gpt-oss"
    family: str
    total: int
    formula: str  # the sum as numbers, for the reader
    # the elements the model's quantization config quantizes (the rest stays unquantized), where the config
    # lists unquantized modules and the family names the tensors its method quantizes; None: no split
    quantized: int | None = None
    quantized_formula: str | None = None

    @property
    def unquantized(self) -> int | None:
        return None if self.quantized is None else self.total - self.quantized


def formula_family(model: Model) -> tuple[str, tuple[str, ...]] | None:
    """Which formula fits the model, and the config fields it reads (a vision tower's as
    ``vision_config.<name>``); None: no formula covers it."""
    c = model.config
    first = (c.architectures or [None])[0]
    if first in ARCHITECTURE_FAMILIES:
        family, fields, vision = ARCHITECTURE_FAMILIES[first]
        return family, fields + tuple(f"vision_config.{name}" for name in vision)
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


def _field(model: Model, name: str):
    if name.startswith("vision_config."):
        vision = model.config.vision_config
        return None if vision is None else getattr(vision, name.removeprefix("vision_config."))
    return getattr(model.config, name)


def missing_fields(model: Model) -> list[str]:
    """The fields the model's formula needs and the KB lacks (``["params.total_b"]``: no formula fits)."""
    family = formula_family(model)
    if family is None:
        return ["params.total_b"]
    missing = [name for name in family[1] if _field(model, name) is None]
    if family[0] in ("mla-moe", "mla-moe-dsa") and (
        model.experts is None or model.experts.routed is None or model.experts.shared is None
    ):
        missing += [
            "experts.routed" if model.experts is None or model.experts.routed is None else "experts.shared"
        ]
    if family[0] == "mla-moe-dsa" and sizing.dsa_indexer_layers(model) is None:
        c = model.config
        missing += [
            f"config.{name}"
            for name in ("index_topk_freq", "index_skip_topk_offset")
            if getattr(c, name) is None and name not in c.absent
        ]
    if family[0] in EXPERT_FAMILIES and (model.experts is None or model.experts.routed is None):
        missing += ["experts.routed"]
    return missing


def param_count(model: Model) -> ParamCount | None:
    """The formula's count; None when no formula fits or a field it reads is unknown."""
    family = formula_family(model)
    if family is None or missing_fields(model):
        return None
    name = family[0]
    if name in ("mla-moe", "mla-moe-dsa"):
        total, text = _mla_moe(model)
    elif name == "hybrid-gdn-moe":
        total, text = _hybrid_gdn_moe(model)
    elif name == "gpt-oss":
        total, text = _gpt_oss(model)
    else:
        total, text = _gqa(model, name)
    if name == "mla-moe-dsa":
        indexer, indexer_text = _dsa_indexer(model)
        total, text = total + indexer, f"{text} + I, I = {indexer_text}"
    if name == "gemma3-siglip":
        tower, tower_text = _siglip(model)
        total, text = total + tower, f"{text} + V, V = {tower_text}"
    if name == "qwen2.5-vl":
        tower, tower_text = _qwen_vl_vision(model)
        total, text = total + tower, f"{text} + V, V = {tower_text}"
    split = _quantized(model, name)
    if split is None:
        return ParamCount(family=name, total=total, formula=text)
    return ParamCount(family=name, total=total, formula=text, quantized=split[0], quantized_formula=split[1])


def _quantized(model: Model, family: str) -> tuple[int, str] | None:
    """The elements the quantization config quantizes, where it lists unquantized modules (a mixed-precision
    checkpoint) and the family names what its method quantizes (the module's docstring)."""
    quantization = model.config.quantization_config
    if quantization is None or not quantization.unquantized_modules:
        return None
    if quantization.quant_method not in SPLIT_METHODS.get(family, ()):
        return None
    c = model.config
    n, routed, h, inter = c.num_hidden_layers, model.experts.routed, c.hidden_size, c.intermediate_size
    return n * routed * 3 * h * inter, f"{n} × {routed} × 3 × {h} × {inter}"


def _attention(model: Model, *, bias: bool, qk_norm: bool, output_gate: bool = False) -> tuple[int, str]:
    """A GQA layer's q, k, v, o projections (Attention A in the module's docstring)."""
    c = model.config
    h, q, kv, d = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    wide = 2 if output_gate else 1
    total = h * q * d * wide + 2 * h * kv * d + q * d * h
    text = f"{h} × {q} × {d}{' × 2' if output_gate else ''} + 2 × {h} × {kv} × {d} + {q} × {d} × {h}"
    if bias:
        total += (q + 2 * kv) * d
        text += f" + ({q} + 2 × {kv}) × {d}"
    if qk_norm:
        total += 2 * d
        text += f" + 2 × {d}"
    return total, text


def _gqa(model: Model, family: str) -> tuple[int, str]:
    """Dense GQA (with biases by architecture), Qwen3-MoE, Mixtral and Gemma-3's language model."""
    c = model.config
    v, h, n = c.vocab_size, c.hidden_size, c.num_hidden_layers
    heads = 1 if c.tie_word_embeddings else 2  # embeddings, and the LM head unless tied
    bias = bool(set(c.architectures or ()) & QKV_BIAS_ARCHITECTURES)
    attention, attention_text = _attention(model, bias=bias, qk_norm=family in ("gqa-moe", "gemma3-siglip"))
    if family == "gqa-moe":
        routed, moe = model.experts.routed, c.moe_intermediate_size
        mlp, mlp_text = routed * 3 * h * moe + routed * h, f"{routed} × 3 × {h} × {moe} + {routed} × {h}"
    elif family == "mixtral-moe":
        routed, inter = model.experts.routed, c.intermediate_size
        mlp, mlp_text = routed * 3 * h * inter + routed * h, f"{routed} × 3 × {h} × {inter} + {routed} × {h}"
    else:
        mlp, mlp_text = 3 * h * c.intermediate_size, f"3 × {h} × {c.intermediate_size}"
    norms = 4 if family == "gemma3-siglip" else 2
    total = heads * v * h + n * (attention + mlp + norms * h) + h
    text = f"{heads} × {v} × {h} + {n} × ({attention_text} + {mlp_text} + {norms} × {h}) + {h}"
    return total, text


def _gpt_oss(model: Model) -> tuple[int, str]:
    """gpt-oss (the module's docstring)."""
    c = model.config
    v, h, n, inter = c.vocab_size, c.hidden_size, c.num_hidden_layers, c.intermediate_size
    heads = 1 if c.tie_word_embeddings else 2
    q, routed = c.num_attention_heads, model.experts.routed
    attention, attention_text = _attention(model, bias=True, qk_norm=False)
    layer = (
        attention + h + q + routed * h + routed + routed * 3 * h * inter + routed * (2 * inter + h) + 2 * h
    )
    text = (
        f"{heads} × {v} × {h} + {n} × ({attention_text} + {h} + {q} + {routed} × {h} + {routed}"
        f" + {routed} × 3 × {h} × {inter} + {routed} × (2 × {inter} + {h}) + 2 × {h}) + {h}"
    )
    return heads * v * h + n * layer + h, text


def _hybrid_gdn_moe(model: Model) -> tuple[int, str]:
    c = model.config
    v, h, n = c.vocab_size, c.hidden_size, c.num_hidden_layers
    heads = 1 if c.tie_word_embeddings else 2
    full = n // c.full_attention_interval
    linear = n - full
    nk, dk, nv, dv = (
        c.linear_num_key_heads,
        c.linear_key_head_dim,
        c.linear_num_value_heads,
        c.linear_value_head_dim,
    )
    conv = c.linear_conv_kernel_dim
    key, value = nk * dk, nv * dv
    delta = h * (2 * key + 2 * value) + h * 2 * nv + (2 * key + value) * conv + 2 * nv + dv + value * h
    delta_text = (
        f"{h} × (2 × {nk} × {dk} + 2 × {nv} × {dv}) + {h} × 2 × {nv}"
        f" + (2 × {nk} × {dk} + {nv} × {dv}) × {conv} + 2 × {nv} + {dv} + {nv} × {dv} × {h}"
    )
    gate = c.attn_output_gate is not False  # the engine's default when the file has no key
    attention, attention_text = _attention(model, bias=False, qk_norm=True, output_gate=gate)
    routed, moe, shared = model.experts.routed, c.moe_intermediate_size, c.shared_expert_intermediate_size
    experts = routed * 3 * h * moe + routed * h + 3 * h * shared + h + 2 * h
    experts_text = f"{routed} × 3 × {h} × {moe} + {routed} × {h} + 3 × {h} × {shared} + {h} + 2 × {h}"
    total = heads * v * h + h + linear * delta + full * attention + n * experts
    text = (
        f"{heads} × {v} × {h} + {h} + {linear} × ({delta_text}) + {full} × ({attention_text})"
        f" + {n} × ({experts_text})"
    )
    return total, text


def _siglip(model: Model) -> tuple[int, str]:
    vc, h = model.config.vision_config, model.config.hidden_size
    big_v, big_i, layers = vc.hidden_size, vc.intermediate_size, vc.num_hidden_layers
    p, positions, ch = vc.patch_size, (vc.image_size // vc.patch_size) ** 2, vc.num_channels
    layer = 4 * (big_v * big_v + big_v) + 2 * big_v * big_i + big_i + big_v + 4 * big_v
    total = ch * p * p * big_v + big_v + positions * big_v + layers * layer + 2 * big_v + big_v * h + big_v
    text = (
        f"{ch} × {p} × {p} × {big_v} + {big_v} + {positions} × {big_v}"
        f" + {layers} × (4 × ({big_v} × {big_v} + {big_v}) + 2 × {big_v} × {big_i} + {big_i} + {big_v}"
        f" + 4 × {big_v}) + 2 × {big_v} + {big_v} × {h} + {big_v}"
    )
    return total, text


def _qwen_vl_vision(model: Model) -> tuple[int, str]:
    vc = model.config.vision_config
    big_v, big_i, depth, out = vc.hidden_size, vc.intermediate_size, vc.depth, vc.out_hidden_size
    p, t, ch, m = vc.patch_size, vc.temporal_patch_size, vc.in_chans, vc.spatial_merge_size
    big_i = (big_i + 7) // 8 * 8  # the engine's MLP width (qwen2_5_vl.py:382)
    block = (
        2 * big_v
        + big_v * 3 * big_v
        + 3 * big_v
        + big_v * big_v
        + big_v
        + 3 * big_v * big_i
        + 2 * big_i
        + big_v
    )
    merged = big_v * m * m
    total = ch * t * p * p * big_v + depth * block + big_v + merged * merged + merged + merged * out + out
    text = (
        f"{ch} × {t} × {p} × {p} × {big_v} + {depth} × (2 × {big_v} + {big_v} × 3 × {big_v} + 3 × {big_v}"
        f" + {big_v} × {big_v} + {big_v} + 3 × {big_v} × {big_i} + 2 × {big_i} + {big_v}) + {big_v}"
        f" + {merged} × {merged} + {merged} + {merged} × {out} + {out}"
    )
    return total, text


def _mla_moe(model: Model) -> tuple[int, str]:
    c = model.config
    v, h, n = c.vocab_size, c.hidden_size, c.num_hidden_layers
    heads = 1 if c.tie_word_embeddings else 2
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
    return total, text


def _dsa_indexer(model: Model) -> tuple[int, str]:
    """The DSA indexers of the layers that have one (the module's docstring)."""
    c = model.config
    layers, h, q_lora = sizing.dsa_indexer_layers(model), c.hidden_size, c.q_lora_rank
    heads, dim = c.index_n_heads, c.index_head_dim
    one = q_lora * heads * dim + h * dim + h * heads + 2 * dim
    return layers * one, f"{layers} × ({q_lora} × {heads} × {dim} + {h} × {dim} + {h} × {heads} + 2 × {dim})"
