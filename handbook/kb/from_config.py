"""A model entry from the files a contributor downloads: the checkpoint's config.json and, optionally, its
safetensors index (``python -m handbook new model <id> --from-config config.json [--index …]``).

Every config field SGLang 0.5.23 reads to size a deployment is copied under the name config.json gives it
(a multimodal checkpoint's language fields from its ``text_config``, as the engine's hf_text_config reads
them); what the engine derives when a key is missing is derived the same way and said so:
  head_dim       hidden_size // num_attention_heads (configs/model_config.py:1341-1350)
  KV heads       num_attention_heads when the file has no num_key_value_heads (MHA; model_config.py's
                 get_total_num_kv_heads falls back to the attention heads)
  context        not written: the planner derives it from max_position_embeddings and rope_scaling as the
                 engine does (handbook.calc.sizing.derived_context)
  state dtype    the file read whole and without mamba_ssm_dtype: recorded as absent, float32 to the engine
  DSA schedule   a DSA file without index_topk_freq / index_skip_topk_offset (and no other schedule key):
                 recorded as absent, an indexer on every layer to the engine
  class defaults a key the file leaves to its transformers config class (CLASS_DEFAULTS: Gemma-3's vocabulary
                 and tied head, SigLIP's channels), which the engine reads through that class
What the file cannot give (a parameter count, the vendor's wording) is left null with the reason. The entry
is checked against the schema before anything is written (handbook.kb.scaffold.new_model_from_config);
both files are new (nothing is replaced).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from handbook.kb import schema as s
from handbook.kb.yamlfile import dump_yaml

# DSA top-k schedules other than index_topk_freq / index_skip_topk_offset, which the planner does not model
DSA_OTHER_SCHEDULES = frozenset({"indexer_types", "cli_factor", "index_topk_pattern", "index_kpool"})

# config.json keys copied as they stand (the ModelConfig fields named like the file's keys)
COPIED = tuple(
    name
    for name in s.ModelConfig.model_fields
    if name
    not in {
        "source",
        "field_sources",
        "layer_types_count",
        "vision_config",
        "rope_scaling",
        "quantization_config",
        "dtype",
        "absent",
        "architectures",
        "model_type",
        "is_hybrid_swa",
    }
)
# expert counts, by the names configs give them
ROUTED_KEYS = ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
PER_TOKEN_KEYS = ("num_experts_per_tok", "experts_per_token", "moe_topk")
SHARED_KEYS = ("n_shared_experts", "num_shared_experts")
# the keys quantization configs name their unquantized modules by, by method
UNQUANTIZED_KEYS = ("modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules")
# quant_method (and fmt where it decides) → the KB's weights dtype id
QUANT_DTYPES = {
    "fp8": "fp8",
    "mxfp4": "mxfp4",
    "mxfp8": "mxfp8",
    "modelopt_fp4": "nvfp4",
    "nvfp4": "nvfp4",
    "w4afp8": "w4a8",
}
UNQUANTIZED_DTYPES = {"bfloat16": "bf16"}
LINEAR_TYPES = {"linear_attention"}


class ConfigError(ValueError):
    """The files cannot make an entry; ``problems`` say why, one line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True, kw_only=True)
class Imported:
    data: dict[str, Any]  # the model entry, as its YAML file holds it
    derived: list[str]  # what was derived rather than copied, for the contributor to check
    unknown: list[str]  # fields that change the plan and that the files do not give


def read_json(path: Path, option: str, what: str) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError([f"{option}: {path}: got no such file, expected {what}"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"{option}: {path}: got an unreadable file ({exc}), expected {what}"]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            [f"{option}: {path}:{exc.lineno}: got text that is not JSON ({exc.msg}), expected {what}"]
        ) from None
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise ConfigError([f"{option}: {path}: got a JSON {kind}, expected {what} (an object)"])
    return data


# Keys a checkpoint's config.json may leave out because its transformers config class supplies them, which
# the engine then reads (it loads the config through that class): by the file's model_type, the default
# and where transformers 5.19.0 (the engine's pin) sets it. Only keys a figure reads are listed.
CLASS_DEFAULTS: dict[str, dict[str, tuple[Any, str]]] = {
    "gemma3_text": {
        "vocab_size": (262_208, "models/gemma3/configuration_gemma3.py:77"),
        "tie_word_embeddings": (True, "models/gemma3/configuration_gemma3.py:92"),
    },
    "siglip_vision_model": {"num_channels": (3, "models/siglip/configuration_siglip.py:94")},
}


def _class_defaults(section: dict[str, Any], into: dict[str, Any]) -> list[str]:
    """Fill the keys ``section`` lacks and its config class supplies; what was filled, for ``derived``."""
    filled = []
    for key, (value, where) in CLASS_DEFAULTS.get(section.get("model_type") or "", {}).items():
        if section.get(key) is None:
            into[key] = value
            filled.append(
                f"{key} = {value} (not in the file: transformers' {section['model_type']} default, {where})"
            )
    return filled


def _first(config: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((config[k] for k in keys if config.get(k) is not None), None)


def _layer_counts(types: Any) -> dict[str, int]:
    if not isinstance(types, list):
        return {}
    counts: dict[str, int] = {}
    for kind in types:
        if kind in ("full_attention", "sliding_attention", "linear_attention"):
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _rope(text: dict[str, Any]) -> dict[str, Any] | None:
    rope = text.get("rope_scaling") or text.get("rope_parameters")
    if not isinstance(rope, dict):
        return None
    kept = {
        "rope_type": rope.get("rope_type") or rope.get("type"),
        "factor": rope.get("factor"),
        "original_max_position_embeddings": rope.get("original_max_position_embeddings"),
        "low_freq_factor": rope.get("low_freq_factor"),
        "high_freq_factor": rope.get("high_freq_factor"),
    }
    kept = {k: v for k, v in kept.items() if v is not None}
    return kept or None


def _quantization(config: dict[str, Any], text: dict[str, Any]) -> dict[str, Any] | None:
    quant = config.get("quantization_config") or text.get("quantization_config")
    if not isinstance(quant, dict) or not quant.get("quant_method"):
        return None
    modules = _first(quant, UNQUANTIZED_KEYS) or []
    return {"quant_method": quant["quant_method"], "unquantized_modules": list(modules)}


def _families(config: dict[str, Any], mla: bool, counts: dict[str, int]) -> tuple[list[str], dict[str, str]]:
    if mla:
        families = ["mla", *(["dsa"] if config.get("index_topk") is not None else [])]
    else:
        heads, kv = config.get("num_attention_heads"), config.get("num_key_value_heads")
        families = ["mha" if kv is None or kv == heads else "gqa"]
        if "sliding_attention" in counts:
            families = ["gqa-swa", *families]
    if LINEAR_TYPES & set(counts) or config.get("linear_num_value_heads") is not None:
        families.append("gdn")
    names = {"mla": "MLA", "dsa": "DSA", "mha": "MHA", "gqa": "GQA", "gqa-swa": "SWA", "gdn": "GDN"}
    stated = " + ".join(names[f] for f in families)
    return families, {"zh": stated, "en": stated}


def model_from_config(
    mid: str,
    config: dict[str, Any],
    source: str,
    *,
    index: dict[str, Any] | None = None,
    name: str | None = None,
    vendor: str | None = None,
    role: str = "reference",
    checkpoint: str | None = None,
) -> Imported:
    """The model entry the files give (raises ``ConfigError`` when they cannot make one), in steps: the
    classes, the config block (copied, derived, absent keys), what the KV cell lacks, the experts, the
    precision, the entry."""
    archs = _architectures(config)
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    merged = {**config, **text} if text is not config else config
    cfg, derived = _config_block(config, text, merged, source, archs)
    mla = cfg.get("kv_lora_rank") is not None
    formula = "mla" if mla else "gqa"
    unknown_text, plan_unknown = _kv_unknowns(cfg, formula)
    precisions = _precisions(cfg, merged, index, checkpoint, source)
    if not precisions or "checkpoint_bytes" not in precisions[0]:
        plan_unknown.append("the checkpoint's bytes (--index model.safetensors.index.json)")
    families, stated = _families(merged, mla, cfg.get("layer_types_count", {}))
    data: dict[str, Any] = {
        "id": mid,
        "name": name or mid,
        "vendor": vendor or (checkpoint.split("/", 1)[0] if checkpoint and "/" in checkpoint else mid),
        "role": role,
        "params": {
            "total_b": None,
            "active_b": None,
            "stated": {
                "zh": "config.json 不含参数量；权重按 checkpoint 的字节数或架构公式计算",
                "en": "config.json holds no parameter count; the weights come from the checkpoint's bytes or "
                "the architecture formula",
            },
            "source": source,
        },
        "experts": _experts(merged, source),
        "context": None,
        "attention": {"kv_formula": formula, "stated": stated, "families": families, "source": source},
        "config": cfg,
    }
    if unknown_text:
        data["unknown"] = unknown_text
    data["precisions"] = precisions
    return Imported(data=data, derived=derived, unknown=plan_unknown)


def _architectures(config: dict[str, Any]) -> list[str]:
    archs = config.get("architectures")
    if not isinstance(archs, list) or not archs:
        raise ConfigError(
            [
                f"config.json: architectures: got {json.dumps(archs)}, expected the model classes the "
                'engine loads the checkpoint by, e.g. ["LlamaForCausalLM"]'
            ]
        )
    return list(archs)


def _config_block(
    config: dict[str, Any], text: dict[str, Any], merged: dict[str, Any], source: str, archs: list[str]
) -> tuple[dict[str, Any], list[str]]:
    """The entry's config: the keys copied as the file has them, what the engine derives when one is missing
    (said in the returned list), the quantization and vision configs, and the keys recorded as absent."""
    derived: list[str] = []
    cfg: dict[str, Any] = {"source": source, "architectures": archs}
    if config.get("model_type"):
        cfg["model_type"] = config["model_type"]
    dtype = merged.get("dtype") or merged.get("torch_dtype")
    if dtype in ("bfloat16", "float16", "float32"):
        cfg["dtype"] = dtype
    for key in COPIED:
        if merged.get(key) is not None:
            cfg[key] = merged[key]
    derived += _class_defaults(text, cfg)
    if cfg.get("kv_lora_rank") is None:
        derived += _derived_attention(cfg)
    counts = _layer_counts(merged.get("layer_types"))
    if counts:
        cfg["layer_types_count"] = counts
    rope = _rope(merged)
    if rope:
        cfg["rope_scaling"] = rope
    quant = _quantization(config, text)
    if quant:
        cfg["quantization_config"] = quant
    if merged.get("is_hybrid_swa") is not None:
        cfg["is_hybrid_swa"] = bool(merged["is_hybrid_swa"])
    vision = config.get("vision_config")
    if isinstance(vision, dict) and vision.get("hidden_size") is not None:
        cfg["vision_config"] = {
            k: vision[k] for k in s.VisionConfig.model_fields if vision.get(k) is not None
        }
        derived += _class_defaults(vision, cfg["vision_config"])
    derived += _absent_keys(cfg, merged, counts)
    return cfg, derived


def _derived_attention(cfg: dict[str, Any]) -> list[str]:
    """A GQA/MHA file's KV heads and head_dim where it has none, as the engine derives them."""
    derived = []
    if cfg.get("num_key_value_heads") is None and cfg.get("num_attention_heads") is not None:
        cfg["num_key_value_heads"] = cfg["num_attention_heads"]
        derived.append("num_key_value_heads = num_attention_heads (no num_key_value_heads: MHA)")
    if cfg.get("head_dim") is None and cfg.get("hidden_size") and cfg.get("num_attention_heads"):
        cfg["head_dim"] = cfg["hidden_size"] // cfg["num_attention_heads"]
        derived.append(f"head_dim = hidden_size // num_attention_heads = {cfg['head_dim']}")
    return derived


def _absent_keys(cfg: dict[str, Any], merged: dict[str, Any], counts: dict[str, int]) -> list[str]:
    """Keys the whole file lacks whose engine default the planner takes as exact (ModelConfig.absent)."""
    derived = []
    linear = bool(LINEAR_TYPES & set(counts)) or cfg.get("linear_num_value_heads") is not None
    if linear and cfg.get("mamba_ssm_dtype") is None:
        cfg["absent"] = ["mamba_ssm_dtype"]
        derived.append("mamba_ssm_dtype absent from the file: the engine's float32")
    # a DSA schedule the file leaves to the engine's defaults (an indexer on every layer); a file with any
    # other schedule key (configs/model_config.py:dsa_layer_skips_topk:488-522) is left unknown instead
    if cfg.get("index_topk") is not None and not DSA_OTHER_SCHEDULES & set(merged):
        dsa_absent = [k for k in ("index_topk_freq", "index_skip_topk_offset") if cfg.get(k) is None]
        cfg["absent"] = [*cfg.get("absent", []), *dsa_absent]
        derived += [f"{k} absent from the file: the engine's default" for k in dsa_absent]
    return derived


def _kv_unknowns(cfg: dict[str, Any], formula: str) -> tuple[dict[str, dict[str, str]], list[str]]:
    """The KV cell's fields the file lacks (each with its reason), and what the planner cannot size."""
    counts = cfg.get("layer_types_count", {})
    unknown_text: dict[str, dict[str, str]] = {}
    plan_unknown: list[str] = []
    for field in s.KV_FIELDS[formula]:
        if cfg.get(field) is None and not (field == "num_hidden_layers" and "full_attention" in counts):
            reason = f"not in this KB (config.{field}): the config.json imported has no {field}"
            unknown_text[field] = {
                "zh": f"本 KB 没有（config.{field}）：导入的 config.json 里没有 {field}",
                "en": reason,
            }
            plan_unknown.append(f"config.{field} (the KV cell)")
    if cfg.get("max_position_embeddings") is None:
        plan_unknown.append("config.max_position_embeddings (the engine's derived context)")
    return unknown_text, plan_unknown


def _experts(merged: dict[str, Any], source: str) -> dict[str, Any] | None:
    routed = _first(merged, ROUTED_KEYS)
    if not routed:
        return None
    experts = {"routed": routed, "per_token": _first(merged, PER_TOKEN_KEYS), "source": source}
    shared = _first(merged, SHARED_KEYS)
    if shared is not None:
        experts["shared"] = shared
    return experts


def _precisions(
    cfg: dict[str, Any],
    merged: dict[str, Any],
    index: dict[str, Any] | None,
    checkpoint: str | None,
    source: str,
) -> list[dict[str, Any]]:
    """The checkpoint's one precision: its quantization method's dtype, or its unquantized dtype, with the
    index's total bytes where one is given."""
    quant = cfg.get("quantization_config")
    dtype = merged.get("dtype") or merged.get("torch_dtype")
    weights_dtype = QUANT_DTYPES.get(quant["quant_method"]) if quant else UNQUANTIZED_DTYPES.get(dtype or "")
    if quant and weights_dtype is None:
        raise ConfigError(
            [
                f"config.json: quantization_config.quant_method: got '{quant['quant_method']}', expected one "
                f"the KB has a weights dtype for: {', '.join(sorted(QUANT_DTYPES))}"
            ]
        )
    if not weights_dtype:
        if index is not None:
            raise ConfigError(
                [
                    f"--index: got an index for a checkpoint of dtype {json.dumps(dtype)} without a "
                    "quantization config, expected bfloat16 weights or a quantization_config to say what the "
                    "bytes hold"
                ]
            )
        return []
    precision: dict[str, Any] = {"dtype": weights_dtype, "checkpoint": checkpoint}
    if index is not None:
        metadata = index.get("metadata")
        total = metadata.get("total_size") if isinstance(metadata, dict) else None
        if not isinstance(total, int) or isinstance(total, bool) or total < 1:
            raise ConfigError(
                [
                    f"--index: metadata.total_size: got {json.dumps(total)}, expected the checkpoint's "
                    "size in bytes (a safetensors index names it there)"
                ]
            )
        precision["checkpoint_bytes"] = total
    precision["source"] = source
    return [precision]


def source_entry(sid: str, repo: str, revision: str | None, day: date, what: str) -> dict[str, Any]:
    """kb/sources/<sid>.yaml for the checkpoint's files: the repository, the file, the commit or date."""
    ref = revision or "main"
    return {
        "id": sid,
        "kind": "model-config",
        "title": {"zh": f"{repo} 的 config.json", "en": f"{repo}'s config.json"},
        "url": f"https://huggingface.co/{repo}/blob/{ref}/config.json",
        "backs": {
            "zh": f"{what} 的架构字段（config.json）",
            "en": f"{what}'s architecture fields (config.json)",
        },
        "checked": day,
        **(
            {}
            if revision
            else {
                "note": {
                    "zh": "未给出提交号：以 checked 日期时的 main 分支为准",
                    "en": "No commit given: the main branch as of the checked date",
                }
            }
        ),
    }


def yaml_text(header: str, data: dict[str, Any]) -> str:
    return header + dump_yaml(data, sort_keys=False, width=110)


# A folder of public config.json files the KB does not ship (tests/fixtures/extra-configs): each
# <id>.config.json, with <id>.index.json beside it where the checkpoint's safetensors index is known, and
# PROVENANCE.json naming each file's repository and commit or date.
EXTRA_SOURCE = "extra-configs"


def extra_models(folder: Path) -> dict[str, s.Model]:
    """Every ``<id>.config.json`` of ``folder`` imported as ``new model --from-config`` would (sorted by id);
    raises ``ConfigError`` naming each file that does not make a valid entry."""
    models: dict[str, s.Model] = {}
    problems: list[str] = []
    for path in sorted(folder.glob("*.config.json")):
        mid = path.name.removesuffix(".config.json")
        index_path = folder / f"{mid}.index.json"
        try:
            config = read_json(path, "extra config", "a checkpoint's config.json")
            index = None
            if index_path.exists():
                index = read_json(index_path, "extra index", "a safetensors index")
            imported = model_from_config(mid, config, EXTRA_SOURCE, index=index, name=mid, vendor="extra")
            models[mid] = s.Model.model_validate(imported.data)
        except ConfigError as exc:
            problems += [f"{path.name}: {p}" for p in exc.problems]
        except ValueError as exc:  # the schema's own refusal
            problems.append(f"{path.name}: {exc}".splitlines()[0])
    if problems:
        raise ConfigError(problems)
    return models
