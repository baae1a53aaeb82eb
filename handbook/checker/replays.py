"""What the engine's own start-up resolution makes of each launch recipe: the inputs of the replay, and its
stored results.

``nox -s engine-replay`` (``handbook/oracles/recipes.py``) runs every launch recipe through SGLang's
``prepare_server_args`` + ``resolve_once`` + ``check_server_args`` in the engine's virtualenv, with a
``config.json`` built from the KB's sourced model fields only, and writes what it saw to
``kb/engine/replay-sglang-<version>.json``. This module is the part that needs no engine: it builds each
recipe's inputs (the commands, the variables, the config.json, the accelerator it emulates), hashes them,
and reads the stored results, so that a test and the site can tell a fresh replay from a stale one.

A recipe is replayable when its model names its ``architectures`` and ``model_type`` (so the engine can
pick its model class) and the KB's config fields are what the engine is given; a field the KB does not
publish is never guessed: the recipe is reported "not replayable: X is not published", and the engine's
class defaults fill only what the KB does not record at all (each is listed with the replay).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from handbook.calc.recipe_text import command_text
from handbook.core.paths import ENGINE_DIR
from handbook.kb.loader import KB
from handbook.kb.schema import Model, Recipe

FORMAT = "handbook-recipe-replay/1"
REPLAY_DIR = ENGINE_DIR
RERUN = "nox -s engine-replay -- --stale"

# KB bookkeeping in ``config:``, not config.json fields (the recipe replay and the sizing oracle both build a
# config.json without them). absent: keys the file lacks (not a key); quantization_config: neither runs a
# quantized loader (the oracle's weights per GPU are its input; on the CPU those loaders refuse the
# accelerator-only methods)
NOT_CONFIG_FIELDS = (
    "source",
    "field_sources",
    "layer_types_count",
    "architectures",
    "model_type",
    "absent",
    "quantization_config",
)
# What each model type calls the KB's expert counts, and the config type of its text model when its
# config.json nests the language model under ``text_config`` (the config classes of transformers 5.19.0:
# deepseek_v3/configuration_deepseek_v3.py n_routed_experts; gpt_oss/configuration_gpt_oss.py
# num_local_experts; qwen3_5_moe/configuration_qwen3_5_moe.py sub_configs text_config; sglang 0.5.23
# sglang/srt/configs/qwen4_exp.py for qwen4_exp; the GLM-5.3 config transcription for glm_moe_dsa).
MODEL_TYPES: dict[str, dict[str, Any]] = {
    "deepseek_v3": {"experts": {"routed": "n_routed_experts", "per_token": "num_experts_per_tok",
                                "shared": "n_shared_experts"}},
    "glm_moe_dsa": {"experts": {"routed": "n_routed_experts", "per_token": "num_experts_per_tok",
                                "shared": "n_shared_experts"}},
    "gpt_oss": {"experts": {"routed": "num_local_experts", "per_token": "num_experts_per_tok"}},
    "llama": {"experts": {}},
    "qwen3_5_moe": {"experts": {"routed": "num_experts", "per_token": "num_experts_per_tok"},
                    "text_config": "qwen3_5_moe_text"},
    "qwen4_exp": {"experts": {"routed": "num_experts", "per_token": "num_experts_per_tok"},
                  "text_config": "qwen4_exp_text"},
}  # fmt: skip

# The accelerators the replay can make the engine believe it runs on: (vendor, compute capability, gcn
# arch). These are emulation assumptions, not KB facts: the capability torch reports for that part (sm90
# Hopper, sm100/sm103 Blackwell, gfx942/gfx950 CDNA3/CDNA4).
ACCELERATORS: dict[str, tuple[str, tuple[int, int], str]] = {
    "a100": ("nvidia", (8, 0), ""),
    "h100": ("nvidia", (9, 0), ""),
    "h200": ("nvidia", (9, 0), ""),
    "b200": ("nvidia", (10, 0), ""),
    "gb200": ("nvidia", (10, 0), ""),
    "b300": ("nvidia", (10, 3), ""),
    "gb300": ("nvidia", (10, 3), ""),
    "mi300x": ("amd", (9, 4), "gfx942"),
    "mi325x": ("amd", (9, 4), "gfx942"),
    "mi350x": ("amd", (9, 5), "gfx950"),
    "mi355x": ("amd", (9, 5), "gfx950"),
}
# Shell placeholders of the KB's commands, and what the replay puts there.
PLACEHOLDERS = {
    "${local_ip}": "127.0.0.1",
    "${decode_master_ip}": "127.0.0.1",
    "${prefill_master_ip}": "127.0.0.1",
    "${device_name}": "mlx5_0",
}


@dataclass(frozen=True)
class Accelerator:
    id: str
    vendor: str
    capability: tuple[int, int]
    gcn_arch: str
    # what the engine's capacity query will answer: the device-reported MiB where the KB records it
    # (memory_mib_reported), else the nominal GB × 1024; the memory-derived defaults follow from it
    memory_mib: float | None


@dataclass(frozen=True)
class ReplayInput:
    """Everything the engine is given for one recipe; ``missing`` non-empty means not replayable."""

    recipe: str
    model: str
    missing: tuple[str, ...] = ()  # fields the KB does not publish that the replay would need
    also_unknown: tuple[str, ...] = ()  # fields the KB marks unknown, named beside the missing ones
    config: dict[str, Any] = field(default_factory=dict)  # the config.json the engine reads
    origin: dict[str, str] = field(default_factory=dict)  # config field → the KB field and its source
    variants: dict[str, str] = field(default_factory=dict)  # "published" (and "source") → command text
    accelerator: Accelerator | None = None  # emulated when the recipe names one; else the CPU

    @property
    def replayable(self) -> bool:
        return not self.missing

    def key(self) -> dict[str, Any]:
        """What decides the engine's outcome (the hash covers this, not the provenance). A command's layout
        (how it is broken into continued lines) does not: the engine sees the same words."""
        return {
            "format": FORMAT,
            "missing": list(self.missing),
            "config": self.config,
            "variants": {name: command_words(text) for name, text in self.variants.items()},
            "accelerator": asdict(self.accelerator) if self.accelerator else None,
        }

    def digest(self) -> str:
        text = json.dumps(self.key(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_CONTINUATION = re.compile(r"[ \t]*\\\n[ \t]*")
_BLANKS = re.compile(r"[ \t]+")


def command_words(text: str) -> str:
    """A command's text with its line continuations joined and runs of blanks made one: what the shell
    passes on, whatever the layout (a line of its own is still a command of its own)."""
    return _BLANKS.sub(" ", _CONTINUATION.sub(" ", text)).strip()


def replayed_recipes(kb: KB) -> list[Recipe]:
    """The launch recipes of a KB model: what the replay covers."""
    return [r for r in kb.recipes.values() if r.kind == "launch" and r.model is not None]


def model_config(model: Model) -> tuple[dict[str, Any], dict[str, str], tuple[str, ...]]:
    """(config.json, field → where it came from, fields missing) from the KB's sourced fields only."""
    config = model.config
    missing = tuple(name for name in ("architectures", "model_type") if getattr(config, name) is None)
    if missing:
        return {}, {}, missing
    own = config.field_sources
    fields: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for name in type(config).model_fields:
        value = getattr(config, name)
        if name in NOT_CONFIG_FIELDS or value is None:
            continue
        fields[name] = value.model_dump(exclude_none=True) if hasattr(value, "model_dump") else value
        origin[name] = f"config.{name} ({own.get(name, config.source)})"
    model_type = config.model_type
    assert model_type is not None
    layout = MODEL_TYPES.get(model_type, {"experts": {}})
    experts = model.experts
    for kb_name, name in layout["experts"].items():
        value = getattr(experts, kb_name) if experts is not None else None
        if value is not None:
            fields[name] = value
            origin[name] = f"experts.{kb_name} ({experts.source})"  # type: ignore[union-attr]
    if model.context is not None:
        # the model's native context is what config.json calls max_position_embeddings
        fields.setdefault("max_position_embeddings", model.context.native)
        origin.setdefault("max_position_embeddings", f"context.native ({model.context.source})")
    top: dict[str, Any] = {"architectures": list(config.architectures or []), "model_type": model_type}
    for name in ("architectures", "model_type"):
        origin[name] = f"config.{name} ({own.get(name, config.source)})"
    if "text_config" in layout:
        top["text_config"] = {"model_type": layout["text_config"], **fields}
        origin = {("text_config." + k if k in fields else k): v for k, v in origin.items()}
    else:
        top.update(fields)
    return top, origin, ()


def _words(text: str) -> list[str]:
    return shlex.split(text.replace("\\\n", " "), comments=True)


def _find(words: list[str], part: list[str], start: int) -> int:
    for i in range(start, len(words) - len(part) + 1):
        if words[i : i + len(part)] == part:
            return i
    return -1


def source_command(recipe: Recipe, text: str) -> str | None:
    """The source's command: each correction's published words put back as the source stated them (parts
    separated by "…" are replaced in order), as one line. None when no correction applies to this
    command (a recipe's correction may be about another command, e.g. its benchmark)."""
    words = _words(text)
    changed = False
    for correction in recipe.corrections:
        stated = [_words(part) for part in correction.stated.split("…")]
        published = [_words(part) for part in correction.published.split("…")]
        if len(stated) != len(published):
            continue
        found, at = [], 0
        for part in published:
            at = _find(words, part, at) if part else at
            if at < 0:
                break
            found.append(at)
            at += len(part)
        if len(found) != len(published):
            continue
        for start, old, new in reversed(list(zip(found, published, stated, strict=True))):
            if old != new:
                words[start : start + len(old)] = new
                changed = True
    return shlex.join(words) if changed else None


def _memory_mib(kb: KB, hardware_id: str) -> float | None:
    hardware = kb.hardware.get(hardware_id)
    if hardware is None:
        return None
    reported = getattr(hardware, "memory_mib_reported", None)  # a field newer KBs record
    if reported:
        return float(reported)
    return float(hardware.memory_gb * 1024) if hardware.memory_gb else None


def replay_input(recipe: Recipe, kb: KB) -> ReplayInput:
    model = kb.models[recipe.model]
    config, origin, missing = model_config(model)
    text = command_text(recipe)
    variants = {"published": text}
    source = source_command(recipe, text)
    if source is not None:
        variants["source"] = source
    accelerator = None
    for hardware_id in recipe.hardware:
        if hardware_id in ACCELERATORS:
            vendor, capability, gcn = ACCELERATORS[hardware_id]
            accelerator = Accelerator(hardware_id, vendor, capability, gcn, _memory_mib(kb, hardware_id))
            break
    return ReplayInput(
        recipe=recipe.id,
        model=model.id,
        missing=missing,
        also_unknown=tuple(sorted(model.unknown)),
        config=config,
        origin=origin,
        variants=variants,
        accelerator=accelerator,
    )


# ------------------------------------------------------------------------------------------ stored results
def replay_path(version: str, folder: Path = REPLAY_DIR) -> Path:
    return folder / f"replay-sglang-{version}.json"


def load_replays(version: str, folder: Path = REPLAY_DIR) -> dict[str, Any] | None:
    """The stored replay of one engine release (None when there is none)."""
    path = replay_path(version, folder)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: format {data.get('format')!r}, this reader reads {FORMAT}")
    return data


def dumps_replays(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Freshness:
    fresh: tuple[str, ...]
    stale: tuple[str, ...]  # replayed, but the recipe, its model or its hardware changed since
    missing: tuple[str, ...]  # never replayed
    extra: tuple[str, ...]  # replayed recipes the KB no longer has

    @property
    def ok(self) -> bool:
        return not (self.stale or self.missing or self.extra)


def freshness(kb: KB, data: dict[str, Any] | None) -> Freshness:
    stored = (data or {}).get("recipes", {})
    fresh, stale, missing = [], [], []
    ids = []
    for recipe in replayed_recipes(kb):
        ids.append(recipe.id)
        entry = stored.get(recipe.id)
        if entry is None:
            missing.append(recipe.id)
        elif entry.get("hash") != replay_input(recipe, kb).digest():
            stale.append(recipe.id)
        else:
            fresh.append(recipe.id)
    extra = sorted(set(stored) - set(ids))
    return Freshness(tuple(fresh), tuple(stale), tuple(missing), tuple(extra))


def entry_for(recipe: Recipe, kb: KB, data: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """("fresh" | "stale" | "missing", the stored entry) for one recipe."""
    entry = (data or {}).get("recipes", {}).get(recipe.id)
    if entry is None:
        return "missing", None
    if entry.get("hash") != replay_input(recipe, kb).digest():
        return "stale", entry
    return "fresh", entry
