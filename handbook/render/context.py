"""What a renderer knows: the KB, the page's language and location, and how to link and escape."""

from __future__ import annotations

import functools
import html
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from handbook.checker.cache import CheckCache
from handbook.checker.findings import Finding
from handbook.core.anchors import ENV_PAGE, PARAMETERS_PAGE, env_anchor, page_url, parameter_anchor
from handbook.core.messages import msg
from handbook.core.paths import BENCH_RECORD, DOCS_DIR
from handbook.core.quotes import split_quotes
from handbook.core.text import LANGS, Text, visible
from handbook.diagrams.figure import Figure
from handbook.engine.snapshot import EngineSnapshot, load_snapshot
from handbook.kb.loader import KB
from handbook.kb.schema import Parameter

_FLAG_IN_TEXT = re.compile(r"(?<![\w-])(--[a-z0-9][a-z0-9_-]*)")
# Quoted words shown as code: a flag, a module, a value spelled with _ - . or = (prose stays prose)
_CODE_LIKE = re.compile(r"--|\w[_.=-]\w|^[\w.-]+$")

# Markdown metacharacters become entities too, so escaped text stays literal in Markdown contexts
# (lists, admonitions, tab labels) as well as in raw HTML blocks.
_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "&<>\"'*_`[]\\|{}#~^:"})


T = TypeVar("T")

# argparse.SUPPRESS as a snapshot records a default: the parser sets no attribute unless the option is given.
ARGPARSE_SUPPRESS = "==SUPPRESS=="


def attr(value: Any) -> str:
    """A value inside a double-quoted HTML attribute (URLs keep their # and :); a character no reader sees
    is written out as ⟨U+…⟩ (the KB refuses them; an engine's help text might still hold one)."""
    return html.escape(visible(str(value)), quote=True)


def esc(text: Any) -> str:
    """Text shown literally wherever a renderer puts it: HTML and Markdown syntax are both neutralised, and
    a character no reader sees is written out as ⟨U+…⟩."""
    return visible(str(text)).translate(_ENTITIES)


@dataclass
class RenderContext:
    kb: KB
    lang: str
    page: str  # e.g. "02-memory.md"
    snapshot: EngineSnapshot | None = None  # loaded on first use by the renderers that need the engine
    docs_dir: Path = DOCS_DIR  # the pages, for renderers that read them (the translations' status)
    bench_record: Path = BENCH_RECORD  # the benchmark figures the benchmarks page shows
    command_status: bool = False  # a line under each command: what the pinned engine says of it
    # each recipe's findings against the pinned engine, checked once for the whole build (else per page)
    recipe_findings: Mapping[str, list[Finding]] | None = None
    # the figures drawn once for the whole build, and the problems of those that cannot be (else per page)
    drawn: tuple[dict[str, Figure], tuple[str, ...]] | None = None
    # results that do not depend on the page or its language, computed once for the whole build (the
    # Site's store; without one, once per context)
    build_store: dict[str, Any] | None = None
    # the engine checks kept by content across builds (handbook.checker.cache); None: check each time
    checks: CheckCache | None = None

    def once(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, or what it gave for ``key`` earlier in this build."""
        if self.build_store is None:
            return compute()
        if key not in self.build_store:
            self.build_store[key] = compute()
        return self.build_store[key]

    def engine_value(self, shown: str) -> str:
        """An engine option's default (or other value) as code, already shown as text; argparse's SUPPRESS
        is said in words, never shown as a value to type."""
        if shown == ARGPARSE_SUPPRESS:
            return esc(self.msg("engine-default-suppressed"))
        return f"<code>{esc(shown)}</code>"

    def engine(self) -> EngineSnapshot:
        """The pinned engine snapshot, loaded on first use."""
        if self.snapshot is None:
            self.snapshot = load_snapshot(self.kb.handbook.engine_version)
        return self.snapshot

    # ----------------------------------------------------------------------------------- language
    def t(self, value: Text | str | None) -> str:
        """The page's language of a bilingual value (plain strings read the same in both)."""
        if value is None:
            return ""
        return value if isinstance(value, str) else value[self.lang]

    def msg(self, key: str, /, **values: object) -> str:
        """The site's own wording (handbook.core.messages), in the page's language."""
        return msg(key, self.lang, **values)

    # ----------------------------------------------------------------------------------- links
    def href(self, page: str, anchor: str = "") -> str:
        """A relative link from this page to ``page#anchor`` (works for every language folder)."""
        fragment = f"#{anchor}" if anchor else ""
        if page == self.page:
            return fragment or "./"
        target = "/" + page_url(page)
        rel = posixpath.relpath(target, "/" + page_url(self.page))
        if target.endswith("/"):
            rel += "/"
        return rel + fragment

    def asset(self, path: str) -> str:
        """A relative URL from this page to a file at the site's root (shared by both languages)."""
        depth = page_url(self.page).count("/") + (1 if self.lang != LANGS[0] else 0)
        return "../" * depth + path

    def parameter_link(self, parameter: Parameter, label: str | None = None) -> str:
        anchor = parameter_anchor(parameter.program, parameter.flag)
        url = attr(self.href(PARAMETERS_PAGE, anchor))
        return f'<a href="{url}"><code>{esc(label or parameter.flag)}</code></a>'

    def flag_html(self, flag: str, program: str | None = None) -> str:
        """``--flag`` as code, linked to its parameter entry when the KB documents it."""
        programs = [program] if program else ["launch_server", "launch_router", "bench_serving"]
        for prog in programs:
            p = self.kb.parameter(flag, prog)
            if p is not None:
                return self.parameter_link(p, flag)
        return f"<code>{esc(flag)}</code>"

    def env_html(self, name: str) -> str:
        if name in self.kb.env_vars:
            return f'<a href="{attr(self.href(ENV_PAGE, env_anchor(name)))}"><code>{esc(name)}</code></a>'
        return f"<code>{esc(name)}</code>"

    # ----------------------------------------------------------------------------------- text
    def text_html(self, value: Text | str | None, program: str | None = None) -> str:
        """A KB string as HTML: everything escaped; flags and known variables become linked code, and a
        quotation of the source (``⟦…⟧``) is shown as one, unlinked."""
        return "".join(
            self.source_quote(part) if quoted else self._linked(part, program)
            for quoted, part in split_quotes(self.t(value))
        )

    def source_quote(self, words: str) -> str:
        """The source's words, marked visibly as a quotation (never a flag to copy)."""
        title = attr(self.msg("quote-source-title"))
        mark = esc(self.msg("quote-source-mark"))
        shown = f"<code>{esc(words)}</code>" if _CODE_LIKE.search(words) else esc(words)
        quoted = f'<q class="src-quote" title="{title}">{shown}</q>'
        return quoted + f'<sup class="src-quote-mark">{mark}</sup>'

    def _linked(self, raw: str, program: str | None) -> str:
        out, last = [], 0
        for match in self._token_pattern().finditer(raw):
            out.append(esc(raw[last : match.start()]))
            token = match.group(0)
            out.append(self.env_html(token) if token in self.kb.env_vars else self.flag_html(token, program))
            last = match.end()
        out.append(esc(raw[last:]))
        return "".join(out)

    def _token_pattern(self) -> re.Pattern[str]:
        return _token_pattern(tuple(self.kb.env_vars))


@functools.cache
def _token_pattern(env_names: tuple[str, ...]) -> re.Pattern[str]:
    """Flags and the KB's variable names, longest names first (compiled once per set of names)."""
    envs = "|".join(map(re.escape, sorted(env_names, key=len, reverse=True)))
    return re.compile(_FLAG_IN_TEXT.pattern + (rf"|(?<![\w])(?:{envs})(?![\w])" if envs else ""))
