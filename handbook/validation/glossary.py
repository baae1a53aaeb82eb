"""One spelling per term: the English the reader sees does not use a variant kb/glossary.yaml avoids.

What is read: the English pages (docs/en, prose and tables; code blocks, inline code, markers and link
targets left out), every English text of the KB (the glossary itself and the wording exceptions aside;
words quoted from the source, ``⟦…⟧``, are the source's), and the English of the site's own wording
(handbook/core/messages). A variant matches as a whole word (a hyphen or a letter next to it makes another
word), case-sensitively, so that a glossary can avoid "CUDA Graph" and keep "CUDA graph".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from handbook.core.problem import Problem
from handbook.core.quotes import without_quotes
from handbook.kb.loader import KB, KINDS
from handbook.kb.texts import leaves
from handbook.kb.yamlfile import format_path
from handbook.validation.values import catalogue_units

# Kinds whose English is not the site's prose: the glossary names the variants it avoids, an exception
# quotes the words it excuses.
_SKIP = ("glossary", "wording_exceptions")
_INLINE_CODE = re.compile(r"(`+).+?\1")
_MARKER = re.compile(r"<!--.*?-->")
_LINK_TARGET = re.compile(r"\]\([^)]*\)|\{[^}]*\}")  # a link's target, an attribute list or anchor
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _pattern(variant: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(variant)}(?![\w-])")


def variants(kb: KB) -> list[tuple[str, str, re.Pattern[str]]]:
    """(variant, the term's English, its pattern) for every variant the glossary avoids."""
    return [(v, term.term.en, _pattern(v)) for term in kb.glossary.values() for v in term.avoid]


def page_lines(docs_dir: Path) -> Iterator[tuple[str, int, str]]:
    """(file, line, text) of the English pages' prose: what a reader sees as words, not code."""
    root = docs_dir / "en"
    for path in sorted(root.rglob("*.md")):
        rel = f"docs/en/{path.relative_to(root).as_posix()}"
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
            yield rel, number, without_quotes(text)


def _kb_texts(kb: KB) -> Iterator[tuple[str, int, str, str]]:
    """(file, line, field path, text) of every English text of the KB the check reads."""
    for kind in KINDS:
        if kind.name in _SKIP:
            continue
        for entity in kind.entities(getattr(kb, kind.name)):
            origin = kb.origin(entity)
            for leaf in leaves(entity):
                if leaf.lang != "en":
                    continue
                full = origin.path + leaf.path
                yield origin.doc.file, origin.doc.line_of(full), format_path(full), without_quotes(leaf.text)


def _problem(file: str, line: int | None, path: str, variant: str, spelling: str) -> Problem:
    return Problem(file, line, path, f"got '{variant}', expected '{spelling}' (kb/glossary.yaml)")


def glossary_problems(kb: KB, docs_dir: Path | None) -> list[Problem]:
    avoided = variants(kb)
    if not avoided:
        return []
    problems = []
    texts: list[tuple[str, int | None, str, str]] = list(_kb_texts(kb))
    texts += [(u.file, u.line, f"{u.path}.en", u.text) for u in catalogue_units(langs=("en",))]
    if docs_dir is not None:
        texts += [(file, line, "", text) for file, line, text in page_lines(docs_dir)]
    for file, line, path, text in texts:
        for variant, spelling, pattern in avoided:
            if pattern.search(text):
                problems.append(_problem(file, line, path, variant, spelling))
    return problems
