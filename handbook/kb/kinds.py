"""How a kind of KB entity is declared: once, as a field of ``KB`` (handbook.kb.loader).

``models: dict[str, s.Model] = per_file("models/*.yaml", noun="model")`` says everything the package needs
to know about models: where their files are, that the file name is the id, how messages call one, and (from
the annotation) the schema class. The loader's pools and file checks, the reference checks, the roots of the
``source`` walk, kb.json's model (handbook.kb.export) and the JSON Schemas of kb/schema/ are all derived from
these declarations. Three shapes:

- ``document(file)``: one file holding one entity (``handbook.yaml``);
- ``per_file(pattern)``: one entity per file, its id the file name (``models/<id>.yaml``);
- ``listed(file, key)``: entities in a list under ``key`` of one file (``dtypes.yaml: dtypes: [...]``);
  several kinds may share a file (``rules.yaml`` holds rules and resolved defaults).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from handbook.core.text import Closed

_METADATA_KEY = "handbook.kb.kind"

Shape = Literal["document", "per_file", "listed"]


@dataclass(frozen=True, kw_only=True)
class Kind:
    """One pool of the KB: where its entities are stored and how messages name them."""

    pattern: str  # relative to kb/: "handbook.yaml", "models/*.yaml"
    shape: Shape
    list_key: str | None = None  # listed: the key of the file that holds the list
    key: str | None = None  # the field that identifies an entity; None: the file name (per_file) or none
    noun: str | None = None  # one entity, in messages: "model", "attention family"
    export: str | None = None  # its key in kb.json, when not the KB attribute's name
    description: str | None = None  # its description in kb.schema.json
    min_items: int = 1  # listed: how many entries the file must hold (0: the key may be left out)
    order_by: str | None = None  # per_file: a field that orders the pool before the file name
    # Filled in from the declaring field: the KB attribute and the entity's schema class.
    name: str = ""
    schema: type[BaseModel] = BaseModel

    @property
    def keyed(self) -> bool:
        """Whether the pool is a dict by id (else one document, or a plain list)."""
        return self.shape == "per_file" or (self.shape == "listed" and self.key is not None)

    @property
    def where(self) -> str:
        """Where authors find the ids, in messages: ``kb/models/``, ``kb/dtypes.yaml``."""
        return "kb/" + self.pattern.removesuffix("*.yaml")

    @property
    def pool_type(self) -> Any:
        """How the KB (and kb.json) holds the kind: ``X``, ``dict[str, X]`` or ``list[X]``."""
        if self.shape == "document":
            return self.schema
        return dict[str, self.schema] if self.keyed else list[self.schema]  # type: ignore[name-defined]

    @property
    def export_name(self) -> str:
        return self.export or self.name

    @property
    def unique_label(self) -> str:
        """How the duplicate-entry message calls the key: ``pitfall id``, ``variable``."""
        return f"{self.noun} id" if self.key == "id" else str(self.noun)

    def entities(self, pool: Any) -> list[BaseModel]:
        """The entities of a loaded pool (a document that failed to load is None: no entities)."""
        if pool is None:
            return []
        if self.shape == "document":
            return [pool]
        return list(pool.values()) if self.keyed else list(pool)


def _declare(kind: Kind) -> Any:
    per_file = kind.pattern.endswith("/*.yaml") and "*" not in kind.pattern.removesuffix("/*.yaml")
    single = kind.pattern.endswith(".yaml") and "*" not in kind.pattern
    if not (per_file if kind.shape == "per_file" else single):
        expected = "'<folder>/*.yaml'" if kind.shape == "per_file" else "'<name>.yaml'"
        raise TypeError(f"got pattern {kind.pattern!r}, expected {expected} for a {kind.shape} kind")
    return dataclasses.field(metadata={_METADATA_KEY: kind})


def document(file: str, *, description: str | None = None) -> Any:
    """A kind stored as one file holding one entity."""
    return _declare(Kind(pattern=file, shape="document", description=description))


def per_file(
    pattern: str,
    *,
    noun: str,
    key: str | None = "id",
    order_by: str | None = None,
    export: str | None = None,
    description: str | None = None,
) -> Any:
    """A kind stored one entity per file; its id is the file name (and must equal its ``key`` field)."""
    return _declare(
        Kind(
            pattern=pattern,
            shape="per_file",
            noun=noun,
            key=key,
            order_by=order_by,
            export=export,
            description=description,
        )
    )


def listed(
    file: str,
    list_key: str,
    *,
    noun: str | None = None,
    key: str | None = "id",
    min_items: int = 1,
    export: str | None = None,
    description: str | None = None,
) -> Any:
    """A kind stored as a list under ``list_key`` of one file; ``key`` must be unique (None: no id)."""
    if key is not None and noun is None:
        raise TypeError(f"{file}: {list_key}: a listed kind with ids needs a noun for its messages")
    return _declare(
        Kind(
            pattern=file,
            shape="listed",
            list_key=list_key,
            noun=noun,
            key=key,
            min_items=min_items,
            export=export,
            description=description,
        )
    )


def declared(cls: type) -> tuple[Kind, ...]:
    """The kinds a dataclass declares, in field order, with their names and schema classes filled in."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        kind = f.metadata.get(_METADATA_KEY)
        if kind is None:
            continue
        kind = dataclasses.replace(kind, name=f.name, schema=_entity_type(f.name, kind, hints[f.name]))
        if kind.key is not None and kind.key not in kind.schema.model_fields:
            raise TypeError(f"{f.name}: key {kind.key!r} is not a field of {kind.schema.__name__}")
        out.append(kind)
    return tuple(out)


def _entity_type(name: str, kind: Kind, hint: Any) -> type[BaseModel]:
    """``dict[str, X]`` for a keyed pool, ``list[X]`` for a list, ``X`` for a document: X."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if kind.shape == "document":
        expected, entity = "a schema class", hint
    elif kind.keyed:
        expected, entity = "dict[str, <schema class>]", args[1] if origin is dict and args[0] is str else None
    else:
        expected, entity = "list[<schema class>]", args[0] if origin is list else None
    if not (isinstance(entity, type) and issubclass(entity, BaseModel)):
        raise TypeError(f"{name}: got annotation {hint!r}, expected {expected} for a {kind.shape} kind")
    return entity


# ------------------------------------------------------------------------------------------------- files
@dataclass(frozen=True, kw_only=True)
class KBFile:
    """One kind of file in kb/: its pattern, the kinds it holds and the schema it is validated with."""

    pattern: str
    kinds: tuple[Kind, ...]
    schema: type[BaseModel]

    @property
    def per_file(self) -> bool:
        return self.kinds[0].shape == "per_file"

    @property
    def name(self) -> str:
        """``models`` for ``models/*.yaml``, ``dtypes`` for ``dtypes.yaml`` (its JSON Schema's name)."""
        return self.pattern.split("/", 1)[0].removesuffix(".yaml")


def files(kinds: Iterable[Kind]) -> list[KBFile]:
    """The files the kinds are stored in, in the order of the first kind stored in each."""
    by_pattern: dict[str, list[Kind]] = {}
    for kind in kinds:
        by_pattern.setdefault(kind.pattern, []).append(kind)
    out = []
    for pattern, held in by_pattern.items():
        shapes = {k.shape for k in held}
        if len(held) > 1 and shapes != {"listed"}:
            names = ", ".join(k.name for k in held)
            raise TypeError(f"{pattern}: only listed kinds can share a file (got {names})")
        schema = _list_file_model(pattern, held) if shapes == {"listed"} else held[0].schema
        out.append(KBFile(pattern=pattern, kinds=tuple(held), schema=schema))
    return out


def _list_file_model(pattern: str, kinds: list[Kind]) -> type[BaseModel]:
    """The closed model of a file of lists: ``dtypes.yaml`` → ``DtypesFile(dtypes: list[Dtype])``."""
    stem = pattern.removesuffix(".yaml")
    name = "".join(part.title() for part in stem.split("_")) + "File"
    fields: dict[str, Any] = {}
    for kind in kinds:
        item = list[kind.schema]  # type: ignore[name-defined]
        fields[str(kind.list_key)] = (
            (item, Field(min_length=kind.min_items)) if kind.min_items else (item, [])
        )
    model: type[BaseModel] = create_model(name, __base__=Closed, __module__=__name__, **fields)
    return model


# -------------------------------------------------------------------------------------------- references
@dataclass(frozen=True)
class Ref:
    """Marks an id field of a schema: its value names an entity of the KB attribute ``pool``.

    On an entry (a model) rather than a field, ``field`` names the entry's field that holds the id, and
    messages point at the entry: ``env[0]`` for ``env: [{name: X, value: '1'}]``."""

    pool: str
    field: str | None = None


@dataclass(frozen=True)
class FlagUse:
    """Marks a flag field (``--tp-size``) or, with ``line``, a flag line (``--tp-size 8``): each flag in it
    must be documented in kb/parameters/ for the program of the entity that holds it (its nearest
    ``program`` field; launch_server where there is none)."""

    line: bool = False


Marker = Ref | FlagUse
Found = tuple[tuple[str | int, ...], Marker, Any, str]  # (path below the entity, marker, value, program)


def references(model: BaseModel, program: str = "launch_server") -> Iterator[Found]:
    """Every marked value in a model tree: ids that name other entities, flags and flag lines."""
    own = getattr(model, "program", None) if "program" in type(model).model_fields else None
    if isinstance(own, str):
        program = own
    for name, shape in _plan(type(model)):
        yield from _found(shape, getattr(model, name), (name,), program)


def _found(shape: Any, value: Any, path: tuple[str | int, ...], program: str) -> Iterator[Found]:
    if value is None:
        return
    if isinstance(shape, Ref | FlagUse):
        named = getattr(value, shape.field) if isinstance(shape, Ref) and shape.field else value
        yield path, shape, named, program
        return
    what, inner = shape
    if what == "list" and isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _found(inner, item, (*path, i), program)
    elif what == "dict" and isinstance(value, dict):
        for key, item in value.items():
            yield from _found(inner, item, (*path, key), program)
    elif what == "model" and isinstance(value, inner):
        for sub, marker, found, prog in references(value, program):
            yield (*path, *sub), marker, found, prog


_PLANS: dict[type[BaseModel], tuple[tuple[str, Any], ...]] = {}


def _plan(model: type[BaseModel]) -> tuple[tuple[str, Any], ...]:
    """The fields of a schema class that hold marked values, with where in them the markers are."""
    if model not in _PLANS:
        _PLANS[model] = ()  # a model that contains itself finds nothing more on the way down
        found = ((name, _shape(f.annotation, tuple(f.metadata))) for name, f in model.model_fields.items())
        _PLANS[model] = tuple((name, shape) for name, shape in found if shape is not None)
    return _PLANS[model]


def _shape(annotation: Any, metadata: tuple[Any, ...] = ()) -> Any:
    """Where markers sit in a type: a marker, ("list"|"dict"|"model", inner), or None for nowhere."""
    for item in metadata:
        if isinstance(item, Ref | FlagUse):
            return item
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _shape(args[0], (*metadata, *annotation.__metadata__))
    if origin in (list, tuple):
        inner = _shape(args[0]) if args else None
        return None if inner is None else ("list", inner)
    if origin is dict:
        inner = _shape(args[1]) if len(args) == 2 else None
        return None if inner is None else ("dict", inner)
    if origin in (typing.Union, types.UnionType):
        branches = [b for b in (_shape(arg) for arg in args) if b is not None]
        if len(branches) > 1:  # which branch a value took is not known here: mark the union as a whole
            raise TypeError(f"{annotation}: got references in several branches, expected them in one at most")
        return branches[0] if branches else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("model", annotation) if _plan(annotation) else None
    return None


def markers(model: type[BaseModel]) -> Iterator[Marker]:
    """Every marker a schema class (and the classes in it) uses, to check them against the kinds."""
    for _, shape in _plan(model):
        yield from _markers_in(shape)


def _markers_in(shape: Any) -> Iterator[Marker]:
    if isinstance(shape, Ref | FlagUse):
        yield shape
        return
    what, inner = shape
    yield from markers(inner) if what == "model" else _markers_in(inner)
