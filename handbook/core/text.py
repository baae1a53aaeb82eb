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


# ------------------------------------------------------------------------------------ invisible characters
# Characters a reader cannot see but a shell, a terminal or a YAML parser acts on: C0 and C1 controls
# (tab, newline and carriage return aside), bidirectional controls (which reorder what is shown: a
# "Trojan Source" command reads differently from what runs) and zero-width or otherwise invisible format
# characters. Listed by code point, not by unicodedata category, so that the set does not move with the
# Python version, and so that the browser's checker builds the very same class from the export.
INVISIBLE_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0000, 0x0008, "control"),
    (0x000B, 0x000C, "control"),
    (0x000E, 0x001F, "control"),
    (0x007F, 0x009F, "control"),
    (0x00AD, 0x00AD, "format"),  # soft hyphen
    (0x034F, 0x034F, "format"),  # combining grapheme joiner
    (0x061C, 0x061C, "bidi"),  # Arabic letter mark
    (0x0600, 0x0605, "format"),
    (0x06DD, 0x06DD, "format"),
    (0x070F, 0x070F, "format"),
    (0x0890, 0x0891, "format"),
    (0x08E2, 0x08E2, "format"),
    (0x115F, 0x1160, "format"),  # Hangul fillers
    (0x17B4, 0x17B5, "format"),
    (0x180B, 0x180F, "format"),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200D, "format"),  # zero-width space, non-joiner, joiner
    (0x200E, 0x200F, "bidi"),  # left-to-right and right-to-left marks
    (0x2028, 0x2029, "format"),  # line and paragraph separators
    (0x202A, 0x202E, "bidi"),  # embeddings and overrides
    (0x2060, 0x2064, "format"),  # word joiner, invisible operators
    (0x2066, 0x2069, "bidi"),  # isolates
    (0x206A, 0x206F, "format"),
    (0x3164, 0x3164, "format"),  # Hangul filler
    (0xFE00, 0xFE0F, "format"),  # variation selectors
    (0xFEFF, 0xFEFF, "format"),  # zero-width no-break space (byte order mark)
    (0xFFA0, 0xFFA0, "format"),
    (0xFFF9, 0xFFFB, "format"),
    (0x110BD, 0x110BD, "format"),
    (0x110CD, 0x110CD, "format"),
    (0x13430, 0x1343F, "format"),
    (0x1BCA0, 0x1BCA3, "format"),
    (0x1D173, 0x1D17A, "format"),
    (0xE0001, 0xE0001, "format"),
    (0xE0020, 0xE007F, "format"),  # tag characters
    (0xE0100, 0xE01EF, "format"),  # variation selectors supplement
)
INVISIBLE = re.compile(
    "[" + "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end, _ in INVISIBLE_RANGES) + "]"
)
_KIND_OF = sorted((start, end, kind) for start, end, kind in INVISIBLE_RANGES)


def invisible_kind(char: str) -> str:
    """``control``, ``bidi`` or ``format`` for a character INVISIBLE matches."""
    point = ord(char)
    return next(kind for start, end, kind in _KIND_OF if start <= point <= end)


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def visible(text: str) -> str:
    """``text`` with every invisible character written out as ``⟨U+202E⟩``: what a message or a page shows
    where it quotes text that holds one (a terminal then neither obeys nor hides it)."""
    return INVISIBLE.sub(lambda m: f"⟨{code_point(m.group(0))}⟩", text)
