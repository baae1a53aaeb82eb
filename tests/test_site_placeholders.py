"""No page of the built site, in either language, shows text that was meant to be filled in or read by the
build: a template field ({value}), a variable placeholder (<var>), argparse's internal ==SUPPRESS==, a page
marker (<!-- kb:…), the KB's quotation brackets ⟦…⟧ or a scaffold's <fill in>. The engine's own help texts,
quoted verbatim on the option reference, are set aside: braces there are SGLang's (``{tenant}`` in a URL)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

pytestmark = pytest.mark.site

# What a reader must never see, as it appears in the page's visible text.
LEFTOVERS = {
    "a template field": re.compile(r"(?<![$\w])\{[a-z][a-z0-9_]*\}"),  # not a shell ${var}
    "argparse's SUPPRESS": re.compile(r"==SUPPRESS=="),
    "a page marker": re.compile(r"<!--\s*kb:"),
    "a quotation bracket": re.compile(r"[⟦⟧]"),
    "a scaffold placeholder": re.compile(r"<fill in>"),
}


class _Visible(HTMLParser):
    """The text a reader sees (scripts and styles aside), and every <var> element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.vars: list[str] = []
        self._skip = 0
        self._in_var = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("script", "style", "template"):
            self._skip += 1
        elif tag == "var":
            self._in_var = True
            self.vars.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template"):
            self._skip -= 1
        elif tag == "var":
            self._in_var = False

    def handle_comment(self, data: str) -> None:
        if re.match(r"\s*kb:", data):  # a marker the build left as a comment is still a leftover
            self.text.append(f"<!--{data}-->")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.text.append(data)
        if self._in_var:
            self.vars[-1] += data


def engine_help_texts() -> list[str]:
    """Every help text of the pinned engine's options (quoted verbatim on the option reference)."""
    snapshot = load_snapshot(load_kb().handbook.engine_version)
    texts = {o.help for parser in snapshot.parsers.values() for o in parser.options if o.help}
    return sorted(texts, key=len, reverse=True)


def leftovers(html: str, verbatim: list[str] = ()) -> list[str]:
    """Each leftover in a page's HTML, as ``kind: …context…``; ``verbatim`` texts are not scanned."""
    parser = _Visible()
    parser.feed(html)
    text = "".join(parser.text)
    for quoted in verbatim:
        if "{" in quoted:
            text = text.replace(quoted, " ")
    found = [f"a variable placeholder: <var>{v}</var>" for v in parser.vars]
    for kind, pattern in LEFTOVERS.items():
        for match in pattern.finditer(text):
            context = text[max(0, match.start() - 60) : match.end() + 40].replace("\n", " ")
            found.append(f"{kind}: …{context}…")
    return found


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_scan_finds_each_kind_of_leftover():
    page = (
        "<p>chunked_prefill_size {value} ÷ <var>attn_dp</var></p><td><code>==SUPPRESS==</code></td>"
        "<p>&lt;!-- kb:recipe id=x --&gt;</p><!-- kb:fact model=x --><p>⟦--tp⟧ &lt;fill in&gt;</p>"
        '<script>var m = {"k": "{tp}"}</script><pre>--host ${local_ip}</pre>'
    )
    kinds = sorted({f.split(":")[0] for f in leftovers(page)})
    assert kinds == [
        "a page marker",
        "a quotation bracket",
        "a scaffold placeholder",
        "a template field",
        "a variable placeholder",
        "argparse's SUPPRESS",
    ]
    assert len([f for f in leftovers(page) if f.startswith("a page marker")]) == 2
    fields = [f for f in leftovers(page) if f.startswith("a template field")]
    assert len(fields) == 1 and "{value}" in fields[0]  # a script's data and a shell's ${…} are not text
    quoted = "format {name} {name}"
    assert leftovers(f"<td>{quoted}</td>") and not leftovers(f"<td>{quoted}</td>", [quoted])


def test_no_built_page_shows_a_placeholder_or_an_internal_marker(built_site):
    pages = _pages(built_site)
    assert len([p for p in pages if "/en/" in p.as_posix()]) >= 18  # both languages are scanned
    verbatim = engine_help_texts()
    problems = []
    for path in pages:
        for found in leftovers(path.read_text(encoding="utf-8"), verbatim):
            problems.append(f"{path.relative_to(built_site)}: {found}")
    assert problems == []


@pytest.mark.parametrize("name", ["llms.txt", "llms-full.txt"])
def test_the_text_exports_show_no_placeholder_either(built_site, name):
    text = (built_site / name).read_text(encoding="utf-8")
    found = [f"{kind}: {m.group(0)}" for kind, pattern in LEFTOVERS.items() for m in pattern.finditer(text)]
    assert found == []
