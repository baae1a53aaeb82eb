"""Building blocks shared by every schema: closed models, bilingual text, ids, flag lines."""

from __future__ import annotations

import re
import shlex
from datetime import date
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ModelWrapValidatorHandler,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

LANGS = ("zh", "en")
Lang = Literal["zh", "en"]

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


# What `python -m handbook new` writes where the contributor must write something; never valid data.
PLACEHOLDER = "<fill in>"
UNFILLED = f"got the placeholder '{PLACEHOLDER}', expected a real value (fill in this field)"


def _unfilled() -> PydanticCustomError:
    return PydanticCustomError("kb_rule", UNFILLED, {"at": ""})


def _holds_placeholder(value: object) -> bool:
    return isinstance(value, str) and PLACEHOLDER in value


def _filled_in(value: object) -> object:
    if _holds_placeholder(value):
        raise _unfilled()
    return value


class Closed(BaseModel):
    """Every KB model rejects unknown keys: a typo is an error, not silently ignored data."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    @model_validator(mode="wrap")
    @classmethod
    def _placeholder_is_unfilled(cls, data: object, handler: ModelWrapValidatorHandler) -> Closed:
        """A placeholder left in a number, a choice or a nested entry reads "fill in this field" too."""
        try:
            return handler(data)
        except ValidationError as exc:
            errors = exc.errors()
            if not any(_holds_placeholder(e.get("input")) for e in errors):
                raise
            details = [
                {
                    "type": _unfilled()
                    if _holds_placeholder(e.get("input"))
                    else PydanticCustomError(e["type"], e["msg"], e.get("ctx")),
                    "loc": e["loc"],
                    "input": e.get("input"),
                }
                for e in errors
            ]
            raise ValidationError.from_exception_data(exc.title, details) from None


NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1), BeforeValidator(_filled_in)]
Id = Annotated[
    str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80), BeforeValidator(_filled_in)
]
SourceId = Id
Day = date


def _english(value: str) -> str:
    if _HAN.search(value):
        raise ValueError("English text, without Chinese characters (translation missing?)")
    return value


def _neutral(value: str) -> str:
    if _HAN.search(value):
        raise ValueError("language-neutral text such as a name or a version; prose needs {zh: …, en: …}")
    return value


# A name, version or other string that reads the same in both languages.
Neutral = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1),
    AfterValidator(_neutral),
    BeforeValidator(_filled_in),
]


class Text(Closed):
    """One human-readable value in both languages; both are required and non-empty."""

    zh: NonEmpty
    en: Annotated[NonEmpty, AfterValidator(_english)]

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGS:
            raise KeyError(lang)
        return getattr(self, lang)


Label = Neutral | Text  # a plain string where both languages read the same, else {zh, en}


def in_lang(label: str | Text, lang: str) -> str:
    return label if isinstance(label, str) else label[lang]


_FLAG = re.compile(r"^--[a-z0-9][a-z0-9_-]*$")


def flag_name(token: str) -> str | None:
    """``--tp-size=4`` → ``--tp-size``; anything not shaped like a long option → None."""
    name = token.split("=", 1)[0]
    return name if _FLAG.match(name) else None


def _flag_line(value: str) -> str:
    try:
        tokens = shlex.split(value)
    except ValueError as exc:
        raise ValueError(f"a shell-quoted flag line ({exc})") from None
    if not tokens or flag_name(tokens[0]) is None:
        raise ValueError("a line that starts with a long flag such as '--tp-size 8'")
    return value


FlagLineText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=3),
    AfterValidator(_flag_line),
    BeforeValidator(_filled_in),
]


class FlagLine(Closed):
    """One line of a command as a person types it, with an optional bilingual end-of-line comment."""

    line: FlagLineText
    note: Text | None = None


def flag_line_text(item: str | FlagLine) -> str:
    return item.line if isinstance(item, FlagLine) else item


def flags_in(lines: list[str | FlagLine]) -> list[tuple[str, list[str]]]:
    """Every ``(flag, values)`` in command lines, in order (``--a=1`` and ``--a 1`` alike)."""
    out: list[tuple[str, list[str]]] = []
    for item in lines:
        for token in shlex.split(flag_line_text(item)):
            name = flag_name(token)
            if name is not None:
                out.append((name, [token.split("=", 1)[1]] if "=" in token else []))
            elif out:
                out[-1][1].append(token)
    return out


class Cited(Closed):
    """A fact with the id of the source that backs it."""

    source: SourceId


def rule_error(at: str, message: str) -> PydanticCustomError:
    """A cross-field rule broken at ``at`` (a dotted path below the model), for an exact file:line."""
    return PydanticCustomError("kb_rule", message, {"at": at})
