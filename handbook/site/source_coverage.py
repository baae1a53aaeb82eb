"""The source against the built site: which of its sentences, cells and command lines the Chinese pages do
not show as the site's own words, and no recorded change holds (handbook/render/changes.py).

The site's own words are the text of the home page and chapters 00–09, without what quotes the source on
purpose: a quotation (``⟦…⟧``, shown as ``<q class="src-quote">``), the line under a changed command and
appendix D itself (its rows repeat what the source said). Every block (a paragraph, a
cell, a list item, a line of code, the engine's note after a sentence) is kept apart, so a sentence counts
as shown only where it stands whole.
"""

from __future__ import annotations

import re
from pathlib import Path

from handbook.core.paths import DOCS_DIR, SOURCE_TEXT
from handbook.core.text import LANGS
from handbook.core.words import whole
from handbook.kb.loader import KB
from handbook.pages.source_text import BLOCK, Piece, Recorded, held, normalize, pieces
from handbook.render.changes import recorded_changes
from handbook.render.context import RenderContext

_NOT_OWN_WORDS = re.compile(
    r'<q class="src-quote".*?</q>(<sup class="src-quote-mark">.*?</sup>)?'
    r'|<p class="cmd-correction">.*?</p>'
    r'|<a class="headerlink".*?</a>'
    r"|<script.*?</script>",
    re.S,
)
_BLOCK_TAG = re.compile(
    r"</?(p|td|th|li|tr|h[1-6]|pre|div|br|table|blockquote|figcaption|summary|details|ul|ol|label)\b[^>]*>"
)
_TAG = re.compile(r"<[^>]+>")


def chapter_pages(docs_dir: Path = DOCS_DIR) -> list[str]:
    """The pages that carry the source's text: the home page and the chapters (00–09)."""
    chapters = sorted(p.name for p in (docs_dir / LANGS[0]).glob("[0-9][0-9]-*.md"))
    return ["index.md", *chapters]


def built_html(site: Path, page: str) -> str:
    stem = page.removesuffix(".md")
    return (site / ("index.html" if stem == "index" else f"{stem}/index.html")).read_text(encoding="utf-8")


_NOTE = re.compile(r'<span class="engine-note"|<span\b|</span>')


def without_notes(html: str) -> str:
    """``html`` with every engine note (an element that may hold spans of its own) replaced by ``BLOCK``."""
    out, depth, last = [], 0, 0
    for match in _NOTE.finditer(html):
        tag = match.group(0)
        if depth == 0:
            if tag == '<span class="engine-note"':
                out.append(html[last : match.start()] + BLOCK)
                depth = 1
            continue
        depth += -1 if tag == "</span>" else 1
        if depth == 0:
            last = match.end()
    return "".join(out) + html[last:]


def without_appendix_d(article: str) -> str:
    """A page's article without appendix D's section (its rows repeat what the source said)."""
    drift = article.find('id="drift"')
    if drift < 0:
        return article
    start = article.rfind("<h2", 0, drift)
    after = article.find("<h2", drift)
    return article[:start] + (article[after:] if after >= 0 else "")


def own_words(html: str) -> str:
    """One built page's own words, normalized, its blocks separated by ``BLOCK``."""
    start, end = html.find("<article"), html.find("</article>")
    article = without_appendix_d(html[start:end] if start >= 0 else html)
    article = without_notes(_NOT_OWN_WORDS.sub(BLOCK, article))
    text = _TAG.sub("", _BLOCK_TAG.sub(BLOCK, article))
    return "".join(normalize(line) + BLOCK for line in text.split("\n"))


def recorded(kb: KB) -> list[Recorded]:
    """What every recorded change says the source wrote, and the figures the site computes that agree."""
    ctx = RenderContext(kb, LANGS[0], "09-appendix.md")
    out = [Recorded(normalize(c.source_words), c.source_lines) for c in recorded_changes(ctx)]
    # A figure the site computes and that agrees with the source's is shown in the site's format.
    out += [
        Recorded(normalize(c.stated if isinstance(c.stated, str) else c.stated.zh))
        for c in kb.claims.values()
    ]
    return out


def unheld(site: Path, kb: KB, source: Path = SOURCE_TEXT, docs_dir: Path = DOCS_DIR) -> list[Piece]:
    """Every piece of the source that the built site neither shows nor records as changed."""
    shown = BLOCK.join(own_words(built_html(site, page)) for page in chapter_pages(docs_dir))
    changes = recorded(kb)
    terms = [(whole(normalize(v)), normalize(t.term.zh)) for t in kb.glossary.values() for v in t.avoid_zh]
    return [p for p in pieces(source.read_text(encoding="utf-8")) if not held(p, shown, changes, terms)]
