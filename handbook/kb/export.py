"""``kb.json``'s shape: every entity of the KB, as the loader validated it, versioned.

The site writes it beside the pages (handbook.site.exports); its JSON Schema is committed under kb/schema/.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from handbook.core.generated import REGENERATE
from handbook.kb import schema as s
from handbook.kb.loader import KB

SCHEMA_VERSION = 1  # bump when kb.json changes shape in a way its readers must know about
DRAFT = "https://json-schema.org/draft/2020-12/schema"


# ------------------------------------------------------------------------------------------------ kb.json
class Engine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str


class KBExport(BaseModel):
    """The SGLang handbook's knowledge base: every entity of kb/, as the loader validated it."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="SGLang handbook knowledge base")

    schema_version: Literal[1] = Field(description="Changes when kb.json changes shape; see kb.schema.json")
    engine: Engine = Field(description="The SGLang release the handbook is pinned to")
    source_commit: str | None = Field(description="The git commit the site was built from, when known")
    source_modified: bool | None = Field(
        description="Whether kb/ had changes not in source_commit when the site was built (null: unknown)"
    )
    handbook: s.HandbookFile
    sources: dict[str, s.Source]
    dtypes: dict[str, s.Dtype]
    hardware: dict[str, s.Hardware]
    models: dict[str, s.Model]
    attention: dict[str, s.AttentionFamily]
    parameter_groups: dict[str, s.ParameterGroup] = Field(description="By group id, in display order")
    recipes: dict[str, s.Recipe]
    pitfalls: dict[str, s.Pitfall]
    env_vars: dict[str, s.EnvVar]
    observability: s.ObservabilityFile
    tuning: s.TuningFile
    architecture: s.ArchitectureFile
    topologies: s.TopologiesFile
    claims: dict[str, s.Claim]
    rules: dict[str, s.Rule] = Field(description="What the command checker enforces")
    resolved_defaults: list[s.ResolvedDefault]


def export_schema() -> dict[str, Any]:
    """The JSON Schema of kb.json (committed as kb/schema/kb.schema.json, published beside kb.json)."""
    return {
        "$schema": DRAFT,
        "$comment": f"Generated from handbook/kb/export.py by `{REGENERATE}`; do not edit.",
        **KBExport.model_json_schema(mode="serialization"),
    }


def kb_export(kb: KB, commit: str | None, modified: bool | None) -> KBExport:
    return KBExport(
        schema_version=SCHEMA_VERSION,
        engine=Engine(name=kb.handbook.engine, version=kb.handbook.engine_version),
        source_commit=commit,
        source_modified=modified,
        handbook=kb.handbook,
        sources=kb.sources,
        dtypes=kb.dtypes,
        hardware=kb.hardware,
        models=kb.models,
        attention=kb.attention,
        parameter_groups=kb.groups,
        recipes=kb.recipes,
        pitfalls=kb.pitfalls,
        env_vars=kb.env_vars,
        observability=kb.observability,
        tuning=kb.tuning,
        architecture=kb.architecture,
        topologies=kb.topologies,
        claims=kb.claims,
        rules=kb.rules,
        resolved_defaults=kb.resolved_defaults,
    )
