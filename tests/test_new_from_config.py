"""``python -m handbook new model <id> --from-config config.json [--index …]``: a complete, valid entry from
the files a contributor downloads, and exact refusals for broken ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from handbook.calc import memory, sizing
from handbook.cli import main
from handbook.core.paths import KB_ROOT
from handbook.kb.loader import load_kb

MINI = Path(__file__).parent / "fixtures" / "kb-mini"
REPO = "Qwen/Qwen2.5-7B-Instruct"
COMMIT = "a09a35458c702b33eeacc393d103063234e8bc28"
# A dense GQA config.json as Qwen2.5-7B-Instruct publishes it (the keys the engine reads)
DENSE = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "max_position_embeddings": 32768,
    "rope_scaling": None,
    "torch_dtype": "bfloat16",
    "vocab_size": 152064,
    "tie_word_embeddings": False,
    "sliding_window": 131072,
    "use_sliding_window": False,
}


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    return root


@pytest.fixture
def full_kb(tmp_path: Path) -> Path:
    """The repository's KB (every attention family and dtype), copied."""
    root = tmp_path / "kb"
    shutil.copytree(KB_ROOT, root)
    return root


def write(tmp_path: Path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def new(kb: Path, *args: str) -> int:
    return main(["new", "model", *args, "--kb", str(kb)])


def test_a_config_makes_a_complete_valid_entry_and_its_source(kb, tmp_path, capsys):
    config = write(tmp_path, "config.json", DENSE)
    assert new(kb, "qwen2.5-7b", "--from-config", config, "--repo", REPO, "--revision", COMMIT) == 0
    assert capsys.readouterr().out.splitlines() == [
        "✔ wrote kb/sources/qwen2.5-7b-config.yaml",
        "✔ wrote kb/models/qwen2.5-7b.yaml",
        "Derived as the engine does (1):",
        "  head_dim = hidden_size // num_attention_heads = 128",
        "Not in the files, and they change the plan (1):",
        "  the checkpoint's bytes (--index model.safetensors.index.json)",
        "Then check it: python -m handbook validate",
    ]
    assert main(["validate", "--kb", str(kb)]) == 0
    loaded = load_kb(kb)
    model = loaded.models["qwen2.5-7b"]
    source = loaded.sources["qwen2.5-7b-config"]
    assert source.url == f"https://huggingface.co/{REPO}/blob/{COMMIT}/config.json"
    assert model.config.source == "qwen2.5-7b-config"
    assert (model.config.dtype, model.config.max_position_embeddings, model.config.head_dim) == (
        "bfloat16",
        32768,
        128,
    )
    assert model.precisions[0].dtype == "bf16" and model.precisions[0].checkpoint == REPO
    # the plan: 4 KV heads × (128 + 128) × 28 layers × 2 bytes; the engine's derived context
    assert memory.kv_cell(model, loaded.dtypes["bf16"]).bytes_per_token == 57_344
    assert memory.resolve_context(model, None) == 32768
    # Qwen2 is no hybrid-SWA architecture: its sliding_window does not make a second pool
    assert sizing.is_hybrid_swa(model) is False and not memory.has_sliding_window(model)


def test_the_index_sizes_a_mixed_precision_checkpoint(full_kb, tmp_path, capsys):
    kb = full_kb
    # gpt-oss-120b's shape: MXFP4 experts, the rest left in BF16 by modules_to_not_convert
    config = {
        "architectures": ["GptOssForCausalLM"],
        "model_type": "gpt_oss",
        "num_hidden_layers": 36,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "hidden_size": 2880,
        "num_local_experts": 128,
        "num_experts_per_tok": 4,
        "sliding_window": 128,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096},
        "layer_types": ["sliding_attention", "full_attention"] * 18,
        "torch_dtype": "bfloat16",
        "quantization_config": {
            "quant_method": "mxfp4",
            "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "lm_head"],
        },
    }
    index = {"metadata": {"total_size": 65_248_815_744}, "weight_map": {}}
    args = [
        "--from-config",
        write(tmp_path, "config.json", config),
        "--index",
        write(tmp_path, "i.json", index),
    ]
    assert new(kb, "oss", *args, "--repo", "openai/gpt-oss-120b", "--date", "2026-12-01") == 0
    assert main(["validate", "--kb", str(kb)]) == 0
    loaded = load_kb(kb)
    model = loaded.models["oss"]
    assert model.config.quantization_config.unquantized_modules == [
        "model.layers.*.self_attn",
        "model.layers.*.mlp.router",
        "lm_head",
    ]
    assert model.config.layer_types_count == {"sliding_attention": 18, "full_attention": 18}
    assert (model.experts.routed, model.experts.per_token) == (128, 4)
    weights = memory.weights(model, loaded.dtypes["mxfp4"])
    assert (weights.basis, weights.total_bytes) == ("checkpoint", 65_248_815_744)
    # YaRN with the original length named: the engine does not multiply (get_context_length)
    assert memory.resolve_context(model, None) == 131072
    assert "No commit given" in (kb / "sources" / "oss-config.yaml").read_text()


def test_a_hybrid_linear_multimodal_config_is_read_from_its_text_config(full_kb, tmp_path, capsys):
    kb = full_kb
    text = {
        "num_hidden_layers": 4,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "hidden_size": 2048,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"],
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
        "max_position_embeddings": 262144,
        "dtype": "bfloat16",
    }
    config = {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "model_type": "qwen3_5",
        "text_config": text,
        "vision_config": {"depth": 27, "hidden_size": 1152},
    }
    assert new(kb, "hybrid", "--from-config", write(tmp_path, "c.json", config), "--repo", "x/y") == 0
    out = capsys.readouterr().out
    assert "  mamba_ssm_dtype absent from the file: the engine's float32" in out
    assert main(["validate", "--kb", str(kb)]) == 0
    model = load_kb(kb).models["hybrid"]
    assert model.attention.families == ["gqa", "gdn"]
    assert model.config.absent == ["mamba_ssm_dtype"] and sizing.state_dtype(model) == "float32"
    # depth is not the key the engine reads: its default 24 layers, with the file's hidden size
    assert sizing.vision_shape(model) == (1152, 24)
    assert sizing.is_multimodal(model) is True


BROKEN = [
    ("config.json", "{\n  \"architectures\": [\"X\"],,\n}", [],
     "✖ --from-config: {dir}/config.json:2: got text that is not JSON (Expecting property name enclosed in double quotes), "
     "expected the "
     "checkpoint's config.json; nothing was written."),
    ("config.json", "[1, 2]", [],
     "✖ --from-config: {dir}/config.json: got a JSON list, expected the checkpoint's config.json (an object); "
     "nothing was written."),
    ("config.json", {"model_type": "llama"}, [],
     "✖ config.json: architectures: got null, expected the model classes the engine loads the checkpoint by, "
     "e.g. [\"LlamaForCausalLM\"]; nothing was written."),
    ("config.json", {**DENSE, "quantization_config": {"quant_method": "gptq"}}, [],
     "✖ config.json: quantization_config.quant_method: got 'gptq', expected one the KB has a weights dtype "
     "for: fp8, modelopt_fp4, mxfp4, mxfp8, nvfp4, w4afp8; nothing was written."),
    ("config.json", DENSE, ["--index", "{dir}/index.json"],
     "✖ --index: metadata.total_size: got null, expected the checkpoint's size in bytes (a safetensors index "
     "names it there); nothing was written."),
    ("config.json", {**DENSE, "num_hidden_layers": "28"}, [],
     "✖ kb/models/m.yaml:33: config.num_hidden_layers: got '28', expected a valid integer; nothing was "
     "written."),
    ("config.json", {**DENSE, "num_hidden_layers": 5000}, [],
     "✖ kb/models/m.yaml:33: config.num_hidden_layers: got 5000, expected a number of layers between 1 and "
     "1,024; nothing was written."),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "extra", "expected"), BROKEN)
def test_broken_files_are_refused_with_the_exact_reason(kb, tmp_path, capsys, name, content, extra, expected):
    path = write(tmp_path, name, content)
    write(tmp_path, "index.json", {"weight_map": {}})
    extra = [e.replace("{dir}", str(tmp_path)) for e in extra]
    assert new(kb, "m", "--from-config", path, *extra, "--repo", "x/y") == 2
    assert capsys.readouterr().err.splitlines() == [expected.replace("{dir}", str(tmp_path))]
    assert not (kb / "models" / "m.yaml").exists() and not (kb / "sources" / "m-config.yaml").exists()


def test_every_problem_with_the_request_is_told_at_once(kb, tmp_path, capsys):
    assert new(kb, "dense-a", "--from-config", str(tmp_path / "missing.json")) == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ kb/models/dense-a.yaml: got model id 'dense-a', which exists already; expected a new id (or edit "
        "that file)",
        "✖ --repo: got nothing, expected the repository the config.json comes from (e.g. org/Model), or "
        "--source with the id of a source in kb/sources/ that states it",
        f"✖ --from-config: {tmp_path}/missing.json: got no such file, expected the checkpoint's config.json",
        "Nothing was written.",
    ]


def test_an_existing_source_can_be_named_instead(kb, tmp_path, capsys):
    config = write(tmp_path, "config.json", DENSE)
    assert new(kb, "q", "--from-config", config, "--source", "handbook") == 0
    assert capsys.readouterr().out.splitlines()[0] == "✔ wrote kb/models/q.yaml"
    assert main(["validate", "--kb", str(kb)]) == 0
    assert new(kb, "q2", "--from-config", config, "--source", "handbok") == 2
    assert capsys.readouterr().err.startswith("✖ --source: got 'handbok', expected one of the source ids")


def test_without_a_config_the_kv_formula_is_still_asked_for(kb, capsys):
    assert new(kb, "plain") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ --kv-formula: got nothing, expected gqa or mla (or --from-config config.json); nothing was written."
    ]


def test_ids_the_files_lead_to_must_be_in_the_kb(kb, tmp_path, capsys):
    config = {**DENSE, "layer_types": ["sliding_attention", "full_attention"] * 14}
    assert new(kb, "m", "--from-config", write(tmp_path, "c.json", config), "--repo", "x/y") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ attention.families: got 'gqa-swa', expected one of the attention family ids in kb/attention.yaml "
        "(did you mean 'gqa'?); nothing was written."
    ]


GEMMA3 = Path(__file__).parent / "fixtures" / "extra-configs" / "gemma-3-27b-it.config.json"


def test_keys_the_files_config_class_supplies_are_filled_and_said_so():
    """Gemma-3's config.json leaves its vocabulary, tied head and SigLIP's channels to transformers' config
    classes, which the engine loads it through: the import fills them, names where each comes from, and a
    section whose model_type names no such class gets nothing filled."""
    from handbook.kb.from_config import model_from_config

    config = json.loads(GEMMA3.read_text(encoding="utf-8"))
    imported = model_from_config("g", config, "s")
    assert imported.derived == [
        "vocab_size = 262208 (not in the file: transformers' gemma3_text default, "
        "models/gemma3/configuration_gemma3.py:77)",
        "tie_word_embeddings = True (not in the file: transformers' gemma3_text default, "
        "models/gemma3/configuration_gemma3.py:92)",
        "num_channels = 3 (not in the file: transformers' siglip_vision_model default, "
        "models/siglip/configuration_siglip.py:94)",
    ]
    config["text_config"]["vocab_size"] = 1000  # the file's own value wins
    assert model_from_config("g", config, "s").data["config"]["vocab_size"] == 1000
    del config["text_config"]["model_type"], config["text_config"]["vocab_size"]
    bare = model_from_config("g", config, "s").data["config"]
    assert (bare.get("vocab_size"), bare.get("tie_word_embeddings")) == (None, None)


def _dsa_config(**extra) -> dict:
    """GLM-5's config.json keys as the KB holds them (kb/models/glm-5.yaml, from zai-org/GLM-5's file)."""
    c = load_kb().models["glm-5"].config
    keys = (
        "architectures", "model_type", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
        "hidden_size", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
        "index_topk", "index_head_dim", "index_n_heads", "vocab_size", "intermediate_size",
        "moe_intermediate_size", "first_k_dense_replace", "tie_word_embeddings", "max_position_embeddings",
    )  # fmt: skip
    return {**{k: getattr(c, k) for k in keys}, "n_routed_experts": 256, "n_shared_experts": 1, **extra}


def test_a_dsa_file_without_a_schedule_gets_the_engines_default_and_one_with_another_is_left_unknown(
    full_kb, tmp_path, capsys
):
    """No index_topk_freq / index_skip_topk_offset in the file: the engine puts an indexer on every layer
    (configs/model_config.py:510-522), recorded as absent; a file with a schedule the planner does not model
    (index_topk_pattern) leaves the schedule unknown."""
    kb = full_kb
    assert new(kb, "dsa", "--from-config", write(tmp_path, "a.json", _dsa_config()), "--repo", "x/y") == 0
    out = capsys.readouterr().out
    assert "  index_topk_freq absent from the file: the engine's default" in out
    patterned = _dsa_config(index_topk_pattern="SSFF")
    assert new(kb, "dsa-pattern", "--from-config", write(tmp_path, "b.json", patterned), "--repo", "x/z") == 0
    assert main(["validate", "--kb", str(kb)]) == 0
    models = load_kb(kb).models
    assert models["dsa"].config.absent == ["index_topk_freq", "index_skip_topk_offset"]
    assert sizing.dsa_indexer_layers(models["dsa"]) == 78
    assert models["dsa-pattern"].config.absent == []
    assert sizing.dsa_indexer_layers(models["dsa-pattern"]) is None
