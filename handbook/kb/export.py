"""``kb.json``'s shape: every entity of the KB, as the loader validated it, versioned.

Its model is derived from the kinds the KB declares (handbook.kb.loader.KB): a header, then each kind under
its export name, in declaration order.

The site writes it beside the pages (handbook.site.exports); its JSON Schema is committed under kb/schema/.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from handbook.core.generated import REGENERATE
from handbook.kb.loader import KB, KINDS

SCHEMA_VERSION = 1  # bump when kb.json changes shape in a way its readers must know about
DRAFT = "https://json-schema.org/draft/2020-12/schema"


# ------------------------------------------------------------------------------------------------ kb.json
class Engine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str


class _Header(BaseModel):
    """What kb.json says about itself, before the KB's entities."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="SGLang handbook knowledge base")

    schema_version: Literal[1] = Field(description="Changes when kb.json changes shape; see kb.schema.json")
    engine: Engine = Field(description="The SGLang release the handbook is pinned to")
    source_commit: str | None = Field(description="The git commit the site was built from, when known")
    source_modified: bool | None = Field(
        description="Whether kb/ had changes not in source_commit when the site was built (null: unknown)"
    )


# Then every kind of the KB, in KB's declaration order, under its export name (handbook.kb.loader.KB).
KBExport: type[_Header] = create_model(
    "KBExport",
    __base__=_Header,
    __module__=__name__,
    __doc__="The SGLang handbook's knowledge base: every entity of kb/, as the loader validated it.",
    **{kind.export_name: (kind.pool_type, Field(description=kind.description)) for kind in KINDS},
)


def export_schema() -> dict[str, Any]:
    """The JSON Schema of kb.json (committed as kb/schema/kb.schema.json, published beside kb.json)."""
    return {
        "$schema": DRAFT,
        "$comment": f"Generated from handbook/kb/export.py by `{REGENERATE}`; do not edit.",
        **KBExport.model_json_schema(mode="serialization"),
    }


def kb_export(kb: KB, commit: str | None, modified: bool | None) -> _Header:
    return KBExport(
        schema_version=SCHEMA_VERSION,
        engine=Engine(name=kb.handbook.engine, version=kb.handbook.engine_version),
        source_commit=commit,
        source_modified=modified,
        **{kind.export_name: getattr(kb, kind.name) for kind in KINDS},
    )
