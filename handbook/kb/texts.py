"""Every string of a KB entity, found by walking its schema: what the value and wording checks read.

Nothing here lists fields by hand. The walk visits every field of every model (Text gives its zh and en
parts), and two markers on the schema say what a string is:

- ``Quoted()``: the field holds, by construction, words of the source or of the engine that the site
  quotes and does not stand behind (a correction's ``stated``, a rule's ``stated.says`` and ``example``, a
  parameter's ``abbreviations``). The walk skips it: a quotation may be wrong on purpose.
- ``ValueOf(flag)``: the field is a value of that flag (a model's ``parsers.tool_call``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from handbook.core.text import LANGS, Text


@dataclass(frozen=True)
class Quoted:
    """Marks a field whose words are the source's (or an engine's), quoted as written: never checked."""


@dataclass(frozen=True)
class ValueOf:
    """Marks a field that holds a value of ``flag`` (for the entity's program)."""

    flag: str


@dataclass(frozen=True)
class Leaf:
    """One string of an entity: where (its path below the entity), the models that hold it (the entity
    first, the innermost last), its language (``zh``/``en`` for a Text part, None for a plain string), and
    the flag it is a value of, if the schema says so."""

    path: tuple[str | int, ...]
    text: str
    owners: tuple[BaseModel, ...]
    lang: str | None = None
    value_of: str | None = None

    @property
    def field(self) -> str:
        """The name of the field that holds the string (``meaning`` for ``parameters[2].meaning.zh``)."""
        names = [p for p in self.path if isinstance(p, str) and p not in LANGS]
        return names[-1] if names else ""


def leaves(model: BaseModel) -> Iterator[Leaf]:
    """Every string in ``model`` and the models inside it, except those of ``Quoted`` fields."""
    yield from _walk(model, (), (model,))


def _walk(model: BaseModel, path: tuple[str | int, ...], owners: tuple[BaseModel, ...]) -> Iterator[Leaf]:
    for name, info in type(model).model_fields.items():
        if any(isinstance(m, Quoted) for m in info.metadata):
            continue
        value_of = next((m.flag for m in info.metadata if isinstance(m, ValueOf)), None)
        yield from _value(getattr(model, name), (*path, name), owners, value_of)


def _value(
    value: Any, path: tuple[str | int, ...], owners: tuple[BaseModel, ...], value_of: str | None
) -> Iterator[Leaf]:
    if isinstance(value, str):
        yield Leaf(path, value, owners, None, value_of)
    elif isinstance(value, Text):
        held = owners if type(value) is Text else (*owners, value)  # a Text with more fields (a Note) owns it
        for lang in LANGS:
            yield Leaf((*path, lang), value[lang], held, lang, value_of)
    elif isinstance(value, BaseModel):
        yield from _walk(value, path, (*owners, value))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _value(item, (*path, i), owners, value_of)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _value(item, (*path, key), owners, value_of)
