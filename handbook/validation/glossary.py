"""One spelling per term, in both languages: what the reader sees does not use a variant kb/glossary.yaml
avoids (``avoid`` for English, ``avoid_zh`` for Chinese).

What is read, in each language: the pages (docs/<lang>, prose and tables; code blocks, inline code, markers
and link targets left out), every text of the KB (the glossary itself and the wording exceptions aside),
and the site's own wording (handbook/core/messages), which holds every label of the planner, the
configurator and the doctor. Words that are someone else's are not read: quoted from the source (``⟦…⟧``),
or in double quotation marks (an engine's log line, a page title). A variant matches case-sensitively and,
where it has Latin letters at an edge, as a whole word there (a letter, digit, ``_`` or ``-`` next to it
makes another word: ``--attn-dp-size`` is not ``attn-dp``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from handbook.core.problem import Problem
from handbook.core.quotes import without_quotes
from handbook.core.text import LANGS
from handbook.core.words import whole
from handbook.kb.loader import KB, KINDS
from handbook.kb.texts import leaves
from handbook.kb.yamlfile import format_path
from handbook.validation.values import catalogue_units

# Kinds whose text is not the site's prose: the glossary names the variants it avoids, an exception
# quotes the words it excuses.
_SKIP = ("glossary", "wording_exceptions")
_INLINE_CODE = re.compile(r"(`+).+?\1")
_MARKER = re.compile(r"<!--.*?-->")
_LINK_TARGET = re.compile(r"\]\([^)]*\)|\{[^}]*\}")  # a link's target, an attribute list or anchor
_HTML_ATTRIBUTE = re.compile(r'\b[a-z-]+="[^"]*"')  # raw HTML on a page: its attributes are not read
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”')  # someone else's words: a log line, a title
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def avoided(term: object, lang: str) -> list[str]:
    """The variants of a term the site does not write in ``lang``."""
    return list(term.avoid if lang == "en" else term.avoid_zh)  # type: ignore[attr-defined]


def variants(kb: KB, lang: str = "en") -> list[tuple[str, str, re.Pattern[str]]]:
    """(variant, the term in ``lang``, its pattern) for every variant the glossary avoids in ``lang``."""
    return [(v, term.term[lang], whole(v)) for term in kb.glossary.values() for v in avoided(term, lang)]


def readable(text: str) -> str:
    """What the check reads of a text: without the source's quoted words and double-quoted spans."""
    return _QUOTED.sub(" ", without_quotes(text))


def page_lines(docs_dir: Path, lang: str = "en") -> Iterator[tuple[str, int, str]]:
    """(file, line, text) of one language's pages: what a reader sees as words, not code."""
    root = docs_dir / lang
    for path in sorted(root.rglob("*.md")):
        rel = f"docs/{lang}/{path.relative_to(root).as_posix()}"
        fence: str | None = None
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            opened = _FENCE.match(line)
            if opened:
                mark = opened.group(1)
                if fence is None:
                    fence = mark[0] * len(mark)
                elif mark.startswith(fence):
                    fence = None
                continue
            if fence is not None:
                continue
            text = _LINK_TARGET.sub(" ", _MARKER.sub(" ", _INLINE_CODE.sub(" ", line)))
            yield rel, number, readable(_HTML_ATTRIBUTE.sub(" ", text))


def _kb_texts(kb: KB, lang: str) -> Iterator[tuple[str, int, str, str]]:
    """(file, line, field path, text) of every text of the KB the check reads, in ``lang``."""
    for kind in KINDS:
        if kind.name in _SKIP:
            continue
        for entity in kind.entities(getattr(kb, kind.name)):
            origin = kb.origin(entity)
            for leaf in leaves(entity):
                if leaf.lang != lang:
                    continue
                full = origin.path + leaf.path
                yield origin.doc.file, origin.doc.line_of(full), format_path(full), readable(leaf.text)


def _problem(file: str, line: int | None, path: str, variant: str, spelling: str) -> Problem:
    return Problem(file, line, path, f"got '{variant}', expected '{spelling}' (kb/glossary.yaml)")


def glossary_problems(kb: KB, docs_dir: Path | None, langs: tuple[str, ...] = LANGS) -> list[Problem]:
    problems = []
    for lang in langs:
        avoided_here = variants(kb, lang)
        if not avoided_here:
            continue
        texts: list[tuple[str, int | None, str, str]] = list(_kb_texts(kb, lang))
        texts += [
            (u.file, u.line, f"{u.path}.{lang}", readable(u.text))
            for u in catalogue_units(langs=(lang,), own_cli=True)
        ]
        if docs_dir is not None:
            texts += [(file, line, "", text) for file, line, text in page_lines(docs_dir, lang)]
        for file, line, path, text in texts:
            for variant, spelling, pattern in avoided_here:
                if pattern.search(text):
                    problems.append(_problem(file, line, path, variant, spelling))
    return problems
