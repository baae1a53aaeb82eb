"""Translation parity: both languages have the same headings, in the same order and level, with the same ids.

Checked twice: on the source pages (``{ #id }`` anchors of h1–h4, with file:line messages for writers) and on
the built pages (the ids of h1–h4 after rendering, which also covers headings that markers produce). A page
missing in one language is the site preflight's finding (``missing_translations``); both checks
here skip such pages rather than report them twice.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from handbook.core.markdown import code_lines
from handbook.core.problem import Problem
from handbook.core.text import LANGS

# h1–h4 carry the deep-link anchors (the docs guide's rule); deeper headings are not compared.
LEVELS = range(1, 5)
_ATX = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)[ \t]*$")
_ANCHOR = re.compile(r"[ \t]*\{[^}]*?#(?P<id>[^\s}]+)[^}]*\}[ \t]*$")
_CLOSING_HASHES = re.compile(r"[ \t]+#+$")


@dataclass(frozen=True)
class Heading:
    level: int
    anchor: str | None
    text: str
    line: int  # 1-based in the source; 0 for built pages


def source_headings(markdown: str) -> list[Heading]:
    """The h1–h4 ATX headings of a page outside code blocks, with their explicit ``{ #id }`` anchors."""
    code = code_lines(markdown)
    headings = []
    for number, line in enumerate(markdown.splitlines()):
        match = _ATX.match(line)
        if number in code or not match or len(match.group("hashes")) not in LEVELS:
            continue
        text = match.group("text")
        anchor = _ANCHOR.search(text)
        if anchor:
            text = text[: anchor.start()]
        text = _CLOSING_HASHES.sub("", text).strip()
        headings.append(
            Heading(len(match.group("hashes")), anchor.group("id") if anchor else None, text, number + 1)
        )
    return headings


class _HeadingIds(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headings: list[Heading] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit() and int(tag[1]) in LEVELS:
            anchor = dict(attrs).get("id")
            self.headings.append(Heading(int(tag[1]), anchor, "", self.getpos()[0]))


def built_headings(html: str) -> list[Heading]:
    parser = _HeadingIds()
    parser.feed(html)
    parser.close()
    return parser.headings


def compare(first: list[Heading], second: list[Heading], first_name: str, second_name: str) -> list[Problem]:
    """Where two pages' heading outlines differ, as messages naming each side's file and line."""

    def at(name: str, heading: Heading) -> str:
        return f"{name}:{heading.line}" if heading.line else name

    def problem(name: str, heading: Heading | None, message: str) -> Problem:
        return Problem(name, heading.line if heading is not None and heading.line else None, "", message)

    def label(heading: Heading) -> str:
        return f"h{heading.level} #{heading.anchor}"

    problems: list[Problem] = []
    for name, headings in ((first_name, first), (second_name, second)):
        seen: dict[str, Heading] = {}
        for heading in headings:
            if heading.anchor is None:
                shown = f' "{heading.text}"' if heading.text else ""
                problems.append(
                    problem(
                        name,
                        heading,
                        f"h{heading.level}{shown} has no explicit anchor "
                        "(add { #id }, the same in both languages)",
                    )
                )
            elif heading.anchor in seen:
                problems.append(
                    problem(
                        name,
                        heading,
                        f"anchor #{heading.anchor} is used twice (first at line {seen[heading.anchor].line})",
                    )
                )
            else:
                seen[heading.anchor] = heading
    if problems:
        return problems  # the outlines can only be aligned once every heading has a unique anchor

    a, b = [h.anchor for h in first], [h.anchor for h in second]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            for x, y in zip(first[i1:i2], second[j1:j2], strict=True):
                if x.level != y.level:
                    where = at(first_name, x)
                    problems.append(
                        problem(second_name, y, f"#{y.anchor} is h{y.level}, but h{x.level} in {where}")
                    )
            continue
        for x in first[i1:i2]:
            if x.anchor in b:  # present in both, elsewhere: reported once, from this side
                here, there = b.index(x.anchor), a.index(x.anchor)
                problems.append(
                    problem(
                        second_name,
                        second[here],
                        f"{label(second[here])} is out of order "
                        f"(heading {here + 1} here, heading {there + 1} in {at(first_name, x)})",
                    )
                )
            else:
                problems.append(
                    problem(second_name, None, f"{label(x)} is missing ({at(first_name, x)} has it)")
                )
        for y in second[j1:j2]:
            if y.anchor not in a:
                problems.append(
                    problem(first_name, None, f"{label(y)} is missing ({at(second_name, y)} has it)")
                )
    return problems


def page_pairs(docs_dir: Path, langs: tuple[str, str]) -> list[str]:
    """Pages (relative to a language folder) that exist in both languages."""
    first, second = (
        {p.relative_to(docs_dir / lang).as_posix() for p in (docs_dir / lang).rglob("*.md")} for lang in langs
    )
    return sorted(first & second)


def source_parity(docs_dir: Path, langs: tuple[str, str] = LANGS) -> list[Problem]:
    """Heading-outline differences between the two languages' source pages (missing pages are skipped)."""
    problems: list[Problem] = []
    for page in page_pairs(docs_dir, langs):
        outlines = [source_headings((docs_dir / lang / page).read_text(encoding="utf-8")) for lang in langs]
        names = [f"docs/{lang}/{page}" for lang in langs]
        problems += compare(outlines[0], outlines[1], names[0], names[1])
    return problems


def built_pages(site_dir: Path, langs: tuple[str, str]) -> dict[str, dict[str, Path]]:
    """Built HTML pages by language: the default language at the root, the others in their folder."""
    default, other = langs
    pages: dict[str, dict[str, Path]] = {default: {}, other: {}}
    for path in site_dir.rglob("*.html"):
        rel = path.relative_to(site_dir).as_posix()
        if rel.startswith(f"{other}/"):
            pages[other][rel.removeprefix(f"{other}/")] = path
        elif rel.split("/", 1)[0] not in ("assets", "search") and rel != "404.html":
            pages[default][rel] = path
    return pages


def built_parity(site_dir: Path, langs: tuple[str, str] = LANGS) -> list[Problem]:
    """The same comparison on the built pages' h1–h4 ids; a page built in one language only is reported."""
    pages = built_pages(site_dir, langs)
    default, other = langs
    problems: list[Problem] = []
    for rel in sorted(set(pages[default]) | set(pages[other])):
        names = [rel, f"{other}/{rel}"]
        if rel not in pages[other] or rel not in pages[default]:
            have, lack = (names[0], names[1]) if rel in pages[default] else (names[1], names[0])
            problems.append(Problem(lack, None, "", f"not built, but {have} is"))
            continue
        outlines = [built_headings(pages[lang][rel].read_text(encoding="utf-8")) for lang in langs]
        problems += compare(outlines[0], outlines[1], names[0], names[1])
    return problems
