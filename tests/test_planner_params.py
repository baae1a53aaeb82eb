"""Parameter counts from the architecture fields, where no total is published, against published totals, and
the engine defaults the planner reads from the snapshot rather than typing them."""

from __future__ import annotations

import fnmatch
import json

import pytest

from handbook.calc import memory, params, sizing
from handbook.core.paths import REPO_ROOT
from handbook.engine.snapshot import load_snapshot, parse_snapshot, snapshot_path
from handbook.kb.loader import load_kb
from handbook.oracles import params as params_oracle
from handbook.oracles import sizing as sizing_oracle

KB = load_kb()


def test_deepseek_v3s_formula_reproduces_its_published_671b():
    """DeepSeek's README_WEIGHTS.md (copied in tenstorrent/tt-metal models/demos/deepseek_v3/reference):
    "Total parameters: 671B" for the main model (embeddings, 61 layers, the head; the MTP module apart)."""
    count = params.param_count(KB.models["deepseek-v3"])
    assert count.family == "mla-moe"
    assert count.total == 671_026_419_200
    assert count.total == pytest.approx(671e9, rel=1e-3)


def test_llamas_formula_is_the_sum_of_its_tensors():
    """Llama-3.1-8B by hand, tensor by tensor (models/llama.py): embeddings and an untied head of
    128,256 × 4,096; per layer q and o (4,096 × 32 × 128 each), k and v (4,096 × 8 × 128 each), gate, up
    and down (3 × 4,096 × 14,336) and two norms; the final norm. The name's "8B" is what it rounds to."""
    embeddings = 128_256 * 4_096
    layer = 2 * 4_096 * 32 * 128 + 2 * 4_096 * 8 * 128 + 3 * 4_096 * 14_336 + 2 * 4_096
    expected = 2 * embeddings + 32 * layer + 4_096
    count = params.param_count(KB.models["llama-3.1-8b"])
    assert (count.family, count.total) == ("dense-gqa", expected) == ("dense-gqa", 8_030_261_248)
    assert count.total == pytest.approx(8e9, rel=0.01)
    seventy = params.param_count(KB.models["llama-3.3-70b"])
    assert seventy.total == pytest.approx(70e9, rel=0.01)


def test_models_with_a_published_total_or_no_formula_are_left_alone():
    # sliding-window layers on a class no formula is written for
    assert params.missing_fields(with_architectures("gpt-oss-120b", None)) == ["params.total_b"]
    assert params.missing_fields(KB.models["qwen3.5-397b-a17b"]) == ["params.total_b"]
    # a DSA indexer on a class no formula is written for
    assert params.missing_fields(with_architectures("glm-5", None)) == ["params.total_b"]


def with_architectures(model_id: str, architectures):
    model = KB.models[model_id]
    return model.model_copy(
        update={"config": model.config.model_copy(update={"architectures": architectures})}
    )


def test_a_dsa_model_counts_an_indexer_on_each_layer_that_computes_its_top_k():
    """GLM-5's file has no index_topk_freq (the engine's default 1: every one of 78 layers); GLM-5.3's has 4
    with offset 3 (21 layers). One indexer, written out from dsa_indexer.py:344-385: wq_b 2,048 × 32 × 128,
    wk 6,144 × 128, weights_proj 6,144 × 32, k_norm weight and bias 2 × 128."""
    one = 2048 * 32 * 128 + 6144 * 128 + 6144 * 32 + 2 * 128
    glm5, glm53 = params.param_count(KB.models["glm-5"]), params.param_count(KB.models["glm-5.3"])
    assert glm5.total - glm53.total == (78 - 21) * one  # the same MLA + MoE otherwise
    assert glm5.formula.endswith("I = 78 × (2048 × 32 × 128 + 6144 × 128 + 6144 × 32 + 2 × 128)")
    without_freq = KB.models["glm-5"].config.model_copy(update={"absent": []})
    unknown = KB.models["glm-5"].model_copy(update={"config": without_freq})
    assert params.missing_fields(unknown) == ["config.index_topk_freq", "config.index_skip_topk_offset"]
    assert params.param_count(unknown) is None


# ------------------------------------------------------------------------------------------ engine defaults
# Each default the planner uses, tied to the snapshot's entry for it (kb/engine/sglang-0.5.23.json).
SNAPSHOT_VALUES = {
    "swa_full_tokens_ratio": 0.8,
    "mamba_full_memory_ratio": 0.9,
    "vlm_cache_mib": 100,
    "mamba_conv_dtype": "bfloat16",
    "use_aiter": False,
    "aiter_honors_explicit_fraction": False,
    "dsv4_kv_layout": "v4",
    "dsv4_compress_state_dtype": "float32",
}


def test_every_engine_default_comes_from_its_snapshot_entry():
    snapshot = load_snapshot()
    defaults = sizing.engine_defaults()
    assert set(sizing.DEFAULT_SOURCES) == set(SNAPSHOT_VALUES)
    for name, (kind, key) in sizing.DEFAULT_SOURCES.items():
        if kind == "option":
            entry = snapshot.option("launch_server", key).engine_field.fallback
        else:
            entry = snapshot.env_var(key).default
        assert getattr(defaults, name) == entry == SNAPSHOT_VALUES[name], name


def test_a_snapshot_with_other_defaults_gives_other_defaults():
    data = json.loads(snapshot_path().read_text(encoding="utf-8"))
    for option in data["parsers"]["launch_server"]["options"]:
        if option["dest"] == "swa_full_tokens_ratio":
            option["engine_field"]["fallback"] = 0.5
    assert sizing.defaults_from(parse_snapshot(data)).swa_full_tokens_ratio == 0.5


# ------------------------------------------------------------------------- against the reference counts
# tests/golden/params.json: transformers' own model classes built on the meta device from each config.json
# (handbook/oracles/params.py, nox -s engine-sizing), for the KB models a formula covers and the public
# configs of tests/fixtures/extra-configs imported as `new model --from-config` imports them.
EXTRA_KB = sizing_oracle.with_extras(KB, REPO_ROOT / sizing_oracle.EXTRA_CONFIGS)
REFERENCE = json.loads((REPO_ROOT / "tests" / "golden" / "params.json").read_text(encoding="utf-8"))[
    "records"
]
# the formula each model must be counted by
FAMILIES = {
    "deepseek-v3": "mla-moe",
    "glm-5": "mla-moe-dsa",
    "glm-5.3": "mla-moe-dsa",
    "gpt-oss-120b": "gpt-oss",
    "gemma-3-27b-it": "gemma3-siglip",
    "llama-3.1-8b": "dense-gqa",
    "llama-3.3-70b": "dense-gqa",
    "mixtral-8x7b": "mixtral-moe",
    "qwen2.5-7b": "dense-gqa",
    "qwen2.5-vl-7b": "qwen2.5-vl",
    "qwen3-30b-a3b": "gqa-moe",
    "qwen3-next-80b-a3b": "hybrid-gdn-moe",
}


def test_the_reference_counts_cover_every_counted_model_and_still_describe_its_config():
    extras = [m for m in EXTRA_KB.models if m not in KB.models]
    assert [r["model"] for r in REFERENCE] == params_oracle.counted_models(EXTRA_KB, extras)
    assert sorted(FAMILIES) == sorted(r["model"] for r in REFERENCE)
    stale = [
        r["model"]
        for r in REFERENCE
        if r["digest"] != params_oracle.digest_of(params_oracle.config_for(EXTRA_KB, r["model"]))
    ]
    assert stale == [], f"tests/golden/params.json is stale for {stale}: regenerate with nox -s engine-sizing"


@pytest.mark.parametrize("record", REFERENCE, ids=lambda r: r["model"])
def test_each_formula_gives_the_engines_resident_count_exactly(record):
    """The engine's own class where it builds from the config, else transformers' (the checkpoint's)."""
    count = params.param_count(EXTRA_KB.models[record["model"]])
    expected = record["engine"].get("total", record["total"])
    assert (count.family, count.total) == (FAMILIES[record["model"]], expected)


def test_the_engine_holds_the_checkpoints_count_but_where_it_pads():
    """Qwen2.5-VL's vision MLP is 3,420 wide in the checkpoint and 3,424 in the engine (qwen2_5_vl.py:382
    rounds it up to a multiple of 8): per block, gate and up gain 2 × 4 × 1,280 weights and 2 × 4 biases,
    down 4 × 1,280 weights; 32 blocks. The engine's class cannot be built from DeepSeek-V3's KB config,
    which lacks moe_layer_freq (deepseek_v2.py reads it), nor GLM-5's on a machine without deep_gemm (its
    DSA indexer imports it); every other is."""
    extra = {r["model"]: r["engine"]["total"] - r["total"] for r in REFERENCE if "total" in r["engine"]}
    assert extra.pop("qwen2.5-vl-7b") == 32 * (2 * 4 * 1280 + 2 * 4 + 4 * 1280) == 491_776
    assert set(extra.values()) == {0}
    failed = {r["model"]: r["engine"]["error"] for r in REFERENCE if "error" in r["engine"]}
    assert failed == {
        "deepseek-v3": "AttributeError: 'DeepseekV3Config' object has no attribute 'moe_layer_freq'",
        "glm-5": "ModuleNotFoundError: No module named 'deep_gemm'",
        "glm-5.3": "ModuleNotFoundError: No module named 'deep_gemm'",
    }


def test_the_vision_towers_alone_match_the_reference_components():
    """The language model and the tower are right separately, not by errors that cancel."""
    by_component = {r["model"]: r["by_component"] for r in REFERENCE}
    gemma, qwen_vl = EXTRA_KB.models["gemma-3-27b-it"], EXTRA_KB.models["qwen2.5-vl-7b"]
    gemma_parts = by_component["gemma-3-27b-it"]
    assert params._siglip(gemma)[0] == gemma_parts["vision_tower"] + gemma_parts["multi_modal_projector"]
    qwen_vl_record = next(r for r in REFERENCE if r["model"] == "qwen2.5-vl-7b")
    padding = qwen_vl_record["engine"]["total"] - qwen_vl_record["total"]  # the tower's padded MLP
    assert params._qwen_vl_vision(qwen_vl)[0] == by_component["qwen2.5-vl-7b"]["visual"] + padding
    # Qwen2.5-VL's language model is Qwen2.5-7B's: the same layers, embeddings and head
    assert {k: v for k, v in by_component["qwen2.5-vl-7b"].items() if k != "visual"} == by_component[
        "qwen2.5-7b"
    ]


def test_qwen2s_count_holds_its_q_k_v_biases():
    """models/qwen2.py: qkv_proj has bias=True; 28 layers × (28 + 2 × 4) × 128 bias elements on top of what
    the same shapes hold without them."""
    qwen = EXTRA_KB.models["qwen2.5-7b"]
    as_llama = qwen.model_copy(
        update={"config": qwen.config.model_copy(update={"architectures": ["LlamaForCausalLM"]})}
    )
    assert params.param_count(qwen).total - params.param_count(as_llama).total == 28 * (28 + 2 * 4) * 128


def _changed(model_id: str, *, experts: dict | None = None, vision: dict | None = None, **config):
    model = EXTRA_KB.models[model_id]
    if vision is not None:
        config["vision_config"] = model.config.vision_config.model_copy(update=vision)
    update = {"config": model.config.model_copy(update=config)}
    if experts is not None:
        update["experts"] = model.experts.model_copy(update=experts)
    return model.model_copy(update=update)


BROKEN = [
    ("mixtral-8x7b", {"experts": {"routed": None}}, ["experts.routed"]),
    ("mixtral-8x7b", {"intermediate_size": None}, ["intermediate_size"]),
    ("qwen3-next-80b-a3b", {"shared_expert_intermediate_size": None}, ["shared_expert_intermediate_size"]),
    ("qwen3-next-80b-a3b", {"linear_conv_kernel_dim": None}, ["linear_conv_kernel_dim"]),
    ("gemma-3-27b-it", {"vision": {"num_channels": None}}, ["vision_config.num_channels"]),
    # a text_config without the model_type whose class supplies them (handbook.kb.from_config.CLASS_DEFAULTS)
    (
        "gemma-3-27b-it",
        {"vocab_size": None, "tie_word_embeddings": None},
        ["vocab_size", "tie_word_embeddings"],
    ),
    (
        "gemma-3-27b-it",
        {"vision_config": None},
        [
            "vision_config.hidden_size",
            "vision_config.intermediate_size",
            "vision_config.num_hidden_layers",
            "vision_config.patch_size",
            "vision_config.image_size",
            "vision_config.num_channels",
        ],
    ),
    ("qwen2.5-vl-7b", {"vision": {"depth": None}}, ["vision_config.depth"]),
    (
        "qwen2.5-vl-7b",
        {"vision": {"out_hidden_size": None}, "vocab_size": None},
        ["vocab_size", "vision_config.out_hidden_size"],
    ),
]


@pytest.mark.parametrize(
    ("model_id", "change", "missing"), BROKEN, ids=[f"{m}:{'+'.join(missing)}" for m, _, missing in BROKEN]
)
def test_a_formula_missing_a_field_names_it_and_counts_nothing(model_id, change, missing):
    model = _changed(model_id, **change)
    assert params.missing_fields(model) == missing
    assert params.param_count(model) is None
    with pytest.raises(memory.NotPublished):
        memory.weights(model, KB.dtypes["bf16"])


# --------------------------------------------------------------------------- a mixed-precision checkpoint
GPT_OSS = next(r for r in REFERENCE if r["model"] == "gpt-oss-120b")


def test_gpt_oss_splits_into_what_its_quantization_config_quantizes_and_the_rest():
    """The quantized part is the experts' gate_up and down matrices of transformers' class; the rest is the
    modules the config lists as unquantized (matched by its patterns) plus the norms and the expert biases,
    which it does not name: 36 layers × (2 norms of 2,880 + 128 experts × (5,760 + 2,880) biases) and the
    final norm."""
    count = params.param_count(KB.models["gpt-oss-120b"])
    modules = GPT_OSS["by_module"]
    experts = "model.layers.*.mlp.experts."
    assert count.quantized == modules[experts + "gate_up_proj"] + modules[experts + "down_proj"]
    assert count.quantized == 36 * 128 * 3 * 2880 * 2880 == 114_661_785_600
    patterns = KB.models["gpt-oss-120b"].config.quantization_config.unquantized_modules
    assert GPT_OSS["quantization_config"]["modules_to_not_convert"] == patterns
    listed = sum(n for name, n in modules.items() if any(fnmatch.fnmatch(name, f"{p}.*") for p in patterns))
    unnamed = 36 * (2 * 2880 + 128 * (5760 + 2880)) + 2880
    assert count.unquantized == listed + unnamed == GPT_OSS["total"] - count.quantized == 2_167_371_072


def test_gpt_oss_split_is_what_the_engine_allocates_for_mxfp4():
    """SGLang's class built with the checkpoint's quantization config: the quantized elements packed two
    to a uint8 byte with one uint8 E8M0 scale per 32 (mxfp4.py:444-633), everything else bfloat16."""
    count = params.param_count(KB.models["gpt-oss-120b"])
    held = GPT_OSS["engine_quantized"]["by_dtype"]
    assert held == {"bfloat16": count.unquantized, "uint8": count.quantized // 2 + count.quantized // 32}


def test_gpt_oss_resident_weights_are_its_mxfp4_experts_and_bf16_rest():
    """114,661,785,600 × (1/2 + 1/32) = 60,914,073,600 bytes of experts and 2,167,371,072 × 2 =
    4,334,742,144 of BF16: 65,248,815,744 bytes, 5 % above the published 117 B × 4.25 bits
    (62,156,250,000) the planner used before."""
    w = memory.weights(KB.models["gpt-oss-120b"], KB.dtypes["mxfp4"])
    assert (w.basis, w.total_bytes, w.params) == ("mixed", 60_914_073_600 + 4_334_742_144, 116_829_156_672)
    assert w.formula == "114,661,785,600 × 4.25/8 + 2,167,371,072 × 2"
    published = KB.models["gpt-oss-120b"].params.total_b * 1e9 * KB.dtypes["mxfp4"].bits / 8
    assert published == 62_156_250_000
    plan = memory.plan(
        KB.models["gpt-oss-120b"], KB.hardware["h100"], KB.dtypes["mxfp4"], KB.dtypes["bf16"], 1
    )
    assert "weights-mixed" in plan.notes and plan.weights_per_gpu == 65_248_815_744


def test_a_split_needs_the_precision_of_the_configs_method_and_listed_modules():
    """The same architecture without unquantized modules, or in another precision, has no split: it is
    sized by the published total at the dtype's bits."""
    model = KB.models["gpt-oss-120b"]
    quantization = model.config.quantization_config.model_copy(update={"unquantized_modules": []})
    plain = model.model_copy(
        update={"config": model.config.model_copy(update={"quantization_config": quantization})}
    )
    assert params.param_count(plain).quantized is None
    assert memory.weights(plain, KB.dtypes["mxfp4"]).basis == "published"
    assert memory.mixed_weights(model, KB.dtypes["bf16"]) is None


GPT_OSS_BROKEN = [
    ({"experts": {"routed": None}}, ["experts.routed"]),
    ({"intermediate_size": None}, ["intermediate_size"]),
    ({"hidden_size": None, "vocab_size": None}, ["vocab_size", "hidden_size"]),
]


@pytest.mark.parametrize(("change", "missing"), GPT_OSS_BROKEN, ids=["+".join(m) for _, m in GPT_OSS_BROKEN])
def test_gpt_oss_missing_a_field_names_it_and_falls_back_to_the_published_total(change, missing):
    model = _changed("gpt-oss-120b", **change)
    assert params.missing_fields(model) == missing
    assert params.param_count(model) is None
    assert memory.mixed_weights(model, KB.dtypes["mxfp4"]) is None
    assert memory.weights(model, KB.dtypes["mxfp4"]).total_bytes == 117e9 * 4.25 / 8
