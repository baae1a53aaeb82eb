"""Quotations of the source inside the site's own text: ``⟦--tp 4⟧``.

The site states what SGLang 0.5.23 accepts; where a sentence has to repeat what the source wrote and the
engine rejects (a spelling, a value, a combination), the words go between ``⟦`` and ``⟧`` (U+27E6, U+27E7:
characters that need no quoting in YAML or Markdown and appear nowhere else). The value checks
(handbook.validation.values) skip what is inside, and the pages show it visibly as a quotation of the
source, never as a flag to copy. Everything outside the brackets is checked as usual.
"""

from __future__ import annotations

import re

OPEN, CLOSE = "⟦", "⟧"
QUOTE = re.compile(r"⟦[ \t]*(?P<text>[^⟦⟧]*?)[ \t]*⟧")


def split_quotes(text: str) -> list[tuple[bool, str]]:
    """``text`` as (quoted, part) pairs in order; the quoted parts without their brackets."""
    parts: list[tuple[bool, str]] = []
    last = 0
    for match in QUOTE.finditer(text):
        if match.start() > last:
            parts.append((False, text[last : match.start()]))
        parts.append((True, match.group("text")))
        last = match.end()
    if last < len(text) or not parts:
        parts.append((False, text[last:]))
    return parts


def without_quotes(text: str) -> str:
    """``text`` with each quotation replaced by an ellipsis: what the checks read."""
    return QUOTE.sub("…", text)


def plain(text: str) -> str:
    """``text`` with the brackets dropped and the quoted words kept: for plain-text exports."""
    return QUOTE.sub(lambda m: m.group("text"), text)


def quote_problem(text: str) -> str | None:
    """Why a text's quotation brackets are malformed (unclosed, nested, empty), or None."""
    for match in QUOTE.finditer(text):
        if not match.group("text"):
            return f"got an empty quotation, expected {OPEN}the source's words{CLOSE}"
    rest = QUOTE.sub("", text)
    if OPEN in rest or CLOSE in rest:
        stray = OPEN if OPEN in rest else CLOSE
        return f"got a stray {stray}, expected quotations written {OPEN}…{CLOSE} (closed, not nested)"
    return None
