"""The source's text (source/handbook.md) as the pieces a reader compares: sentences, table cells and command
lines, each with its line, and the normalized form they are compared in.

The silent-change test (tests/test_silent_changes.py) looks for every piece in the built Chinese pages; a
piece the site does not show as its own words must be held by a recorded change (the appendix's table).
Normalizing drops what only formats a text (Markdown emphasis and code marks, links' targets, white space,
line continuations), so a sentence the site renders as a table cell, a list item or a command split one flag
per line still matches.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_FORMAT = re.compile(r"\*\*|(?<!\w)\*|\*(?!\w)|`|\\")
_SPACE = re.compile(r"[\s\u200b]+")
_TABLE_RULE = re.compile(r"^\|\s*:?-")
_LEAD = re.compile(r"^(#+|>|-|\d+\.)\s+")
_BOLD_LABEL = re.compile(r"^\*\*([^*]+)\*\*[：:]")  # "**注意**：…" is a label, then a sentence
_SENTENCE_END = re.compile(r"(?<=[。；！？])")
_TRAILING = "。；，：:"
_SHORTEST = 2  # characters, normalized: a shorter piece says nothing on its own
# Where one block of the site's text ends and the next begins (a paragraph, a cell, a list item, a line of
# code): the built pages' text is joined with it, so that a sentence is found only as a whole.
BLOCK = "\ue000"
# A piece is shown as the site's own words only where it stands whole: what precedes and follows it is a
# block's edge or the end of a sentence (or a label's colon), never more words of the same sentence, so a
# clause added to a source sentence ("…专用（--tp-size 须是 8 的倍数）") is a change.
_BEFORE = BLOCK + "。；！？.;!?：:"
_AFTER = BLOCK + "。；！？.;!?：:"


def normalize(text: str) -> str:
    """``text`` as it is compared: Markdown marks, link targets, entities and white space taken out."""
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _FORMAT.sub("", html.unescape(text))
    return _SPACE.sub("", text)


def shown_whole(key: str, shown: str) -> bool:
    """Whether ``key`` stands in ``shown`` as a whole sentence or block (see ``_BEFORE``)."""
    at = shown.find(key)
    while at >= 0:
        end = at + len(key)
        if (at == 0 or shown[at - 1] in _BEFORE) and (end == len(shown) or shown[end] in _AFTER):
            return True
        at = shown.find(key, at + 1)
    return False


@dataclass(frozen=True)
class Piece:
    line: int  # in source/handbook.md, from 1
    text: str  # as the source writes it
    key: str  # normalized
    code: bool  # a line of a code block (a command), not prose


def _prose_parts(line: str) -> list[str]:
    if line.startswith("|"):
        cells = [part for cell in line.strip("|").split("|") for part in cell.split("<br>")]
    else:
        cells = [_BOLD_LABEL.sub(r"\1\n", _LEAD.sub("", line))]
    return [
        sentence for cell in cells for piece in cell.split("\n") for sentence in _SENTENCE_END.split(piece)
    ]


def pieces(source: str) -> Iterator[Piece]:
    """Every sentence, table cell and command line of the source, in order. Left out: the comments that
    mark a generated section, table rules, horizontal rules, images (the site draws its own figures) and
    comment lines inside code blocks (a command's title)."""
    fence = False
    for number, raw in enumerate(source.splitlines(), 1):
        line = raw.strip()
        if line.startswith("```"):
            fence = not fence
            continue
        if not line or line.startswith("<!--") or line == "---" or _TABLE_RULE.match(line):
            continue
        if fence:
            if line.startswith("#"):
                continue
            parts, code = [line], True
        elif line.startswith("!["):
            continue
        else:
            parts, code = _prose_parts(line), False
        for part in parts:
            key = normalize(part).rstrip(_TRAILING)
            if len(key) >= _SHORTEST:
                yield Piece(number, part.strip(), key, code)


@dataclass(frozen=True)
class Recorded:
    """What a recorded change says the source wrote: its words (normalized), or the lines it covers."""

    words: str
    lines: tuple[int, int] | None = None


_TREE = re.compile(r"^[\s│├└─┌┐┘┬┴┼·]+")  # the branches a text tree is drawn with
_COLUMNS = re.compile(r"\s{2,}")


def cells(piece: Piece) -> list[str]:
    """A line of a text diagram (a code block laid out in columns, or a tree drawn with branches) as the
    parts a page shows as a table's cells or a list's items: branches dropped, split at runs of blanks."""
    if not piece.code:
        return []
    text = _TREE.sub("", piece.text)
    parts = [normalize(part).rstrip(_TRAILING) for part in _COLUMNS.split(text.strip())]
    return [part for part in parts if part] if text != piece.text or len(parts) > 1 else []


_FLAG_START = re.compile(r"\s+(?=--)")


def flag_groups(piece: Piece) -> list[str]:
    """A command line as its program and its flags, each with its value: the site writes a command one
    flag per line, so a line of the source is compared flag by flag (a recorded correction holds a flag)."""
    if not piece.code:
        return []
    groups = [normalize(group) for group in _FLAG_START.split(piece.text.strip())]
    return [group for group in groups if group]


Terms = Sequence[tuple[re.Pattern[str], str]]  # the glossary's variants (as patterns) and their terms


def held(piece: Piece, shown: str, recorded: Sequence[Recorded], terms: Terms = ()) -> bool:
    """Whether the site shows ``piece`` (``shown``: the site's own words, normalized), or a recorded change
    holds it: its lines include the piece's, its stated words contain the piece, or the piece contains them
    and the rest of it is shown unchanged. A line of a text table or tree is shown when each of its cells is
    (the site draws such diagrams as tables and lists). With ``terms``, a piece is also shown when it is
    once each variant the glossary avoids is written as its term."""
    if shown_whole(piece.key, shown):
        return True

    def spelled(text: str) -> str:  # the glossary's spelling for each variant the source writes
        for variant, term in terms:
            text = variant.sub(term, text)
        return text

    if shown_whole(spelled(piece.key), shown):
        return True
    parts = [spelled(part) for part in cells(piece)]
    if parts and all(shown_whole(part, shown) for part in parts):
        return True
    changed = [change.words for change in recorded if change.words]
    groups = flag_groups(piece)
    if len(groups) > 1 and all(g in shown or any(g in words for words in changed) for g in groups):
        return True
    for change in recorded:
        if change.lines is not None and change.lines[0] <= piece.line <= change.lines[1]:
            return True
        stated = change.words
        if not stated:
            continue
        if piece.key in stated:
            return True
        if stated in piece.key:
            rest = [part.strip(_TRAILING) for part in piece.key.split(stated)]
            if all(len(part) < _SHORTEST or part in shown for part in rest):  # the rest unchanged
                return True
    return False
