"""The knowledge base's schema: one closed pydantic model per kind of fact.

Raw facts only: what a config.json, a document or the handbook states. Everything derived (KV bytes per
token, TP needed, ratios) is computed by ``handbook.calc`` and never stored here, so it cannot drift.
"""

from __future__ import annotations

import itertools
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, StringConstraints, model_validator

from handbook.core.text import PLACEHOLDER, UNFILLED, Closed, Label, Neutral, NonEmpty, Text, filled_in
from handbook.kb.common import (
    CommandText,
    CommandWords,
    Day,
    FlagLine,
    FlagLineText,
    Id,
    count,
    flags_in,
    rule_error,
    size,
    within,
)
from handbook.kb.kinds import FlagUse, Ref
from handbook.kb.texts import Quoted, ValueOf

Stage = Annotated[int, Field(ge=1, le=7)]
# Plausible ranges of physical quantities: a value outside one is a typo or a mixed-up unit (refused at its
# line, like any schema error).
Bits = size(1, 64, "bits per element")
MemoryGB = size(1, 4096, "a memory size in GB")
MemoryMiB = count(4_194_304, "MiB")
Billions = size(0.001, 100_000, "a parameter count in billions")
Layers = count(1024, "layers")
Heads = count(4096, "heads")
Width = count(1_048_576, "elements (a dimension of the model)")
Tokens = count(100_000_000, "tokens")
ExpertCount = count(100_000, "experts")
GpuCount = count(100_000, "GPUs")
NodeCount = count(10_000, "nodes")
Interval = count(1024, "layers (an interval)")

FlagName = Annotated[str, StringConstraints(pattern=r"^--[a-z0-9][a-z0-9_-]*$")]  # a long option's spelling
EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9_]*$")]
# The program whose flags an entity names; the entity's ``program`` field, else launch_server (FlagUse).
Program = Literal["launch_server", "launch_router", "bench_serving"]

# References: values that name another entity of the KB. The loader checks every marked value of every
# entity (handbook.kb.kinds.references), with the pool's own words in the message.
SourceId = Annotated[Id, Ref("sources")]
ModelId = Annotated[Id, Ref("models")]
HardwareId = Annotated[Id, Ref("hardware")]
DtypeId = Annotated[Id, Ref("dtypes")]
QuantizationId = Annotated[Id, Ref("quantizations")]
FamilyId = Annotated[Id, Ref("attention")]
VariableName = Annotated[EnvName, Ref("env_vars")]
# A rule of kb/rules.yaml that holds the engine's verdict on what a text states (refuses, adjusts, …): the
# page shows that verdict beside the text (handbook.render.verdicts).
RuleId = Annotated[Id, Ref("rules")]
Rules = Annotated[
    list[RuleId], Field(description="Rules whose engine verdict the page shows beside this entry's text")
]


class Note(Text):
    """A note in both languages that may state what the engine does: ``rules`` names the rules that hold
    the engine's verdict on it, shown beside the note."""

    rules: Rules = []


FlagRef = Annotated[FlagName, FlagUse()]  # documented in kb/parameters/ for the entity's program
FlagLineRef = Annotated[FlagLineText, FlagUse(line=True)]  # every flag in the line is documented
CommandLine = Annotated[FlagLineText | FlagLine, FlagUse(line=True)]


# --------------------------------------------------------------------------------------------- sources
class Source(Closed):
    """Where facts come from. File: ``kb/sources/<id>.yaml``."""

    id: Id
    # report: a public issue, startup log or benchmark submission (what a device or an engine printed)
    kind: Literal[
        "handbook", "docs", "cookbook", "model-config", "wheel", "spec", "vendor", "registry", "report"
    ]
    title: Text
    url: Annotated[str, StringConstraints(pattern=r"^https://\S+$")] | None = None
    # A file of a public repository, at a commit: what a reader opens to see the fact (all three, or none).
    repository: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")] | None = None
    file: NonEmpty | None = None
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")] | None = None
    backs: Text
    checked: Day
    note: Text | None = None

    @model_validator(mode="after")
    def _file_at_commit(self) -> Source:
        given = [name for name in ("repository", "file", "commit") if getattr(self, name) is not None]
        if given and len(given) != 3:
            missing = [name for name in ("repository", "file", "commit") if name not in given]
            raise rule_error(
                missing[0], f"got {', '.join(given)} alone, expected repository, file and commit"
            )
        return self


# ---------------------------------------------------------------------------------------------- dtypes
class Dtype(Closed):
    id: Id
    name: NonEmpty
    # Storage per element including block scales (e.g. MXFP4: 4-bit elements + one 8-bit scale per 32).
    bits: Bits
    use: list[Literal["weights", "kv"]] = Field(min_length=1)
    # the --kv-cache-dtype spelling, for KV dtypes (a value of the engine, so a plain word)
    engine_kv_value: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_]*$")] | None = None
    note: Text | None = None
    source: SourceId


class QuantRefusal(Closed):
    """Accelerators the engine refuses a quantization method on, and where in the wheel it raises."""

    hardware: list[HardwareId] = Field(min_length=1)
    file: Annotated[str, StringConstraints(pattern=r"^sglang/[A-Za-z0-9_/]+\.py$")]
    line: count(100_000, "lines")
    says: Annotated[NonEmpty, Quoted()]  # the engine's message, verbatim (its f-string as written)


class Quantization(Closed):
    """An engine quantization method (``quant_method`` of a checkpoint's config), in kb/dtypes.yaml."""

    id: Id
    engine_method: Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]+$")]  # the engine's spelling
    name: NonEmpty
    refused_on: list[QuantRefusal] = []
    note: Text | None = None
    source: SourceId


# ---------------------------------------------------------------------------------------------- hardware
class Hardware(Closed):
    """An accelerator. File: ``kb/hardware/<id>.yaml``."""

    id: Id
    name: NonEmpty
    vendor: Literal["nvidia", "amd", "huawei", "intel"]
    form: Literal["gpu", "superchip", "npu"]
    architecture: NonEmpty | None
    # Memory per device as the source states it (the vendor's nominal GB); null when no source gives it.
    memory_gb: MemoryGB | None
    # How many GPUs one device holds (1 for a GPU); null with a reason under `unknown` where no source says.
    gpus_per_device: count(64, "GPUs in one device") | None = 1
    # Memory as the device reports it, in MiB: nvidia-smi's memory.total, or rocminfo's "Pool 1" size in KB
    # divided by 1024 (what SGLang's capacity query reads, utils/common.py:get_device_memory_capacity).
    memory_mib_reported: MemoryMiB | None = None
    # GPUs in one server of this accelerator, as a published system description states it.
    gpus_per_node: count(1024, "GPUs in one server") | None = None
    unknown: dict[str, Text] = {}
    notes: Text | None = None
    source: SourceId
    field_sources: dict[str, SourceId] = {}

    @model_validator(mode="after")
    def _unknown_explained(self) -> Hardware:
        _check_unknowns(
            self,
            ("architecture", "memory_gb", "gpus_per_device"),
            optional=("memory_mib_reported", "gpus_per_node"),
        )
        _check_field_sources(self)
        return self


def _check_field_sources(model: Closed) -> None:
    """``field_sources`` keys name fields of the model that have a value."""
    for name in model.field_sources:
        if name not in type(model).model_fields or name in ("source", "field_sources"):
            raise rule_error(f"field_sources.{name}", f"got '{name}', expected a field name of this entry")
        if getattr(model, name) in (None, {}, []):
            raise rule_error(f"field_sources.{name}", f"got a source for '{name}', which has no value")


def _check_unknowns(model: Closed, fields: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """A null field must carry a reason in ``unknown`` (``optional`` ones may); a reason must belong to a
    null field."""
    unknown = model.unknown
    for name in fields:
        value = getattr(model, name)
        if value is None and name not in unknown:
            raise rule_error(name, f"got null, expected a value or a reason under unknown.{name}")
    for name in unknown:
        if name not in fields + optional:
            raise rule_error(
                f"unknown.{name}",
                f"got a reason for '{name}', expected one of: {', '.join(fields + optional)}",
            )
        if getattr(model, name) is not None:
            raise rule_error(
                f"unknown.{name}", f"got a reason for '{name}', which has a value; drop one of them"
            )


# ---------------------------------------------------------------------------------------------- models
class VisionConfig(Closed):
    """A multimodal checkpoint's ``vision_config``: SGLang's default --mem-fraction-static shrinks with the
    vision encoder's size (arg_groups/memory_hook.py:adjust_mem_fraction_for_vlm:417-462)."""

    hidden_size: Width
    # None: neither the file nor its transformers config class has the key (Qwen-VL vision configs name it
    # depth), so the engine takes 24 (memory_hook.py:439)
    num_hidden_layers: Layers | None = None
    # What the vision tower's parameter count follows from (handbook.calc.params), named as the file names
    # them: SigLIP's (models/siglip.py) and Qwen2.5-VL's (models/qwen2_5_vl.py: depth, in_chans, the patch
    # merger's spatial_merge_size and out_hidden_size)
    intermediate_size: Width | None = None
    patch_size: Width | None = None
    image_size: Width | None = None
    num_channels: Width | None = None
    depth: Layers | None = None
    in_chans: Width | None = None
    temporal_patch_size: Width | None = None
    spatial_merge_size: Width | None = None
    out_hidden_size: Width | None = None


class RopeScaling(Closed):
    """The part of config.json's ``rope_scaling`` that decides the engine's derived context
    (utils/hf_transformers/common.py:get_context_length:677-696): ``factor`` multiplies
    max_position_embeddings unless ``original_max_position_embeddings`` is set or the type is llama3."""

    rope_type: NonEmpty | None = None  # ``rope_type`` (older configs: ``type``)
    factor: float | None = Field(default=None, gt=0, le=1024)
    original_max_position_embeddings: Tokens | None = None
    # llama3 scaling's own keys: the engine's transformers refuses a llama3 rope_scaling without them
    low_freq_factor: float | None = Field(default=None, gt=0, le=1024)
    high_freq_factor: float | None = Field(default=None, gt=0, le=1024)


class QuantizationConfig(Closed):
    """config.json's ``quantization_config``: the method the engine loads the weights with, and the modules
    it leaves unquantized (``modules_to_not_convert``, ``ignored_layers`` or ``ignore``, by method): those
    keep the checkpoint's ``dtype``, which is what makes a checkpoint mixed-precision."""

    quant_method: NonEmpty
    unquantized_modules: list[NonEmpty] = []


# The element types a safetensors header names (the checkpoint's tensor inventory), with their bytes.
SAFETENSORS_BYTES: dict[str, float] = {
    "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1,
    "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1, "F4": 0.5,
}  # fmt: skip
SafetensorsDtype = Literal[
    "F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0",
    "I64", "I32", "I16", "I8", "U8", "BOOL", "F4",
]  # fmt: skip


class ModelConfig(Closed):
    """Architecture fields, named as in the checkpoint's config.json (a multimodal checkpoint's language
    fields are its ``text_config``'s)."""

    source: SourceId
    # The checkpoint's unquantized dtype (``dtype``; older configs ``torch_dtype``): the modules a
    # quantization config leaves out keep it.
    dtype: Literal["bfloat16", "float16", "float32"] | None = None
    # The engine's derived context when none is given (configs/model_config.py:_derive_context_length:
    # 1291-1326): max_position_embeddings × rope_scaling.factor (see RopeScaling).
    max_position_embeddings: Tokens | None = None
    rope_scaling: RopeScaling | None = None
    quantization_config: QuantizationConfig | None = None
    # A config's opt-in to the hybrid sliding-window pool (configs/model_config.py:is_hybrid_swa_model:2695)
    is_hybrid_swa: bool | None = None
    # The checkpoint's model class and config type, as its config.json names them: the engine picks its
    # model code by them (the recipe replay and the sizing oracle build a config.json with them).
    architectures: list[NonEmpty] | None = None
    model_type: NonEmpty | None = None
    num_hidden_layers: Layers | None = None
    num_attention_heads: Heads | None = None
    num_key_value_heads: Heads | None = None
    head_dim: Width | None = None
    v_head_dim: Width | None = None
    hidden_size: Width | None = None
    kv_lora_rank: Width | None = None
    qk_rope_head_dim: Width | None = None
    qk_nope_head_dim: Width | None = None
    sliding_window: Tokens | None = None
    full_attention_interval: Interval | None = None
    index_topk: Tokens | None = None
    # DSA indexer: its key width, and which layers compute their own top-k (configs/model_config.py:
    # dsa_layer_skips_topk:488-522)
    index_head_dim: Width | None = None
    index_n_heads: Heads | None = None
    index_topk_freq: Interval | None = None
    index_skip_topk_offset: Interval | None = None
    # DeepSeek-V4's compressed attention: each layer's KV compression ratio, in config.json's order (the MTP
    # layers' entries follow the backbone's). 0: the sliding window only; 4 and 128: a compressed KV (4: with
    # its indexer) besides it (mem_cache/deepseek_v4_memory_pool.py:collect_sources_by_ratio:94-116).
    compress_ratios: list[Literal[0, 1, 2, 4, 128]] | None = None
    # Linear attention (Gated DeltaNet): the recurrent state's shape (configs/qwen3_next.py:287-313)
    linear_num_key_heads: Heads | None = None
    linear_num_value_heads: Heads | None = None
    linear_key_head_dim: Width | None = None
    linear_value_head_dim: Width | None = None
    linear_conv_kernel_dim: Interval | None = None
    mamba_ssm_dtype: Literal["float32", "bfloat16", "float16"] | None = None
    # Keys the checkpoint's config.json itself does not have, read from the whole file: the engine then uses
    # its own default, which the planner takes as exact (mamba_ssm_dtype: float32,
    # configs/mamba_utils.py:mamba2_state_dtype:47-107; index_topk_freq: 1 and index_skip_topk_offset: none,
    # so every DSA layer computes its own top-k, configs/model_config.py:dsa_layer_skips_topk:488-522). A
    # field that is null and not listed here is unknown to the KB.
    absent: list[Literal["mamba_ssm_dtype", "index_topk_freq", "index_skip_topk_offset"]] = []
    # QSA compressed indexer (layers/attention/qsa/config.py:_COMPRESSED_FIELDS)
    indexer_n_heads: Heads | None = None
    indexer_kv_heads: Heads | None = None
    indexer_head_dim: Width | None = None
    indexer_budget: Tokens | None = None
    indexer_compress_ratio: Interval | None = None
    # What the parameter count follows from where no total is published (handbook.calc.params)
    vocab_size: Width | None = None
    intermediate_size: Width | None = None
    moe_intermediate_size: Width | None = None
    # the width of the shared expert beside the routed ones (Qwen2-MoE's and Qwen3-Next's layout)
    shared_expert_intermediate_size: Width | None = None
    # whether full attention's query projection carries an output gate as wide again (Qwen3-Next); None: the
    # file has no key and the engine's default, true, applies (models/qwen3_next.py:649)
    attn_output_gate: bool | None = None
    first_k_dense_replace: int | None = Field(default=None, ge=0)
    q_lora_rank: Width | None = None
    tie_word_embeddings: bool | None = None
    # the share of head_dim that carries RoPE (Qwen4-Exp checks it against the QSA indexer's head)
    partial_rotary_factor: float | None = Field(default=None, gt=0, le=1)
    vision_config: VisionConfig | None = None
    # How many layers of each kind, keyed like the values of config.json's ``layer_types``.
    layer_types_count: dict[Literal["full_attention", "sliding_attention", "linear_attention"], Layers] = {}
    field_sources: dict[str, SourceId] = {}  # per-field source where it differs from ``source``

    @model_validator(mode="after")
    def _field_sources_name_fields(self) -> ModelConfig:
        _check_field_sources(self)
        return self


# The config fields each KV formula needs (SGLang's KV cell size; see handbook.calc.memory).
KV_FIELDS: dict[str, tuple[str, ...]] = {
    "gqa": ("num_hidden_layers", "num_key_value_heads", "head_dim"),
    "mla": ("num_hidden_layers", "kv_lora_rank", "qk_rope_head_dim"),
}


class Params(Closed):
    """Total and active parameters in billions, as stated; ``stated`` keeps odd wording verbatim."""

    total_b: Billions | None
    active_b: Billions | None
    stated: Text | None = None
    source: SourceId

    @model_validator(mode="after")
    def _active_le_total(self) -> Params:
        if self.total_b and self.active_b and self.active_b > self.total_b:
            raise rule_error("active_b", f"got {self.active_b}, expected at most total_b ({self.total_b})")
        if (self.total_b is None or self.active_b is None) and self.stated is None:
            raise rule_error("stated", "got nothing, expected the source's wording when a count is null")
        return self


class Experts(Closed):
    routed: ExpertCount | None
    per_token: ExpertCount | None
    shared: Annotated[int, within(0, 1024, "a number of shared experts")] | None = None
    source: SourceId

    @model_validator(mode="after")
    def _per_token_le_routed(self) -> Experts:
        if self.routed and self.per_token and self.per_token > self.routed:
            raise rule_error("per_token", f"got {self.per_token}, expected at most routed ({self.routed})")
        return self


class Context(Closed):
    native: Tokens
    extended: Tokens | None = None
    extended_method: Literal["yarn"] | None = None
    source: SourceId

    @model_validator(mode="after")
    def _extended(self) -> Context:
        if (self.extended is None) != (self.extended_method is None):
            raise rule_error("extended_method", "expected extended and extended_method together")
        if self.extended is not None and self.extended <= self.native:
            raise rule_error("extended", f"got {self.extended}, expected more than native ({self.native})")
        return self


class Attention(Closed):
    # What the KV pool holds per token, which decides SGLang's cell-size formula.
    kv_formula: Literal["gqa", "mla"]
    # The handbook's own name for the attention design, e.g. "CSA + HCA".
    stated: Text
    families: list[FamilyId] = Field(min_length=1)  # ids in kb/attention.yaml
    source: SourceId


class RunsOn(Closed):
    """Accelerators a source names a precision on: a cookbook cell, a model card, a command's heading."""

    hardware: list[HardwareId] = Field(min_length=1)
    where: Text  # where in the source (its section, table or heading)
    verified: bool | None = None  # what the source says of these cells (None: it does not say)
    source: SourceId


class Precision(Closed):
    dtype: DtypeId
    checkpoint: NonEmpty | None
    checkpoint_source: SourceId | None = None  # where the checkpoint's name is from, if not ``source``
    min_memory_gb: size(0.001, 1_000_000, "a memory size in GB") | None = None  # as the source states it
    recommended_hardware: Text | None = None
    # The engine's quantization method for this checkpoint (kb/dtypes.yaml `quantizations`): what the
    # engine refuses to load on some accelerators. None where no source says which method it is.
    quantization: QuantizationId | None = None
    # The accelerators a source names this precision on, each list with its source. An accelerator in no
    # list is one this KB has no source for (not one nobody published).
    runs_on: list[RunsOn] = []
    # A hardware-requirements table as the source states it ("~800 GB", "H100: tp16"); the site sets the
    # computed weights and smallest TP beside these and lists any difference as drift.
    stated_weights_gb: size(0.001, 1_000_000, "a weight size in GB") | None = None
    stated_tp: dict[Id, GpuCount] = {}
    stated_tp_note: Text | None = None
    # The checkpoint's weights as its files hold them: the safetensors index's metadata.total_size (bytes)
    # and, where known, its tensor inventory (elements per safetensors dtype). A mixed-precision checkpoint
    # (modules left unquantized) is sized by these, not by one dtype's bits.
    checkpoint_bytes: Annotated[int, Field(ge=1, le=10**14)] | None = None
    tensor_elements: dict[SafetensorsDtype, Annotated[int, Field(ge=0, le=10**14)]] = {}
    note: Text | None = None
    source: SourceId


class Parsers(Closed):
    tool_call: Annotated[NonEmpty | None, ValueOf("--tool-call-parser")] = None
    reasoning: Annotated[NonEmpty | None, ValueOf("--reasoning-parser")] = None
    source: SourceId


class Image(Closed):
    tag: NonEmpty | None  # a docker image reference, when the source names one
    stated: Text | None = None
    branch: NonEmpty | None = None
    source: SourceId

    @model_validator(mode="after")
    def _something(self) -> Image:
        if self.tag is None and self.stated is None and self.branch is None:
            raise rule_error(
                "tag", "got nothing, expected a tag, a branch or the source's wording in `stated`"
            )
        return self


class Recommended(Closed):
    """A row of chapter 06's quick-reference table."""

    layout: Text
    key_flags: list[FlagLineRef] = Field(min_length=1)
    key_flags_note: Text | None = None
    source: SourceId


class Model(Closed):
    """A model. File: ``kb/models/<id>.yaml``."""

    id: Id
    name: NonEmpty
    vendor: NonEmpty
    role: Literal["frontier", "reference"]
    summary: Text | None = None
    overview_note: Text | None = None  # the "备注" cell of chapter 01's overview table
    params: Params
    experts: Experts | None  # null for dense models
    context: Context | None
    attention: Attention
    config: ModelConfig
    unknown: dict[str, Text] = {}
    precisions: list[Precision] = []
    parsers: Parsers | None = None
    image: Image | None = None
    recommended: Recommended | None = None
    notes: list[Note] = []

    @model_validator(mode="after")
    def _kv_fields_known_or_explained(self) -> Model:
        needed = KV_FIELDS[self.attention.kv_formula]
        for name in needed:
            if getattr(self.config, name) is None and name not in self.unknown:
                raise rule_error(
                    f"config.{name}",
                    f"got nothing, expected a value (the {self.attention.kv_formula} KV formula needs it) "
                    f"or a reason under unknown.{name}",
                )
        for name in self.unknown:
            if name not in ModelConfig.model_fields:
                raise rule_error(f"unknown.{name}", f"got '{name}', expected a config field name")
            if getattr(self.config, name) not in (None, {}, []):
                raise rule_error(f"unknown.{name}", f"got a reason for config.{name}, which has a value")
        seen: set[str] = set()
        for i, precision in enumerate(self.precisions):
            if precision.dtype in seen:
                raise rule_error(
                    f"precisions[{i}].dtype", f"got '{precision.dtype}' again, expected each dtype once"
                )
            seen.add(precision.dtype)
        return self


# ---------------------------------------------------------------------------------------------- parameters
class Default(Closed):
    """The default *as the handbook states it*; the drift page sets it beside the engine's parser default."""

    # "disabled"/"enabled", not off/on: YAML reads a bare off/on as a boolean.
    kind: Literal["value", "auto", "required", "from-config", "disabled", "enabled", "unstated"]
    value: str | int | float | bool | None = None
    stated: Text | None = None  # the handbook's words, when they say more than the kind

    @model_validator(mode="after")
    def _value_iff_kind_value(self) -> Default:
        if (self.kind == "value") != (self.value is not None):
            raise rule_error(
                "value", f"expected a value exactly when kind is 'value' (kind is '{self.kind}')"
            )
        return self


class Choice(Closed):
    values: list[NonEmpty] = Field(min_length=1)
    use_when: Text
    rules: Rules = []
    default: bool = False  # the source marks this choice as the default (the page marks the engine's)


# A section of the site: ``page.md#anchor`` (the page relative to a language folder).
SectionRef = Annotated[str, StringConstraints(pattern=r"^[0-9a-z][0-9a-z-]*\.md#[a-z0-9][a-z0-9-]*$")]


class Parameter(Closed):
    flag: FlagName
    aliases: list[FlagName] = []  # other spellings of the same option, as the engine's parser has them
    # Spellings the source gives as aliases that argparse accepts only as prefix abbreviations (--tp)
    abbreviations: Annotated[list[FlagName], Quoted()] = []
    program: Program = "launch_server"
    summary: Text
    meaning: Text
    tradeoff: Text | None = None
    default: Default
    stages: list[Stage] = []
    choices: list[Choice] = []
    # The choices list only some of the engine's values (the source's selection): the page says how many of
    # how many. Without it, a list of an option with fixed choices must hold every one (validate checks).
    choices_partial: bool = False
    choices_note: Text | None = None
    related: list[FlagRef] = []
    # The sections that explain this parameter at length (page.md#anchor): chapter 04 links to them
    # instead of retelling them in its cell.
    explained_in: list[SectionRef] = []
    rules: Rules = []
    source: SourceId
    field_sources: dict[str, SourceId] = {}  # where a field's content comes from another source

    @model_validator(mode="after")
    def _one_default_choice(self) -> Parameter:
        _check_field_sources(self)
        if sum(c.default for c in self.choices) > 1:
            raise rule_error("choices", "got several choices marked default, expected at most one")
        if self.flag in self.aliases:
            raise rule_error(
                "aliases", f"got {self.flag}, the parameter's own flag, expected other spellings"
            )
        for i, abbreviation in enumerate(self.abbreviations):
            if abbreviation == self.flag or abbreviation in self.aliases:
                raise rule_error(
                    f"abbreviations[{i}]", f"got {abbreviation}, a full spelling, expected an abbreviation"
                )
        return self


class ParameterGroup(Closed):
    """A group of parameters. File: ``kb/parameters/<group>.yaml``; the group id is the file name."""

    title: Text
    order: count(1000, "positions")
    intro: Text | None = None
    rules: Rules = []  # for the intro
    parameters: list[Parameter] = Field(min_length=1)


# ---------------------------------------------------------------------------------------------- recipes
class EnvSetting(Closed):
    name: EnvName  # a variable of kb/env_vars.yaml: see Recipe.env
    value: CommandText
    note: Text | None = None


class DockerSpec(Closed):
    options: list[CommandText] = Field(min_length=1)  # lines of `docker run` options, as typed
    image: CommandText


Strategy = Literal[
    "baseline",
    "multi-gpu",
    "tool-calling",
    "latency",
    "balanced",
    "throughput",
    "concurrency",
    "long-context",
    "reference",
]
Role = Literal["standalone", "prefill", "decode", "router", "client", "install", "monitoring"]


class Correction(Closed):
    """Where the published command differs from the source's: what it said, what we publish, and why."""

    stated: Annotated[CommandWords, Quoted()]  # the source's words, wrong on purpose
    published: CommandWords
    why: Text
    source: SourceId


class Recipe(Closed):
    """A command of the handbook as structured data. File: ``kb/recipes/<id>.yaml``."""

    id: Id
    title: Text
    kind: Literal["launch", "fragment", "router", "benchmark", "docker", "shell"]
    program: Program | None
    # The python -m module the command runs; defaults to the program's canonical module.
    module: NonEmpty | None = None
    model: ModelId | None = None
    hardware: list[HardwareId] = []
    # A heading that names a vendor, not accelerators ("NVIDIA", "AMD configuration"): the command is for
    # that vendor's accelerators its precision lists (runs_on); None where it names neither.
    vendor: Literal["nvidia", "amd", "huawei", "intel"] | None = None
    gpus: GpuCount | None = None
    nodes: NodeCount = 1
    precision: DtypeId | None = None
    strategy: Strategy | None = None
    role: Role = "standalone"
    deployment: Id | None = None  # recipes that run together (prefill + decode + router) share this
    env: list[Annotated[EnvSetting, Ref("env_vars", field="name")]] = []  # variables set before it
    env_style: Literal["export", "inline"] = "export"
    docker: DockerSpec | None = None
    flags: list[CommandLine] = []
    shell: list[CommandText] = []  # for kind 'shell': the lines, verbatim
    notes: list[Note] = []
    corrections: list[Correction] = []
    source: SourceId

    @model_validator(mode="after")
    def _shape_matches_kind(self) -> Recipe:
        kind = self.kind
        if kind == "shell":
            if not self.shell or self.flags or self.program:
                raise rule_error("shell", "expected `shell` lines and no program or flags for kind 'shell'")
            return self
        if self.shell:
            raise rule_error(
                "shell", f"got `shell` lines, expected them only for kind 'shell' (kind is '{kind}')"
            )
        expected = {
            "launch": "launch_server",
            "fragment": "launch_server",
            "docker": "launch_server",
            "router": "launch_router",
            "benchmark": "bench_serving",
        }[kind]
        if self.program != expected:
            raise rule_error("program", f"got '{self.program}', expected '{expected}' for kind '{kind}'")
        if (kind == "docker") != (self.docker is not None):
            raise rule_error("docker", f"expected `docker` exactly for kind 'docker' (kind is '{kind}')")
        if not self.flags:
            raise rule_error("flags", f"got no flags, expected at least one for kind '{kind}'")
        return self

    def flag_names(self) -> list[str]:
        return [name for name, _ in flags_in(self.flags)]


# ---------------------------------------------------------------------------------------------- pitfalls etc.
class Scope(Closed):
    models: list[ModelId] = []
    hardware: list[HardwareId] = []
    topics: list[
        Literal["memory", "scheduling", "mamba", "pd", "parsers", "multimodal", "loading", "cache"]
    ] = []


class Pitfall(Closed):
    id: Id
    symptom: Text | None = None
    log: NonEmpty | None = None  # the log line, verbatim, when the symptom is one
    cause: Text
    fix: Text
    flags: list[FlagRef] = []
    env: list[VariableName] = []
    scope: Scope = Scope()
    troubleshooting: bool = True  # listed in chapter 08's troubleshooting table
    rules: Rules = []
    source: SourceId

    @model_validator(mode="after")
    def _symptom_or_log(self) -> Pitfall:
        if self.symptom is None and self.log is None:
            raise rule_error("symptom", "got nothing, expected a symptom, a log line, or both")
        return self


class EnvVar(Closed):
    name: EnvName
    purpose: Text
    # none: nothing the site knows of reads it (SGLang 0.5.23 does not); unknown: no source names a reader
    read_by: Literal["sglang", "aiter", "rocm", "huggingface", "none", "unknown"]
    example: NonEmpty | None = None
    in_appendix: bool = True
    rules: Rules = []
    source: SourceId
    field_sources: dict[str, SourceId] = {}

    @model_validator(mode="after")
    def _field_sources(self) -> EnvVar:
        _check_field_sources(self)
        return self


class PromMetric(Closed):
    name: Annotated[str, StringConstraints(pattern=r"^[a-z_:][a-z0-9_:]*$")]
    meaning: Text
    source: SourceId


class LogField(Closed):
    name: NonEmpty
    meaning: Text
    healthy: Text | None = None


class LogLine(Closed):
    id: Id
    title: Text
    example: NonEmpty
    fields: list[LogField] = []
    source: SourceId


class Band(Closed):
    """A range of a log value with its verdict, e.g. available_gpu_mem 5–8 GB → fine."""

    low: float | None
    high: float | None
    unit: NonEmpty
    verdict: Text
    action: Text
    flags: list[FlagRef] = []

    @model_validator(mode="after")
    def _ordered(self) -> Band:
        if self.low is None and self.high is None:
            raise rule_error("low", "got neither low nor high, expected one or both")
        if self.low is not None and self.high is not None and self.low >= self.high:
            raise rule_error("high", f"got {self.high}, expected more than low ({self.low})")
        return self


class Signal(Closed):
    # names a signal that other data reads (the production pack's alerts: handbook.calc.thresholds)
    id: Id | None = None
    condition: Text
    action: Text
    flags: list[FlagRef] = []


class ObservabilityFile(Closed):
    log_lines: list[LogLine] = Field(min_length=1)
    available_gpu_mem_bands: list[Band] = Field(min_length=1)
    signals: list[Signal] = []
    metrics: list[PromMetric] = Field(min_length=1)
    source: SourceId

    @model_validator(mode="after")
    def _bands_do_not_overlap(self) -> ObservabilityFile:
        def span(band: Band) -> tuple[float, float]:
            low = float("-inf") if band.low is None else band.low
            return low, float("inf") if band.high is None else band.high

        spans = sorted((span(b), i) for i, b in enumerate(self.available_gpu_mem_bands))
        for ((_, high), _), ((low, _), i) in itertools.pairwise(spans):
            if low < high:
                raise rule_error(
                    f"available_gpu_mem_bands[{i}].low", f"got {low}, expected no overlap (below {high})"
                )
        return self


class TuningMetric(Closed):
    name: NonEmpty
    definition: Text
    driven_by: Text


class TuningStep(Closed):
    title: Text
    items: list[Text] = Field(min_length=1)
    rules: Rules = []
    flags: list[FlagRef] = []


class Scenario(Closed):
    id: Id
    name: Text
    flags: list[FlagLineRef] = []
    extra: Text | None = None  # settings that are not a single flag, e.g. "EAGLE/MTP"
    reason: Text
    rules: Rules = []
    corrections: list[Correction] = []


class StartupTip(Closed):
    flags: FlagLineRef | None = None
    action: Text | None = None
    explanation: Text
    rules: Rules = []  # the engine's verdict on what the explanation claims

    @model_validator(mode="after")
    def _flag_or_action(self) -> StartupTip:
        if (self.flags is None) == (self.action is None):
            raise rule_error("flags", "expected either a flag line or an action, not both or neither")
        return self


class TuningFile(Closed):
    metrics: list[TuningMetric] = Field(min_length=1)
    steps: list[TuningStep] = Field(min_length=1)
    scenarios: list[Scenario] = Field(min_length=1)
    startup: list[StartupTip] = Field(min_length=1)
    source: SourceId


# ---------------------------------------------------------------------------------------------- structure
class AttentionFamily(Closed):
    id: Id
    name: NonEmpty
    # How chapter 01's table names the family, e.g. 线性注意力 GDN / Linear attention: GDN
    label: Text
    representatives: Text
    models: list[ModelId] = []
    flags: list[FlagLineRef] = []
    flags_note: Text | None = None
    rules: Rules = []
    source: SourceId


class PathStage(Closed):
    number: Stage
    name: Text
    steps: Text
    flags: list[FlagRef] = []


class LatencyShare(Closed):
    metric: Label
    stages: list[Stage] = Field(min_length=1)
    text: Text


class Component(Closed):
    id: Id
    name: NonEmpty
    replicas: NonEmpty | None = None
    duties: list[Text] = Field(min_length=1)
    link_to_next: NonEmpty | None = None


class ArchitectureFile(Closed):
    components: list[Component] = Field(min_length=2)
    stages: list[PathStage] = Field(min_length=7, max_length=7)
    latency: list[LatencyShare] = Field(min_length=1)
    source: SourceId

    @model_validator(mode="after")
    def _stages_numbered(self) -> ArchitectureFile:
        numbers = [s.number for s in self.stages]
        if numbers != list(range(1, 8)):
            raise rule_error("stages", f"got numbers {numbers}, expected 1..7 in order")
        return self


class GpuRole(Closed):
    attention: Literal["tp", "dp"]
    experts: Literal["tp", "ep"]


class Topology(Closed):
    id: Id
    letter: Literal["A", "B", "C", "D"]
    name: NonEmpty
    flags: FlagLineRef
    gpus: GpuCount
    layout: GpuRole
    communication: Text
    rules: Rules = []
    source: SourceId


class TopologiesFile(Closed):
    intro: Text
    caption: Text
    # The worked example the pictures use (GQA): its KV heads are split by attention TP.
    example_num_key_value_heads: Heads
    example_routed_experts: ExpertCount | None = None
    shared_expert_premise: Text
    topologies: list[Topology] = Field(min_length=1)
    source: SourceId


class BaselineRow(Closed):
    component: Label
    baseline: Neutral
    note: Text


class HandbookFile(Closed):
    title: Text
    engine: NonEmpty
    engine_version: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+\.\d+$")]
    engine_released: Day
    verified: Day
    baseline: list[BaselineRow] = Field(min_length=1)
    source: SourceId


# ---------------------------------------------------------------------------------------------- claims
class Claim(Closed):
    """A figure the handbook's prose states and the package can compute.

    The page shows the computed figure (``<!-- kb:claim id=… -->``); where the two disagree, ``why``
    must explain it, and the drift list on the appendix page sets them side by side. A ``why`` on a claim
    that agrees is an error too, so the explanations cannot rot.
    """

    id: Id
    quantity: Literal[
        "kv-bytes-per-token",
        "kv-bytes",
        "kv-ratio",
        "kv-with-heads",
        "gqa-group",
        "active-share-range",
        "weights-bytes",
        "hicache-host-bytes",
    ]
    args: dict[str, str | int | float] = {}
    section: Text  # where the handbook states it, e.g. "02 · MLA"
    stated: Label  # the source's figure verbatim, e.g. "2.56 MiB/token" (bilingual when it is a sentence)
    # The stated number(s), as written (their decimals set the rounding tolerance), in ``unit``.
    stated_values: list[Annotated[str, StringConstraints(pattern=r"^\d+(\.\d+)?$")]] = Field(
        min_length=1, max_length=2
    )
    unit: Literal["B", "KiB", "MiB", "GiB", "GB", "x", "1/x", "%"]
    # "~800 GB": compare at the stated number's significant digits instead of its decimals
    approximate: bool = False
    why: Text | None = None
    source: SourceId


class SourceEdit(Closed):
    """A place where the site shows the source's words otherwise than the source wrote them (a figure
    recomputed, a column extended, a value spelled as the site spells it), listed in the appendix's drift
    table so that nothing the source says is changed silently."""

    section: Text  # where the source says it, e.g. "01 · 前沿模型一览"
    stated: Annotated[Label, Quoted()]  # the source's words, as written (or, with lines, what they are)
    published: Label  # what the site shows instead
    why: Text
    # The lines of source/handbook.md the change covers, first and last, where the source's words are too
    # many to quote: a text diagram the site draws as a figure, a table it generates from the KB.
    lines: Annotated[list[count(2000, "lines")], Field(min_length=2, max_length=2)] | None = None
    source: SourceId

    @model_validator(mode="after")
    def _lines_in_order(self) -> SourceEdit:
        if self.lines is not None and self.lines[0] > self.lines[1]:
            raise rule_error("lines", f"got {list(self.lines)}, expected the first line before the last")
        return self


# ---------------------------------------------------------------------------------------------- rules
class EngineSite(Closed):
    """A place in the wheel: ``sglang/srt/arg_groups/moe_hook.py``, the function, the line."""

    file: Annotated[str, StringConstraints(pattern=r"^sglang(_router)?/[A-Za-z0-9_/]+\.py$")]
    function: NonEmpty
    line: count(100_000, "lines")


class EngineBehaviour(Closed):
    """What the pinned engine does when a rule is broken, found by reading the wheel or by a CPU replay."""

    does: Literal["raises", "adjusts", "logs", "nothing"]
    at: EngineSite | None = None  # where it raises, adjusts or logs; for "nothing", where it could have
    raises: NonEmpty | None = None  # the exception type, for "raises"
    adjustment: Text | None = None  # what it changes, for "adjusts" ("sets ep_size to tp_size")
    says: Annotated[NonEmpty | None, Quoted()] = None  # the engine's own message, verbatim
    # What in the wheel carries the behaviour, where ``says`` is not its literal text: the fragments of its
    # code or messages (between "…") that nox -s engine-rule-releases looks for in each stored release.
    found_by: Annotated[NonEmpty | None, Quoted()] = None
    established: Literal["reading", "replay"]  # read in the wheel, or seen in nox -s engine-replay
    note: Text | None = None

    @model_validator(mode="after")
    def _shape(self) -> EngineBehaviour:
        if (self.does == "adjusts") != (self.adjustment is not None):
            raise rule_error(
                "adjustment", f"expected an adjustment exactly when does is 'adjusts' (does is '{self.does}')"
            )
        if (self.does == "raises") != (self.raises is not None):
            raise rule_error(
                "raises", f"expected the exception type exactly when does is 'raises' (does is '{self.does}')"
            )
        if self.does != "nothing" and self.at is None:
            raise rule_error(
                "at", f"got nothing, expected where the engine {self.does} (file, function, line)"
            )
        return self


ReleaseVersion = Annotated[str, StringConstraints(pattern=r"^\d+(?:\.\d+)*(?:\.post\d+)?$")]


class Releases(Closed):
    """The stored releases a rule holds in: for a rule the engine enforces or logs, those whose wheel
    carries ``engine.found_by`` (else ``engine.says``), as ``nox -s engine-rule-releases`` finds them; for
    advice about the command itself (``does: nothing`` with no ``at``), every stored release."""

    first: ReleaseVersion
    last: ReleaseVersion | None = None  # None: through the newest stored release


class StatedRule(Closed):
    """Where the handbook states a rule, its words, and how they compare with what the engine does."""

    where: Text
    says: Annotated[Text, Quoted()]  # the source's words, as it states the rule
    # contradicts: the handbook recommends what the engine refuses
    verdict: Literal["matches", "overstates", "understates", "contradicts"]
    why: Text | None = None

    @model_validator(mode="after")
    def _why(self) -> StatedRule:
        if (self.verdict == "matches") != (self.why is None):
            raise rule_error("why", "expected a why exactly when the verdict is not 'matches'")
        return self


def _filled_in_within(value: Any) -> Any:
    """A predicate's parameter, any shape (the checker types it): a skeleton's placeholder anywhere in it is
    refused here, at its line, before the checker reads it."""
    if PLACEHOLDER in str(value):
        raise rule_error("", UNFILLED)
    return value


class Rule(Closed):
    """A rule the checker applies to commands: a named predicate (handbook/checker/predicates.py) and what
    the engine does about it. Severity follows the engine: raises → error, adjusts → warning; a rule the
    engine does not enforce is the handbook's advice, at the severity ``advice`` gives."""

    id: Id
    program: Program = "launch_server"
    predicate: NonEmpty
    params: dict[str, Annotated[Any, BeforeValidator(_filled_in_within)]] = {}
    message: Text
    explained_at: Annotated[str, StringConstraints(pattern=r"^[0-9a-z][0-9a-z-]*\.md#[a-z0-9][a-z0-9-]*$")]
    engine: EngineBehaviour
    # The releases what ``engine`` says holds in; None: the pinned release only (kb/handbook.yaml).
    releases: Releases | None = None
    advice: Literal["warning", "note"] | None = None
    # Advice about exposure (authentication, code execution, fetched URLs): listed after what refuses to
    # start or will misbehave, before style.
    security: bool = False
    stated: StatedRule | None = None
    # The rule's own examples, the one place they are written (validation and tests/test_checker_rules.py
    # run them): ``example`` breaks the rule on purpose, as typed (`nox -s engine-replay` runs it through
    # the engine when the behaviour is established by replay); ``quotes`` is every value the message quotes
    # for it, as the message shows it; ``holds`` is the same command put right, which must not break it.
    example: Annotated[NonEmpty, Quoted()]
    quotes: dict[
        Annotated[str, StringConstraints(pattern=r"^[a-z_]+$")], Annotated[str, BeforeValidator(filled_in)]
    ] = {}
    holds: Annotated[NonEmpty, Quoted()]
    source: SourceId

    @model_validator(mode="after")
    def _severity(self) -> Rule:
        # The predicate and its params are the checker's: handbook.validation.rules checks them.
        enforced = self.engine.does in ("raises", "adjusts")
        if enforced and self.advice is not None:
            raise rule_error(
                "advice", f"got advice, expected none: the engine {self.engine.does}, so it sets the severity"
            )
        if not enforced and self.advice is None:
            raise rule_error(
                "advice", f"got nothing, expected warning or note: the engine {self.engine.does} about this"
            )
        return self

    @property
    def severity(self) -> Literal["error", "warning", "note"]:
        if self.engine.does == "raises":
            return "error"
        if self.engine.does == "adjusts":
            return "warning"
        assert self.advice is not None
        return self.advice


class ResolvedDefault(Closed):
    """What the engine does with an option the command leaves out, where the parser default is not the answer
    (None or "auto" resolved at start-up): the drift page sets it beside the handbook's stated default."""

    flag: FlagName  # checked against the engine snapshot (handbook.validation)
    program: Program = "launch_server"
    resolves: Text
    at: EngineSite
    established: Literal["reading", "replay"]
    # Whether the figure the source states is one possible outcome of the resolution, or not what the
    # engine resolves by default (the drift page then says the two differ).
    source_figure: Literal["one-outcome", "not-the-default"] = "one-outcome"
    source: SourceId


# ---------------------------------------------------------------------------------------------- wording
class WordingException(Closed):
    """A text that a wording check flags and that is right as it stands, with the reason.

    ``engine-behaviour``: a text with engine-behaviour words (报错, refuses, caps…) and no rule reference
    states no engine behaviour, or one that no rule can hold (the engine's help text, another library);
    ``handbook``: a text that says 手册 / handbook and means this site. An exception that no longer matches
    a flagged text fails validation ("unnecessary exception"), so the list cannot rot."""

    check: Literal["engine-behaviour", "handbook"]
    file: Annotated[str, StringConstraints(pattern=r"^[a-z0-9_./-]+\.yaml$")]  # relative to kb/
    path: NonEmpty  # the field, as problems name it, without the language: parameters[1].meaning
    words: list[NonEmpty] = Field(min_length=1)  # the flagged words it excuses
    why: Text


# ---------------------------------------------------------------------------------------------- glossary
class Term(Closed):
    """One term of the site's vocabulary: the words both languages use for it, and the spellings the site
    does not use in each language (``python -m handbook validate`` finds them in the pages, the KB's texts
    and the site's own wording, tool labels included). File: ``kb/glossary.yaml``; appendix E shows the
    list. Where the source writes a Chinese variant, the site writes the term instead: a recorded change
    (appendix D), one per term."""

    id: Id
    term: Text  # as the pages write it, the one spelling in each language
    avoid: list[NonEmpty] = []  # English variants, matched as whole words and case-sensitively
    avoid_zh: list[NonEmpty] = []  # Chinese variants, matched as written (Latin letters as whole words)
    note: Text | None = None  # when the choice needs a reason (a noun and a verb, a false friend)
