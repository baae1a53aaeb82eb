"""The site's two languages and its one bilingual text type.

``Text`` is a value in both languages. Read from the KB it is validated (both present, no Chinese in the
English); built by the package at run time (``Text.of``) it is taken as given, since its parts may quote
what a reader typed.
"""

from __future__ import annotations

import re
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

LANGS: tuple[Literal["zh"], Literal["en"]] = ("zh", "en")  # the default language first
Lang = Literal["zh", "en"]

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

# The longest string a KB field may hold: three times the longest prose the KB has (about 800 characters).
TEXT_MAX = 2500

# What `python -m handbook new` writes where the contributor must write something; never valid data.
PLACEHOLDER = "<fill in>"
UNFILLED = f"got the placeholder '{PLACEHOLDER}', expected a real value (fill in this field)"


def has_han(text: str) -> bool:
    """Whether ``text`` holds Chinese characters."""
    return _HAN.search(text) is not None


def _unfilled() -> PydanticCustomError:
    return PydanticCustomError("kb_rule", UNFILLED, {"at": ""})


def _holds_placeholder(value: object) -> bool:
    return isinstance(value, str) and PLACEHOLDER in value


def filled_in(value: object) -> object:
    if _holds_placeholder(value):
        raise _unfilled()
    return value


class Closed(BaseModel):
    """Every KB model rejects unknown keys (a typo is an error, not silently ignored data) and takes values
    as written: no text read as a number, no true read as 1, no infinity, no text longer than TEXT_MAX."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        validate_default=True,
        strict=True,
        allow_inf_nan=False,
        str_max_length=TEXT_MAX,
    )

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


NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1), BeforeValidator(filled_in)]


def _english(value: str) -> str:
    if has_han(value):
        raise ValueError("English text, without Chinese characters (translation missing?)")
    return value


class Text(Closed):
    """One human-readable value in both languages; both are required and non-empty."""

    zh: NonEmpty
    en: Annotated[NonEmpty, AfterValidator(_english)]

    @classmethod
    def of(cls, zh: str, en: str) -> Text:
        """Wording the package composes at run time (it may quote what a reader typed): not validated."""
        return cls.model_construct(zh=zh, en=en)

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGS:
            raise KeyError(lang)
        return getattr(self, lang)


def _neutral(value: str) -> str:
    if has_han(value):
        raise ValueError("language-neutral text such as a name or a version; prose needs {zh: …, en: …}")
    return value


# A name, version or other string that reads the same in both languages.
Neutral = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1),
    AfterValidator(_neutral),
    BeforeValidator(filled_in),
]

Label = Neutral | Text  # a plain string where both languages read the same, else {zh, en}


def in_lang(label: str | Text, lang: str) -> str:
    return label if isinstance(label, str) else label[lang]
