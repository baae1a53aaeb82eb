"""Small builders for the HTML and Markdown that renderers emit. Cells are HTML already escaped by callers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from handbook.core.formatting import parser_value
from handbook.render.context import attr, esc

_CODE = re.compile(r"<code>([^<]*)</code>")
LONG_CODE = 30  # characters (escaped): shorter code spans stay on one line whatever they hold


def _wrappable(match: re.Match[str]) -> str:
    """A code span of several words (a flag with its value, a file path) that may wrap between its words
    and after a path's slashes, never inside a flag at its hyphens: each word stays whole."""
    text = match.group(1)
    if len(text) <= LONG_CODE or (" " not in text and "/" not in text):
        return match.group(0)
    words = [word.replace("/", "/<wbr>") for word in text.split(" ")]
    return '<code class="words">' + " ".join(f"<span>{w}</span>" for w in words) + "</code>"


def wrappable_code(html: str) -> str:
    """Every code span of a table cell made wrappable between its words (see ``_wrappable``)."""
    return _CODE.sub(_wrappable, html)


def parser_value_code(value: object) -> str:
    return f"<code>{esc(parser_value(value))}</code>"


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    numeric: Sequence[int] = (),
    row_ids: Sequence[str | None] | None = None,
    caption: str | None = None,
    widths: Sequence[str] | None = None,
) -> str:
    """An HTML table (one raw block, no blank lines). ``numeric`` columns are right-aligned; ``widths``
    (CSS widths, one per column) tell the browser which column gets the room."""
    if not rows:
        raise ValueError("a generated table needs at least one row")

    def cell(tag: str, i: int, content: str) -> str:
        align = ' style="text-align: right"' if i in numeric else ""
        return f"<{tag}{align}>{wrappable_code(content)}</{tag}>"

    out = ["<table>"]
    if caption:
        out.append(f"<caption>{caption}</caption>")
    if widths is not None:
        if len(widths) != len(headers):
            raise ValueError(f"{len(widths)} widths for {len(headers)} columns")
        out.append("<colgroup>" + "".join(f'<col style="width: {attr(w)}">' for w in widths) + "</colgroup>")
    out.append("<thead><tr>" + "".join(cell("th", i, h) for i, h in enumerate(headers)) + "</tr></thead>")
    out.append("<tbody>")
    for n, row in enumerate(rows):
        if len(row) != len(headers):
            raise ValueError(f"row {n} has {len(row)} cells, the table {len(headers)} columns")
        rid = row_ids[n] if row_ids else None
        id_attr = f' id="{attr(rid)}"' if rid else ""
        out.append(f"<tr{id_attr}>" + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def change(said: str, published: str) -> str:
    """One cell for what the source says and what is published instead: the two stacked, with an arrow
    (one column instead of two keeps the drift tables within the page)."""
    return f"{said}<br>→ {published}"


def fence(code: str, lang: str = "bash") -> str:
    """A fenced code block that stays one block whatever backticks the code holds."""
    longest = max((len(run) for run in code.split("\n") for run in _backtick_runs(run)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{code}\n{ticks}"


def _backtick_runs(line: str) -> list[str]:
    runs, current = [], ""
    for ch in line:
        if ch == "`":
            current += ch
        elif current:
            runs.append(current)
            current = ""
    if current:
        runs.append(current)
    return runs


def admonition(kind: str, title: str, body: str) -> str:
    """A Material admonition; ``body`` is Markdown, indented into it."""
    inner = "\n".join(("    " + line) if line.strip() else "" for line in body.strip("\n").splitlines())
    return f'!!! {kind} "{title}"\n\n{inner}'


def tabs(items: Sequence[tuple[str, str]]) -> str:
    """pymdownx.tabbed content tabs: (label, markdown body) pairs. A label is plain text (a KB title): it is
    escaped here, since pymdownx reads it as inline Markdown, where HTML passes through."""
    out = []
    for label, body in items:
        inner = "\n".join(("    " + line) if line.strip() else "" for line in body.strip("\n").splitlines())
        out.append(f'=== "{esc(label)}"\n\n{inner}\n')
    return "\n".join(out)


def bullet_list(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items)
