"""A figure: its DOT source, caption and alt text in each language, and where its SVGs live."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from handbook.core.text import LANGS
from handbook.diagrams import GENERATOR_VERSION
from handbook.kb.common import FlagLine, flags_in
from handbook.kb.loader import KB


@dataclass(frozen=True)
class Drawing:
    """One language of a figure."""

    dot: str
    caption: str
    alt: str


@dataclass(frozen=True)
class Figure:
    id: str
    source: str  # the kb/ file(s) it is drawn from, for people reading a freshness report
    folder: str  # under assets/; the en SVG goes into its en/ subfolder
    stem: str
    drawings: dict[str, Drawing]

    def path(self, lang: str) -> str:
        """The SVG's path relative to the repository root (also its path in the built site)."""
        folder = "" if lang == LANGS[0] else f"{lang}/"  # the default language at the root, as the site
        return f"assets/{self.folder}/{folder}{self.stem}.svg"

    def source_hash(self, lang: str) -> str:
        return source_hash(self.drawings[lang].dot)


def source_hash(dot: str) -> str:
    """What a committed SVG is checked against: the DOT text and the generator version."""
    return hashlib.sha256(f"handbook.diagrams {GENERATOR_VERSION}\n{dot}".encode()).hexdigest()


def flags_of(
    kb: KB, lines: list[str | FlagLine], program: str = "launch_server"
) -> list[tuple[str, list[str]]]:
    """``(flag, values)`` of command lines, each flag spelled canonically (``--tp`` → ``--tp-size``)."""
    out = []
    for name, values in flags_in(lines):
        parameter = kb.parameter(name, program)
        out.append((parameter.flag if parameter else name, values))
    return out
