"""Shared pieces of every figure's DOT: fonts, colours, HTML-like labels, wording, and errors."""

from __future__ import annotations

import html
import math
import unicodedata

import graphviz

from handbook.core.messages import msg

# dot measures text with the first of these it finds (fontconfig); the SVG keeps the whole list as its
# font-family, so a browser without the measuring font still picks a CJK font for Chinese labels.
FONT = "Noto Sans CJK SC,PingFang SC,Microsoft YaHei,WenQuanYi Micro Hei,sans-serif"

COLOURS = {
    "ink": "#1f2937",
    "muted": "#4b5563",
    "line": "#6b7280",
    "header": "#334155",
    "attention": "#dbeafe",
    "attention-line": "#2563eb",
    "kv": "#dcfce7",
    "experts": "#ffedd5",
    "experts-line": "#c2410c",
    "shared": "#f3f4f6",
    "process": "#ede9fe",
    "client": "#f9fafb",
    "weights": "#93c5fd",
    "kv-pool": "#86efac",
    "rest": "#fcd34d",
}


class DiagramError(Exception):
    """The data cannot be drawn truthfully; ``problems`` says where and why, one ``file:line: …`` each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def sentences(lang: str, parts: list[str]) -> str:
    """Sentences run on without a space in Chinese, with one in English."""
    return msg("sep-sentence", lang).join(parts)


def h(text: object) -> str:
    """Text inside an HTML-like graphviz label."""
    return html.escape(str(text), quote=False)


def rows(*lines: str) -> str:
    """Already-escaped lines, each left-aligned (graphviz aligns a line by the <BR/> that ends it)."""
    return "".join(f'{line}<BR ALIGN="LEFT"/>' for line in lines)


def bold(text: str) -> str:
    return f"<B>{text}</B>"


def small(text: str, colour: str = COLOURS["muted"]) -> str:
    return f'<FONT POINT-SIZE="10" COLOR="{colour}">{text}</FONT>'


def width_em(text: str) -> float:
    """A conservative width estimate in ems: wide (CJK) characters count 1, others 0.6."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in text)


def wrap(text: str, max_em: float) -> list[str]:
    """Break ``text`` into lines no wider than ``max_em``: at spaces, or between CJK characters."""
    out: list[str] = []
    line = ""
    for piece in _pieces(text):
        if line and width_em(line + piece) > max_em:
            out.append(line.rstrip())
            piece = piece.lstrip()
            line = ""
        line += piece
    if line.strip():
        out.append(line.rstrip())
    return out


def _pieces(text: str) -> list[str]:
    """Words with their following space, and single CJK characters (each a possible break point)."""
    pieces: list[str] = []
    word = ""
    for c in text:
        wide = unicodedata.east_asian_width(c) in "WF"
        if wide or c == " ":
            if c == " ":
                word += c
                pieces.append(word)
                word = ""
                continue
            if word:
                pieces.append(word)
                word = ""
            if pieces and unicodedata.category(c).startswith("P"):
                pieces[-1] += c  # keep CJK punctuation off the start of a line
            else:
                pieces.append(c)
        else:
            word += c
    if word:
        pieces.append(word)
    return pieces


def text_cell(
    lines: list[str],
    colour: str,
    *,
    bold_first: bool = False,
    small_rest: bool = False,
    align: str = "LEFT",
    padding: int = 6,
    size: int = 12,
    font_colour: str | None = None,
    extra: str = "",
) -> str:
    """A <TD> of lines (plain text, escaped here) at least as wide as a conservative estimate of its widest
    line: browsers draw some fonts a little wider than graphviz measures them, and nothing may spill."""
    sizes = [size if (i == 0 or not small_rest) else size - 2 for i in range(len(lines))]
    boldness = [1.2 if (i == 0 and bold_first) else 1.0 for i in range(len(lines))]
    widest = max(width_em(line) * pt * b for line, pt, b in zip(lines, sizes, boldness, strict=True))
    parts = []
    for i, line in enumerate(lines):
        text = bold(h(line)) if i == 0 and bold_first else h(line)
        if sizes[i] < size:  # the small print under a title
            text = f'<FONT POINT-SIZE="{sizes[i]}" COLOR="{COLOURS["muted"]}">{text}</FONT>'
        parts.append(f'{text}<BR ALIGN="{align}"/>')
    body = "".join(parts)
    if size != 12:
        body = f'<FONT POINT-SIZE="{size}">{body}</FONT>'
    if font_colour:
        body = f'<FONT COLOR="{font_colour}">{body}</FONT>'
    width = math.ceil(widest) + 2 * padding
    place = f'ALIGN="{align}" BALIGN="{align}" CELLPADDING="{padding}" WIDTH="{width}"'
    return f'<TD BGCOLOR="{colour}" {place}{extra}>{body}</TD>'


def edge_label(text: str, colour: str = COLOURS["muted"]) -> str:
    """An edge's label, sized like a cell (see text_cell) so the picture leaves room for it."""
    cell = text_cell([text], "transparent", align="CENTER", padding=2, size=10, font_colour=colour)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0"><TR>{cell}</TR></TABLE>>'


def client_label(lang: str) -> str:
    """The client box of the architecture and PD figures."""
    cell = text_cell([msg("fig-client", lang)], COLOURS["client"], bold_first=True, align="CENTER", padding=8)
    return f'<<TABLE BORDER="1" STYLE="rounded" CELLBORDER="0">{"<TR>" + cell + "</TR>"}</TABLE>>'


def new_graph(name: str, title: str, subtitle: str | None = None, **graph_attr: str) -> graphviz.Digraph:
    """A figure with the project's fonts and colours; ``title``/``subtitle`` are already escaped."""
    label = f'<FONT POINT-SIZE="15">{bold(title)}</FONT>'
    if subtitle:
        label += f'<BR/><FONT POINT-SIZE="11" COLOR="{COLOURS["muted"]}">{subtitle}</FONT>'
    attrs = {
        "label": f"<{label}>",
        "labelloc": "t",
        "fontname": FONT,
        "fontcolor": COLOURS["ink"],
        "bgcolor": "white",
        "pad": "0.25",
        "nodesep": "0.25",
        "ranksep": "0.45",
        "newrank": "true",
    }
    attrs.update(graph_attr)
    return graphviz.Digraph(
        name=name,
        graph_attr=attrs,
        node_attr={"fontname": FONT, "fontsize": "12", "fontcolor": COLOURS["ink"], "shape": "plain"},
        edge_attr={"fontname": FONT, "fontsize": "10", "color": COLOURS["line"], "arrowsize": "0.7"},
    )
